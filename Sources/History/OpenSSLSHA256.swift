#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import COpenSSL
import Pasteboard

/// SHA-256, as 64 lowercase hexadecimal digits: the key of a thumbnail of an inline picture, and
/// the name of a file in histories written before files were named without hashing (which a repair
/// keeps). OpenSSL's (linked for KDE Connect already; `COpenSSL/digest.c`), which uses the CPU's SHA
/// instructions: this is only the Swift side of it.
enum OpenSSLSHA256 {
    /// What one update hashes at a time.
    static let chunkSize = 256 << 10

    /// The digest of `data`.
    static func hex(_ data: Data) throws -> String {
        let context = try Context()
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = min(chunkSize, raw.count - offset)
                try context.update(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + count]))
                offset += count
            }
        }
        return try context.finish()
    }

    /// One digest in progress (OpenSSL's context, freed when done or dropped).
    final class Context {
        private var context: OpaquePointer?

        init() throws {
            guard let context = kc_sha256_begin() else { throw PasteboardError(.io, "SHA-256: out of memory") }
            self.context = context
        }

        deinit { if let context { kc_sha256_free(context) } }

        func update(_ bytes: UnsafeRawBufferPointer) throws {
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            guard kc_sha256_update(context, base, bytes.count) == Int32(KC_OK.rawValue) else { throw PasteboardError(.io, "SHA-256 failed") }
        }

        func finish() throws -> String {
            var digest = [UInt8](repeating: 0, count: 32)
            let status = kc_sha256_end(context, &digest)
            context = nil
            guard status == Int32(KC_OK.rawValue) else { throw PasteboardError(.io, "SHA-256 failed") }
            let digits = Array("0123456789abcdef".utf8)
            var out: [UInt8] = []
            out.reserveCapacity(64)
            for byte in digest {
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0xF)])
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}

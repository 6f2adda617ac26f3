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

/// SHA-256: the name of a large representation's file in the history (content-addressed, so the same
/// bytes are stored once however often they are copied), as 64 lowercase hexadecimal digits. OpenSSL's
/// (linked for KDE Connect already; `COpenSSL/digest.c`), which uses the CPU's SHA instructions: this
/// is only the Swift side of it. A file is hashed a window at a time, never mapped whole, so hashing a
/// large copy does not bring it into memory.
package enum OpenSSLSHA256 {
    /// What one read of a file hashes at a time (where a window cannot be mapped): small enough to stay
    /// in the cache between the read and the hash.
    static let chunkSize = 256 << 10
    /// What one mapping of a file hashes at a time: its pages are read in place from the page cache
    /// (no copy) and unmapped before the next window, so at most this much of the file is resident.
    static let windowSize = 1 << 20

    /// The digest of `data`.
    package static func hex(_ data: Data) throws -> String {
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

    /// The digest of the file at `path`, read with `pread` through one buffer; nil when it cannot be
    /// opened, is not a regular file of `size` bytes, or ends early (the caller then hashes the bytes it
    /// holds).
    package static func hex(ofFileAt path: String, size: Int) throws -> String? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) == size else { return nil }
        guard let buffer = malloc(chunkSize) else { throw PasteboardError(.io, "out of memory") }
        defer { free(buffer) }
        let context = try Context()
        // Read, not mapped: a named file another process could cut short (a mapped page past its end
        // would kill this one).
        guard try update(context, file: fd, from: 0, to: size, buffer: buffer, mapped: false) else { return nil }
        return try context.finish()
    }

    /// Hashes bytes `start..<end` of the file `fd` (which holds at least `end` bytes) into `context`:
    /// with `mapped`, a ``windowSize`` window mapped at a time (only for a file nobody else can cut
    /// short: this process's unnamed spool), else, or where a window cannot be mapped, read through
    /// `buffer` (``chunkSize`` bytes). False when the file ends early.
    static func update(
        _ context: Context, file fd: Int32, from start: Int, to end: Int, buffer: UnsafeMutableRawPointer, mapped: Bool
    ) throws -> Bool {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var offset = start
        while offset < end {
            let base = offset - offset % page
            let length = min(windowSize, end - base)
            if mapped, let map = mmap(nil, length, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, off_t(base)), map != MAP_FAILED {
                defer { munmap(map, length) }
                try context.update(UnsafeRawBufferPointer(start: map + (offset - base), count: length - (offset - base)))
                offset = base + length
                continue
            }
            let n = pread(fd, buffer, min(chunkSize, end - offset), off_t(offset))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            try context.update(UnsafeRawBufferPointer(start: buffer, count: n))
            offset += n
        }
        return true
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

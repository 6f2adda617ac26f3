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
import Pasteboard

extension POSIX {
    /// Calls `body` with each line read from `fd` (without its line feed; a last line without one
    /// counts) and its number from 1, reading 1 MiB at a time: memory holds one line, never the input.
    /// A line longer than `maximumLength` is not held: `body` gets it as nil, and the rest of it is
    /// skipped.
    public static func forEachLine(
        _ fd: Int32, path: String, maximumLength: Int, _ body: (_ line: UnsafeRawBufferPointer?, _ number: Int) throws -> Void
    ) throws {
        var pending: [UInt8] = []
        var skipping = false
        var number = 0
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { chunk.deallocate() }
        func finish(_ bytes: UnsafeRawBufferPointer) throws {
            number += 1
            if skipping {
                skipping = false
                try body(nil, number)
            } else if pending.isEmpty {
                try body(bytes, number)
            } else {
                guard pending.count + bytes.count <= maximumLength else {
                    pending.removeAll()
                    return try body(nil, number)
                }
                pending.append(contentsOf: bytes)
                try pending.withUnsafeBytes { try body($0, number) }
                pending.removeAll(keepingCapacity: pending.count <= 1 << 20)
            }
        }
        while true {
            let n = read(fd, chunk.baseAddress, chunk.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw ioError("read", path)
            }
            if n == 0 { break }
            var start = 0
            let bytes = UnsafeRawBufferPointer(rebasing: chunk[0..<n])
            while start < n {
                guard let offset = memchr(bytes.baseAddress! + start, 0x0A, n - start) else {
                    // The line goes on in the next chunk.
                    if !skipping {
                        if pending.count + (n - start) > maximumLength {
                            pending.removeAll()
                            skipping = true
                        } else {
                            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<n]))
                        }
                    }
                    start = n
                    break
                }
                let end = offset - UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
                try finish(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                start = end + 1
            }
        }
        if !pending.isEmpty || skipping { try finish(UnsafeRawBufferPointer(start: nil, count: 0)) }
    }
}

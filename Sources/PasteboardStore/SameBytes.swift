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

/// Whether two byte sequences of the same length are equal: how the history tells that a large
/// representation is one it already keeps (files of the same size, compared byte for byte) without
/// hashing anything. Files are read with `pread` a window at a time through one buffer each, never
/// mapped (a named file another process cut short would kill a reader of its mapped pages) and never
/// held whole: two files of different content usually differ in the first windows compared (the last,
/// one in the middle, the first), and equal ones cost two reads from the page cache and a `memcmp`,
/// far less than a digest of them.
package enum SameBytes {
    /// Where one side's bytes are: an open regular file (read from offset 0), or memory.
    package enum Side {
        case file(Int32)
        case memory(Data)
    }

    /// What one read takes of each file: small enough for both windows to stay in the cache.
    static let windowSize = 256 << 10

    /// Whether the first `count` bytes of `a` and `b` are equal; false when a side holds fewer (a file
    /// that ends early, or a read that fails: then the bytes are not known to be equal).
    package static func equal(_ a: Side, _ b: Side, count: Int) -> Bool {
        guard count > 0 else { return true }
        // One file twice (a store's file the history links, or the history's file the store linked): equal, nothing read.
        if case .file(let fdA) = a, case .file(let fdB) = b {
            var stA = stat()
            var stB = stat()
            if fstat(fdA, &stA) == 0, fstat(fdB, &stB) == 0, stA.st_dev == stB.st_dev, stA.st_ino == stB.st_ino,
                stA.st_mode & S_IFMT == S_IFREG, Int(stA.st_size) >= count
            {
                return true
            }
        }
        for side in [a, b] { if case .memory(let data) = side, data.count < count { return false } }
        return withBase(a) { baseA in
            withBase(b) { baseB in
                if let baseA, let baseB { return memcmp(baseA, baseB, count) == 0 }
                let window = min(windowSize, count)
                guard let first = malloc(window), let second = malloc(window) else { return false }
                defer {
                    free(first)
                    free(second)
                }
                func same(_ offset: Int) -> Bool {
                    let length = min(window, count - offset)
                    guard let left = baseA.map({ $0 + offset }) ?? read(a, offset, length, into: first),
                        let right = baseB.map({ $0 + offset }) ?? read(b, offset, length, into: second)
                    else { return false }
                    return memcmp(left, right, length) == 0
                }
                // The last window and one in the middle first: files of one size that share a long start
                // (pictures of one size, their headers and top rows alike) mostly differ there.
                let last = (count - 1) / window * window
                let middle = last / window / 2 * window
                for offset in [last, middle] where !same(offset) { return false }
                var offset = 0
                while offset < count {
                    // Each window read once: the two compared first are not read again.
                    guard offset == last || offset == middle || same(offset) else { return false }
                    offset += window
                }
                return true
            }
        }
    }

    /// `body` with where `side`'s bytes are in memory, nil for a file.
    private static func withBase<T>(_ side: Side, _ body: (UnsafeRawPointer?) -> T) -> T {
        guard case .memory(let data) = side else { return body(nil) }
        return data.withUnsafeBytes { body($0.baseAddress) }
    }

    /// `length` bytes of file `side` from `offset`, read into `buffer`; nil when it ends early or a read
    /// fails.
    private static func read(_ side: Side, _ offset: Int, _ length: Int, into buffer: UnsafeMutableRawPointer) -> UnsafeRawPointer? {
        guard case .file(let fd) = side else { return nil }
        var done = 0
        while done < length {
            let n = pread(fd, buffer + done, length - done, off_t(offset + done))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return UnsafeRawPointer(buffer)
    }
}

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

/// Thin wrappers over the system calls the store and the CLI need, each turning `errno` into a
/// ``PasteboardError`` that names the path. The corresponding C functions are named in each comment.
public enum POSIX {
    /// The message for the current `errno`.
    public static func errorString(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    public static func ioError(_ what: String, _ path: String, _ code: Int32 = errno) -> PasteboardError {
        PasteboardError(.io, "\(path): \(what) failed: \(errorString(code))")
    }

    /// Reads everything from `fd` until end of file into one growing malloc'd buffer that the
    /// returned `Data` takes over (no copy). The corresponding C function is `read`.
    /// `limit`: stop after that many bytes (a file of known size, read to its end and no further).
    public static func readAll(_ fd: Int32, path: String, sizeHint: Int = 0, limit: Int = Int.max) throws -> Data {
        var capacity = max(min(sizeHint, Int.max - 1) + 1, 1 << 16)
        guard var buffer = malloc(capacity) else { throw PasteboardError(.io, "\(path): out of memory") }
        var count = 0
        while true {
            if count == capacity {
                capacity *= 2
                guard let grown = realloc(buffer, capacity) else {
                    free(buffer)
                    throw PasteboardError(.io, "\(path): out of memory after \(count) bytes")
                }
                buffer = grown
            }
            if count >= limit { break }
            let n = read(fd, buffer + count, min(capacity - count, limit - count))
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                free(buffer)
                throw ioError("read", path, code)
            }
            if n == 0 { break }
            count += n
        }
        if count == 0 {
            free(buffer)
            return Data()
        }
        return Data(bytesNoCopy: buffer, count: count, deallocator: .free)
    }

    /// Writes all of `data` to `fd`. The corresponding C function is `write`.
    /// - Parameter brokenPipe: called (and never returns) when the reader of a pipe has gone (EPIPE).
    public static func writeAll(_ fd: Int32, _ data: Data, path: String, brokenPipe: (() -> Never)? = nil) throws {
        try data.withUnsafeBytes { raw in
            guard var pointer = raw.baseAddress else { return }
            var remaining = raw.count
            while remaining > 0 {
                let n = write(fd, pointer, remaining)
                if n < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE, let brokenPipe { brokenPipe() }
                    throw ioError("write", path)
                }
                pointer += n
                remaining -= n
            }
        }
    }

    /// Reads a whole file (not following a final symlink); with `limit`, a larger file is refused
    /// (`.invalidData`) before it is read.
    public static func readFile(_ path: String, limit: Int = Int.max) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw PasteboardError(errno == ENOENT ? .invalidData : .io, "\(path): \(errorString())")
        }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw PasteboardError(.invalidData, "\(path): is a directory")
        }
        if (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) > limit {
            throw PasteboardError(.invalidData, "\(path): \(st.st_size) bytes, larger than the \(limit) allowed (--max-size); nothing was copied")
        }
        let data = try readAll(fd, path: path, sizeHint: Int(st.st_size), limit: limit == Int.max ? limit : limit + 1)
        if data.count > limit {
            throw PasteboardError(.invalidData, "\(path): larger than the \(limit) bytes allowed (--max-size); nothing was copied")
        }
        return data
    }

    /// Writes a file with mode 0666 & ~umask, replacing it.
    public static func writeFile(_ path: String, _ data: Data) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw ioError("open", path) }
        defer { close(fd) }
        try writeAll(fd, data, path: path)
    }
}

/// `1073741824` → `1G`, `1536` → `1536 bytes`: sizes in messages as users give them (`--max-size 4K`).
public func formatSize(_ bytes: Int) -> String {
    for (unit, shift) in [("T", 40), ("G", 30), ("M", 20), ("K", 10)] where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
        return "\(bytes >> shift)\(unit)"
    }
    return "\(bytes) bytes"
}

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

    /// Reads everything from `fd` until end of file into one growing buffer that the returned `Data`
    /// takes over (no copy). The corresponding C function is `read`.
    /// `limit`: stop after that many bytes (a file of known size, read to its end and no further).
    ///
    /// A buffer of megabytes is mapped on its own, 2 MiB-aligned and advised for transparent huge pages
    /// (``ReadBuffer``): filling 8 MiB of fresh 4 KiB pages costs 2048 page faults, which took 8 ms of an
    /// 8 MiB `pbctl copy` on a virtual machine; with huge pages the read takes 2.7 ms.
    /// - Parameter finalLineEnding: a line ending (`\n`) is added when the bytes read do not end with one
    ///   (for Markdown, whose meaning does not change and whose parser would otherwise copy the whole
    ///   input to add it); it is written into the buffer's spare byte, so nothing is copied.
    public static func readAll(_ fd: Int32, path: String, sizeHint: Int = 0, limit: Int = Int.max, finalLineEnding: Bool = false) throws -> Data {
        var buffer = try ReadBuffer(capacity: max(min(sizeHint, Int.max - 1) + 1, 1 << 16), path: path)
        var count = 0
        while true {
            if count == buffer.capacity {
                try buffer.grow(keeping: count, path: path)
            }
            if count >= limit { break }
            let n = read(fd, buffer.pointer + count, min(buffer.capacity - count, limit - count))
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                buffer.release()
                throw ioError("read", path, code)
            }
            if n == 0 { break }
            count += n
        }
        if count == 0 {
            buffer.release()
            return Data()
        }
        if finalLineEnding && buffer.pointer.load(fromByteOffset: count - 1, as: UInt8.self) != 0x0A {
            if count == buffer.capacity { try buffer.grow(keeping: count, path: path) }
            buffer.pointer.storeBytes(of: 0x0A, toByteOffset: count, as: UInt8.self)
            count += 1
        }
        return buffer.data(count: count)
    }

    /// Writes all of `data` to `fd`. The corresponding C function is `write`.
    /// - Parameter brokenPipe: called (and never returns) when the reader of a pipe has gone (EPIPE).
    public static func writeAll(_ fd: Int32, _ data: Data, path: String, brokenPipe: (() -> Never)? = nil) throws {
        try data.withUnsafeBytes { try writeAll(fd, $0, path: path, brokenPipe: brokenPipe) }
    }

    /// Writes all of `bytes` to `fd`. The corresponding C function is `write`.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String, brokenPipe: (() -> Never)? = nil) throws {
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
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

    /// Reads a whole file (not following a final symlink); with `limit`, a larger file is refused
    /// (`.invalidData`) before it is read.
    /// - Parameter finalLineEnding: as ``readAll(_:path:sizeHint:limit:finalLineEnding:)`` (only without a
    ///   limit: the byte added is not counted against one).
    public static func readFile(_ path: String, limit: Int = Int.max, finalLineEnding: Bool = false) throws -> Data {
        precondition(!finalLineEnding || limit == Int.max, "a final line ending is added only to input read without a limit")
        let fd = PathCalls.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw PasteboardError(errno == ENOENT ? .invalidData : .io, "\(path.shownPath): \(errorString())")
        }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw PasteboardError(.invalidData, "\(path): is a directory")
        }
        if (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) > limit {
            throw PasteboardError(.invalidData, "\(path): \(st.st_size) bytes, larger than the \(limit) allowed (--max-size); nothing was copied")
        }
        let data = try readAll(fd, path: path, sizeHint: Int(st.st_size), limit: limit == Int.max ? limit : limit + 1, finalLineEnding: finalLineEnding)
        if data.count > limit {
            throw PasteboardError(.invalidData, "\(path): larger than the \(limit) bytes allowed (--max-size); nothing was copied")
        }
        return data
    }

    /// Writes a file with mode 0666 & ~umask, replacing it.
    public static func writeFile(_ path: String, _ data: Data) throws {
        try writeFile(path) { write in try data.withUnsafeBytes { try write($0) } }
    }

    /// Writes a file with mode 0666 & ~umask, replacing it, with what `body` hands its writer, piece by
    /// piece (output made as it is written: a conversion that streams).
    public static func writeFile(_ path: String, _ body: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw ioError("open", path) }
        defer { close(fd) }
        try body { try writeAll(fd, $0, path: path) }
    }
}

/// `1073741824` → `1G`, `1536` → `1536 bytes`: sizes in messages as users give them (`--max-size 4K`).
public func formatSize(_ bytes: Int) -> String {
    for (unit, shift) in [("T", 40), ("G", 30), ("M", 20), ("K", 10)] where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
        return "\(bytes >> shift)\(unit)"
    }
    return "\(bytes) bytes"
}

/// Memory for one read of unknown or large size: `malloc` below ``mappedThreshold``, above it an
/// anonymous mapping aligned to 2 MiB and advised `MADV_HUGEPAGE` (where the kernel offers transparent
/// huge pages; elsewhere the advice is ignored and the pages are ordinary).
struct ReadBuffer {
    static let mappedThreshold = 4 << 20
    static let hugePage = 2 << 20

    private(set) var pointer: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// The mapping's length when `pointer` was mapped, 0 when it came from malloc.
    private var mapped: Int

    init(capacity: Int, path: String) throws {
        (pointer, self.capacity, mapped) = try Self.allocate(capacity, path: path)
    }

    private static func allocate(_ capacity: Int, path: String) throws -> (UnsafeMutableRawPointer, Int, Int) {
        if capacity < mappedThreshold {
            guard let memory = malloc(capacity) else { throw PasteboardError(.io, "\(path): out of memory") }
            return (memory, capacity, 0)
        }
        let (rounded, overflow) = capacity.addingReportingOverflow(hugePage - 1)
        guard !overflow else { throw PasteboardError(.io, "\(path): out of memory") }
        let length = rounded & ~(hugePage - 1)
        // Map one huge page more, then unmap what lies before the first aligned address and after the end.
        guard let raw = mmap(nil, length + hugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            raw != MAP_FAILED
        else { throw PasteboardError(.io, "\(path): out of memory (\(formatSize(capacity)))") }
        let address = UInt(bitPattern: raw)
        let aligned = (address + UInt(hugePage - 1)) & ~UInt(hugePage - 1)
        let head = Int(aligned - address)
        if head > 0 { munmap(raw, head) }
        let tail = hugePage - head
        if tail > 0 { munmap(raw + head + length, tail) }
        let memory = raw + head
        _ = madvise(memory, length, MADV_HUGEPAGE)
        return (memory, length, length)
    }

    /// Doubles the capacity, keeping the first `count` bytes.
    mutating func grow(keeping count: Int, path: String) throws {
        let (doubled, overflow) = capacity.multipliedReportingOverflow(by: 2)
        guard !overflow else { throw PasteboardError(.io, "\(path): out of memory after \(count) bytes") }
        if mapped == 0, doubled < Self.mappedThreshold {
            guard let grown = realloc(pointer, doubled) else {
                throw PasteboardError(.io, "\(path): out of memory after \(count) bytes")
            }
            pointer = grown
            capacity = doubled
            return
        }
        let next: (UnsafeMutableRawPointer, Int, Int)
        do { next = try Self.allocate(doubled, path: path) } catch {
            throw PasteboardError(.io, "\(path): out of memory after \(count) bytes")
        }
        next.0.copyMemory(from: pointer, byteCount: count)
        release()
        (pointer, capacity, mapped) = next
    }

    func release() {
        if mapped > 0 { munmap(pointer, mapped) } else { free(pointer) }
    }

    /// The first `count` bytes, owned by the `Data` from now on.
    func data(count: Int) -> Data {
        if mapped > 0 {
            let length = mapped
            return Data(bytesNoCopy: pointer, count: count, deallocator: .custom { memory, _ in munmap(memory, length) })
        }
        return Data(bytesNoCopy: pointer, count: count, deallocator: .free)
    }
}

extension POSIX {
    /// A connected pair of Unix stream sockets (close-on-exec); nil when none can be made. Shutting one
    /// end down makes the other readable: what a signal handler may do to wake a loop.
    public static func socketPair() -> (Int32, Int32)? {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return nil }
        return (pair[0], pair[1])
    }
}

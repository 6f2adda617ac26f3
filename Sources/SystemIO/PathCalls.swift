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
    /// `path` made absolute against the current folder (no link resolved: the path as the user named it).
    public static func absolutePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = PathBytes.currentDirectory() else { return path }
        return (cwd == "/" ? "" : cwd) + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// Runs `body` on standard input (`-`) or the file `source`, opened for reading.
    /// - Throws: ``PasteboardError`` `.invalidData` (exit 65) for a file that does not exist.
    public static func withInput<T>(_ source: String, _ body: (Int32) throws -> T) throws -> T {
        guard source != "-" else { return try body(STDIN_FILENO) }
        let fd = PathCalls.open(source, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PasteboardError(errno == ENOENT ? .invalidData : .io, "\(source.shownPath): \(POSIX.errorString())") }
        defer { close(fd) }
        return try body(fd)
    }

    /// The paths of `paths` that name nothing (not even a dangling link).
    public static func missingPaths(_ paths: [String]) -> [String] {
        paths.filter { path in
            var st = stat()
            return PathCalls.lstat(path, &st) != 0
        }
    }

    /// A whole regular file of at most `limit` bytes (never a FIFO or device, so nothing planted can
    /// block a reader).
    public static func readRegularFile(_ path: String, limit: Int) throws -> Data {
        let fd = PathCalls.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw PasteboardError(.io, "cannot open: \(POSIX.errorString())") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw PasteboardError(.invalidData, "not a regular file")
        }
        guard Int(st.st_size) <= limit else { throw PasteboardError(.invalidData, "larger than \(limit) bytes") }
        return try POSIX.readAll(fd, path: path, sizeHint: Int(st.st_size))
    }

    /// Writing to a closed pipe (`pbctl paste | head -c1`) ends with an error code from the write (EPIPE),
    /// not a signal.
    public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

    /// Whether standard input is a terminal (`isatty`).
    public static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Leaves the current folder for `/`, so a long-lived process keeps no folder busy (a detached owner).
    public static func leaveCurrentDirectory() { _ = chdir("/") }
}

extension PathBytes {
    /// The bytes of the current folder (`getcwd`), as a path string; nil when it cannot be read.
    public static func currentDirectory() -> String? {
        guard let pointer = getcwd(nil, 0) else { return nil }
        defer { free(pointer) }
        return string(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
    }
}

/// The system calls pbctl makes on paths a user or a folder listing gave, each with the path's
/// original bytes (``PathBytes``). The corresponding C function is each one's name.
public enum PathCalls {
    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        path.withPathCString { Glibc.open($0, flags, mode) }
    }

    public static func openat(_ dir: Int32, _ name: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        name.withPathCString { Glibc.openat(dir, $0, flags, mode) }
    }

    public static func fstatat(_ dir: Int32, _ name: String, _ st: inout stat, _ flags: Int32) -> Int32 {
        name.withPathCString { Glibc.fstatat(dir, $0, &st, flags) }
    }

    public static func lstat(_ path: String, _ st: inout stat) -> Int32 {
        path.withPathCString { Glibc.fstatat(AT_FDCWD, $0, &st, AT_SYMLINK_NOFOLLOW) }
    }

    public static func stat(_ path: String, _ st: inout stat) -> Int32 {
        path.withPathCString { Glibc.fstatat(AT_FDCWD, $0, &st, 0) }
    }

    public static func mkdirat(_ dir: Int32, _ name: String, _ mode: mode_t) -> Int32 {
        name.withPathCString { Glibc.mkdirat(dir, $0, mode) }
    }

    public static func unlinkat(_ dir: Int32, _ name: String, _ flags: Int32) -> Int32 {
        name.withPathCString { Glibc.unlinkat(dir, $0, flags) }
    }

    public static func renameat(_ fromDir: Int32, _ from: String, _ toDir: Int32, _ to: String) -> Int32 {
        from.withPathCString { source in to.withPathCString { Glibc.renameat(fromDir, source, toDir, $0) } }
    }

    public static func readlinkat(_ dir: Int32, _ name: String) -> [CChar]? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = name.withPathCString { Glibc.readlinkat(dir, $0, &buffer, buffer.count - 1) }
        guard count >= 0 else { return nil }
        buffer[count] = 0
        return Array(buffer[...count])
    }

    public static func symlinkat(_ target: [CChar], _ dir: Int32, _ name: String) -> Int32 {
        name.withPathCString { Glibc.symlinkat(target, dir, $0) }
    }

    public static func access(_ path: String, _ mode: Int32) -> Int32 {
        path.withPathCString { Glibc.access($0, mode) }
    }
}

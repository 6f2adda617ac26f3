#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Pasteboard

/// A file written whole or not at all (`paste -o FILE`): the bytes go to a temporary file beside it,
/// renamed over the file by ``commit()``; until then an existing file keeps its content, and a failure
/// removes the temporary file. What the shell's `>` would write, this writes:
/// - a symbolic link is written through (its target gets the content, the link stays), a dangling one
///   creates its target;
/// - a file the user may not write is refused (`Permission denied`), as `>` refuses it;
/// - a path that is not a regular file (`/dev/stdout`, a FIFO, a terminal), a file with other hard
///   links or another owner, or a file in a folder where no temporary file can be made is written in
///   place, as `>` writes it (the rename would cut the other links or change the owner).
/// Errors name the path as given.
public final class OutputFile {
    public let path: String
    public let fd: Int32
    /// The file the content ends up in (the link's target for a link).
    private let target: String
    private let temporary: String?
    private var done = false

    public init(_ path: String) throws {
        self.path = path
        let target = Self.resolvingLinks(path)
        self.target = target
        var st = stat()
        let exists = PathCalls.stat(target, &st) == 0
        if exists, (st.st_mode & S_IFMT) == S_IFDIR { throw PasteboardError(.io, "\(path.shownPath): is a directory") }
        if exists, PathCalls.access(target, W_OK) != 0 { throw POSIX.ioError("open", path.shownPath) }
        func inPlace() throws -> Int32 {
            let fd = PathCalls.open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
            guard fd >= 0 else { throw POSIX.ioError("open", path.shownPath) }
            return fd
        }
        if exists, (st.st_mode & S_IFMT) != S_IFREG || st.st_nlink > 1 || st.st_uid != getuid() {
            fd = try inPlace()
            temporary = nil
            return
        }
        let name = target + ".pbctl-\(getpid())-partial"
        let created = PathCalls.open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, exists ? 0o600 : 0o666)
        if created < 0 {
            // No temporary file beside it (a folder the user may not write): `>` still writes the file.
            guard exists, errno == EACCES || errno == EPERM || errno == EROFS else { throw POSIX.ioError("open", path.shownPath) }
            fd = try inPlace()
            temporary = nil
            return
        }
        // An existing file keeps its permissions (the rename replaces it).
        if exists { _ = fchmod(created, st.st_mode & 0o7777) }
        fd = created
        temporary = name
        // Ctrl-C, SIGTERM or SIGHUP before the rename leave nothing behind either.
        SignalCleanup.register(name)
    }

    /// `path` with every symbolic link along its last component followed (at most 40, as the kernel
    /// allows), relative targets taken from the link's folder; the path itself when it is no link.
    static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            guard let link = PathCalls.readlinkat(AT_FDCWD, current) else { return current }
            let target = PathBytes.string(link.dropLast().map { UInt8(bitPattern: $0) })
            if target.hasPrefix("/") {
                current = target
            } else if let slash = current.lastIndex(of: "/") {
                current = String(current[...slash]) + target
            } else {
                current = target
            }
        }
        return current
    }

    /// Puts the written file in place.
    public func commit() throws {
        guard !done else { return }
        done = true
        close(fd)
        defer { if let temporary { SignalCleanup.unregister(temporary) } }
        if let temporary, PathCalls.renameat(AT_FDCWD, temporary, AT_FDCWD, target) != 0 {
            let error = POSIX.ioError("rename", path.shownPath)
            _ = temporary.withPathCString { unlink($0) }
            throw error
        }
    }

    /// Removes the temporary file: nothing is left of a write that did not end well (a paste cut short).
    public func discard() {
        guard !done else { return }
        done = true
        close(fd)
        if let temporary {
            _ = temporary.withPathCString { unlink($0) }
            SignalCleanup.unregister(temporary)
        }
    }

    deinit { discard() }
}

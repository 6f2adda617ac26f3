#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Pasteboard

/// A file written whole or not at all (`paste -o FILE`): the bytes go to a temporary file beside it,
/// renamed over `path` by ``commit()``; until then an existing file keeps its content, and a failure
/// removes the temporary file. A path that is not a regular file (`/dev/stdout`, a FIFO, a terminal) is
/// written directly.
public final class OutputFile {
    public let path: String
    public let fd: Int32
    private let temporary: String?
    private var done = false

    public init(_ path: String) throws {
        self.path = path
        var st = stat()
        let exists = stat(path, &st) == 0
        if exists, (st.st_mode & S_IFMT) != S_IFREG {
            if (st.st_mode & S_IFMT) == S_IFDIR { throw PasteboardError(.io, "\(path): is a directory") }
            fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw POSIX.ioError("open", path) }
            temporary = nil
            return
        }
        let name = path + ".pbctl-\(getpid())-partial"
        let created = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, exists ? 0o600 : 0o666)
        guard created >= 0 else { throw POSIX.ioError("open", name) }
        // An existing file keeps its permissions (the rename replaces it).
        if exists { _ = fchmod(created, st.st_mode & 0o7777) }
        fd = created
        temporary = name
    }

    /// Puts the written file in place.
    public func commit() throws {
        guard !done else { return }
        done = true
        close(fd)
        if let temporary, rename(temporary, path) != 0 {
            let error = POSIX.ioError("rename", path)
            unlink(temporary)
            throw error
        }
    }

    deinit {
        guard !done else { return }
        close(fd)
        if let temporary { unlink(temporary) }
    }
}

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
import SystemIO

/// pbctl's KDE Connect state folder (`$XDG_STATE_HOME/pbctl/kdeconnect`, else
/// `~/.local/state/pbctl/kdeconnect`): the device's key and certificate, the device records, the
/// daemon's lock and control socket. The folder is the user's own and 0700, each file 0600; files
/// are opened without following links, read only when regular and under a size limit, and written
/// whole: a temporary file synced, then renamed over the old one.
public struct StateFolder: Sendable {
    public let path: String

    /// The folder for `environment` (`PBCTL_KDECONNECT_STATE` first, for tests and several identities).
    public static func defaultPath(environment: [String: String]) -> String {
        if let explicit = environment["PBCTL_KDECONNECT_STATE"], explicit.hasPrefix("/") { return explicit }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/pbctl/kdeconnect" }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp/pbctl-\(getuid())"
        return home + "/.local/state/pbctl/kdeconnect"
    }

    public init(path: String) { self.path = path }

    /// Whether the folder exists (nothing is created).
    public var exists: Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Makes the folder (and missing parents) and checks it: a directory, not a link, the user's own,
    /// mode 0700.
    /// - Throws: ``PasteboardError`` `.refused` or `.io` naming the folder.
    public func create() throws {
        var prefix = ""
        let components = path.split(separator: "/").map(String.init)
        for (index, component) in components.enumerated() {
            prefix += "/" + component
            let last = index >= components.count - 2
            if mkdir(prefix, last ? 0o700 : 0o755) != 0, errno != EEXIST { throw POSIX.ioError("mkdir", prefix) }
        }
        var st = stat()
        guard lstat(path, &st) == 0 else { throw POSIX.ioError("stat", path) }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw PasteboardError(.refused, "\(path): not a directory (a symbolic link?); refusing to keep the device's key there")
        }
        guard st.st_uid == getuid() else { throw PasteboardError(.refused, "\(path): belongs to someone else") }
        if st.st_mode & 0o077 != 0 { _ = chmod(path, 0o700) }
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// A file's bytes, nil when it does not exist.
    /// - Throws: ``PasteboardError`` when it is not a regular file of the user's, or is over `limit`.
    public func read(_ name: String, limit: Int) throws -> Data? {
        let fd = open(file(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw POSIX.ioError("open", file(name))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == getuid() else {
            throw PasteboardError(.refused, "\(file(name)): not a regular file of the user's own")
        }
        guard Int(st.st_size) <= limit else { throw PasteboardError(.invalidData, "\(file(name)): over \(limit) bytes") }
        return try POSIX.readAll(fd, path: file(name), sizeHint: Int(st.st_size), limit: limit)
    }

    /// Writes a file whole, mode 0600: a temporary file, synced, renamed into place.
    public func write(_ name: String, _ data: Data) throws {
        let temporary = file(".\(name).\(getpid()).tmp")
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIX.ioError("open", temporary) }
        do {
            try POSIX.writeAll(fd, data, path: temporary)
            guard fsync(fd) == 0 else { throw POSIX.ioError("fsync", temporary) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, file(name)) == 0 else {
            let code = errno
            unlink(temporary)
            throw POSIX.ioError("rename", file(name), code)
        }
    }

    public func remove(_ name: String) { unlink(file(name)) }

    /// Takes the daemon's lock (`daemon.lock`, an exclusive `flock` held while the descriptor is open):
    /// nil when another daemon holds it.
    public func lock() throws -> Int32? {
        let fd = open(file("daemon.lock"), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIX.ioError("open", file("daemon.lock")) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            return nil
        }
        return fd
    }

    /// The control socket's path.
    public var controlSocket: String { file("control.socket") }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Pasteboard

/// One process at a time for a resource (a daemon per compositor, per store): a lock file held with
/// `flock` while the process runs, its pid inside, opened without following a symbolic link, 0600.
/// The kernel drops the lock when the process dies, so a stale file never blocks anyone.
public struct ProcessLock: Sendable {
    public let path: String
    /// What the lock is for, in messages ("this compositor").
    public let what: String

    /// The locks this process holds: a daemon that connects again keeps the lock it took first.
    nonisolated(unsafe) private static var held: [String: Int32] = [:]

    public init(path: String, what: String) {
        self.path = path
        self.what = what
    }

    /// `$XDG_RUNTIME_DIR` when it is a folder, else `$TMPDIR`, else `/tmp`: where such locks go.
    public static func folder(environment: [String: String]) -> String {
        let directory = environment["XDG_RUNTIME_DIR"] ?? ""
        var info = stat()
        if directory.isEmpty || stat(directory, &info) != 0 || (info.st_mode & S_IFMT) != S_IFDIR {
            return environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        }
        return directory
    }

    private func open() -> Int32 { Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600) }

    private func pid(in fd: Int32) -> pid_t? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0, let pid = pid_t(String(decoding: buffer[0..<n], as: UTF8.self).split(whereSeparator: \.isWhitespace).first ?? ""),
            pid > 1
        else { return nil }
        return pid
    }

    /// The pid of the process holding the lock, if one does (0 when it wrote none).
    public func holder() -> pid_t? {
        if Self.held[path] != nil { return getpid() }
        let fd = open()
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 { return nil }
        return pid(in: fd) ?? 0
    }

    /// Takes the lock for this process (asking the holder to stop first with `replace`: SIGTERM, then up
    /// to 5 s); the descriptor stays open, and the lock held, until the process exits.
    /// - Throws: `.unavailable` when another process holds it (and `replace` is false, or it did not
    ///   stop); `.io` when the file cannot be opened.
    public func acquire(replace: Bool) throws {
        guard Self.held[path] == nil else { return }
        let fd = open()
        guard fd >= 0 else { throw POSIX.ioError("open", path) }
        // A look (`daemon --status`) takes the lock shared for a moment: a lock held with no live
        // process's pid in the file is such a look, or a process that just died; tried again for a second.
        let patience = MonotonicClock.nanoseconds() + 1_000_000_000
        while flock(fd, LOCK_EX | LOCK_NB) != 0, MonotonicClock.nanoseconds() < patience {
            if let running = pid(in: fd), kill(running, 0) == 0 || errno == EPERM { break }
            usleep(10_000)
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let running = pid(in: fd)
            guard replace else {
                close(fd)
                throw PasteboardError(.unavailable, "pbctl daemon already running on \(what)\(running.map { " (pid \($0))" } ?? "")")
            }
            if let running { kill(running, SIGTERM) }
            let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                guard MonotonicClock.nanoseconds() < deadline else {
                    close(fd)
                    throw PasteboardError(.unavailable, "the running pbctl daemon did not stop within 5 s")
                }
                usleep(20_000)
            }
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
        Self.held[path] = fd
    }
}

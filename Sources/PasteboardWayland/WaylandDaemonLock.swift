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

/// One daemon per compositor: a lock file in `$XDG_RUNTIME_DIR` (else the temporary folder) named after
/// the compositor's socket, held with `flock` while the daemon runs, with its pid inside. (Wayland has no
/// CLIPBOARD_MANAGER selection to serve as the lock, as X11 has.)
struct WaylandDaemonLock {
    let path: String

    /// The locks this process holds: a daemon that connects again keeps the lock it took first.
    nonisolated(unsafe) private static var held: [String: Int32] = [:]

    static func folder(environment: [String: String]) -> String {
        let directory = environment["XDG_RUNTIME_DIR"] ?? ""
        var info = stat()
        if directory.isEmpty || stat(directory, &info) != 0 || (info.st_mode & S_IFMT) != S_IFDIR {
            return environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        }
        return directory
    }

    init(folder: String, socket: String) {
        let name = String(socket.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        path = "\(folder)/pbctl-daemon-\(getuid())-\(name).lock"
    }

    private func open() -> Int32 {
        Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    }

    private func pid(in fd: Int32) -> pid_t? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0, let pid = pid_t(String(decoding: buffer[0..<n], as: UTF8.self).split(whereSeparator: \.isWhitespace).first ?? ""),
            pid > 1
        else { return nil }
        return pid
    }

    /// The pid of the daemon holding the lock, if one does (0 when it wrote none).
    func runningDaemon() -> pid_t? {
        if Self.held[path] != nil { return getpid() }
        let fd = open()
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 { return nil }
        return pid(in: fd) ?? 0
    }

    /// Takes the lock for this process (asking a running daemon to stop first with `replace`); the
    /// descriptor stays open, and the lock held, until the process exits.
    func acquire(replace: Bool) throws {
        guard Self.held[path] == nil else { return }
        let fd = open()
        guard fd >= 0 else {
            throw PasteboardError(.io, "\(path): \(String(cString: strerror(errno)))")
        }
        // `daemon --status` takes the lock shared for a moment: a lock held with no live daemon's pid in
        // the file is such a look, or a daemon that just died; it is tried again for a second.
        let patience = waylandNow() + 1_000_000_000
        while flock(fd, LOCK_EX | LOCK_NB) != 0, waylandNow() < patience {
            if let running = pid(in: fd), kill(running, 0) == 0 || errno == EPERM { break }
            usleep(10_000)
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let running = pid(in: fd)
            guard replace else {
                close(fd)
                throw PasteboardError(.unavailable, "pbctl daemon already running on this compositor\(running.map { " (pid \($0))" } ?? "")")
            }
            if let running { kill(running, SIGTERM) }
            let deadline = waylandNow() + 5_000_000_000
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                guard waylandNow() < deadline else {
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

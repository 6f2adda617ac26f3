#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Waits for a reason to read a file again: the file written, created, renamed into place or removed
/// (inotify on its folder, or on the folder above while its own does not exist), or SIGHUP (whose
/// handler only writes a byte into a pipe), up to a deadline. One per process: it owns SIGHUP while it
/// lives.
public final class ReloadWatch: @unchecked Sendable {
    public enum Wake: Equatable, Sendable {
        /// The file changed.
        case changed
        /// SIGHUP arrived.
        case signalled
        /// The time given ran out.
        case timeout
        /// ``stop()`` was called.
        case stopped
        /// ``poke()`` was called: something the waiter looks at changed.
        case poked
    }

    /// The pipe SIGHUP's handler writes to.
    nonisolated(unsafe) static var signalDescriptor: Int32 = -1

    private let folder: String
    private let name: String
    private var notify: Int32 = -1
    private var folderWatch: Int32 = -1
    private var parentWatch: Int32 = -1
    private let pipeRead: Int32
    private let pipeWrite: Int32

    /// Watches `path` (an absolute path) and takes SIGHUP.
    public init(path: String) throws {
        let slash = path.lastIndex(of: "/") ?? path.startIndex
        folder = String(path[..<slash])
        name = String(path[path.index(after: slash)...])
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw POSIX.ioError("pipe", path) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        pipeRead = fds[0]
        pipeWrite = fds[1]
        notify = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        arm()
        Self.signalDescriptor = pipeWrite
        signal(SIGHUP) { _ in
            var byte: UInt8 = 0x68  // h
            if ReloadWatch.signalDescriptor >= 0 { _ = write(ReloadWatch.signalDescriptor, &byte, 1) }
        }
    }

    deinit {
        signal(SIGHUP, SIG_IGN)
        Self.signalDescriptor = -1
        close(pipeRead)
        close(pipeWrite)
        if notify >= 0 { close(notify) }
    }

    /// Watches the folder, or its parent while the folder does not exist.
    private func arm() {
        guard notify >= 0 else { return }
        let watched = inotify_add_watch(
            notify, folder.isEmpty ? "/" : folder, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ONLYDIR))
        if watched >= 0 {
            folderWatch = watched
            if parentWatch >= 0, parentWatch != watched { _ = inotify_rm_watch(notify, parentWatch) }
            parentWatch = -1
            return
        }
        let parent = String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)])
        parentWatch = inotify_add_watch(notify, parent.isEmpty ? "/" : parent, UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR))
    }

    /// Wakes ``wait(seconds:)`` with `.stopped`; callable from any thread.
    public func stop() {
        var byte: UInt8 = 0x73  // s
        _ = write(pipeWrite, &byte, 1)
    }

    /// Wakes ``wait(seconds:)`` with `.poked`; callable from any thread.
    public func poke() {
        var byte: UInt8 = 0x70  // p
        _ = write(pipeWrite, &byte, 1)
    }

    /// Blocks until the file changes, SIGHUP, ``stop()``, ``poke()``, or `seconds` (nil: no limit) pass.
    public func wait(seconds: Double?) -> Wake {
        let deadline = seconds.map { MonotonicClock.nanoseconds() &+ UInt64(max(0, min($0, 1e9)) * 1e9) }
        while true {
            var fds = [pollfd(fd: pipeRead, events: Int16(POLLIN), revents: 0), pollfd(fd: notify, events: Int16(POLLIN), revents: 0)]
            var timeout: Int32 = -1
            if let deadline {
                let now = MonotonicClock.nanoseconds()
                if now >= deadline { return .timeout }
                timeout = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            }
            let ready = poll(&fds, notify >= 0 ? 2 : 1, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return .stopped
            }
            if ready == 0 { continue }
            if fds[0].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                let n = read(pipeRead, &bytes, bytes.count)
                if n > 0 {
                    let woken = bytes[0..<n]
                    if woken.contains(0x73) { return .stopped }
                    return woken.contains(0x68) ? .signalled : .poked
                }
            }
            if notify >= 0, fds[1].revents != 0, drainEvents() { return .changed }
        }
    }

    /// Reads the pending events; whether one concerns the file (or made its folder appear).
    private func drainEvents() -> Bool {
        var concerned = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(notify, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameBytes = buffer[(offset + header)..<min(n, offset + header + length)].prefix { $0 != 0 }
                let eventName = String(decoding: nameBytes, as: UTF8.self)
                if wd == folderWatch, eventName == name { concerned = true }
                if wd == folderWatch, mask & UInt32(IN_IGNORED) != 0 {
                    // The folder went away: watch for it to come back.
                    folderWatch = -1
                    arm()
                    concerned = true
                }
                if wd == parentWatch, folder.hasSuffix("/" + eventName) {
                    arm()
                    concerned = true
                }
                offset += header + length
            }
        }
        return concerned
    }
}

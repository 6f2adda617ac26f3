#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Pasteboard
import Synchronization
import SystemIO

/// The keeper's way in (``ClipboardInbox``), the daemon's queue: items handed over from any thread
/// (the peers' threads), and a pipe that is readable while they wait, so the keeper's loop wakes beside
/// its connection. Only the newest counts (``takeNewest()``): the clipboard holds one content, and an
/// item overtaken before the keeper woke is never served.
public final class KeeperInbox: ClipboardInbox {
    private let queue = Mutex<[OfferedItem]>([])
    private let pipeEnds: (read: Int32, write: Int32)

    /// - Throws: ``PasteboardError`` `.io` when no pipe can be made.
    public init() throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw POSIX.ioError("pipe", "the keeper's inbox") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        pipeEnds = (fds[0], fds[1])
    }

    deinit {
        close(pipeEnds.read)
        close(pipeEnds.write)
    }

    public var descriptor: Int32 { pipeEnds.read }

    /// Hands `offered` to the keeper (any thread).
    public func offer(_ offered: OfferedItem) {
        queue.withLock { $0.append(offered) }
        var byte: UInt8 = 1
        _ = write(pipeEnds.write, &byte, 1)  // a full pipe already wakes the keeper
    }

    public func takeNewest() -> OfferedItem? {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(pipeEnds.read, &buffer, buffer.count) > 0 {}
        return queue.withLock { items in
            defer { items.removeAll() }
            return items.last
        }
    }
}

// The pipes a Wayland transfer goes through, and the poll that waits on them: the one pbctl reads a
// paste from (``WaylandPipes/receive(mime:into:limit:stepTimeout:ask:)``: pipe, F_SETPIPE_SZ, poll,
// splice or read), and the descriptors of readers it writes its own content into (non-blocking writes,
// FIONREAD). With `WaylandSocket`, the only code of the Wayland backend that reads, writes or waits.
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

public enum WaylandPipes {
    // MARK: Receiving (a paste, a fetch)

    /// Opens a pipe, hands its write end to `ask` (which sends it to the owner: `receive` on an offer),
    /// closes that end, and moves what the owner writes into `sink` until it closes its copy (`splice`
    /// where the sink takes it). Each wait lasts at most `stepTimeout` seconds; more than `limit` bytes
    /// stop the transfer with `.refused`. Both ends are closed when it returns or throws.
    /// `watch`, when given, is a descriptor waited on beside the pipe (the compositor's socket) and what
    /// to do when it is readable, told whether the owner has closed its end of the pipe by then.
    /// Returns the bytes moved.
    @discardableResult
    public static func receive(
        mime: String, into sink: any RepresentationSink, limit: Int? = nil, stepTimeout: Double,
        watch: (fd: Int32, readable: (_ writerClosed: Bool) throws -> Void)? = nil, ask: (_ writeEnd: Int32) throws -> Void
    ) throws -> Int {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw PasteboardError(.io, "pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let readEnd = fds[0]
        defer { close(readEnd) }
        // A 1 MiB pipe (the unprivileged maximum by default) instead of 64 KiB: the owner writes in
        // chunks sixteen times larger and each side is woken sixteen times less often. Refused: 64 KiB.
        _ = fcntl(readEnd, setPipeSize, Int32(pipeCapacity))
        do {
            try ask(fds[1])
        } catch {
            close(fds[1])
            throw error
        }
        close(fds[1])  // the owner has its own copy now: end of file comes when it closes it
        return try drain(readEnd, mime: mime, into: sink, limit: limit, stepTimeout: stepTimeout, watch: watch)
    }

    /// Whether an owner answers a request: opens a pipe, hands its write end to `ask` (a `receive` on the
    /// offer), closes that end, and waits until the owner writes a byte (true: it was alive when the
    /// compositor passed the request on) or every writer closes without writing (false: a dead owner's
    /// descriptor is closed by the compositor, unwritten). The read end is closed on return, which ends
    /// the owner's write. Each wait lasts at most `stepTimeout` seconds (then `.timedOut`); `watch` as
    /// for ``receive(mime:into:limit:stepTimeout:watch:ask:)``.
    public static func probe(
        mime: String, stepTimeout: Double, watch: (fd: Int32, readable: (_ writerClosed: Bool) throws -> Void)? = nil,
        ask: (_ writeEnd: Int32) throws -> Void
    ) throws -> Bool {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw PasteboardError(.io, "pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let readEnd = fds[0]
        defer { close(readEnd) }
        do {
            try ask(fds[1])
        } catch {
            close(fds[1])
            throw error
        }
        close(fds[1])
        var byte: UInt8 = 0
        while true {
            var pollers = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
            if let watch { pollers.append(pollfd(fd: watch.fd, events: Int16(POLLIN), revents: 0)) }
            let ready = Glibc.poll(&pollers, nfds_t(pollers.count), Int32(stepTimeout * 1000))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else {
                throw PasteboardError(.timedOut, "the Wayland clipboard owner did not answer a second request for \(mime) (\(Int(stepTimeout)) s)")
            }
            if let watch, pollers[1].revents != 0 {
                try watch.readable(pollers[0].revents & Int16(POLLHUP) != 0)
                if pollers[0].revents == 0 { continue }
            }
            let n = Glibc.read(readEnd, &byte, 1)
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw PasteboardError(.io, "reading \(mime) from the owner: \(String(cString: strerror(errno)))")
            }
            return n > 0
        }
    }

    /// The pipe's capacity a receive asks for: an owner's write of at most this much completes whole
    /// (``TransferCompleteness`` relies on it).
    public static let pipeCapacity = 1 << 20

    /// Moves what arrives in the pipe `readEnd` into `sink` until end of file: the bytes moved.
    @discardableResult
    static func drain(
        _ readEnd: Int32, mime: String, into sink: any RepresentationSink, limit: Int?, stepTimeout: Double,
        watch: (fd: Int32, readable: (_ writerClosed: Bool) throws -> Void)? = nil
    ) throws -> Int {
        var buffer: UnsafeMutableRawPointer?  // for a sink that takes no splice
        defer { free(buffer) }
        var total = 0
        // Straight from the pipe into the output (splice) when the sink is a descriptor that takes it.
        var kernelCopy = true
        while true {
            var pollers = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
            if let watch { pollers.append(pollfd(fd: watch.fd, events: Int16(POLLIN), revents: 0)) }
            let ready = Glibc.poll(&pollers, nfds_t(pollers.count), Int32(stepTimeout * 1000))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else {
                throw PasteboardError(.timedOut, "the Wayland clipboard owner stopped sending \(mime) (\(Int(stepTimeout)) s without a byte)")
            }
            if let watch, pollers[1].revents != 0 {
                // POLLHUP on the read end: every writer has closed (data may still wait in the pipe).
                try watch.readable(pollers[0].revents & Int16(POLLHUP) != 0)
                if pollers[0].revents == 0 { continue }
            }
            if kernelCopy {
                let room = limit.map { $0 + 1 - total } ?? (1 << 20)
                if let moved = try sink.transfer(fromPipe: readEnd, limit: min(1 << 20, room)) {
                    if moved == 0 { return total }
                    total += moved
                    if let limit, total > limit { throw PasteboardError(.refused, "\(mime) is larger than \(limit) bytes") }
                    continue
                }
                kernelCopy = false
            }
            if buffer == nil {
                buffer = malloc(1 << 20)
                guard buffer != nil else { throw PasteboardError(.io, "out of memory") }
            }
            let n = Glibc.read(readEnd, buffer, 1 << 20)
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw PasteboardError(.io, "reading \(mime) from the owner: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return total }
            total += n
            if let limit, total > limit { throw PasteboardError(.refused, "\(mime) is larger than \(limit) bytes") }
            try sink.write(Data(bytes: buffer!, count: n))
        }
    }

    // MARK: Writing (what an owner serves)

    /// Makes a reader's descriptor non-blocking, so a reader that stalls never blocks the owner.
    public static func makeNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// What one ``write(_:_:from:)`` did.
    public struct Written: Sendable, Equatable {
        /// Bytes written, from the offset asked.
        public var count: Int
        /// The reader went away (EPIPE, or another error): nothing more can be written.
        public var failed: Bool
        public init(count: Int, failed: Bool) {
            self.count = count
            self.failed = failed
        }
    }

    /// Writes `data` from `offset` into the non-blocking `fd` until it is all written or the descriptor
    /// takes no more now (at most 1 MiB a call).
    public static func write(_ fd: Int32, _ data: Data, from offset: Int) -> Written {
        var offset = offset
        var count = 0
        while offset < data.count {
            let n = data.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress! + offset, min(raw.count - offset, 1 << 20))
            }
            if n < 0 {
                if errno == EINTR { continue }
                return Written(count: count, failed: errno != EAGAIN)
            }
            offset += n
            count += n
        }
        return Written(count: count, failed: false)
    }

    /// The bytes that wait in a pipe, by either end (FIONREAD); nil when `fd` is no pipe (a file: what
    /// was written counts as read).
    public static func unreadBytes(_ fd: Int32) -> Int? {
        var unread: Int32 = 0
        guard ioctl(fd, UInt(FIONREAD), &unread) == 0 else { return nil }
        return Int(unread)
    }

    /// Whether the reader of the pipe whose write end is `fd` closed its end, waiting at most
    /// `milliseconds` for it.
    public static func readerGone(_ fd: Int32, waitingAtMost milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: 0, revents: 0)
        return Glibc.poll(&poller, 1, milliseconds) > 0 && poller.revents & Int16(POLLERR | POLLHUP) != 0
    }

    public static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// Waits `nanoseconds` doing nothing (the daemon's pause before serving again what a program keeps
    /// clearing).
    public static func pause(nanoseconds: UInt64) { usleep(useconds_t(min(nanoseconds / 1000, 1_000_000))) }

    // MARK: Waiting

    /// One descriptor to wait on: readable (the compositor's socket) or writable (a reader's pipe).
    public struct Wait: Sendable, Equatable {
        public var fd: Int32
        public var writable: Bool
        public static func readable(_ fd: Int32) -> Wait { Wait(fd: fd, writable: false) }
        public static func writable(_ fd: Int32) -> Wait { Wait(fd: fd, writable: true) }
    }

    /// Waits until one of `waits` is ready or `milliseconds` pass (at most a minute): which are ready, in
    /// order (a readable one also when it hung up or failed, so its reader sees why). A signal ends the
    /// wait early, with nothing ready.
    public static func poll(_ waits: [Wait], milliseconds: Int32) throws -> [Bool] {
        var pollers = waits.map { pollfd(fd: $0.fd, events: Int16($0.writable ? POLLOUT : POLLIN), revents: 0) }
        let ready = Glibc.poll(&pollers, nfds_t(pollers.count), max(0, min(milliseconds, 60_000)))
        if ready < 0 {
            if errno == EINTR { return waits.map { _ in false } }
            throw PasteboardError(.io, "poll: \(String(cString: strerror(errno)))")
        }
        return zip(waits, pollers).map { wait, poller in
            wait.writable ? poller.revents != 0 : poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
        }
    }
}

/// `F_SETPIPE_SZ` (Linux 2.6.35), which Glibc declares only under `_GNU_SOURCE`.
private let setPipeSize: Int32 = 1031

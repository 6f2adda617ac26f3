// The socket to the compositor: connect, send messages with their descriptors (SCM_RIGHTS), receive and
// frame events (collecting the descriptors that came with them), with deadlines. The only code of the
// Wayland backend that touches the socket.
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

public final class WaylandConnection {
    public let fd: Int32
    public let path: String
    public var client = DataControlClient()
    private var outgoing: [UInt8] = []
    private var outgoingFDs: [Int32] = []
    /// Bytes received; those before `consumed` are decoded already (dropped when more arrive).
    private var incoming: [UInt8] = []
    private var consumed = 0
    /// recvmsg's buffer, allocated once and never zeroed (it is only read up to what was received).
    private var readBuffer = [UInt8](unsafeUninitializedCapacity: 65536) { _, count in count = 65536 }
    private var incomingFDs: [Int32] = []
    /// Events decoded and not handled yet.
    private var pending: [DataControlClient.Event] = []

    /// The socket: `display` (`$WAYLAND_DISPLAY`) absolute, or relative to `runtimeDirectory`
    /// (`$XDG_RUNTIME_DIR`).
    public static func socketPath(display: String?, runtimeDirectory: String?) -> String? {
        let name = (display?.isEmpty == false ? display : nil) ?? "wayland-0"
        if name.hasPrefix("/") { return name }
        guard let runtime = runtimeDirectory, !runtime.isEmpty else { return nil }
        return runtime + "/" + name
    }

    /// Connects to the compositor.
    /// - Throws: ``PasteboardError`` `.unavailable` when nothing listens there.
    public init(path: String) throws {
        self.path = path
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw PasteboardError(.unavailable, "\(path): the Wayland socket path is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let socketFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else { throw PasteboardError(.unavailable, "socket: \(String(cString: strerror(errno)))") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            close(socketFD)
            throw PasteboardError(.unavailable, "no Wayland compositor at \(path): \(message)")
        }
        fd = socketFD
    }

    /// A connection over a socket already connected (a test plays the compositor on the other end).
    init(connected socketFD: Int32, path: String) {
        self.path = path
        fd = socketFD
    }

    deinit {
        close(fd)
        for descriptor in incomingFDs { close(descriptor) }
    }

    // MARK: Sending

    public func send(_ message: WaylandMessage) {
        let (bytes, fds) = WaylandWire.encode(message)
        outgoing += bytes
        outgoingFDs += fds
    }

    public func send(_ messages: [WaylandMessage]) { for m in messages { send(m) } }

    /// Writes what is queued; descriptors go with the first bytes of the batch.
    public func flush(deadline: UInt64) throws {
        while !outgoing.isEmpty {
            let fds = outgoingFDs
            let space = fds.isEmpty ? 0 : Self.controlSpace(fds.count)
            var control = [UInt8](repeating: 0, count: max(space, 1))
            let n: Int = outgoing.withUnsafeBytes { raw -> Int in
                control.withUnsafeMutableBytes { controlRaw -> Int in
                    var iov = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress), iov_len: raw.count)
                    return withUnsafeMutablePointer(to: &iov) { iovPointer -> Int in
                        var message = msghdr()
                        message.msg_iov = iovPointer
                        message.msg_iovlen = 1
                        if !fds.isEmpty {
                            message.msg_control = controlRaw.baseAddress
                            message.msg_controllen = space
                            let header = controlRaw.baseAddress!.assumingMemoryBound(to: cmsghdr.self)
                            header.pointee.cmsg_level = SOL_SOCKET
                            header.pointee.cmsg_type = Int32(SCM_RIGHTS)
                            header.pointee.cmsg_len = Self.controlLength(fds.count)
                            let data = controlRaw.baseAddress! + MemoryLayout<cmsghdr>.size
                            for (i, descriptor) in fds.enumerated() { data.storeBytes(of: descriptor, toByteOffset: i * 4, as: Int32.self) }
                        }
                        return sendmsg(fd, &message, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    }
                }
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    // Read while waiting to write: a compositor blocked on writing to us (events about
                    // our own requests) would otherwise never read again.
                    guard try wait(events: Int16(POLLOUT | POLLIN), deadline: deadline) else {
                        throw PasteboardError(.timedOut, "the Wayland compositor stopped reading")
                    }
                    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    if poll(&poller, 1, 0) > 0 { try receive() }
                    continue
                }
                throw PasteboardError(.unavailable, "the Wayland compositor closed the connection (\(String(cString: strerror(errno))))")
            }
            outgoing.removeFirst(n)
            outgoingFDs = []
        }
    }

    static func controlLength(_ count: Int) -> Int { MemoryLayout<cmsghdr>.size + count * 4 }
    static func controlSpace(_ count: Int) -> Int { (controlLength(count) + 7) & ~7 }

    // MARK: Receiving

    /// The next event, reading from the socket until one is whole or `deadline` passes (nil on timeout).
    /// - Throws: ``PasteboardError`` `.unavailable` when the compositor goes away or breaks the protocol.
    public func nextEvent(deadline: UInt64?) throws -> DataControlClient.Event? {
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            if try decodeOne() { continue }
            // Requests queued meanwhile (offers destroyed) go out before waiting.
            if !outgoing.isEmpty { try flush(deadline: waylandNow() + 2_000_000_000) }
            if let deadline {
                guard try wait(events: Int16(POLLIN), deadline: deadline) else { return nil }
            }
            try receive()
        }
    }

    /// Whether an event can be had without reading the socket: one decoded already, or a whole message
    /// among the bytes received (a round trip reads past its `done`). An owner polling the socket must
    /// ask this first: poll does not see what was read already.
    public func hasBufferedEvents() throws -> Bool {
        while pending.isEmpty, try decodeOne() {}
        return !pending.isEmpty
    }

    /// Dispatches events until a `wl_display.sync` comes back; the events met meanwhile are kept in order.
    public func roundTrip(deadline: UInt64) throws {
        let (sync, callback) = client.sync()
        send(sync)
        try flush(deadline: deadline)
        var kept: [DataControlClient.Event] = []
        while true {
            guard let event = try nextEvent(deadline: deadline) else {
                pending = kept + pending
                throw PasteboardError(.timedOut, "the Wayland compositor did not answer in time")
            }
            if event == .done(callback: callback) { break }
            if case .fatal(let message) = event { throw PasteboardError(.unavailable, message) }
            kept.append(event)
        }
        pending = kept + pending
    }

    /// Decodes one whole message from what was received; false when none is whole yet.
    private func decodeOne() throws -> Bool {
        let start = consumed
        guard let (object, opcode, size) = try mapWire({ try WaylandWire.header(incoming[start...]) }) else { return false }
        guard incoming.count - start >= size else { return false }
        let body = incoming[(start + 8)..<(start + size)]
        if let types = client.eventSignature(object: object, opcode: opcode) {
            let arguments = try mapWire { try WaylandWire.arguments(body, types: types, fds: &incomingFDs) }
            if let event = client.handle(WaylandMessage(object: object, opcode: opcode, arguments: arguments)) {
                pending.append(event)
            }
            if !client.queuedRequests.isEmpty { send(client.takeQueuedRequests()) }
        }
        consumed += size
        return true
    }

    private func mapWire<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as WaylandWireError {
            throw PasteboardError(.unavailable, "malformed message from the Wayland compositor: \(error.message)")
        }
    }

    private func receive() throws {
        var control = [UInt8](repeating: 0, count: Self.controlSpace(28))
        var received: [Int32] = []
        let n: Int = readBuffer.withUnsafeMutableBytes { raw in
            control.withUnsafeMutableBytes { controlRaw in
                var iov = iovec(iov_base: raw.baseAddress, iov_len: raw.count)
                return withUnsafeMutablePointer(to: &iov) { iovPointer -> Int in
                    var message = msghdr()
                    message.msg_iov = iovPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlRaw.baseAddress
                    message.msg_controllen = controlRaw.count
                    let n = recvmsg(fd, &message, Int32(MSG_CMSG_CLOEXEC))
                    guard n >= 0 else { return n }
                    var offset = 0
                    while offset + MemoryLayout<cmsghdr>.size <= Int(message.msg_controllen) {
                        let header = (controlRaw.baseAddress! + offset).assumingMemoryBound(to: cmsghdr.self).pointee
                        guard header.cmsg_len >= MemoryLayout<cmsghdr>.size else { break }
                        if header.cmsg_level == SOL_SOCKET, header.cmsg_type == Int32(SCM_RIGHTS) {
                            let count = (Int(header.cmsg_len) - MemoryLayout<cmsghdr>.size) / 4
                            let data = controlRaw.baseAddress! + offset + MemoryLayout<cmsghdr>.size
                            for i in 0..<count { received.append(data.load(fromByteOffset: i * 4, as: Int32.self)) }
                        }
                        offset += (Int(header.cmsg_len) + 7) & ~7
                    }
                    return n
                }
            }
        }
        incomingFDs += received
        if n < 0 {
            if errno == EINTR || errno == EAGAIN { return }
            throw PasteboardError(.unavailable, "the Wayland compositor connection failed: \(String(cString: strerror(errno)))")
        }
        if n == 0 { throw PasteboardError(.unavailable, "the Wayland compositor closed the connection") }
        if consumed > 0 {
            incoming.removeFirst(consumed)
            consumed = 0
        }
        incoming += readBuffer[0..<n]
        // A compositor that sends descriptors without messages cannot make us hold them without end.
        if incomingFDs.count > 256 {
            for descriptor in incomingFDs { close(descriptor) }
            incomingFDs = []
            throw PasteboardError(.unavailable, "the Wayland compositor sent too many file descriptors")
        }
    }

    /// Waits for the socket to be readable (or writable); false when `deadline` passed.
    @discardableResult
    func wait(events: Int16, deadline: UInt64) throws -> Bool {
        while true {
            let now = waylandNow()
            guard now < deadline else { return false }
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let r = poll(&poller, 1, Int32(min((deadline - now) / 1_000_000 + 1, 60_000)))
            if r > 0 { return true }
            if r < 0, errno != EINTR { throw PasteboardError(.unavailable, "poll: \(String(cString: strerror(errno)))") }
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds.
func waylandNow() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

// The socket to the compositor: connect, send messages with their descriptors (SCM_RIGHTS), receive and
// frame messages (collecting the descriptors that came with them), with deadlines. It knows no protocol:
// the caller hands it, for each message, the signature of its arguments (as wayland-rs'
// `BufferedSocket::read_one_message(signature)` does), so it is tested without the protocol
// (`WaylandSocketTests`, over a socket pair) and the protocol without it.
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

public final class WaylandSocket {
    /// The argument types of a message, given its object and opcode; nil for a message the caller does
    /// not know (it is skipped).
    public typealias Signature = (_ object: UInt32, _ opcode: UInt16) -> [WaylandArgumentType]?

    public let fd: Int32
    public let path: String
    private var outgoing: [UInt8] = []
    private var outgoingFDs: [Int32] = []
    /// Bytes received; those before `consumed` are decoded already (dropped when more arrive).
    private var incoming: [UInt8] = []
    private var consumed = 0
    /// recvmsg's buffer, allocated once and never zeroed (it is only read up to what was received).
    private var readBuffer = [UInt8](unsafeUninitializedCapacity: 65536) { _, count in count = 65536 }
    /// Descriptors received and not yet handed out with a message.
    private var incomingFDs: [Int32] = []
    /// At most this many descriptors wait for their messages: a peer that sends descriptors without
    /// messages cannot make us hold them without end.
    static let maximumWaitingDescriptors = 256

    /// The socket: `display` (`$WAYLAND_DISPLAY`) absolute, or relative to `runtimeDirectory`
    /// (`$XDG_RUNTIME_DIR`).
    public static func socketPath(display: String?, runtimeDirectory: String?) -> String? {
        let name = (display?.isEmpty == false ? display : nil) ?? "wayland-0"
        if name.hasPrefix("/") { return name }
        guard let runtime = runtimeDirectory, !runtime.isEmpty else { return nil }
        return runtime + "/" + name
    }

    /// Connects to the compositor listening at `path`.
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

    /// A socket already connected (a test plays the compositor on the other end); closed with this.
    public init(connected socketFD: Int32, path: String) {
        self.path = path
        fd = socketFD
    }

    deinit {
        close(fd)
        for descriptor in incomingFDs { close(descriptor) }
    }

    // MARK: Sending

    /// Queues `message`; ``flush(deadline:)`` writes it. Its descriptors stay the caller's (the kernel
    /// duplicates them into the peer).
    public func send(_ message: WaylandMessage) {
        let (bytes, fds) = WaylandWire.encode(message)
        outgoing += bytes
        outgoingFDs += fds
    }

    public func send(_ messages: [WaylandMessage]) { for m in messages { send(m) } }

    /// Whether messages wait to be written.
    public var hasQueuedOutput: Bool { !outgoing.isEmpty }

    /// Writes what is queued; descriptors go with the first bytes of the batch. While the peer does not
    /// read, what it sends is read into the buffer (a compositor blocked on writing to us would never
    /// read again).
    /// - Throws: `.timedOut` when the peer reads nothing until `deadline`; `.unavailable` when it is gone.
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
                    guard try wait(events: Int16(POLLOUT | POLLIN), deadline: deadline) else {
                        throw PasteboardError(.timedOut, "the Wayland compositor stopped reading")
                    }
                    if try wait(events: Int16(POLLIN), deadline: 0) { try receive() }
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

    /// The next whole message among the bytes received, its arguments decoded by `signature` (descriptors
    /// taken in order from those received); messages `signature` does not know are skipped. Nil when no
    /// whole message is buffered: ``read(deadline:)`` then. Reads nothing itself.
    /// - Throws: `.unavailable` for a malformed message.
    public func nextMessage(signature: Signature) throws -> WaylandMessage? {
        while true {
            let start = consumed
            guard let (object, opcode, size) = try mapWire({ try WaylandWire.header(incoming[start...]) }) else { return nil }
            guard incoming.count - start >= size else { return nil }
            consumed += size
            guard let types = signature(object, opcode) else { continue }
            let body = incoming[(start + 8)..<(start + size)]
            let arguments = try mapWire { try WaylandWire.arguments(body, types: types, fds: &incomingFDs) }
            return WaylandMessage(object: object, opcode: opcode, arguments: arguments)
        }
    }

    /// Whether bytes of a message wait in the buffer (whole or not).
    public var hasBufferedBytes: Bool { consumed < incoming.count }

    /// Waits until the socket is readable or `deadline` passes, then reads what is there; false when the
    /// deadline passed first. With `deadline` nil, waits without end: only for a loop that waits for the
    /// compositor's events by design (`watch`).
    /// - Throws: `.unavailable` when the compositor goes away.
    @discardableResult
    public func read(deadline: UInt64?) throws -> Bool {
        if let deadline {
            guard try wait(events: Int16(POLLIN), deadline: deadline) else { return false }
        }
        try receive()
        return true
    }

    /// Reads what has arrived already, without waiting; false when nothing had.
    @discardableResult
    public func readAvailable() throws -> Bool {
        guard try wait(events: Int16(POLLIN), deadline: 0) else { return false }
        try receive()
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
        if incomingFDs.count > Self.maximumWaitingDescriptors {
            for descriptor in incomingFDs { close(descriptor) }
            incomingFDs = []
            throw PasteboardError(.unavailable, "the Wayland compositor sent too many file descriptors")
        }
    }

    /// The descriptors received and not handed out with a message yet (for tests).
    var waitingDescriptors: Int { incomingFDs.count }

    /// Waits for the socket to be readable (or writable); false when `deadline` passed (at once with a
    /// deadline of 0: a look, no wait).
    func wait(events: Int16, deadline: UInt64) throws -> Bool {
        while true {
            let now = MonotonicClock.nanoseconds()
            let timeout = deadline > now ? Int32(min((deadline - now) / 1_000_000 + 1, 60_000)) : 0
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let r = poll(&poller, 1, timeout)
            if r > 0 { return true }
            if r < 0, errno != EINTR { throw PasteboardError(.unavailable, "poll: \(String(cString: strerror(errno)))") }
            if r == 0, timeout == 0 { return false }
        }
    }
}

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
import CSystem
import Pasteboard
import SystemIO

extension Endpoint {
    /// A dotted IPv4 address (a name is looked up once, through the system's resolver).
    public init?(host: String, port: Int) {
        var parsed = in_addr()
        if inet_pton(AF_INET, host, &parsed) == 1 {
            self.init(address: UInt32(bigEndian: parsed.s_addr), port: port)
            return
        }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result, let address = first.pointee.ai_addr else { return nil }
        defer { freeaddrinfo(result) }
        let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
        self.init(address: UInt32(bigEndian: ipv4), port: port)
    }

    var sockaddr: sockaddr_in {
        var value = sockaddr_in()
        value.sin_family = sa_family_t(AF_INET)
        value.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        value.sin_addr.s_addr = address.bigEndian
        return value
    }

    init(_ value: sockaddr_in) {
        self.init(address: UInt32(bigEndian: value.sin_addr.s_addr), port: Int(UInt16(bigEndian: value.sin_port)))
    }
}

/// The sockets of the LAN backend, every one non-blocking and close-on-exec; waits go through
/// ``Poller`` with deadlines.
public enum Sockets {
    static func fail(_ what: String, _ where_: String) -> PasteboardError { POSIX.ioError(what, where_) }

    static func withAddress<T>(_ endpoint: Endpoint, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = endpoint.sockaddr
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The UDP socket discovery listens on (port 1716 on `bindAddress`, shared with other KDE Connect
    /// programs of this machine as KDE Connect shares it), broadcast allowed.
    public static func udp(bind bindAddress: UInt32, port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw fail("socket", "UDP") }
        setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        setOption(fd, SOL_SOCKET, SO_BROADCAST, 1)
        let result = withAddress(Endpoint(address: bindAddress, port: port)) { bind(fd, $0, $1) }
        guard result == 0 else {
            let error = POSIX.ioError("bind", "UDP port \(port)")
            close(fd)
            throw error
        }
        return fd
    }

    /// A datagram to `endpoint`; false when it could not be sent (no route: no network).
    @discardableResult
    public static func send(_ fd: Int32, _ bytes: [UInt8], to endpoint: Endpoint) -> Bool {
        withAddress(endpoint) { address, length in bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) } } == bytes.count
    }

    /// The next datagram waiting (at most `limit` bytes; a longer one is cut, and refused by its reader), nil when none.
    public static func receive(_ fd: Int32, limit: Int) -> (bytes: [UInt8], from: Endpoint)? {
        var buffer = [UInt8](repeating: 0, count: limit)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, raw.baseAddress, raw.count, 0, $0, &length) }
            }
        }
        guard count >= 0 else { return nil }
        return (Array(buffer[0..<count]), Endpoint(address))
    }

    /// A TCP listener on the first free port of `ports` (KDE Connect's 1714–1764, 1716 first).
    public static func listen(bind bindAddress: UInt32, ports: [Int]) throws -> (fd: Int32, port: Int) {
        for port in ports {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw fail("socket", "TCP") }
            setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            if withAddress(Endpoint(address: bindAddress, port: port), { bind(fd, $0, $1) }) == 0, Glibc.listen(fd, 16) == 0 {
                return (fd, port)
            }
            close(fd)
        }
        throw PasteboardError(.unavailable, "no free TCP port in \(ports.first ?? 0)–\(ports.last ?? 0)")
    }

    /// A connection waiting on a listener, nil when none.
    public static func accept(_ listener: Int32) -> (fd: Int32, from: Endpoint)? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { csystem_accept4(listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)) }
        }
        guard fd >= 0 else { return nil }
        keepAlive(fd)
        return (fd, Endpoint(address))
    }

    /// Starts a connection to `endpoint`; it is made once the socket is writable (``connectionError``).
    public static func connect(_ endpoint: Endpoint) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw fail("socket", endpoint.description) }
        let result = withAddress(endpoint) { Glibc.connect(fd, $0, $1) }
        if result != 0, errno != EINPROGRESS {
            let error = POSIX.ioError("connect", endpoint.description)
            close(fd)
            throw error
        }
        keepAlive(fd)
        return fd
    }

    /// What a started connection ended in: 0 when it was made, else the error.
    public static func connectionError(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
        return error
    }

    /// TCP keep-alive as KDE Connect sets it: a dead peer is found within about 25 s.
    static func keepAlive(_ fd: Int32) {
        setOption(fd, SOL_SOCKET, SO_KEEPALIVE, 1)
        setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, 10)
        setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL, 5)
        setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPCNT, 3)
        setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    }

    public enum ReadResult: Equatable {
        case bytes(Int)
        case wouldBlock
        case closed
    }

    /// Reads what is there without waiting.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, peek: Bool = false) -> ReadResult {
        let count = recv(fd, buffer.baseAddress, buffer.count, peek ? Int32(MSG_PEEK) : 0)
        if count > 0 { return .bytes(count) }
        if count == 0 { return .closed }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wouldBlock : .closed
    }

    /// Writes what the socket takes without waiting: the count, 0 when full, nil when the connection is gone.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if count >= 0 { return count }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : nil
    }

    public static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// This machine's host name.
    public static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        return cText(buffer)
    }

    /// A pipe whose write end wakes a poll loop (both ends non-blocking).
    public static func wakePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard csystem_pipe2(&fds, O_NONBLOCK | O_CLOEXEC) == 0 else { throw POSIX.ioError("pipe", "wake") }
        return (fds[0], fds[1])
    }

    public static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = Glibc.write(fd, &byte, 1)
    }

    public static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 256)
        while Glibc.read(fd, &buffer, buffer.count) > 0 {}
    }
}

/// One `poll` over many descriptors.
public struct Poller {
    public var entries: [pollfd] = []

    public init() {}

    public mutating func add(_ fd: Int32, read: Bool, write: Bool) -> Int {
        entries.append(pollfd(fd: fd, events: Int16((read ? POLLIN : 0) | (write ? POLLOUT : 0)), revents: 0))
        return entries.count - 1
    }

    /// Waits at most `milliseconds`.
    public mutating func wait(milliseconds: Int32) {
        _ = poll(&entries, nfds_t(entries.count), milliseconds)
    }

    public func readable(_ index: Int) -> Bool { entries[index].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 }
    public func writable(_ index: Int) -> Bool { entries[index].revents & Int16(POLLOUT | POLLHUP | POLLERR) != 0 }
}

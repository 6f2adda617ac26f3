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
import RemoteProtocol
import SystemIO

/// One end of a `pbctl ssh` socket: messages written and read with a deadline on every wait (nil:
/// wait for as long as it takes, what a watch does by design), chunks sent from files without passing
/// through the process (`sendfile`). Not shared between threads.
public final class RemoteConnection: @unchecked Sendable {
    public let fd: Int32
    private var reader = RemoteFrameReader()
    private var buffer = [UInt8](repeating: 0, count: 256 << 10)
    /// Bytes the peer has sent so far (for throughput figures and tests).
    public private(set) var received = 0

    /// Takes over `fd` (a connected stream socket), closed when this ends; it is made non-blocking so
    /// every wait goes through `poll` with its deadline.
    public init(fd: Int32) {
        self.fd = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    /// Connects to the socket at `path` within `timeout` seconds.
    /// - Throws: ``PasteboardError`` `.unavailable` naming the path.
    public static func connect(path: String, timeout: Double) throws -> RemoteConnection {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = path.pathBytes
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw PasteboardError(.unavailable, "\(path.shownPath): a socket path too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw POSIX.ioError("socket", path.shownPath) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result != 0, errno != EINPROGRESS, errno != EAGAIN {
            let code = errno
            close(fd)
            throw PasteboardError(.unavailable, "\(path.shownPath): \(POSIX.errorString(code))")
        }
        let connection = RemoteConnection(fd: fd)
        if result != 0 {
            guard connection.wait(POLLOUT, until: MonotonicClock.nanoseconds() + UInt64(timeout * 1e9)) else {
                throw PasteboardError(.timedOut, "\(path.shownPath): no answer within \(timeout) s")
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else { throw PasteboardError(.unavailable, "\(path.shownPath): \(POSIX.errorString(error))") }
        }
        return connection
    }

    /// Waits until `fd` is ready for `events`, at most until `deadline` (monotonic nanoseconds).
    func wait(_ events: Int32, until deadline: UInt64?) -> Bool {
        while true {
            var poller = pollfd(fd: fd, events: Int16(events), revents: 0)
            let timeout: Int32
            if let deadline {
                let now = MonotonicClock.nanoseconds()
                guard now < deadline else { return false }
                timeout = Int32(min((deadline - now) / 1_000_000 + 1, 60_000))
            } else {
                timeout = -1
            }
            let n = poll(&poller, 1, timeout)
            if n < 0, errno == EINTR { continue }
            if n > 0 { return true }
            if n < 0 { return false }
        }
    }

    /// Sends `message`.
    public func send(_ message: RemoteMessage, deadline: UInt64?) throws {
        try write(message.encoded(), deadline: deadline)
    }

    /// Sends `data` as chunks (at most ``RemoteMessage/maximumChunk`` each).
    public func sendChunks(_ data: Data, deadline: () -> UInt64?) throws {
        var offset = 0
        while offset < data.count {
            let count = min(RemoteMessage.maximumChunk, data.count - offset)
            try write(RemoteMessage.chunkHeader(count: count), deadline: deadline())
            try data.withUnsafeBytes { raw in try write(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + count]), deadline: deadline()) }
            offset += count
        }
    }

    /// Sends `count` bytes of the regular file `source` from `offset` as chunks, moved by the kernel
    /// (`sendfile`), never through this process.
    public func sendChunks(fromFile source: Int32, offset start: Int, count total: Int, deadline: () -> UInt64?) throws {
        var offset = start
        let end = start + total
        while offset < end {
            let count = min(RemoteMessage.maximumChunk, end - offset)
            try write(RemoteMessage.chunkHeader(count: count), deadline: deadline())
            var sent = 0
            while sent < count {
                var position = off_t(offset + sent)
                let n = sendfile(fd, source, &position, count - sent)
                if n > 0 {
                    sent += n
                } else if n < 0, errno == EAGAIN || errno == EINTR {
                    guard wait(POLLOUT, until: deadline()) else { throw PasteboardError(.timedOut, "the peer stopped reading") }
                } else if n < 0, errno == EPIPE || errno == ECONNRESET {
                    throw PasteboardError(.unavailable, "the peer closed the connection")
                } else {
                    throw PasteboardError(.io, "sendfile failed: \(POSIX.errorString())")
                }
            }
            offset += count
        }
    }

    private func write(_ bytes: [UInt8], deadline: UInt64?) throws {
        try bytes.withUnsafeBytes { try write($0, deadline: deadline) }
    }

    private func write(_ raw: UnsafeRawBufferPointer, deadline: UInt64?) throws {
        guard var pointer = raw.baseAddress else { return }
        var remaining = raw.count
        while remaining > 0 {
            let n = Glibc.send(fd, pointer, remaining, Int32(MSG_NOSIGNAL))
            if n > 0 {
                pointer += n
                remaining -= n
            } else if n < 0, errno == EAGAIN || errno == EINTR {
                guard wait(POLLOUT, until: deadline) else { throw PasteboardError(.timedOut, "the peer stopped reading") }
            } else if n < 0, errno == EPIPE || errno == ECONNRESET {
                throw PasteboardError(.unavailable, "the peer closed the connection")
            } else {
                throw PasteboardError(.io, "send failed: \(POSIX.errorString())")
            }
        }
    }

    /// The next message, waiting at most until `deadline`.
    /// - Throws: `.timedOut`, `.unavailable` when the peer closed, `.corrupt` for a malformed frame.
    public func receive(deadline: UInt64?) throws -> RemoteMessage {
        while true {
            do {
                if let message = try reader.next() { return message }
            } catch let error as RemoteProtocolError {
                throw PasteboardError(.corrupt, "the pbctl at the other end sent \(error.message)")
            }
            let n = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                received += n
                reader.feed(buffer[0..<n])
            } else if n == 0 {
                throw PasteboardError(.unavailable, "the pbctl at the other end closed the connection")
            } else if errno == EAGAIN || errno == EINTR {
                guard wait(POLLIN, until: deadline) else { throw PasteboardError(.timedOut, "the pbctl at the other end did not answer in time") }
            } else {
                throw PasteboardError(.unavailable, "the connection broke: \(POSIX.errorString())")
            }
        }
    }
}

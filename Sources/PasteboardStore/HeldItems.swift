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
import CSystem

/// Sensitive items without a display: held in the memory of a short-lived process and handed out
/// through a Unix socket inside the pasteboard's private package directory, so the bytes never touch
/// disk. The store records only the types.
///
/// Protocol, one request per connection: `GET <item> <type>\n` answers `OK <length>\n<bytes>` or
/// `ERR <message>\n`; `QUIT\n` makes the holder wipe its data and exit. The holder checks that the peer
/// runs as the same user (`SO_PEERCRED`).
public enum HeldItems {
    /// The longest path a Unix socket address can hold.
    static let maximumSocketPath = 107

    /// Fetches one representation from the holder at `socketPath`.
    /// - Throws: `.empty` when the holder is gone (the content expired or was cleared).
    public static func fetch(_ type: TypeIdentifier, item: Int, socketPath: String, timeout: Int32 = 5) throws -> Data {
        let fd = try connect(socketPath, timeout: timeout)
        defer { close(fd) }
        try POSIX.writeAll(fd, Data("GET \(item) \(type.rawValue)\n".utf8), path: socketPath)
        let reply = try POSIX.readAll(fd, path: socketPath)
        guard let newline = reply.firstIndex(of: 0x0A) else {
            throw PasteboardError(.empty, "the content is no longer available (it was pasted once, expired or was cleared)")
        }
        let header = String(decoding: reply[reply.startIndex..<newline], as: UTF8.self)
        let body = reply[(newline + 1)...]
        if header.hasPrefix("OK "), let length = Int(header.dropFirst(3)), length == body.count {
            return Data(body)
        }
        if header.hasPrefix("ERR ") {
            throw PasteboardError(.typeNotOffered, String(header.dropFirst(4)))
        }
        throw PasteboardError(.io, "\(socketPath): a garbled answer from the holder of the sensitive content")
    }

    /// Asks the holder at `socketPath` to wipe its data and exit; quiet when it is already gone.
    public static func dismiss(socketPath: String) {
        guard let fd = try? connect(socketPath, timeout: 2) else { return }
        _ = try? POSIX.writeAll(fd, Data("QUIT\n".utf8), path: socketPath)
        _ = try? POSIX.readAll(fd, path: socketPath)
        close(fd)
    }

    static func address(_ path: String) throws -> sockaddr_un {
        guard path.utf8.count <= maximumSocketPath else {
            throw PasteboardError(.io, "\(path): the store path is too long for a Unix socket; set PBCTL_STORE to a shorter path")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        return address
    }

    static func connect(_ path: String, timeout: Int32) throws -> Int32 {
        var address = try address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIX.ioError("socket", path) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw PasteboardError(.empty, "the content is no longer available (it was pasted once, expired or was cleared)")
        }
        return fd
    }

    /// Serves `items` on a new socket at `socketPath` until `QUIT`, until `expiry` (seconds), after one
    /// answered paste with `pasteOnce`, or until `stillCurrent` says the pasteboard moved on (checked
    /// every second). Calls `ready` once the socket listens; calls `expired` (with the socket already
    /// gone and the last client's connection closed) when the time runs out or the one paste was served.
    public static func serve(
        _ items: [Item], socketPath: String, expiry: Double?, pasteOnce: Bool = false, ready: () -> Void,
        stillCurrent: () -> Bool, expired: () -> Void
    ) throws {
        var address = try address(socketPath)
        unlink(socketPath)
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw POSIX.ioError("socket", socketPath) }
        defer { close(listener) }
        let previousMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        umask(previousMask)
        guard bound == 0, listen(listener, 16) == 0 else { throw POSIX.ioError("bind", socketPath) }
        ready()
        var items = items
        var cache: [Int: [TypeIdentifier: Data]] = [:]
        defer {
            // Wipe what we held before exiting.
            for index in cache.keys { for key in cache[index]!.keys { cache[index]![key]!.resetBytes(in: 0..<cache[index]![key]!.count) } }
            items.removeAll()
        }
        let start = monotonicSeconds()
        var lastCheck = start
        var servedOnce = false
        while true {
            if servedOnce {
                // The one paste was answered and its connection closed: the content goes.
                unlink(socketPath)
                expired()
                return
            }
            let now = monotonicSeconds()
            if let expiry, now - start >= expiry {
                unlink(socketPath)
                expired()
                return
            }
            if now - lastCheck >= 1 {
                lastCheck = now
                if !stillCurrent() {
                    unlink(socketPath)
                    return
                }
            }
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let waitMilliseconds = Int32(min(1000, max(1, ((expiry.map { start + $0 } ?? now + 1) - now) * 1000)))
            let ready = poll(&pfd, 1, waitMilliseconds)
            guard ready > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            defer { close(client) }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            var credentials = PeerCredentials()
            var length = socklen_t(MemoryLayout<PeerCredentials>.size)
            guard getsockopt(client, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, credentials.uid == getuid()
            else { continue }
            var limit = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            guard let request = readLine(client) else { continue }
            if request == "QUIT" {
                _ = try? POSIX.writeAll(client, Data("OK 0\n".utf8), path: socketPath)
                unlink(socketPath)
                return
            }
            let parts = request.split(separator: " ", maxSplits: 2).map(String.init)
            guard parts.count == 3, parts[0] == "GET", let index = Int(parts[1]) else {
                _ = try? POSIX.writeAll(client, Data("ERR bad request\n".utf8), path: socketPath)
                continue
            }
            let type = TypeIdentifier(parts[2])
            var reply: Data
            if let data = cache[index]?[type] {
                reply = Data("OK \(data.count)\n".utf8) + data
            } else if items.indices.contains(index), let representation = items[index].representation(for: type) {
                do {
                    let data = try representation.data()
                    cache[index, default: [:]][type] = data
                    reply = Data("OK \(data.count)\n".utf8) + data
                } catch {
                    reply = Data("ERR \(error)\n".utf8)
                }
            } else {
                reply = Data("ERR \(type) is not offered\n".utf8)
            }
            if pasteOnce, reply.starts(with: Data("OK ".utf8)), (try? POSIX.writeAll(client, reply, path: socketPath)) != nil {
                servedOnce = true
                reply.resetBytes(in: 0..<reply.count)
                continue
            }
            _ = try? POSIX.writeAll(client, reply, path: socketPath)
            reply.resetBytes(in: 0..<reply.count)
        }
    }

    /// `struct ucred` from <sys/socket.h>, which Swift's Glibc module leaves out (it needs _GNU_SOURCE).
    struct PeerCredentials {
        var pid: Int32 = 0
        var uid: UInt32 = UInt32.max
        var gid: UInt32 = UInt32.max
    }

    static func readLine(_ fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 512 {
            let n = read(fd, &byte, 1)
            if n < 0, errno == EINTR { continue }
            guard n == 1 else { return nil }
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }

    static func monotonicSeconds() -> Double { MonotonicClock.seconds() }
}

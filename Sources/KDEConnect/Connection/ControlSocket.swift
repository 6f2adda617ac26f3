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

/// The daemon's control socket: a Unix stream socket (0600, in the private state folder) on which
/// `pbctl devices` sends one JSON request line and reads one JSON answer line.
public enum ControlSocket {
    static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw PasteboardError(.unavailable, "\(path): a socket path too long (set XDG_STATE_HOME to a shorter folder)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// Listens at `path` (an old socket there is replaced), mode 0600, non-blocking.
    public static func listen(_ path: String) throws -> Int32 {
        var address = try address(path)
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIX.ioError("socket", path) }
        let mask = umask(0o177)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        umask(mask)
        guard bound == 0, Glibc.listen(fd, 8) == 0 else {
            let error = POSIX.ioError("bind", path)
            close(fd)
            throw error
        }
        _ = chmod(path, 0o600)
        return fd
    }

    /// A client waiting, nil when none; only the user's own processes get in (SO_PEERCRED).
    public static func accept(_ listener: Int32) -> Int32? {
        while true {
            let fd = csystem_accept4(listener, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            guard fd >= 0 else { return nil }
            if csystem_peer_uid(fd) == Int(getuid()) { return fd }
            close(fd)
        }
    }

    /// One request and its answer, each a line, within `timeout` seconds.
    /// - Throws: ``PasteboardError`` `.unavailable` when no daemon answers at `path`.
    public static func exchange(_ path: String, request: [UInt8], timeout: Double) throws -> [UInt8] {
        var address = try address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIX.ioError("socket", path) }
        defer { close(fd) }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw PasteboardError(.unavailable, "no pbctl daemon --kdeconnect answers (\(POSIX.errorString()))") }
        var line = request
        line.append(0x0A)
        var offset = 0
        while offset < line.count {
            let count = line[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw PasteboardError(.unavailable, "the daemon's control socket: \(POSIX.errorString())") }
            offset += count
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while !answer.contains(0x0A) {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else {
                throw PasteboardError(.timedOut, "the daemon did not answer within \(timeout) s")
            }
            answer += buffer[0..<count]
            guard answer.count <= 4 << 20 else { throw PasteboardError(.invalidData, "the daemon's answer is over 4 MiB") }
        }
        return Array(answer.prefix { $0 != 0x0A })
    }
}

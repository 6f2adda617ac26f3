#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether the multiplexer an environment names is really there. `TMUX` is inherited into places its
/// server cannot be reached from (`su`, a container, an SSH hop, a tmux that has exited): wrapping
/// sequences for a tmux that is not there, or handing text to a `tmux` command that cannot reach it,
/// sends nothing anywhere.
public enum Multiplexer {
    /// The socket path of `TMUX` (`/tmp/tmux-1000/default,1234,0`): everything before the last two
    /// comma-separated fields.
    public static func tmuxSocket(_ variable: String) -> String? {
        let fields = variable.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count >= 3 else { return fields.first.map(String.init).flatMap { $0.isEmpty ? nil : $0 } }
        let path = fields.dropLast(2).joined(separator: ",")
        return path.isEmpty ? nil : path
    }

    /// Whether a tmux server listens on the socket `TMUX` names (a connection is accepted). The
    /// corresponding C function is `connect`.
    public static func tmuxServerAnswers(_ variable: String) -> Bool {
        guard let path = tmuxSocket(variable) else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
    }
}

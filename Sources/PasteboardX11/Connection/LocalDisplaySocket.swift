import Glibc

/// The Unix socket of a local display (`:N`, `:N.S`, `unix:N`, or a socket path as launchd sets),
/// checked the way libxcb connects: the abstract name first, then the file in `/tmp/.X11-unix`.
/// Used only to tell a server that is resetting (it accepts the connection) from one that is gone.
struct LocalDisplaySocket {
    let path: String

    /// nil for a display that is not local (`host:N`, TCP) or that does not parse.
    init?(display: String) {
        if display.hasPrefix("/") {
            // launchd style: "/path/to/socket:N.S"
            guard let colon = display.lastIndex(of: ":") else { return nil }
            path = String(display[..<colon])
            return
        }
        var rest = Substring(display)
        if rest.hasPrefix("unix:") { rest = rest.dropFirst(5) } else if rest.hasPrefix(":") { rest = rest.dropFirst() } else { return nil }
        let number = rest.prefix { $0 != "." }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        path = "/tmp/.X11-unix/X\(number)"
    }

    /// Whether a connection to the socket is accepted now (abstract name, then the file).
    var acceptsConnections: Bool {
        Self.connects(path, abstract: true) || Self.connects(path, abstract: false)
    }

    private static func connects(_ path: String, abstract: Bool) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let offset = abstract ? 1 : 0
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count + offset < capacity else { return false }
        // An abstract name is a NUL byte followed by the path (sun_path starts zeroed).
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i + offset] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + offset + bytes.count + (abstract ? 0 : 1))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) == 0 }
        }
    }
}

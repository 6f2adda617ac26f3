/// An IPv4 endpoint (KDE Connect's LAN backend is IPv4: broadcast on 255.255.255.255). A value only:
/// `Connection/Sockets.swift` resolves a host name into one and makes it a socket address.
public struct Endpoint: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// In host byte order.
    public var address: UInt32
    public var port: Int

    public init(address: UInt32, port: Int) {
        self.address = address
        self.port = port
    }

    public static let broadcast = Endpoint(address: 0xFFFF_FFFF, port: DeviceIdentity.udpPort)

    /// The dotted address.
    public var host: String {
        "\(address >> 24).\((address >> 16) & 255).\((address >> 8) & 255).\(address & 255)"
    }

    public var description: String { "\(host):\(port)" }
}

extension Endpoint {
    /// A dotted IPv4 address (no name lookup: a record holds the address it was seen at).
    public init?(dotted text: String, port: Int) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var address: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let byte = UInt8(part) else { return nil }
            address = address << 8 | UInt32(byte)
        }
        self.init(address: address, port: port)
    }
}

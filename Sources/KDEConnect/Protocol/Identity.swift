#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// A device as its identity packet describes it (`kdeconnect.identity`): sent in clear by UDP and at
/// the start of each TCP link, and again inside TLS from protocol version 8 on.
public struct DeviceIdentity: Equatable, Sendable {
    public var id: String
    public var name: String
    public var type: String
    public var protocolVersion: Int
    public var incomingCapabilities: [String]
    public var outgoingCapabilities: [String]
    /// The TCP port its links are accepted on (UDP identities only).
    public var tcpPort: Int?

    /// The protocol versions pbctl speaks: 7 (KDE Connect until 23.08) and 8 (identities again inside
    /// TLS, pairing with a timestamp).
    public static let protocolVersion = 8
    public static let oldestProtocolVersion = 7
    /// KDE Connect's range of TCP ports.
    public static let tcpPorts = 1714...1764
    public static let udpPort = 1716
    /// Device types KDE Connect knows.
    public static let deviceTypes = ["desktop", "laptop", "phone", "tablet", "tv"]

    /// What pbctl offers and takes: KDE Connect's clipboard both ways (its plugin loads for a peer only
    /// when both lists carry both types), and pbctl's own extension.
    public static let capabilities = [PacketType.clipboard, PacketType.clipboardConnect, PacketType.richClipboard]

    public init(
        id: String, name: String, type: String, protocolVersion: Int = DeviceIdentity.protocolVersion,
        incomingCapabilities: [String] = DeviceIdentity.capabilities, outgoingCapabilities: [String] = DeviceIdentity.capabilities,
        tcpPort: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.type = type
        self.protocolVersion = protocolVersion
        self.incomingCapabilities = incomingCapabilities
        self.outgoingCapabilities = outgoingCapabilities
        self.tcpPort = tcpPort
    }

    /// A device id as KDE Connect takes one: 32 to 38 letters, digits, `_` or `-` (22.12 makes
    /// `_uuid_with_underscores_`, later versions 32 hex digits).
    public static func isValidID(_ id: String) -> Bool {
        (32...38).contains(id.utf8.count)
            && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || $0 == 0x2D }
    }

    /// A name as KDE Connect shows one: without `"',;:.!?()[]<>`, control characters and line breaks,
    /// at most 32 characters.
    public static func filteredName(_ name: String) -> String {
        let refused = Set("\"',;:.!?()[]<>")
        let kept = name.unicodeScalars.filter { !$0.properties.isWhitespace || $0 == " " }
            .map(Character.init).filter { !refused.contains($0) && !($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) }
        func trim(_ text: String) -> String { String(String(text.drop(while: { $0 == " " }).reversed()).drop(while: { $0 == " " }).reversed()) }
        return trim(String(trim(String(kept)).prefix(32)))
    }

    /// Whether this device can take KDE Connect's clipboard: its plugin is loaded on both sides only
    /// when both capability lists carry both packet types.
    public var speaksClipboard: Bool {
        [PacketType.clipboard, PacketType.clipboardConnect].allSatisfy { incomingCapabilities.contains($0) && outgoingCapabilities.contains($0) }
    }

    /// Whether it is a pbctl that takes every representation (``RichClipboard``).
    public var speaksRichClipboard: Bool {
        incomingCapabilities.contains(PacketType.richClipboard) && outgoingCapabilities.contains(PacketType.richClipboard)
    }

    public func packet(now milliseconds: Int64) -> NetworkPacket {
        var body: [(String, JSONValue)] = [
            ("deviceId", .string(id)), ("deviceName", .string(name)), ("deviceType", .string(type)),
            ("protocolVersion", .integer(Int64(protocolVersion))),
            ("incomingCapabilities", .array(incomingCapabilities.map(JSONValue.string))),
            ("outgoingCapabilities", .array(outgoingCapabilities.map(JSONValue.string))),
        ]
        if let tcpPort { body.append(("tcpPort", .integer(Int64(tcpPort)))) }
        return NetworkPacket(type: PacketType.identity, body: body, now: milliseconds)
    }

    /// The identity a packet carries, validated: the type, a valid id, a name left after filtering, a
    /// protocol version pbctl speaks, at most 256 capabilities a list, a TCP port in KDE Connect's range.
    /// - Throws: ``PacketError`` saying what is wrong.
    public init(packet: NetworkPacket) throws {
        guard packet.type == PacketType.identity else { throw PacketError("expected an identity, got \(packet.type)") }
        let body = packet.body
        guard let id = body["deviceId"]?.string, Self.isValidID(id) else { throw PacketError("identity: no valid deviceId") }
        let name = Self.filteredName(body["deviceName"]?.string ?? "")
        guard !name.isEmpty else { throw PacketError("identity: no device name") }
        guard let version = body["protocolVersion"]?.integer, version >= Int64(Self.oldestProtocolVersion), version < 1000 else {
            throw PacketError("identity: a protocol version pbctl does not speak (it speaks 7 and 8)")
        }
        func capabilities(_ key: String) throws -> [String] {
            guard let value = body[key] else { return [] }
            guard let list = value.strings, list.count <= 256, list.allSatisfy({ $0.utf8.count <= NetworkPacket.maximumTypeLength }) else {
                throw PacketError("identity: \(key) is not a list of packet types")
            }
            return list
        }
        var port: Int?
        if let value = body["tcpPort"] {
            guard let number = value.integer, Self.tcpPorts.contains(Int(clamping: number)) else {
                throw PacketError("identity: tcpPort outside \(Self.tcpPorts)")
            }
            port = Int(number)
        }
        let type = body["deviceType"]?.string.map { Self.deviceTypes.contains($0) ? $0 : "desktop" } ?? "desktop"
        self.init(
            id: id, name: name, type: type, protocolVersion: Int(version), incomingCapabilities: try capabilities("incomingCapabilities"),
            outgoingCapabilities: try capabilities("outgoingCapabilities"), tcpPort: port)
    }
}

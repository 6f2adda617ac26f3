#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// What pbctl remembers of other devices, in `devices.json` of its KDE Connect state folder: each
/// paired device's pinned certificate (DER, base64) and its fingerprint, its name and type, the
/// protocol version it spoke and the address it was last seen at; and the addresses `pbctl devices add`
/// named, tried on every start. Pure: the file's bytes in and out; every field read back is checked
/// (ids, lengths, ports, versions, the fingerprint against the certificate's own), and a record that
/// fails is dropped, not trusted.
public struct DeviceRecords: Equatable, Sendable {
    public struct Device: Equatable, Sendable {
        public var id: String
        public var name: String
        public var type: String
        /// The pinned certificate (DER).
        public var certificate: Data
        /// SHA-256 of ``certificate``, lowercase hex.
        public var fingerprint: String
        public var protocolVersion: Int
        public var address: String?
        public var port: Int?
        /// When it was paired (milliseconds since 1970).
        public var paired: Int64

        public init(
            id: String, name: String, type: String, certificate: Data, fingerprint: String, protocolVersion: Int, address: String?, port: Int?,
            paired: Int64
        ) {
            self.id = id
            self.name = name
            self.type = type
            self.certificate = certificate
            self.fingerprint = fingerprint
            self.protocolVersion = protocolVersion
            self.address = address
            self.port = port
            self.paired = paired
        }
    }

    public var devices: [Device] = []
    /// `host` or `host:port` strings `pbctl devices add` was given.
    public var addresses: [String] = []

    public static let maximumDevices = 256
    public static let maximumAddresses = 64
    public static let maximumFileSize = 4 << 20

    public init(devices: [Device] = [], addresses: [String] = []) {
        self.devices = devices
        self.addresses = addresses
    }

    public func device(_ id: String) -> Device? { devices.first { $0.id == id } }

    public mutating func set(_ device: Device) {
        devices.removeAll { $0.id == device.id }
        devices.append(device)
    }

    public mutating func remove(_ id: String) { devices.removeAll { $0.id == id } }

    public func encoded() -> Data {
        let list = devices.map { device -> JSONValue in
            var members: [(String, JSONValue)] = [
                ("id", .string(device.id)), ("name", .string(device.name)), ("type", .string(device.type)),
                ("certificate", .string(device.certificate.base64EncodedString())), ("fingerprint", .string(device.fingerprint)),
                ("protocolVersion", .integer(Int64(device.protocolVersion))), ("paired", .integer(device.paired)),
            ]
            if let address = device.address { members.append(("address", .string(address))) }
            if let port = device.port { members.append(("port", .integer(Int64(port)))) }
            return .object(members)
        }
        var bytes = JSONValue.object([
            ("version", .integer(1)), ("devices", .array(list)), ("addresses", .array(addresses.map(JSONValue.string))),
        ]).encoded()
        bytes.append(0x0A)
        return Data(bytes)
    }

    /// Reads the file's bytes; `fingerprint` computes SHA-256 hex of a certificate (the caller's, so
    /// this stays pure). Records that fail a check are left out and named in `problems`.
    public static func decode(_ data: Data, fingerprint: (Data) -> String) throws -> (records: DeviceRecords, problems: [String]) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(data, limits: JSONLimits.packet(maximumBytes: maximumFileSize))
        } catch {
            throw PacketError("devices.json is not JSON: \(error)")
        }
        guard value["version"]?.integer == 1 else { throw PacketError("devices.json: an unknown version") }
        var records = DeviceRecords()
        var problems: [String] = []
        for (index, entry) in (value["devices"]?.array ?? []).prefix(maximumDevices).enumerated() {
            guard let id = entry["id"]?.string, DeviceIdentity.isValidID(id) else {
                problems.append("device \(index + 1): no valid id")
                continue
            }
            guard let encoded = entry["certificate"]?.string, let certificate = Data(base64Encoded: encoded), (64...16384).contains(certificate.count)
            else {
                problems.append("\(id): no certificate")
                continue
            }
            let computed = fingerprint(certificate)
            guard entry["fingerprint"]?.string == computed else {
                problems.append("\(id): the fingerprint does not match the certificate")
                continue
            }
            let version = entry["protocolVersion"]?.integer ?? 7
            guard (7...100).contains(version) else {
                problems.append("\(id): a protocol version out of range")
                continue
            }
            var port: Int?
            if let value = entry["port"]?.integer {
                guard (1...65535).contains(value) else {
                    problems.append("\(id): a port out of range")
                    continue
                }
                port = Int(value)
            }
            let address = entry["address"]?.string.flatMap { Self.isPlausibleHost($0) ? $0 : nil }
            let name = DeviceIdentity.filteredName(entry["name"]?.string ?? "")
            let type = entry["type"]?.string.flatMap { DeviceIdentity.deviceTypes.contains($0) ? $0 : nil } ?? "desktop"
            let paired = entry["paired"]?.integer.map { max(0, $0) } ?? 0
            records.set(
                Device(
                    id: id, name: name.isEmpty ? id : name, type: type, certificate: certificate, fingerprint: computed,
                    protocolVersion: Int(version), address: address, port: port, paired: paired))
        }
        for address in (value["addresses"]?.strings ?? []).prefix(maximumAddresses) {
            if Self.isPlausibleHost(address) { records.addresses.append(address) } else { problems.append("an address that is not one: \(address.prefix(80))") }
        }
        return (records, problems)
    }

    /// A host name or address (with an optional port) as a record may hold: 1 to 255 bytes of letters,
    /// digits, `.`, `-`, `:`, `[`, `]`, `%`, `_`.
    public static func isPlausibleHost(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count)
            && text.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || [0x2E, 0x2D, 0x3A, 0x5B, 0x5D, 0x25, 0x5F].contains($0)
            }
    }

    /// Whether `text` gives a port (`host:port`, `[v6]:port`).
    public static func givesPort(_ text: String) -> Bool {
        guard splitAddress(text) != nil else { return false }
        if text.hasPrefix("[") { return text.contains("]:") }
        return text.filter { $0 == ":" }.count == 1
    }

    /// `host`, `host:port`, `[v6]:port` split; the port KDE Connect listens on first (1716) when none is given.
    public static func splitAddress(_ text: String) -> (host: String, port: Int)? {
        guard isPlausibleHost(text) else { return nil }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return (host, DeviceIdentity.udpPort) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65535).contains(port) else { return nil }
            return (host, port)
        }
        let colons = text.filter { $0 == ":" }.count
        if colons == 1, let index = text.firstIndex(of: ":") {
            guard let port = Int(text[text.index(after: index)...]), (1...65535).contains(port) else { return nil }
            let host = String(text[..<index])
            return host.isEmpty ? nil : (host, port)
        }
        return (text, DeviceIdentity.udpPort)
    }
}

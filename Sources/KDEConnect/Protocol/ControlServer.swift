#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The daemon's side of `pbctl devices` and `pbctl info`: one JSON request line in (`{"command": …}`
/// with `device` or `address`), one JSON answer line out, on the control socket
/// (`Connection/ControlSocket.swift`, the user's own processes only). Pure: the answer is a function of
/// the request and the state (the device table, what the daemon says of itself); what the request asks
/// to be done (a pairing packet sent, the records saved, an address tried) goes out with it.
public enum ControlServer {
    /// The commands: `list` and `status` (`pbctl devices`, `pbctl info`), `add` an address, and the
    /// pairing steps of a device.
    public enum Command: String, CaseIterable, Sendable {
        case list, status, add, pair, accept, reject, unpair
    }

    /// The longest request line.
    public static let maximumRequest = 64 << 10
    /// Clients served at once; more are turned away.
    public static let maximumClients = 16
    /// Seconds a client has to send its request.
    public static let clientTime = 5.0

    /// A request as `pbctl devices` sends it (without its newline).
    public static func request(_ command: String, device: String? = nil, address: String? = nil) -> [UInt8] {
        var members: [(String, JSONValue)] = [("command", .string(command))]
        if let device { members.append(("device", .string(device))) }
        if let address { members.append(("address", .string(address))) }
        return JSONValue.object(members).encoded()
    }

    /// What the daemon says of itself (`pbctl info`).
    public struct Status: Equatable, Sendable {
        public var id: String
        public var name: String
        public var type: String
        public var fingerprint: String
        public var tcpPort: Int
        public var discovery: Bool
        public var statistics: ClipboardChannel.Statistics

        public init(id: String, name: String, type: String, fingerprint: String, tcpPort: Int, discovery: Bool, statistics: ClipboardChannel.Statistics) {
            self.id = id
            self.name = name
            self.type = type
            self.fingerprint = fingerprint
            self.tcpPort = tcpPort
            self.discovery = discovery
            self.statistics = statistics
        }

        public var json: JSONValue {
            var members: [(String, JSONValue)] = [
                ("id", .string(id)), ("name", .string(name)), ("type", .string(type)), ("fingerprint", .string(fingerprint)),
                ("tcpPort", .integer(Int64(tcpPort))), ("discovery", .bool(discovery)), ("sent", .integer(Int64(statistics.sent))),
                ("received", .integer(Int64(statistics.received))), ("skipped", .integer(Int64(statistics.skipped))),
            ]
            if let last = statistics.last { members.append(("last", .string(last))) }
            return .object(members)
        }
    }

    /// The answer, and what the request asks the service to do.
    public struct Reply: Sendable {
        /// Nil for `add` of an address: the answer waits for the link (``AddressLinks``), then is
        /// ``linked(address:device:)`` or ``notLinked(address:reason:)``.
        public var answer: JSONValue?
        public var effects: [DeviceTable.Effect] = []
        /// `add`: the address to link to.
        public var connect: String?
    }

    /// Why a request failed, for the exit status `pbctl devices` gives: `usage` (64), `unreachable` (69).
    public enum Failure: String, Sendable {
        case usage, unreachable
    }

    /// Answers one request line. `isAddress`: whether a host names an IPv4 address (the service looks
    /// names up); `now` and `wallClock` as the device table takes them.
    public static func answer(
        _ line: [UInt8], table: inout DeviceTable, status: Status, now: Double, wallClock: Int64, isAddress: (String) -> Bool
    ) -> Reply {
        guard let request = try? JSONValue.parse(line, limits: JSONLimits.packet(maximumBytes: maximumRequest)), let name = request["command"]?.string
        else { return Reply(answer: failure("not a request")) }
        guard let command = Command(rawValue: name) else { return Reply(answer: failure("unknown command \(name)")) }
        switch command {
        case .list, .status:
            return Reply(answer: .object([("ok", .bool(true)), ("self", status.json), ("devices", .array(table.listed.map(describe)))]))
        case .add:
            guard let address = request["address"]?.string, let (host, _) = DeviceRecords.splitAddress(address) else {
                return Reply(answer: failure("not an address (host, host:port or an IPv4 address)", .usage))
            }
            guard isAddress(host) else {
                return Reply(answer: failure("\(host.prefix(255)): not an IPv4 address, nor a name that resolves to one", .unreachable))
            }
            return Reply(answer: nil, connect: address)
        case .pair, .accept, .reject, .unpair:
            guard let id = request["device"]?.string, let device = table.find(id) else {
                return Reply(answer: failure("no device \(request["device"]?.string ?? "") (pbctl devices lists them)"))
            }
            let event: Pairing.Event = [.pair: .request, .accept: .accept, .reject: .reject, .unpair: .unpair][command]!
            let effects = table.pairing(event, device: device.id, now: now, wallClock: wallClock)
            let message = effects.compactMap { effect -> String? in
                if case .report(_, _, let message) = effect { return message }
                return nil
            }.joined(separator: "; ")
            let after = table[device.id] ?? device
            let changed = after.pairing != device.pairing || command == .unpair
            return Reply(
                answer: .object([("ok", .bool(changed)), ("message", .string(message)), ("error", .string(message)), ("device", describe(after))]),
                effects: effects)
        }
    }

    static func failure(_ message: String, _ kind: Failure? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("ok", .bool(false)), ("error", .string(message))]
        if let kind { members.append(("failure", .string(kind.rawValue))) }
        return .object(members)
    }

    /// `add`'s answer once a link to a device at `address` is up (the address is then kept, and tried
    /// at every start).
    public static func linked(address: String, device: DeviceTable.Device) -> JSONValue {
        let next = device.pairing.isPaired ? "paired" : "pbctl devices pair \(device.id) to pair"
        let message = "linked to \(device.name) (\(device.id)) at \(address); \(next)"
        return .object([("ok", .bool(true)), ("message", .string(message)), ("device", describe(device))])
    }

    /// `add`'s answer when nothing linked at `address`: why (nothing is kept).
    public static func notLinked(address: String, reason: String) -> JSONValue {
        failure(
            "cannot link to \(address): \(reason) (is pbctl daemon --kdeconnect or KDE Connect running there, and its TCP port, 1716 unless given as HOST:PORT, open?)",
            .unreachable)
    }

    /// One device as `pbctl devices --json` lists it.
    public static func describe(_ device: DeviceTable.Device) -> JSONValue {
        let identity = device.identity
        var members: [(String, JSONValue)] = [
            ("id", .string(device.id)), ("name", .string(device.name)), ("type", .string(device.type)), ("state", .string(device.pairing.word)),
            ("reachable", .bool(device.reachable)), ("fingerprint", .string(device.fingerprint ?? "")),
            ("protocolVersion", .integer(Int64(device.protocolVersion))),
            ("clipboard", .string(identity.speaksRichClipboard ? "pbctl" : identity.speaksClipboard ? "text" : "none")),
        ]
        if let endpoint = device.endpoint { members.append(("address", .string(endpoint.host))) }
        if let note = device.note { members.append(("note", .string(note))) }
        return .object(members)
    }

    /// A paired device on record as `pbctl devices` lists it when no daemon runs (none reachable).
    public static func describe(record device: DeviceRecords.Device) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(device.id)), ("name", .string(device.name)), ("type", .string(device.type)), ("state", .string("paired")),
            ("reachable", .bool(false)), ("fingerprint", .string(device.fingerprint)), ("protocolVersion", .integer(Int64(device.protocolVersion))),
        ]
        if let address = device.address { members.append(("address", .string(address))) }
        return .object(members)
    }

    /// One client of the control socket while its request arrives: at most ``maximumRequest`` bytes
    /// within ``clientTime`` seconds, else it is dropped.
    public struct Client: Sendable {
        public let deadline: Double
        private var buffer: [UInt8] = []

        public init(now: Double) { deadline = now + ControlServer.clientTime }

        public enum Step: Equatable, Sendable {
            /// The request line (answer it, then close).
            case request([UInt8])
            case waiting
            /// Too long, too slow, or gone without a request: close.
            case drop
        }

        /// Takes what arrived (`closed`: the client closed its side) at `now`.
        public mutating func take(_ bytes: some Collection<UInt8>, closed: Bool, now: Double) -> Step {
            buffer += bytes
            if let newline = buffer.firstIndex(of: 0x0A) { return .request(Array(buffer[..<newline])) }
            if closed || buffer.count > ControlServer.maximumRequest || now > deadline { return .drop }
            return .waiting
        }
    }
}

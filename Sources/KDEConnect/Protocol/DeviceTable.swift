#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The devices the service knows, as KDE Connect's `Device` and its trusted-devices list keep them: the
/// paired ones from `devices.json` (``DeviceRecords``, their pinned certificates), and those a link
/// reached since; which are reachable; each one's ``Pairing``; the packets each may send (nothing but
/// pairing from a device that is not paired). A known id showing another certificate than the pinned
/// one is refused, and the refusal noted on the device for `pbctl devices`. Pure: times come in as
/// arguments, and what needs I/O goes out as ``Effect``s (a packet to send, the records to save).
public struct DeviceTable: Equatable, Sendable {
    /// One device.
    public struct Device: Equatable, Sendable {
        public let id: String
        public var name: String
        public var type: String
        public var protocolVersion: Int
        public var incomingCapabilities: [String] = []
        public var outgoingCapabilities: [String] = []
        /// The certificate it showed last (DER), and its fingerprint; the pinned one for a paired device.
        public var certificate: Data?
        public var fingerprint: String?
        /// Where it was last seen, and the TCP port it accepts links on.
        public var endpoint: Endpoint?
        public var tcpPort: Int?
        public var pairing: Pairing
        /// A link to it is up.
        public var reachable = false
        /// The last thing to say about it (a pairing step, a refused certificate).
        public var note: String?
        /// When a link or a packet last came from it (the clock of `now`).
        public var lastSeen = 0.0

        public var identity: DeviceIdentity {
            DeviceIdentity(
                id: id, name: name, type: type, protocolVersion: protocolVersion, incomingCapabilities: incomingCapabilities,
                outgoingCapabilities: outgoingCapabilities)
        }

        /// What the clipboard channel needs to know of it.
        public var peer: ClipboardChannel.Peer {
            ClipboardChannel.Peer(id: id, name: name, speaksRichClipboard: identity.speaksRichClipboard, speaksClipboard: identity.speaksClipboard)
        }
    }

    public enum Effect: Equatable, Sendable {
        /// Send `packet` on the device's link.
        case send(device: String, NetworkPacket)
        /// `devices.json` changed: write ``DeviceTable/records``.
        case saveRecords
        /// The device was just paired, or a paired device connected: send it what the clipboard holds,
        /// with when it changed (as KDE Connect's clipboard plugin does on connect).
        case sendClipboardOnConnect(device: String)
        /// A transfer to the device in flight is dropped (it was unpaired).
        case dropTransfers(device: String)
        /// What happened to the device's pairing, in words (the log, and `pbctl devices`' answer).
        case report(device: String, name: String, message: String)
    }

    /// Devices kept at once (a flood of identities does not grow the table without end).
    public static let maximumDevices = 128
    /// Seconds an unpaired device out of reach is kept.
    public static let forgetUnpairedAfter = 300.0

    public private(set) var records: DeviceRecords
    public private(set) var devices: [String: Device] = [:]

    /// The table at start: the paired devices on record, none reachable.
    public init(records: DeviceRecords) {
        self.records = records
        for record in records.devices {
            var device = Device(
                id: record.id, name: record.name, type: record.type, protocolVersion: record.protocolVersion, pairing: Pairing(paired: true))
            device.certificate = record.certificate
            device.fingerprint = record.fingerprint
            device.tcpPort = record.port
            if let address = record.address, let port = record.port, let endpoint = Endpoint(dotted: address, port: port) {
                device.endpoint = endpoint
            }
            devices[record.id] = device
        }
    }

    public subscript(id: String) -> Device? { devices[id] }

    /// A device by its id, else by its name (`pbctl devices pair laptop`).
    public func find(_ idOrName: String) -> Device? { devices[idOrName] ?? devices.values.first { $0.name == idOrName } }

    /// Paired devices a link reaches: where the clipboard goes.
    public var reachablePaired: [Device] { devices.values.filter { $0.pairing.isPaired && $0.reachable }.sorted { $0.id < $1.id } }
    /// Paired devices out of reach with a known place: tried again now and then.
    public var unreachablePaired: [Device] {
        devices.values.filter { $0.pairing.isPaired && !$0.reachable && $0.endpoint != nil }.sorted { $0.id < $1.id }
    }
    public var anyReachable: Bool { devices.values.contains { $0.reachable } }

    /// `pbctl devices`: paired first, then by name.
    public var listed: [Device] {
        devices.values.sorted { ($0.pairing.isPaired ? 0 : 1, $0.name, $0.id) < ($1.pairing.isPaired ? 0 : 1, $1.name, $1.id) }
    }

    // MARK: Links

    /// TLS showed `fingerprint` for `id`: nil when the link may go on; the refusal when `id` is paired
    /// with another certificate pinned (noted on the device).
    public mutating func verify(id: String, fingerprint: String) -> String? {
        guard let record = records.device(id), record.fingerprint != fingerprint else { return nil }
        let note = "refused: a certificate other than the one paired (pinned \(record.fingerprint.prefix(16))…, offered \(fingerprint.prefix(16))…)"
        devices[id]?.note = note
        return note
    }

    /// A link to `identity` is up (its certificate verified) at `endpoint`: the device is added or
    /// updated and reachable. Nil when the table is full.
    public mutating func connected(
        _ identity: DeviceIdentity, certificate: PeerCertificate, endpoint: Endpoint, outgoing: Bool, now: Double
    ) -> [Effect]? {
        var device: Device
        if let known = devices[identity.id] {
            device = known
        } else {
            guard devices.count < Self.maximumDevices else { return nil }
            device = Device(id: identity.id, name: identity.name, type: identity.type, protocolVersion: identity.protocolVersion, pairing: Pairing(paired: false))
        }
        device.name = identity.name
        device.type = identity.type
        device.protocolVersion = identity.protocolVersion
        device.incomingCapabilities = identity.incomingCapabilities
        device.outgoingCapabilities = identity.outgoingCapabilities
        device.certificate = certificate.der
        device.fingerprint = certificate.fingerprint
        device.endpoint = endpoint
        device.tcpPort = identity.tcpPort ?? (outgoing ? endpoint.port : device.tcpPort)
        device.note = nil
        device.lastSeen = now
        device.reachable = true
        devices[identity.id] = device
        guard device.pairing.isPaired else { return [] }
        return rememberAddress(of: identity.id) + [.sendClipboardOnConnect(device: identity.id)]
    }

    /// The device's link went down: a pairing request in flight ends with it.
    public mutating func disconnected(_ id: String) -> [Effect] {
        guard var device = devices[id] else { return [] }
        device.reachable = false
        let actions = device.pairing.linkLost()
        devices[id] = device
        return apply(actions, to: id, wallClock: 0)
    }

    /// Where a packet from a device goes.
    public enum Routing: Equatable, Sendable {
        /// Pairing: taken here.
        case pairing([Effect])
        /// The clipboard channel's (the device is paired).
        case clipboard
        /// Dropped: not a type pbctl takes, or not paired.
        case ignored
    }

    /// A packet from device `id` (`wallClock`: milliseconds since 1970). Nothing but pairing counts from a
    /// device that is not paired.
    public mutating func route(_ packet: NetworkPacket, from id: String, now: Double, wallClock: Int64) -> Routing {
        guard devices[id] != nil else { return .ignored }
        devices[id]?.lastSeen = now
        if packet.type == PacketType.pair {
            guard let wants = packet.body["pair"]?.bool else { return .ignored }
            return .pairing(pairing(.received(pair: wants), device: id, now: now, wallClock: wallClock))
        }
        guard devices[id]?.pairing.isPaired == true else { return .ignored }
        switch packet.type {
        case PacketType.clipboard, PacketType.clipboardConnect, PacketType.richClipboard, PacketType.richChunk, PacketType.richEnd:
            return .clipboard
        default:
            return .ignored
        }
    }

    // MARK: Pairing

    /// Applies a pairing event to device `id` (`pbctl devices pair/accept/reject/unpair`, or a packet).
    public mutating func pairing(_ event: Pairing.Event, device id: String, now: Double, wallClock: Int64) -> [Effect] {
        guard var device = devices[id] else { return [] }
        let actions = device.pairing.handle(event, now: now, wallClock: wallClock / 1000, reachable: device.reachable)
        devices[id] = device
        var effects = apply(actions, to: id, wallClock: wallClock)
        // Unpairing forgets the record whatever the state (a record left from an earlier run).
        if event == .unpair, records.device(id) != nil {
            records.remove(id)
            if !effects.contains(.saveRecords) { effects.append(.saveRecords) }
        }
        return effects
    }

    /// Time passes: pairing requests time out; unpaired devices out of reach for
    /// ``forgetUnpairedAfter`` seconds are forgotten.
    public mutating func tick(now: Double, wallClock: Int64) -> [Effect] {
        var effects: [Effect] = []
        for id in devices.keys.sorted() {
            guard var device = devices[id] else { continue }
            let actions = device.pairing.handle(.tick, now: now, wallClock: wallClock / 1000, reachable: device.reachable)
            devices[id] = device
            effects += apply(actions, to: id, wallClock: wallClock)
        }
        for (id, device) in devices where !device.pairing.isPaired && !device.reachable && now - device.lastSeen > Self.forgetUnpairedAfter {
            devices[id] = nil
        }
        return effects
    }

    /// When ``tick(now:wallClock:)`` next has something to do: a pairing request times out, or an
    /// unpaired device out of reach is forgotten (nil: nothing will; the service then sleeps until a
    /// descriptor wakes it).
    public var nextDeadline: Double? {
        devices.values.compactMap { device -> Double? in
            let forget = !device.pairing.isPaired && !device.reachable ? device.lastSeen + Self.forgetUnpairedAfter : nil
            return [device.pairing.deadline, forget].compactMap { $0 }.min()
        }.min()
    }

    /// What a pairing decision means for the records and the link.
    mutating func apply(_ actions: [Pairing.Action], to id: String, wallClock: Int64) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            guard let device = devices[id] else { break }
            switch action {
            case .send(let pair, let timestamp):
                var body: [(String, JSONValue)] = [("pair", .bool(pair))]
                if let timestamp { body.append(("timestamp", .integer(timestamp))) }
                if device.reachable { effects.append(.send(device: id, NetworkPacket(type: PacketType.pair, body: body, now: wallClock))) }
            case .trust:
                guard let certificate = device.certificate, let fingerprint = device.fingerprint else { continue }
                records.set(
                    DeviceRecords.Device(
                        id: id, name: device.name, type: device.type, certificate: certificate, fingerprint: fingerprint,
                        protocolVersion: device.protocolVersion, address: device.endpoint?.host, port: device.tcpPort, paired: wallClock))
                effects += [.saveRecords, .sendClipboardOnConnect(device: id)]
            case .forget:
                if records.device(id) != nil {
                    records.remove(id)
                    effects.append(.saveRecords)
                }
                effects.append(.dropTransfers(device: id))
            case .report(let message):
                devices[id]?.note = message
                effects.append(.report(device: id, name: device.name, message: message))
            }
        }
        return effects
    }

    // MARK: Records

    /// A paired device's record follows what it said of itself and where it was reached.
    mutating func rememberAddress(of id: String) -> [Effect] {
        guard let device = devices[id], var record = records.device(id) else { return [] }
        record.name = device.name
        record.type = device.type
        record.protocolVersion = device.protocolVersion
        if let endpoint = device.endpoint {
            record.address = endpoint.host
            record.port = device.tcpPort
        }
        guard record != records.device(id) else { return [] }
        records.set(record)
        return [.saveRecords]
    }

    /// `pbctl devices add ADDRESS`: kept to try on every start (at most ``DeviceRecords/maximumAddresses``);
    /// true when the records changed.
    public mutating func remember(address: String) -> Bool {
        guard !records.addresses.contains(address), records.addresses.count < DeviceRecords.maximumAddresses else { return false }
        records.addresses.append(address)
        return true
    }
}

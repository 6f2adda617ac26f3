/// When pbctl announces itself and to whom it opens links, as KDE Connect's LAN link provider does:
/// our identity broadcast by UDP at start and every ``broadcastEvery`` seconds while no device is
/// reachable; a link opened to each device whose announcement is heard (not one already reachable,
/// not the same device twice within ``answerEvery`` seconds, not past ``maximumPending`` links on
/// their way up); paired devices out of reach tried where they were last seen every
/// ``reconnectEvery`` seconds; the addresses `pbctl devices add` named tried at start. Pure: times and
/// datagrams come in, actions go out.
public struct Discovery: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        /// Our identity by UDP to everyone on the network.
        case broadcast
        /// Our identity by UDP to one host (a KDE Connect device connects back).
        case announce(Endpoint)
        /// An address on record (`pbctl devices add`): tried as ``AddressLinks`` tries one (the
        /// address is a name to look up: the service does).
        case connect(address: String)
        /// A link to `endpoint`; `announced`: the identity it broadcast (nil: a link to an address,
        /// where the device identifies inside TLS).
        case open(Endpoint, announced: DeviceIdentity?)
    }

    public static let broadcastEvery = 120.0
    public static let reconnectEvery = 30.0
    /// With discovery, paired devices answer the broadcast: they are tried by address only if they
    /// have not after this many seconds (KDE Connect 22.12 opens a link for every announcement it
    /// hears, and two at once race).
    public static let firstReconnectWithDiscovery = 5.0
    public static let answerEvery = 2.0
    /// Links on their way up at once.
    public static let maximumPending = 32

    /// The UDP socket is open: announcements are sent and heard.
    public let enabled: Bool
    public let ownID: String
    public let udpPort: Int
    private var lastBroadcast = 0.0
    private var lastReconnect = 0.0
    private var lastAttempt: [String: Double] = [:]

    public init(enabled: Bool, ownID: String, udpPort: Int = DeviceIdentity.udpPort) {
        self.enabled = enabled
        self.ownID = ownID
        self.udpPort = udpPort
    }

    /// The service starts: a broadcast, the addresses on record, and (without discovery) the paired
    /// devices where they were last seen.
    public mutating func start(now: Double, addresses: [String], table: DeviceTable, pending: [Endpoint]) -> [Action] {
        lastBroadcast = now
        var actions: [Action] = enabled ? [.broadcast] : []
        actions += addresses.map { .connect(address: $0) }
        if enabled {
            lastReconnect = now - Self.reconnectEvery + Self.firstReconnectWithDiscovery
        } else {
            actions += reconnect(now: now, table: table, pending: pending)
        }
        return actions
    }

    /// A datagram heard on the discovery port from `sender`: a link to the device it announces, or
    /// nothing. `pending`: the links on their way up.
    public mutating func heard(_ datagram: [UInt8], from sender: Endpoint, now: Double, table: DeviceTable, pending: Int) -> Action? {
        guard let packet = try? NetworkPacket.decode(datagram, maximumSize: NetworkPacket.maximumIdentitySize),
            let announced = try? DeviceIdentity(packet: packet), announced.id != ownID, let port = announced.tcpPort
        else { return nil }
        if table[announced.id]?.reachable == true { return nil }
        if let last = lastAttempt[announced.id], now - last < Self.answerEvery { return nil }
        guard pending < Self.maximumPending else { return nil }
        lastAttempt[announced.id] = now
        return .open(Endpoint(address: sender.address, port: port), announced: announced)
    }

    /// Time passes: a broadcast while nobody is reachable, paired devices tried again.
    public mutating func tick(now: Double, table: DeviceTable, pending: [Endpoint]) -> [Action] {
        var actions: [Action] = []
        lastAttempt = lastAttempt.filter { now - $0.value < Self.answerEvery }
        if enabled, now - lastBroadcast > Self.broadcastEvery, !table.anyReachable {
            lastBroadcast = now
            actions.append(.broadcast)
        }
        if now - lastReconnect > Self.reconnectEvery { actions += reconnect(now: now, table: table, pending: pending) }
        return actions
    }

    /// When ``tick(now:table:pending:)`` next has something to do (nil: nothing until the table changes):
    /// the next broadcast while nobody is reachable, the next try of paired devices out of reach.
    public func nextDeadline(table: DeviceTable) -> Double? {
        var times: [Double] = []
        if enabled, !table.anyReachable { times.append(lastBroadcast + Self.broadcastEvery) }
        if !table.unreachablePaired.isEmpty { times.append(lastReconnect + Self.reconnectEvery) }
        return times.min()
    }

    /// Paired devices out of reach, where they were last seen: our identity by UDP (a KDE Connect device
    /// connects back) and, to a device of protocol 8, a link to its TCP port (it identifies inside TLS).
    /// A protocol 7 device only by UDP: a link it cannot identify on would replace its good one.
    mutating func reconnect(now: Double, table: DeviceTable, pending: [Endpoint]) -> [Action] {
        lastReconnect = now
        var actions: [Action] = []
        for device in table.unreachablePaired {
            guard let endpoint = device.endpoint else { continue }
            actions.append(.announce(Endpoint(address: endpoint.address, port: udpPort)))
            if device.protocolVersion >= 8, let port = device.tcpPort, !pending.contains(Endpoint(address: endpoint.address, port: port)) {
                actions.append(.open(Endpoint(address: endpoint.address, port: port), announced: nil))
            }
        }
        return actions
    }
}

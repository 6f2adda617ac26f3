/// The addresses `pbctl devices add` names (and those on record, tried at start), each until a link to
/// a device there is up or its time runs out: a pure state machine. A device that listens for
/// announcements (KDE Connect, a pbctl with discovery) is told by UDP and connects back, as KDE Connect's
/// LAN backend does; one that does not (a pbctl with `--no-discovery`, a network that drops UDP) gets a
/// link straight to the address's TCP port (the port given, else 1716) ``directAfter`` seconds later,
/// unless a link from or to it is on its way up by then (two links at once to a KDE Connect device
/// race). The device identifies inside TLS on that link (protocol 8). Whoever asked
/// (`Action/linked`, `Action/failed`) hears how it ended: a link up, or why not within
/// ``linkTime`` seconds. Times come in as arguments; what to do goes out as actions.
public struct AddressLinks: Equatable, Sendable {
    public struct Attempt: Equatable, Sendable {
        /// As the user wrote it (`host` or `host:port`).
        public let address: String
        /// Its TCP endpoint: the port given, else KDE Connect's first, 1716.
        public let target: Endpoint
        public let portGiven: Bool
        public let started: Double
        /// A link straight to `target` was opened.
        public var opened = false
        /// Who waits for the outcome (the service's tokens for `pbctl devices add` clients).
        public var waiters: [Int] = []

        /// Whether `device` is reached at this address (and at its port, when one was given).
        func reaches(_ device: DeviceTable.Device) -> Bool {
            guard device.reachable, let endpoint = device.endpoint, endpoint.address == target.address else { return false }
            return !portGiven || endpoint == target || device.tcpPort == target.port
        }
    }

    public enum Action: Equatable, Sendable {
        /// Our identity by UDP to the address's discovery port.
        case announce(Endpoint)
        /// A link straight to the address (the device identifies inside TLS).
        case open(Endpoint)
        /// A link to `device` at `address` is up: tell `waiters`.
        case linked(address: String, device: String, waiters: [Int])
        /// Nothing linked at `address`: tell `waiters` why.
        case failed(address: String, reason: String, waiters: [Int])
    }

    /// Seconds a device has to answer the announcement before pbctl connects to it itself.
    public static let directAfter = 2.0
    /// Seconds for a link to the address to come up.
    public static let linkTime = 15.0
    /// Addresses tried at once.
    public static let maximumAttempts = 32

    public let udpPort: Int
    public private(set) var attempts: [Attempt] = []

    public init(udpPort: Int = DeviceIdentity.udpPort) { self.udpPort = udpPort }

    /// Tries `address`, resolved to `target` (its TCP endpoint), for `waiter` (nil: nobody waits, an
    /// address on record). A device already reachable there answers at once; an address already being
    /// tried gets the waiter added.
    public mutating func begin(address: String, target: Endpoint, portGiven: Bool, waiter: Int?, now: Double, table: DeviceTable) -> [Action] {
        let waiters = waiter.map { [$0] } ?? []
        var attempt = Attempt(address: address, target: target, portGiven: portGiven, started: now)
        if let device = table.listed.first(where: { attempt.reaches($0) }) {
            return [.linked(address: address, device: device.id, waiters: waiters)]
        }
        if let index = attempts.firstIndex(where: { $0.target == target && $0.portGiven == portGiven }) {
            attempts[index].waiters += waiters
            return []
        }
        guard attempts.count < Self.maximumAttempts else {
            return [.failed(address: address, reason: "\(Self.maximumAttempts) addresses are being tried already", waiters: waiters)]
        }
        attempt.waiters = waiters
        attempts.append(attempt)
        return [.announce(Endpoint(address: target.address, port: udpPort))]
    }

    /// A link to `device` came up (either way): the attempts it answers end.
    public mutating func linkUp(_ device: DeviceTable.Device) -> [Action] {
        var actions: [Action] = []
        attempts.removeAll { attempt in
            guard attempt.reaches(device) else { return false }
            actions.append(.linked(address: attempt.address, device: device.id, waiters: attempt.waiters))
            return true
        }
        return actions
    }

    /// The link opened to `endpoint` failed (refused, unreachable, TLS, a certificate refused, no
    /// identity): the attempt that opened it ends with `reason` (the announcement had its time).
    public mutating func linkFailed(to endpoint: Endpoint, reason: String) -> [Action] {
        var actions: [Action] = []
        attempts.removeAll { attempt in
            guard attempt.opened, attempt.target == endpoint else { return false }
            actions.append(.failed(address: attempt.address, reason: reason, waiters: attempt.waiters))
            return true
        }
        return actions
    }

    /// Time passes: a link straight to each address the announcement did not bring a device from
    /// (none on its way up from or to it), and the attempts past ``linkTime`` end. `pending`: the
    /// addresses of the links on their way up.
    public mutating func tick(now: Double, table: DeviceTable, pending: [UInt32]) -> [Action] {
        var actions: [Action] = []
        let reachable = table.listed.filter(\.reachable)
        for index in attempts.indices.reversed() {
            let attempt = attempts[index]
            if let device = reachable.first(where: { attempt.reaches($0) }) {
                actions.append(.linked(address: attempt.address, device: device.id, waiters: attempt.waiters))
                attempts.remove(at: index)
            } else if now >= attempt.started + Self.linkTime {
                let reason = attempt.opened
                    ? "no link came up within \(Int(Self.linkTime)) s"
                    : "no KDE Connect device answered within \(Int(Self.linkTime)) s"
                actions.append(.failed(address: attempt.address, reason: reason, waiters: attempt.waiters))
                attempts.remove(at: index)
            } else if !attempt.opened, now >= attempt.started + Self.directAfter, !pending.contains(attempt.target.address) {
                attempts[index].opened = true
                actions.append(.open(attempt.target))
            }
        }
        return actions.reversed()
    }

    /// When ``tick(now:table:pending:)`` next has something to do (nil: never, nothing is tried);
    /// `pending` as it takes it. A link on its way up wakes the service by its own deadline.
    public func nextDeadline(pending: [UInt32]) -> Double? {
        attempts.map { attempt in
            attempt.opened || pending.contains(attempt.target.address) ? attempt.started + Self.linkTime : attempt.started + Self.directAfter
        }.min()
    }
}

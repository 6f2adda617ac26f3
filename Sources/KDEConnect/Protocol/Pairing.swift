/// Pairing with one device, as KDE Connect pairs (`kdeconnect.pair`, `{"pair": true}` to ask or
/// accept, `{"pair": false}` to refuse, cancel or unpair): a pure state machine. Events come in with
/// the time; what to do comes out as actions (send, trust the certificate, forget it, tell the user).
/// A request either side made waits ``timeout`` seconds, then counts as refused, as KDE Connect's does.
public struct Pairing: Equatable, Sendable {
    public enum State: Equatable, Sendable {
        case unpaired
        /// We asked, at `since` (seconds).
        case requested(since: Double)
        /// The peer asked, at `since`: `accept` or `reject`.
        case requestedByPeer(since: Double)
        case paired
    }

    public enum Event: Equatable, Sendable {
        /// `pbctl devices pair`.
        case request
        /// `pbctl devices accept`.
        case accept
        /// `pbctl devices reject`.
        case reject
        /// `pbctl devices unpair`.
        case unpair
        /// A `kdeconnect.pair` packet from the peer.
        case received(pair: Bool)
        /// The time passes (the service ticks when something happens, and at ``deadline``).
        case tick
    }

    public enum Action: Equatable, Sendable {
        /// Send `kdeconnect.pair` with `pair`; a request carries `timestamp` (seconds, protocol 8).
        case send(pair: Bool, timestamp: Int64?)
        /// Pin the peer's certificate: it is now paired.
        case trust
        /// Forget the pinned certificate.
        case forget
        /// Say it (the log, `pbctl devices`).
        case report(String)
    }

    /// KDE Connect's pairing timeout.
    public static let timeout = 30.0

    public private(set) var state: State

    public init(paired: Bool) { state = paired ? .paired : .unpaired }

    public var isPaired: Bool { state == .paired }

    /// When a request in flight times out (nil: none is).
    public var deadline: Double? {
        switch state {
        case .requested(let since), .requestedByPeer(let since): return since + Self.timeout
        case .unpaired, .paired: return nil
        }
    }

    /// The state in words, as `pbctl devices` prints it.
    public var word: String {
        switch state {
        case .unpaired: return "unpaired"
        case .requested: return "requested"
        case .requestedByPeer: return "requested-by-peer"
        case .paired: return "paired"
        }
    }

    /// Applies `event` at `now` (seconds; `wallClock` seconds since 1970 for a request's timestamp)
    /// and returns what to do. `reachable`: whether a link to the peer is up (nothing can be asked or
    /// accepted without one).
    public mutating func handle(_ event: Event, now: Double, wallClock: Int64, reachable: Bool) -> [Action] {
        switch (event, state) {
        case (.request, .paired):
            return [.report("already paired")]
        case (.request, .requestedByPeer):
            // Both asked: asking accepts theirs, as KDE Connect does.
            return handle(.accept, now: now, wallClock: wallClock, reachable: reachable)
        case (.request, _):
            guard reachable else { return [.report("not reachable: the device must be on the network to pair")] }
            state = .requested(since: now)
            return [.send(pair: true, timestamp: wallClock), .report("pairing requested; it has \(Int(Self.timeout)) s to accept")]
        case (.accept, .requestedByPeer):
            guard reachable else {
                state = .unpaired
                return [.report("not reachable any more")]
            }
            state = .paired
            return [.send(pair: true, timestamp: nil), .trust, .report("paired")]
        case (.accept, .paired):
            return [.report("already paired")]
        case (.accept, _):
            return [.report("no pairing request to accept")]
        case (.reject, .requestedByPeer):
            state = .unpaired
            return [.send(pair: false, timestamp: nil), .report("pairing request rejected")]
        case (.reject, .requested):
            state = .unpaired
            return [.send(pair: false, timestamp: nil), .report("pairing request cancelled")]
        case (.reject, _):
            return [.report("no pairing request to reject")]
        case (.unpair, .paired):
            state = .unpaired
            return (reachable ? [.send(pair: false, timestamp: nil)] : []) + [.forget, .report("unpaired")]
        case (.unpair, .requested), (.unpair, .requestedByPeer):
            state = .unpaired
            return [.send(pair: false, timestamp: nil), .report("pairing cancelled")]
        case (.unpair, .unpaired):
            return [.forget, .report("not paired")]
        case (.received(pair: true), .requested):
            state = .paired
            return [.trust, .report("paired (the device accepted)")]
        case (.received(pair: true), .paired):
            // It thinks we are not paired: answer yes again (protocol 7's rule; it never asks back,
            // so this cannot loop).
            return [.send(pair: true, timestamp: nil)]
        case (.received(pair: true), .requestedByPeer):
            return []
        case (.received(pair: true), .unpaired):
            state = .requestedByPeer(since: now)
            return [.report("asks to pair: accept or reject within \(Int(Self.timeout)) s")]
        case (.received(pair: false), .requested):
            state = .unpaired
            return [.report("pairing refused by the device")]
        case (.received(pair: false), .requestedByPeer):
            state = .unpaired
            return [.report("pairing request withdrawn by the device")]
        case (.received(pair: false), .paired):
            state = .unpaired
            return [.forget, .report("unpaired by the device")]
        case (.received(pair: false), .unpaired):
            return []
        case (.tick, .requested(let since)) where now - since >= Self.timeout:
            state = .unpaired
            return [.send(pair: false, timestamp: nil), .report("pairing request timed out")]
        case (.tick, .requestedByPeer(let since)) where now - since >= Self.timeout:
            state = .unpaired
            return [.send(pair: false, timestamp: nil), .report("pairing request timed out")]
        case (.tick, _):
            return []
        }
    }

    /// The link went down: a request in flight ends (KDE Connect's does too); a pairing stays.
    public mutating func linkLost() -> [Action] {
        switch state {
        case .requested, .requestedByPeer:
            state = .unpaired
            return [.report("pairing request ended: the device left")]
        default:
            return []
        }
    }
}

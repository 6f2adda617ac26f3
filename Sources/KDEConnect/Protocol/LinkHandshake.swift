#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// One link on its way up, as KDE Connect's LAN backend brings it up (`LanLinkProvider`): a pure
/// state machine. The side that connects sends its identity in clear and is TLS's *server*; the side
/// that accepted reads that identity (never a byte past its newline, which TLS reads next) and is the
/// client. Once TLS is up the certificate must name the device, and a paired device's must be the one
/// pinned (the device table says, ``Action/verify(deviceID:fingerprint:)``); with protocol 8 both
/// sides then identify again inside TLS, each sending first, and the identity must not change. Every
/// phase has a deadline. Events come in with the time; what to do goes out as actions, which the
/// service performs on the link's socket (`Connection/Link.swift`).
public struct LinkHandshake: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        /// The TCP connection is being made (we connect).
        case connecting
        /// Our identity line goes out in clear (we connected).
        case sendingIdentity
        /// Its identity line is awaited in clear (it connected).
        case awaitingIdentity
        /// The TLS handshake.
        case tls
        /// TLS is up; the device table is asked whether the certificate may be taken.
        case verifying
        /// Protocol 8: its identity again, inside TLS.
        case awaitingSecureIdentity
        /// Up: the link is the device's.
        case secure
        case closed(String)
    }

    public enum Event: Equatable, Sendable {
        /// The TCP connection was made (`error` nil), or failed with `error`.
        case connected(error: String?)
        /// Our identity line is all out.
        case identitySent
        /// The peer's identity line in clear, without its newline.
        case identityLine([UInt8])
        /// The TLS handshake is done; the peer's certificate (nil: it showed none).
        case tlsEstablished(PeerCertificate?)
        /// What the device table said of the certificate: nil, take it; else why it is refused.
        case verified(refusal: String?)
        /// Lines read inside TLS while the secure identity is awaited.
        case secureLines([[UInt8]])
        /// The socket or TLS failed (the peer closed, a reset, a TLS error).
        case failed(String)
        /// Time passes: a phase past its deadline ends the link.
        case tick
    }

    public enum Action: Equatable, Sendable {
        /// Write these bytes in clear (our identity line).
        case sendInClear([UInt8])
        /// Start TLS on the socket, as its server or client.
        case startTLS(server: Bool)
        /// Ask the device table about `deviceID` showing `fingerprint`; answer with ``Event/verified(refusal:)``.
        case verify(deviceID: String, fingerprint: String)
        /// Send a packet inside TLS.
        case send(NetworkPacket)
        /// The link is up: it becomes `identity`'s; `extraLines` came after the secure identity.
        case established(identity: DeviceIdentity, certificate: PeerCertificate, extraLines: [[UInt8]])
        /// Close the link, saying why.
        case close(String)
    }

    /// Seconds to make the TCP connection, and then to send our identity in clear.
    public static let connectTime = 5.0
    /// Seconds an accepted link has to identify in clear.
    public static let identifyTime = 5.0
    /// Seconds of the TLS handshake.
    public static let tlsTime = 10.0
    /// Seconds to identify inside TLS (protocol 8).
    public static let secureIdentityTime = 5.0

    /// We opened the TCP connection (and so are TLS's server).
    public let outgoing: Bool
    public let endpoint: Endpoint
    /// This device, as it identifies.
    public let local: DeviceIdentity
    public private(set) var phase: Phase
    /// When the current phase must end (the clock of `now`).
    public private(set) var deadline: Double
    /// The peer as it identified (by UDP or in clear, then inside TLS); nil while unknown.
    public private(set) var peer: DeviceIdentity?
    public private(set) var certificate: PeerCertificate?

    /// A link we connect to `endpoint` (`announced`: the identity it broadcast, nil for a link to an
    /// address), or one we accepted from it.
    public init(outgoing: Bool, endpoint: Endpoint, local: DeviceIdentity, announced: DeviceIdentity? = nil, now: Double) {
        self.outgoing = outgoing
        self.endpoint = endpoint
        self.local = local
        peer = outgoing ? announced : nil
        phase = outgoing ? .connecting : .awaitingIdentity
        deadline = now + (outgoing ? Self.connectTime : Self.identifyTime)
    }

    public var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// When a tick would end the link for taking too long (nil: up or closed, no deadline).
    public var wakeTime: Double? {
        switch phase {
        case .secure, .closed: return nil
        default: return deadline
        }
    }

    /// Seconds within which two links up to one device count as opened at once.
    public static let simultaneousWindow = 10.0

    /// A link to `peer` came up (`newOutgoing`: we opened it) while another to it, `oldOutgoing`, has been
    /// up since `oldUpSince`: whether the new one replaces the old. Each side opened one when two pbctl
    /// devices each `devices add` the other, or try each other at once after a restart, and both must
    /// keep the same, or each closes the one the other kept: between pbctl devices (pbctl's extension in
    /// both capability lists) the link opened by the device whose id sorts first stays when the two came
    /// up within ``simultaneousWindow`` seconds. Otherwise the new one replaces the old (the device came
    /// back, and the old link is likely dead), as KDE Connect keeps its newest.
    public static func newLinkReplacesOld(
        oldOutgoing: Bool, oldUpSince: Double, newOutgoing: Bool, now: Double, localID: String, peer: DeviceIdentity
    ) -> Bool {
        guard peer.speaksRichClipboard, oldOutgoing != newOutgoing, now - oldUpSince < simultaneousWindow else { return true }
        return newOutgoing ? localID < peer.id : peer.id < localID
    }

    /// The socket events the phase waits for (TLS may also wait to write: the link knows).
    public var wantsRead: Bool { [.awaitingIdentity, .tls, .awaitingSecureIdentity].contains(phase) }
    public var wantsWrite: Bool { [.connecting, .sendingIdentity].contains(phase) }

    /// Applies `event` at `now` (seconds of a monotonic clock; `wallClock` milliseconds since 1970 for
    /// the packets' ids) and returns what to do. An event a phase does not expect changes nothing.
    public mutating func handle(_ event: Event, now: Double, wallClock: Int64) -> [Action] {
        if isClosed { return [] }
        switch (event, phase) {
        case (.tick, .secure):
            return []
        case (.tick, _):
            guard now > deadline else { return [] }
            return end("\(endpoint) took too long to \(Self.task(of: phase))")
        case (.failed(let reason), _):
            return end(reason)
        case (.connected(let error), .connecting):
            if let error { return end("cannot connect to \(endpoint): \(error)") }
            phase = .sendingIdentity
            deadline = now + Self.connectTime
            return [.sendInClear(identityLine(wallClock: wallClock))]
        case (.identitySent, .sendingIdentity):
            phase = .tls
            deadline = now + Self.tlsTime
            return [.startTLS(server: true)]
        case (.identityLine(let line), .awaitingIdentity):
            let identity: DeviceIdentity
            do {
                identity = try DeviceIdentity(packet: try NetworkPacket.decode(line, maximumSize: NetworkPacket.maximumIdentitySize))
            } catch {
                return end("\(endpoint): \(error)")
            }
            guard identity.id != local.id else { return end("a link from this device itself") }
            peer = identity
            phase = .tls
            deadline = now + Self.tlsTime
            return [.startTLS(server: false)]
        case (.tlsEstablished(let shown), .tls):
            guard let shown, let name = shown.commonName, DeviceIdentity.isValidID(name) else {
                return end("\(endpoint): no certificate naming a device")
            }
            if let peer, peer.id != name { return end("\(endpoint): the certificate names \(name), the identity \(peer.id)") }
            certificate = shown
            phase = .verifying
            return [.verify(deviceID: name, fingerprint: shown.fingerprint)]
        case (.verified(let refusal), .verifying):
            if let refusal { return end("\(endpoint): \(refusal)") }
            guard let certificate else { return end("\(endpoint): no certificate") }
            deadline = now + Self.secureIdentityTime
            // Protocol 8: identities again inside TLS, each side sending first, when the peer speaks it (or
            // its version is unknown: a link we opened to an address).
            if let peer, peer.protocolVersion < 8 {
                phase = .secure
                return [.established(identity: peer, certificate: certificate, extraLines: [])]
            }
            phase = .awaitingSecureIdentity
            return [.send(local.packet(now: wallClock))]
        case (.secureLines(let lines), .awaitingSecureIdentity):
            guard let first = lines.first, let certificate else { return [] }
            let secure: DeviceIdentity
            do {
                secure = try DeviceIdentity(packet: try NetworkPacket.decode(first, maximumSize: NetworkPacket.maximumIdentitySize))
            } catch {
                return end("\(endpoint): \(error)")
            }
            // The certificate was checked against the id the device gave before (a link we opened to an
            // address had none): the identity inside TLS must be the certificate's too.
            guard secure.id == certificate.commonName else {
                return end("\(endpoint): the identity inside TLS names \(secure.id), the certificate \(certificate.commonName ?? "nothing")")
            }
            var identity = secure
            if let peer {
                guard secure.id == peer.id, secure.protocolVersion == peer.protocolVersion else {
                    return end("\(endpoint): the identity changed inside TLS")
                }
                identity.tcpPort = peer.tcpPort ?? secure.tcpPort
            }
            peer = identity
            phase = .secure
            return [.established(identity: identity, certificate: certificate, extraLines: Array(lines.dropFirst()))]
        default:
            return []
        }
    }

    private mutating func end(_ reason: String) -> [Action] {
        phase = .closed(reason)
        return [.close(reason)]
    }

    /// What a phase that ran out of time was doing.
    static func task(of phase: Phase) -> String {
        switch phase {
        case .connecting, .sendingIdentity: return "connect"
        case .awaitingIdentity: return "identify"
        case .tls, .verifying: return "finish TLS"
        case .awaitingSecureIdentity: return "identify inside TLS"
        case .secure, .closed: return ""
        }
    }

    /// Our identity in clear, naming the device we connect to when it announced itself (as KDE
    /// Connect's `targetDeviceId` and `targetProtocolVersion`).
    func identityLine(wallClock: Int64) -> [UInt8] {
        var packet = local.packet(now: wallClock)
        if let peer, case .object(var members) = packet.body {
            members.append(("targetDeviceId", .string(peer.id)))
            members.append(("targetProtocolVersion", .integer(Int64(peer.protocolVersion))))
            packet.body = .object(members)
        }
        return packet.encoded()
    }

    /// How much of what the socket holds (`peeked`, read without taking it) is the identity line in
    /// clear: take exactly that much, and TLS starts on the byte after its newline.
    public enum ClearLine: Equatable, Sendable {
        /// The line, its newline included, is the first `length` bytes.
        case complete(length: Int)
        /// No newline yet.
        case incomplete
        /// No newline within ``NetworkPacket/maximumIdentitySize`` bytes.
        case tooLong
    }

    public static func clearLine(in peeked: some Collection<UInt8>) -> ClearLine {
        if let newline = peeked.firstIndex(of: 0x0A) {
            let length = peeked.distance(from: peeked.startIndex, to: newline) + 1
            return length <= NetworkPacket.maximumIdentitySize ? .complete(length: length) : .tooLong
        }
        return peeked.count >= NetworkPacket.maximumIdentitySize ? .tooLong : .incomplete
    }
}

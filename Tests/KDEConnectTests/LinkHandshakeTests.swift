import Foundation
import Pasteboard
import XCTest

@testable import KDEConnect

/// What the tests of the parts share: device identities, their lines, certificates (DER bytes and
/// fingerprints as the table compares them; no TLS is made).
enum Fixture {
    static let localID = String(repeating: "a1", count: 16)
    static let peerID = String(repeating: "b2", count: 16)
    static let otherID = String(repeating: "c3", count: 16)
    static let endpoint = Endpoint(address: 0x0A00_0002, port: 1716)
    static let local = DeviceIdentity(id: localID, name: "here", type: "laptop", tcpPort: 1716)

    static func peer(_ id: String = peerID, version: Int = 8, tcpPort: Int? = 1716, capabilities: [String] = DeviceIdentity.capabilities) -> DeviceIdentity {
        DeviceIdentity(
            id: id, name: "phone", type: "phone", protocolVersion: version, incomingCapabilities: capabilities, outgoingCapabilities: capabilities,
            tcpPort: tcpPort)
    }

    /// An identity as a line, without its newline.
    static func line(_ identity: DeviceIdentity) -> [UInt8] { Array(identity.packet(now: 1).encoded().dropLast()) }

    static func certificate(_ id: String?, _ seed: UInt8 = 1) -> PeerCertificate {
        PeerCertificate(der: Data(repeating: seed, count: 300), commonName: id, fingerprint: String(repeating: String(seed, radix: 16), count: 64))
    }
}

/// The link handshake driven through every phase, deadline and malformed input, with events and
/// times given (no socket, no TLS).
final class LinkHandshakeTests: XCTestCase {
    /// A link we open to a device that announced itself, protocol 8: identity in clear naming it, TLS as
    /// the server, the certificate verified, identities again inside TLS, then up.
    func testAnOutgoingLinkOfProtocol8GoesThroughEveryPhase() throws {
        let announced = Fixture.peer(tcpPort: 1739)
        var handshake = LinkHandshake(outgoing: true, endpoint: Fixture.endpoint, local: Fixture.local, announced: announced, now: 100)
        XCTAssertEqual(handshake.phase, .connecting)
        XCTAssertTrue(handshake.wantsWrite)
        XCTAssertEqual(handshake.deadline, 105)
        let sent = handshake.handle(.connected(error: nil), now: 101, wallClock: 7)
        guard case .sendInClear(let line)? = sent.first, sent.count == 1 else { return XCTFail("\(sent)") }
        XCTAssertEqual(line.last, 0x0A)
        let clear = try NetworkPacket.decode(line.dropLast())
        XCTAssertEqual(clear.body["deviceId"]?.string, Fixture.localID)
        XCTAssertEqual(clear.body["targetDeviceId"]?.string, Fixture.peerID)
        XCTAssertEqual(clear.body["targetProtocolVersion"]?.integer, 8)
        XCTAssertEqual(handshake.phase, .sendingIdentity)
        XCTAssertEqual(handshake.deadline, 106)
        XCTAssertEqual(handshake.handle(.identitySent, now: 102, wallClock: 7), [.startTLS(server: true)])
        XCTAssertEqual(handshake.phase, .tls)
        XCTAssertEqual(handshake.deadline, 112)
        let certificate = Fixture.certificate(Fixture.peerID)
        XCTAssertEqual(
            handshake.handle(.tlsEstablished(certificate), now: 103, wallClock: 7), [.verify(deviceID: Fixture.peerID, fingerprint: certificate.fingerprint)])
        XCTAssertEqual(handshake.phase, .verifying)
        XCTAssertEqual(handshake.handle(.verified(refusal: nil), now: 103, wallClock: 8), [.send(Fixture.local.packet(now: 8))])
        XCTAssertEqual(handshake.phase, .awaitingSecureIdentity)
        XCTAssertEqual(handshake.deadline, 108)
        XCTAssertEqual(handshake.handle(.secureLines([]), now: 104, wallClock: 8), [])
        let extra = Array(NetworkPacket(type: PacketType.pair, body: [("pair", .bool(true))], now: 1).encoded().dropLast())
        let secure = Fixture.peer(tcpPort: nil)
        let up = handshake.handle(.secureLines([Fixture.line(secure), extra]), now: 104, wallClock: 8)
        // The port it announced by UDP is kept (its identity inside TLS carries none).
        XCTAssertEqual(up, [.established(identity: Fixture.peer(tcpPort: 1739), certificate: certificate, extraLines: [extra])])
        XCTAssertEqual(handshake.phase, .secure)
        XCTAssertEqual(handshake.handle(.tick, now: 10_000, wallClock: 8), [], "a secure link has no handshake deadline")
    }

    /// A link a protocol-7 device opens to us: its identity in clear, TLS as the client, verified, up
    /// without a second identity.
    func testAnIncomingLinkOfProtocol7IsUpOnceVerified() {
        var handshake = LinkHandshake(outgoing: false, endpoint: Fixture.endpoint, local: Fixture.local, now: 0)
        XCTAssertEqual(handshake.phase, .awaitingIdentity)
        XCTAssertTrue(handshake.wantsRead)
        XCTAssertFalse(handshake.wantsWrite)
        let peer = Fixture.peer(version: 7)
        XCTAssertEqual(handshake.handle(.identityLine(Fixture.line(peer)), now: 1, wallClock: 0), [.startTLS(server: false)])
        XCTAssertEqual(handshake.peer, peer)
        let certificate = Fixture.certificate(Fixture.peerID)
        XCTAssertEqual(handshake.handle(.tlsEstablished(certificate), now: 2, wallClock: 0).count, 1)
        XCTAssertEqual(handshake.handle(.verified(refusal: nil), now: 2, wallClock: 0), [.established(identity: peer, certificate: certificate, extraLines: [])])
        XCTAssertEqual(handshake.phase, .secure)
    }

    /// A link we open to an address (`pbctl devices add host:port`, a paired device where it was last
    /// seen): its identity is first known inside TLS, and must be its certificate's.
    func testALinkToAnAddressTakesTheIdentityInsideTLSOnlyFromTheCertificatesDevice() {
        func upToSecureIdentity() -> LinkHandshake {
            var handshake = LinkHandshake(outgoing: true, endpoint: Fixture.endpoint, local: Fixture.local, now: 0)
            _ = handshake.handle(.connected(error: nil), now: 0, wallClock: 0)
            _ = handshake.handle(.identitySent, now: 0, wallClock: 0)
            _ = handshake.handle(.tlsEstablished(Fixture.certificate(Fixture.otherID)), now: 0, wallClock: 0)
            _ = handshake.handle(.verified(refusal: nil), now: 0, wallClock: 0)
            return handshake
        }
        var honest = upToSecureIdentity()
        XCTAssertEqual(honest.phase, .awaitingSecureIdentity, "a peer of unknown version is asked for its identity inside TLS")
        guard case .established(let identity, _, _)? = honest.handle(.secureLines([Fixture.line(Fixture.peer(Fixture.otherID))]), now: 1, wallClock: 0).first
        else { return XCTFail() }
        XCTAssertEqual(identity.id, Fixture.otherID)
        // A certificate of its own with a paired device's id inside TLS: refused.
        var forger = upToSecureIdentity()
        XCTAssertEqual(
            forger.handle(.secureLines([Fixture.line(Fixture.peer())]), now: 1, wallClock: 0),
            [.close("10.0.0.2:1716: the identity inside TLS names \(Fixture.peerID), the certificate \(Fixture.otherID)")])
        XCTAssertTrue(forger.isClosed)
    }

    func testEveryPhaseHasItsDeadline() {
        var connecting = LinkHandshake(outgoing: true, endpoint: Fixture.endpoint, local: Fixture.local, now: 0)
        XCTAssertEqual(connecting.handle(.tick, now: 5, wallClock: 0), [])
        XCTAssertEqual(connecting.handle(.tick, now: 5.01, wallClock: 0), [.close("10.0.0.2:1716 took too long to connect")])

        var sending = LinkHandshake(outgoing: true, endpoint: Fixture.endpoint, local: Fixture.local, now: 0)
        _ = sending.handle(.connected(error: nil), now: 4, wallClock: 0)
        XCTAssertEqual(sending.handle(.tick, now: 8.9, wallClock: 0), [], "5 s from the connection, not from the start")
        XCTAssertEqual(sending.handle(.tick, now: 9.1, wallClock: 0), [.close("10.0.0.2:1716 took too long to connect")])

        var identifying = LinkHandshake(outgoing: false, endpoint: Fixture.endpoint, local: Fixture.local, now: 0)
        XCTAssertEqual(identifying.handle(.tick, now: 5.5, wallClock: 0), [.close("10.0.0.2:1716 took too long to identify")])

        var tls = LinkHandshake(outgoing: false, endpoint: Fixture.endpoint, local: Fixture.local, now: 0)
        _ = tls.handle(.identityLine(Fixture.line(Fixture.peer())), now: 1, wallClock: 0)
        XCTAssertEqual(tls.handle(.tick, now: 10.9, wallClock: 0), [], "10 s of TLS")
        XCTAssertEqual(tls.handle(.tick, now: 11.1, wallClock: 0), [.close("10.0.0.2:1716 took too long to finish TLS")])

        var secure = LinkHandshake(outgoing: false, endpoint: Fixture.endpoint, local: Fixture.local, now: 0)
        _ = secure.handle(.identityLine(Fixture.line(Fixture.peer())), now: 1, wallClock: 0)
        _ = secure.handle(.tlsEstablished(Fixture.certificate(Fixture.peerID)), now: 2, wallClock: 0)
        _ = secure.handle(.verified(refusal: nil), now: 2, wallClock: 0)
        XCTAssertEqual(secure.handle(.tick, now: 7, wallClock: 0), [])
        XCTAssertEqual(secure.handle(.tick, now: 7.1, wallClock: 0), [.close("10.0.0.2:1716 took too long to identify inside TLS")])
        // Closed stays closed: nothing more comes out.
        XCTAssertEqual(secure.handle(.tick, now: 100, wallClock: 0), [])
        XCTAssertEqual(secure.handle(.secureLines([Fixture.line(Fixture.peer())]), now: 100, wallClock: 0), [])
    }

    func testMalformedOrLyingPeersAreClosedWithTheReason() {
        func accepted() -> LinkHandshake { LinkHandshake(outgoing: false, endpoint: Fixture.endpoint, local: Fixture.local, now: 0) }
        func closes(_ handshake: inout LinkHandshake, _ event: LinkHandshake.Event, _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(handshake.handle(event, now: 1, wallClock: 0), [.close(reason)], file: file, line: line)
            XCTAssertEqual(handshake.phase, .closed(reason), file: file, line: line)
        }
        var notJSON = accepted()
        closes(&notJSON, .identityLine(Array("hello".utf8)), "10.0.0.2:1716: not JSON: \(jsonError("hello"))")
        var notIdentity = accepted()
        closes(&notIdentity, .identityLine(Array(#"{"id":1,"type":"kdeconnect.pair","body":{}}"#.utf8)), "10.0.0.2:1716: expected an identity, got kdeconnect.pair")
        var badID = accepted()
        closes(&badID, .identityLine(Fixture.line(Fixture.peer("short"))), "10.0.0.2:1716: identity: no valid deviceId")
        var oversized = accepted()
        let padding = String(repeating: "x", count: NetworkPacket.maximumIdentitySize)
        closes(
            &oversized, .identityLine(Array(#"{"id":1,"type":"kdeconnect.identity","body":{"pad":"\#(padding)"}}"#.utf8)),
            "10.0.0.2:1716: a packet over \(NetworkPacket.maximumIdentitySize) bytes")
        var itself = accepted()
        closes(&itself, .identityLine(Fixture.line(Fixture.peer(Fixture.localID))), "a link from this device itself")

        func inTLS() -> LinkHandshake {
            var handshake = accepted()
            _ = handshake.handle(.identityLine(Fixture.line(Fixture.peer())), now: 0, wallClock: 0)
            return handshake
        }
        var noCertificate = inTLS()
        closes(&noCertificate, .tlsEstablished(nil), "10.0.0.2:1716: no certificate naming a device")
        var noName = inTLS()
        closes(&noName, .tlsEstablished(Fixture.certificate("not a device id")), "10.0.0.2:1716: no certificate naming a device")
        var otherName = inTLS()
        closes(
            &otherName, .tlsEstablished(Fixture.certificate(Fixture.otherID)),
            "10.0.0.2:1716: the certificate names \(Fixture.otherID), the identity \(Fixture.peerID)")
        var refused = inTLS()
        _ = refused.handle(.tlsEstablished(Fixture.certificate(Fixture.peerID)), now: 0, wallClock: 0)
        closes(&refused, .verified(refusal: "refused: a certificate other than the one paired"), "10.0.0.2:1716: refused: a certificate other than the one paired")

        func awaitingSecure() -> LinkHandshake {
            var handshake = inTLS()
            _ = handshake.handle(.tlsEstablished(Fixture.certificate(Fixture.peerID)), now: 0, wallClock: 0)
            _ = handshake.handle(.verified(refusal: nil), now: 0, wallClock: 0)
            return handshake
        }
        var changedVersion = awaitingSecure()
        closes(&changedVersion, .secureLines([Fixture.line(Fixture.peer(version: 9))]), "10.0.0.2:1716: the identity changed inside TLS")
        var junkInside = awaitingSecure()
        closes(&junkInside, .secureLines([Array("{}".utf8)]), "10.0.0.2:1716: no packet type")
        var gone = awaitingSecure()
        closes(&gone, .failed("the peer closed the connection"), "the peer closed the connection")
        var unreachable = LinkHandshake(outgoing: true, endpoint: Fixture.endpoint, local: Fixture.local, now: 0)
        closes(&unreachable, .connected(error: "Connection refused"), "cannot connect to 10.0.0.2:1716: Connection refused")
    }

    /// An event a phase does not expect changes nothing (the service never sends one; a fuzzer does).
    func testEventsOutOfOrderAreIgnored() {
        var handshake = LinkHandshake(outgoing: false, endpoint: Fixture.endpoint, local: Fixture.local, now: 0)
        let before = handshake
        for event: LinkHandshake.Event in [
            .connected(error: nil), .identitySent, .tlsEstablished(Fixture.certificate(Fixture.peerID)), .verified(refusal: nil),
            .secureLines([Fixture.line(Fixture.peer())]),
        ] {
            XCTAssertEqual(handshake.handle(event, now: 1, wallClock: 0), [])
        }
        XCTAssertEqual(handshake, before)
        var outgoing = LinkHandshake(outgoing: true, endpoint: Fixture.endpoint, local: Fixture.local, now: 0)
        XCTAssertEqual(outgoing.handle(.identityLine(Fixture.line(Fixture.peer())), now: 1, wallClock: 0), [], "the side that connects reads no identity in clear")
        XCTAssertEqual(outgoing.phase, .connecting)
    }

    /// The identity in clear is taken up to its newline and not a byte further: TLS's first bytes
    /// follow it in the same segment.
    func testTheClearIdentityIsTakenUpToItsNewlineOnly() {
        let line = Fixture.line(Fixture.peer())
        let tlsHello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00]
        XCTAssertEqual(LinkHandshake.clearLine(in: line + [0x0A] + tlsHello), .complete(length: line.count + 1))
        XCTAssertEqual(LinkHandshake.clearLine(in: line), .incomplete)
        XCTAssertEqual(LinkHandshake.clearLine(in: [UInt8](repeating: 0x41, count: NetworkPacket.maximumIdentitySize - 1)), .incomplete)
        XCTAssertEqual(LinkHandshake.clearLine(in: [UInt8](repeating: 0x41, count: NetworkPacket.maximumIdentitySize)), .tooLong)
        XCTAssertEqual(
            LinkHandshake.clearLine(in: [UInt8](repeating: 0x41, count: NetworkPacket.maximumIdentitySize - 1) + [0x0A]),
            .complete(length: NetworkPacket.maximumIdentitySize))
        XCTAssertEqual(LinkHandshake.clearLine(in: ArraySlice([0x41, 0x0A, 0x42])[1...]), .complete(length: 1), "counted from the slice's start")
    }

    func jsonError(_ text: String) -> String {
        do {
            _ = try JSONValue.parse(Array(text.utf8), limits: JSONLimits.packet(maximumBytes: NetworkPacket.maximumIdentitySize))
            return ""
        } catch {
            return "\(error)"
        }
    }
}

import Foundation
import Pasteboard
import XCTest

@testable import KDEConnect

/// The service sleeps until the earliest deadline its parts name (no periodic timer): each part's
/// deadline must be when its tick first acts, never later (something would be missed) and never
/// earlier than needed; with nothing to wait for, none. And two links up to one device at once end with
/// the same one kept on both sides.
final class DeadlineTests: XCTestCase {
    let sender = Endpoint(address: 0x0A00_0009, port: 40000)

    func testAPairingRequestTimesOutAtItsDeadline() {
        var pairing = Pairing(paired: false)
        XCTAssertNil(pairing.deadline)
        _ = pairing.handle(.request, now: 5, wallClock: 0, reachable: true)
        XCTAssertEqual(pairing.deadline, 35)
        XCTAssertEqual(pairing.handle(.tick, now: 34.999, wallClock: 0, reachable: true), [])
        XCTAssertFalse(pairing.handle(.tick, now: 35, wallClock: 0, reachable: true).isEmpty)
        XCTAssertNil(pairing.deadline)
        _ = pairing.handle(.received(pair: true), now: 40, wallClock: 0, reachable: true)
        XCTAssertEqual(pairing.deadline, 70)
        _ = pairing.handle(.accept, now: 41, wallClock: 0, reachable: true)
        XCTAssertNil(pairing.deadline, "paired: nothing to time out")
    }

    func testTheTableWakesForAPairingRequestAndAnUnpairedDeviceToForgetOnly() throws {
        var table = DeviceTable(records: DeviceRecords())
        XCTAssertNil(table.nextDeadline)
        _ = table.connected(Fixture.peer(), certificate: Fixture.certificate(Fixture.peerID), endpoint: sender, outgoing: false, now: 10)
        XCTAssertNil(table.nextDeadline, "a reachable unpaired device: nothing to do")
        _ = table.pairing(.request, device: Fixture.peerID, now: 20, wallClock: 0)
        XCTAssertEqual(table.nextDeadline, 50)
        XCTAssertEqual(table.tick(now: 49.9, wallClock: 0), [])
        XCTAssertFalse(table.tick(now: 50, wallClock: 0).isEmpty)
        XCTAssertNil(table.nextDeadline)
        // Out of reach and unpaired: forgotten 300 s after it was last seen (the service wakes 1 ms past it).
        _ = table.disconnected(Fixture.peerID)
        XCTAssertEqual(table.nextDeadline, 310)
        _ = table.tick(now: 310, wallClock: 0)
        XCTAssertNotNil(table[Fixture.peerID])
        _ = table.tick(now: 310.001, wallClock: 0)
        XCTAssertNil(table[Fixture.peerID])
        XCTAssertNil(table.nextDeadline)
    }

    func testDiscoveryWakesForABroadcastOrAReconnectOnlyWhenItWillSendOne() throws {
        var table = DeviceTable(records: DeviceRecords())
        var discovery = Discovery(enabled: true, ownID: Fixture.localID)
        _ = discovery.start(now: 0, addresses: [], table: table, pending: [])
        XCTAssertEqual(discovery.nextDeadline(table: table), 120)
        XCTAssertEqual(discovery.tick(now: 120, table: table, pending: []), [])
        XCTAssertEqual(discovery.tick(now: 120.001, table: table, pending: []), [.broadcast])
        // Somebody reachable: no broadcast, so nothing to wake for.
        _ = table.connected(Fixture.peer(), certificate: Fixture.certificate(Fixture.peerID), endpoint: sender, outgoing: false, now: 130)
        XCTAssertNil(discovery.nextDeadline(table: table))
        XCTAssertNil(Discovery(enabled: false, ownID: Fixture.localID).nextDeadline(table: DeviceTable(records: DeviceRecords())), "no discovery, nobody paired")
        // A paired device out of reach is tried every 30 s.
        let certificate = Fixture.certificate(Fixture.peerID)
        let paired = DeviceTable(
            records: DeviceRecords(devices: [
                DeviceRecords.Device(
                    id: Fixture.peerID, name: "desk", type: "desktop", certificate: certificate.der, fingerprint: certificate.fingerprint,
                    protocolVersion: 8, address: "10.0.0.2", port: 1716, paired: 1)
            ]))
        var quiet = Discovery(enabled: false, ownID: Fixture.localID)
        XCTAssertFalse(quiet.start(now: 0, addresses: [], table: paired, pending: []).isEmpty)
        XCTAssertEqual(quiet.nextDeadline(table: paired), 30)
        XCTAssertEqual(quiet.tick(now: 30, table: paired, pending: []), [])
        XCTAssertFalse(quiet.tick(now: 30.001, table: paired, pending: []).isEmpty)
        XCTAssertEqual(try XCTUnwrap(quiet.nextDeadline(table: paired)), 60.001, accuracy: 1e-9)
    }

    func testALinkOnItsWayUpWakesAtItsPhaseDeadlineAndNotOnceUp() {
        var handshake = LinkHandshake(outgoing: false, endpoint: sender, local: Fixture.local, now: 100)
        XCTAssertEqual(handshake.wakeTime, 105)
        XCTAssertEqual(handshake.handle(.tick, now: 105, wallClock: 0), [])
        XCTAssertEqual(handshake.handle(.tick, now: 105.001, wallClock: 0).count, 1)
        XCTAssertNil(handshake.wakeTime, "closed")
        var up = LinkHandshake(outgoing: true, endpoint: sender, local: Fixture.local, announced: Fixture.peer(version: 7), now: 0)
        _ = up.handle(.connected(error: nil), now: 0, wallClock: 0)
        _ = up.handle(.identitySent, now: 0, wallClock: 0)
        _ = up.handle(.tlsEstablished(Fixture.certificate(Fixture.peerID)), now: 1, wallClock: 0)
        _ = up.handle(.verified(refusal: nil), now: 1, wallClock: 0)
        XCTAssertEqual(up.phase, .secure)
        XCTAssertNil(up.wakeTime)
    }

    /// Two pbctl devices each opened a link to the other at once: whichever order each side sees them
    /// come up in, both keep the link the device whose id sorts first opened. With a KDE Connect
    /// device, or when the old link is older than the window, the new one replaces it.
    func testTwoLinksAtOnceEndWithTheSameOneKeptOnBothSides() {
        let low = String(repeating: "a1", count: 16), high = String(repeating: "f9", count: 16)
        let lowIdentity = Fixture.peer(low), highIdentity = Fixture.peer(high)
        /// The link a side keeps, named by who opened it, after seeing `first` then `second` come up.
        func kept(by me: String, peer: DeviceIdentity, first: String, second: String) -> String {
            let replaces = LinkHandshake.newLinkReplacesOld(
                oldOutgoing: first == me, oldUpSince: 10, newOutgoing: second == me, now: 10.5, localID: me, peer: peer)
            return replaces ? second : first
        }
        for (lowFirst, highFirst) in [(low, low), (low, high), (high, low), (high, high)] {
            let lowKeeps = kept(by: low, peer: highIdentity, first: lowFirst, second: lowFirst == low ? high : low)
            let highKeeps = kept(by: high, peer: lowIdentity, first: highFirst, second: highFirst == low ? high : low)
            XCTAssertEqual(lowKeeps, low)
            XCTAssertEqual(highKeeps, low)
        }
        let kde = Fixture.peer(high, capabilities: ["kdeconnect.clipboard", "kdeconnect.clipboard.connect"])
        XCTAssertTrue(LinkHandshake.newLinkReplacesOld(oldOutgoing: true, oldUpSince: 10, newOutgoing: false, now: 10.5, localID: low, peer: kde))
        XCTAssertTrue(
            LinkHandshake.newLinkReplacesOld(oldOutgoing: true, oldUpSince: 10, newOutgoing: false, now: 20, localID: low, peer: highIdentity),
            "an old link: the device came back")
        XCTAssertTrue(
            LinkHandshake.newLinkReplacesOld(oldOutgoing: false, oldUpSince: 10, newOutgoing: false, now: 10.5, localID: low, peer: highIdentity),
            "both its own: the newest")
    }
}

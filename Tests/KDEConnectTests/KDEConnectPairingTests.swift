import Foundation
import Pasteboard
import XCTest

@testable import KDEConnect

/// The pairing state machine and the sync decisions, driven by events and times given (no socket).
final class KDEConnectPairingTests: XCTestCase {
    func testRequestAcceptedByThePeer() {
        var pairing = Pairing(paired: false)
        XCTAssertEqual(pairing.handle(.request, now: 0, wallClock: 1000, reachable: false), [.report("not reachable: the device must be on the network to pair")])
        let asked = pairing.handle(.request, now: 0, wallClock: 1000, reachable: true)
        XCTAssertEqual(asked.first, .send(pair: true, timestamp: 1000))
        XCTAssertEqual(pairing.word, "requested")
        XCTAssertEqual(pairing.handle(.received(pair: true), now: 1, wallClock: 0, reachable: true).first, .trust)
        XCTAssertTrue(pairing.isPaired)
    }

    func testAPeersRequestTimesOutAfterThirtySecondsAsKDEConnectsDoes() {
        var pairing = Pairing(paired: false)
        _ = pairing.handle(.received(pair: true), now: 100, wallClock: 0, reachable: true)
        XCTAssertEqual(pairing.word, "requested-by-peer")
        XCTAssertEqual(pairing.handle(.tick, now: 129.9, wallClock: 0, reachable: true), [])
        XCTAssertEqual(pairing.handle(.tick, now: 130, wallClock: 0, reachable: true).first, .send(pair: false, timestamp: nil))
        XCTAssertEqual(pairing.word, "unpaired")
        // Accepting now is too late.
        XCTAssertEqual(pairing.handle(.accept, now: 131, wallClock: 0, reachable: true), [.report("no pairing request to accept")])
    }

    func testAcceptRejectAndUnpair() {
        var pairing = Pairing(paired: false)
        _ = pairing.handle(.received(pair: true), now: 0, wallClock: 0, reachable: true)
        XCTAssertEqual(pairing.handle(.reject, now: 1, wallClock: 0, reachable: true).first, .send(pair: false, timestamp: nil))
        _ = pairing.handle(.received(pair: true), now: 2, wallClock: 0, reachable: true)
        XCTAssertEqual(Array(pairing.handle(.accept, now: 3, wallClock: 0, reachable: true).prefix(2)), [.send(pair: true, timestamp: nil), .trust])
        // The peer asking again while paired is answered yes (protocol 7's rule), nothing forgotten.
        XCTAssertEqual(pairing.handle(.received(pair: true), now: 4, wallClock: 0, reachable: true), [.send(pair: true, timestamp: nil)])
        XCTAssertEqual(Array(pairing.handle(.unpair, now: 5, wallClock: 0, reachable: true).prefix(2)), [.send(pair: false, timestamp: nil), .forget])
        _ = pairing.handle(.received(pair: true), now: 6, wallClock: 0, reachable: true)
        _ = pairing.handle(.accept, now: 7, wallClock: 0, reachable: true)
        XCTAssertEqual(pairing.handle(.received(pair: false), now: 8, wallClock: 0, reachable: true).first, .forget)
        XCTAssertFalse(pairing.isPaired)
    }

    func testTheLinkGoingDownEndsARequestButNotAPairing() {
        var pairing = Pairing(paired: false)
        _ = pairing.handle(.request, now: 0, wallClock: 0, reachable: true)
        XCTAssertFalse(pairing.linkLost().isEmpty)
        XCTAssertEqual(pairing.word, "unpaired")
        var paired = Pairing(paired: true)
        XCTAssertEqual(paired.linkLost(), [])
        XCTAssertTrue(paired.isPaired)
    }
}

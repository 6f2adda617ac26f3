import Foundation
import Pasteboard
import XCTest

@testable import KDEConnect

/// `pbctl devices add`: an address tried by announcement, then by a link straight to it, until a link to
/// a device there is up or the time is out; whoever asked hears how it ended.
final class AddressLinksTests: XCTestCase {
    let host: UInt32 = 0x0A00_0007
    var target: Endpoint { Endpoint(address: host, port: 1716) }

    /// The table with a device linked at `endpoint` (its TCP port `tcpPort`).
    func table(linkedAt endpoint: Endpoint, tcpPort: Int? = 1716, outgoing: Bool = false) -> DeviceTable {
        var table = DeviceTable(records: DeviceRecords())
        _ = table.connected(Fixture.peer(tcpPort: tcpPort), certificate: Fixture.certificate(Fixture.peerID), endpoint: endpoint, outgoing: outgoing, now: 0)
        return table
    }

    /// The case: a daemon without discovery hears no announcement, so after 2 s a link goes
    /// straight to port 1716; the waiter hears of it once the device is up.
    func testAnAddressNobodyAnswersByUDPGetsALinkStraightToIt() throws {
        var links = AddressLinks()
        let empty = DeviceTable(records: DeviceRecords())
        XCTAssertEqual(
            links.begin(address: "10.0.0.7", target: target, portGiven: false, waiter: 4, now: 100, table: empty),
            [.announce(Endpoint(address: host, port: 1716))])
        XCTAssertEqual(links.nextDeadline(pending: []), 102)
        XCTAssertEqual(links.tick(now: 101.9, table: empty, pending: []), [])
        XCTAssertEqual(links.tick(now: 102, table: empty, pending: []), [.open(target)])
        XCTAssertEqual(links.tick(now: 103, table: empty, pending: [host]), [], "opened once")
        XCTAssertEqual(links.nextDeadline(pending: [host]), 115)
        // The device is up on that link: the waiter hears it, and the attempt ends.
        let up = table(linkedAt: target, outgoing: true)
        XCTAssertEqual(links.linkUp(try XCTUnwrap(up[Fixture.peerID])), [.linked(address: "10.0.0.7", device: Fixture.peerID, waiters: [4])])
        XCTAssertEqual(links.attempts, [])
        XCTAssertNil(links.nextDeadline(pending: []), "nothing left to wake for")
    }

    /// A KDE Connect device answers the announcement by connecting back: no second link is opened.
    func testADeviceThatConnectsBackGetsNoSecondLink() throws {
        var links = AddressLinks()
        let empty = DeviceTable(records: DeviceRecords())
        _ = links.begin(address: "10.0.0.7", target: target, portGiven: false, waiter: 1, now: 0, table: empty)
        // Its link is on its way up at 2 s: no link of ours; woken by that link's own deadline, or at 15 s.
        XCTAssertEqual(links.tick(now: 2, table: empty, pending: [host]), [])
        XCTAssertEqual(links.nextDeadline(pending: [host]), 15)
        // It came up from another port of that host (it connected back).
        let back = table(linkedAt: Endpoint(address: host, port: 40222), tcpPort: 1739)
        XCTAssertEqual(links.tick(now: 2.5, table: back, pending: []), [.linked(address: "10.0.0.7", device: Fixture.peerID, waiters: [1])])
        // Had its link failed instead, ours would have been opened at the next tick.
        var other = AddressLinks()
        _ = other.begin(address: "10.0.0.7", target: target, portGiven: false, waiter: nil, now: 0, table: empty)
        XCTAssertEqual(other.tick(now: 3, table: empty, pending: [host]), [])
        XCTAssertEqual(other.tick(now: 3.1, table: empty, pending: []), [.open(target)])
    }

    /// A refused or failed link ends the attempt with its reason; a link to another endpoint does not;
    /// with no link at all the attempt ends at 15 s.
    func testFailuresEndTheAttemptWithTheirReason() {
        var links = AddressLinks()
        let empty = DeviceTable(records: DeviceRecords())
        _ = links.begin(address: "10.0.0.7", target: target, portGiven: false, waiter: 9, now: 0, table: empty)
        XCTAssertEqual(links.linkFailed(to: target, reason: "early"), [], "not opened yet: a link of discovery's")
        _ = links.tick(now: 2, table: empty, pending: [])
        XCTAssertEqual(links.linkFailed(to: Endpoint(address: host, port: 1739), reason: "other"), [])
        XCTAssertEqual(
            links.linkFailed(to: target, reason: "cannot connect to 10.0.0.7:1716: Connection refused"),
            [.failed(address: "10.0.0.7", reason: "cannot connect to 10.0.0.7:1716: Connection refused", waiters: [9])])
        XCTAssertEqual(links.attempts, [])
        // Nothing answers and nothing fails: 15 s.
        var silent = AddressLinks()
        _ = silent.begin(address: "10.0.0.7:1739", target: Endpoint(address: host, port: 1739), portGiven: true, waiter: 2, now: 0, table: empty)
        _ = silent.tick(now: 2, table: empty, pending: [])
        XCTAssertEqual(silent.nextDeadline(pending: [host]), 15)
        XCTAssertEqual(silent.tick(now: 14.9, table: empty, pending: [host]), [])
        XCTAssertEqual(silent.tick(now: 15, table: empty, pending: [host]), [.failed(address: "10.0.0.7:1739", reason: "no link came up within 15 s", waiters: [2])])
        var unheard = AddressLinks()
        _ = unheard.begin(address: "10.0.0.7", target: target, portGiven: false, waiter: 3, now: 0, table: empty)
        XCTAssertEqual(
            unheard.tick(now: 15, table: empty, pending: [host]),
            [.failed(address: "10.0.0.7", reason: "no KDE Connect device answered within 15 s", waiters: [3])])
    }

    /// A device already linked at the address answers at once (`devices add` of a device that added us
    /// first); with a port given, only a device at that port counts.
    func testADeviceAlreadyThereAnswersAtOnceAndAPortMustMatch() {
        var links = AddressLinks()
        let there = table(linkedAt: Endpoint(address: host, port: 50000), tcpPort: 1716)
        XCTAssertEqual(
            links.begin(address: "10.0.0.7", target: target, portGiven: false, waiter: 5, now: 0, table: there),
            [.linked(address: "10.0.0.7", device: Fixture.peerID, waiters: [5])])
        XCTAssertEqual(
            links.begin(address: "10.0.0.7:1716", target: target, portGiven: true, waiter: 6, now: 0, table: there),
            [.linked(address: "10.0.0.7:1716", device: Fixture.peerID, waiters: [6])])
        let elsewhere = Endpoint(address: host, port: 1740)
        XCTAssertEqual(
            links.begin(address: "10.0.0.7:1740", target: elsewhere, portGiven: true, waiter: 7, now: 0, table: there),
            [.announce(Endpoint(address: host, port: 1716))], "another device's port on that host")
        XCTAssertEqual(links.tick(now: 2, table: there, pending: []), [.open(elsewhere)])
        XCTAssertEqual(links.begin(address: "10.0.0.8", target: Endpoint(address: 0x0A00_0008, port: 1716), portGiven: false, waiter: nil, now: 0, table: there).count, 1)
    }

    /// The same address asked twice is tried once, and both hear the outcome; at most 32 at once.
    func testTheSameAddressIsTriedOnceAndAttemptsAreBounded() throws {
        var links = AddressLinks()
        let empty = DeviceTable(records: DeviceRecords())
        XCTAssertEqual(links.begin(address: "10.0.0.7", target: target, portGiven: false, waiter: 1, now: 0, table: empty).count, 1)
        XCTAssertEqual(links.begin(address: "10.0.0.7", target: target, portGiven: false, waiter: 2, now: 1, table: empty), [])
        XCTAssertEqual(links.attempts.count, 1)
        let up = table(linkedAt: target, outgoing: true)
        XCTAssertEqual(links.linkUp(try XCTUnwrap(up[Fixture.peerID])), [.linked(address: "10.0.0.7", device: Fixture.peerID, waiters: [1, 2])])
        var many = AddressLinks()
        for index in 0..<AddressLinks.maximumAttempts {
            XCTAssertEqual(many.begin(address: "x", target: Endpoint(address: UInt32(index + 1), port: 1716), portGiven: false, waiter: nil, now: 0, table: empty).count, 1)
        }
        XCTAssertEqual(
            many.begin(address: "10.0.0.7", target: target, portGiven: false, waiter: 8, now: 0, table: empty),
            [.failed(address: "10.0.0.7", reason: "32 addresses are being tried already", waiters: [8])])
    }
}

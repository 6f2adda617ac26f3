import Foundation
import Pasteboard
import XCTest

@testable import KDEConnect

/// When pbctl announces itself and whom it links to, with datagrams and times given.
final class DiscoveryTests: XCTestCase {
    let sender = Endpoint(address: 0x0A00_0009, port: 1716)

    func datagram(_ identity: DeviceIdentity) -> [UInt8] { identity.packet(now: 0).encoded() }

    func pairedTable(version: Int) -> DeviceTable {
        let certificate = Fixture.certificate(Fixture.peerID)
        return DeviceTable(
            records: DeviceRecords(devices: [
                DeviceRecords.Device(
                    id: Fixture.peerID, name: "desk", type: "desktop", certificate: certificate.der, fingerprint: certificate.fingerprint,
                    protocolVersion: version, address: "10.0.0.2", port: 1739, paired: 1)
            ]))
    }

    func testAtStartABroadcastTheAddressesOnRecordAndWithoutDiscoveryThePairedDevices() {
        var discovery = Discovery(enabled: true, ownID: Fixture.localID)
        let table = pairedTable(version: 8)
        XCTAssertEqual(discovery.start(now: 100, addresses: ["10.0.0.7"], table: table, pending: []), [.broadcast, .connect(address: "10.0.0.7")])
        // Paired devices answer the broadcast; tried by address only 5 s later if they have not.
        XCTAssertEqual(discovery.tick(now: 105, table: table, pending: []), [])
        XCTAssertEqual(discovery.tick(now: 105.1, table: table, pending: []), [
            .announce(Endpoint(address: 0x0A00_0002, port: 1716)), .open(Endpoint(address: 0x0A00_0002, port: 1739), announced: nil),
        ])
        var quiet = Discovery(enabled: false, ownID: Fixture.localID)
        XCTAssertEqual(quiet.start(now: 0, addresses: [], table: table, pending: []), [
            .announce(Endpoint(address: 0x0A00_0002, port: 1716)), .open(Endpoint(address: 0x0A00_0002, port: 1739), announced: nil),
        ])
        XCTAssertEqual(quiet.tick(now: 30, table: table, pending: []), [])
        XCTAssertEqual(quiet.tick(now: 31, table: table, pending: [Endpoint(address: 0x0A00_0002, port: 1739)]), [
            .announce(Endpoint(address: 0x0A00_0002, port: 1716))
        ], "not a second link to where one is on its way up")
        XCTAssertEqual(quiet.tick(now: 200, table: table, pending: []).contains(.broadcast), false, "no broadcast without discovery")
    }

    func testAProtocol7DeviceIsTriedOnlyByAnnouncement() {
        var discovery = Discovery(enabled: false, ownID: Fixture.localID)
        XCTAssertEqual(discovery.start(now: 0, addresses: [], table: pairedTable(version: 7), pending: []), [.announce(Endpoint(address: 0x0A00_0002, port: 1716))])
    }

    func testAnAnnouncementIsAnsweredWithALinkOnceEveryTwoSeconds() {
        var discovery = Discovery(enabled: true, ownID: Fixture.localID)
        var table = DeviceTable(records: DeviceRecords())
        let peer = Fixture.peer(tcpPort: 1739)
        XCTAssertEqual(
            discovery.heard(datagram(peer), from: sender, now: 0, table: table, pending: 0), .open(Endpoint(address: 0x0A00_0009, port: 1739), announced: peer))
        XCTAssertNil(discovery.heard(datagram(peer), from: sender, now: 1.9, table: table, pending: 0))
        XCTAssertNotNil(discovery.heard(datagram(peer), from: sender, now: 2, table: table, pending: 0))
        // Not a device already reachable, not ourselves, not without a TCP port, not past the pending cap,
        // not what is no identity.
        _ = table.connected(peer, certificate: Fixture.certificate(Fixture.peerID), endpoint: sender, outgoing: true, now: 0)
        XCTAssertNil(discovery.heard(datagram(peer), from: sender, now: 10, table: table, pending: 0))
        XCTAssertNil(discovery.heard(datagram(Fixture.local), from: sender, now: 10, table: table, pending: 0))
        let other = Fixture.peer(Fixture.otherID, tcpPort: nil)
        XCTAssertNil(discovery.heard(datagram(other), from: sender, now: 10, table: table, pending: 0))
        let third = Fixture.peer(String(repeating: "e5", count: 16))
        XCTAssertNil(discovery.heard(datagram(third), from: sender, now: 10, table: table, pending: Discovery.maximumPending))
        XCTAssertNotNil(discovery.heard(datagram(third), from: sender, now: 10, table: table, pending: Discovery.maximumPending - 1))
        XCTAssertNil(discovery.heard(Array("{\"id\":1}".utf8), from: sender, now: 20, table: table, pending: 0))
        XCTAssertNil(discovery.heard([UInt8](repeating: 0x7B, count: NetworkPacket.maximumIdentitySize + 1), from: sender, now: 20, table: table, pending: 0))
    }

    func testABroadcastEveryTwoMinutesWhileNobodyIsReachable() {
        var discovery = Discovery(enabled: true, ownID: Fixture.localID)
        var table = DeviceTable(records: DeviceRecords())
        _ = discovery.start(now: 0, addresses: [], table: table, pending: [])
        XCTAssertFalse(discovery.tick(now: 120, table: table, pending: []).contains(.broadcast))
        XCTAssertTrue(discovery.tick(now: 120.5, table: table, pending: []).contains(.broadcast))
        _ = table.connected(Fixture.peer(), certificate: Fixture.certificate(Fixture.peerID), endpoint: sender, outgoing: true, now: 0)
        XCTAssertFalse(discovery.tick(now: 500, table: table, pending: []).contains(.broadcast))
    }
}

import Foundation
import Pasteboard
import XCTest

@testable import KDEConnect

/// The device table: records at start, pinned certificates (a forged one refused and noted), devices
/// met and forgotten, pairing with its effects on the records, and the packets each device may send.
final class DeviceTableTests: XCTestCase {
    let pinned = Fixture.certificate(Fixture.peerID, 1)

    func pairedTable(address: String? = "10.0.0.2", port: Int? = 1716, version: Int = 8) -> DeviceTable {
        DeviceTable(
            records: DeviceRecords(devices: [
                DeviceRecords.Device(
                    id: Fixture.peerID, name: "phone", type: "phone", certificate: pinned.der, fingerprint: pinned.fingerprint, protocolVersion: version,
                    address: address, port: port, paired: 5)
            ]))
    }

    func testTheRecordsArePairedDevicesOutOfReach() throws {
        let table = pairedTable()
        let device = try XCTUnwrap(table[Fixture.peerID])
        XCTAssertTrue(device.pairing.isPaired)
        XCTAssertFalse(device.reachable)
        XCTAssertEqual(device.endpoint, Endpoint(address: 0x0A00_0002, port: 1716))
        XCTAssertEqual(device.fingerprint, pinned.fingerprint)
        XCTAssertEqual(table.unreachablePaired.map(\.id), [Fixture.peerID])
        XCTAssertEqual(table.reachablePaired, [])
        XCTAssertNil(pairedTable(address: "phone.local")[Fixture.peerID]?.endpoint, "a record's address is where it was seen: dotted, no name lookup")
        XCTAssertEqual(table.find("phone")?.id, Fixture.peerID)
    }

    func testAPairedIDShowingAnotherCertificateIsRefusedAndNoted() {
        var table = pairedTable()
        XCTAssertNil(table.verify(id: Fixture.peerID, fingerprint: pinned.fingerprint))
        XCTAssertNil(table.verify(id: Fixture.otherID, fingerprint: "ff"), "a device never paired may show any certificate")
        let forged = Fixture.certificate(Fixture.peerID, 2)
        let refusal = table.verify(id: Fixture.peerID, fingerprint: forged.fingerprint)
        XCTAssertEqual(refusal, "refused: a certificate other than the one paired (pinned 1111111111111111…, offered 2222222222222222…)")
        XCTAssertEqual(table[Fixture.peerID]?.note, refusal)
        XCTAssertEqual(table.records.device(Fixture.peerID)?.fingerprint, pinned.fingerprint, "the pinned certificate stays")
        XCTAssertFalse(table[Fixture.peerID]?.reachable ?? true)
    }

    func testAPairedDeviceThatConnectsIsRememberedWhereItWasAndGetsTheClipboard() throws {
        var table = pairedTable(address: nil, port: nil)
        let effects = try XCTUnwrap(
            table.connected(Fixture.peer(tcpPort: 1739), certificate: pinned, endpoint: Endpoint(address: 0x0A00_0009, port: 40000), outgoing: false, now: 10))
        XCTAssertEqual(effects, [.saveRecords, .sendClipboardOnConnect(device: Fixture.peerID)])
        XCTAssertEqual(table.records.device(Fixture.peerID)?.address, "10.0.0.9")
        XCTAssertEqual(table.records.device(Fixture.peerID)?.port, 1739, "the TCP port it accepts links on, not the one it came from")
        XCTAssertEqual(table.reachablePaired.map(\.id), [Fixture.peerID])
        XCTAssertEqual(table.reachablePaired.first?.peer.speaksRichClipboard, true)
        // Again at the same place: nothing to save.
        XCTAssertEqual(
            table.connected(Fixture.peer(tcpPort: 1739), certificate: pinned, endpoint: Endpoint(address: 0x0A00_0009, port: 40001), outgoing: false, now: 11),
            [.sendClipboardOnConnect(device: Fixture.peerID)])
        XCTAssertEqual(table.disconnected(Fixture.peerID), [])
        XCTAssertFalse(table[Fixture.peerID]!.reachable)
        XCTAssertTrue(table[Fixture.peerID]!.pairing.isPaired, "a pairing outlives its link")
    }

    func testOnlyPairingCountsFromADeviceThatIsNotPaired() throws {
        var table = DeviceTable(records: DeviceRecords())
        XCTAssertEqual(
            table.connected(Fixture.peer(), certificate: Fixture.certificate(Fixture.peerID), endpoint: Fixture.endpoint, outgoing: true, now: 0), [])
        let clipboard = NetworkPacket(type: PacketType.clipboard, body: [("content", .string("hi"))], now: 0)
        for type in [PacketType.clipboard, PacketType.clipboardConnect, PacketType.richClipboard, PacketType.richChunk, PacketType.richEnd] {
            XCTAssertEqual(table.route(NetworkPacket(type: type, body: [], now: 0), from: Fixture.peerID, now: 1, wallClock: 0), .ignored, type)
        }
        XCTAssertEqual(table.route(clipboard, from: Fixture.otherID, now: 1, wallClock: 0), .ignored, "an unknown device")
        XCTAssertEqual(table.route(NetworkPacket(type: PacketType.pair, body: [], now: 0), from: Fixture.peerID, now: 1, wallClock: 0), .ignored)
        // It asks; we accept: trusted, recorded with its certificate, and sent the clipboard.
        let asked = table.route(NetworkPacket(type: PacketType.pair, body: [("pair", .bool(true))], now: 0), from: Fixture.peerID, now: 2, wallClock: 2000)
        XCTAssertEqual(asked, .pairing([.report(device: Fixture.peerID, name: "phone", message: "asks to pair: accept or reject within 30 s")]))
        let accepted = table.pairing(.accept, device: Fixture.peerID, now: 3, wallClock: 3000)
        XCTAssertEqual(accepted, [
            .send(device: Fixture.peerID, NetworkPacket(type: PacketType.pair, body: [("pair", .bool(true))], now: 3000)), .saveRecords,
            .sendClipboardOnConnect(device: Fixture.peerID), .report(device: Fixture.peerID, name: "phone", message: "paired"),
        ])
        let record = try XCTUnwrap(table.records.device(Fixture.peerID))
        XCTAssertEqual(record.fingerprint, Fixture.certificate(Fixture.peerID).fingerprint)
        XCTAssertEqual(record.certificate, Fixture.certificate(Fixture.peerID).der)
        XCTAssertEqual(record.paired, 3000)
        XCTAssertEqual(record.address, "10.0.0.2")
        XCTAssertEqual(table.route(clipboard, from: Fixture.peerID, now: 4, wallClock: 0), .clipboard)
        XCTAssertEqual(table.route(NetworkPacket(type: "kdeconnect.ping", body: [], now: 0), from: Fixture.peerID, now: 4, wallClock: 0), .ignored)
        // The device unpairs: the record goes, a transfer to it stops, its clipboard counts no more.
        let unpaired = table.route(NetworkPacket(type: PacketType.pair, body: [("pair", .bool(false))], now: 0), from: Fixture.peerID, now: 5, wallClock: 0)
        XCTAssertEqual(unpaired, .pairing([.saveRecords, .dropTransfers(device: Fixture.peerID), .report(device: Fixture.peerID, name: "phone", message: "unpaired by the device")]))
        XCTAssertNil(table.records.device(Fixture.peerID))
        XCTAssertEqual(table.route(clipboard, from: Fixture.peerID, now: 6, wallClock: 0), .ignored)
    }

    func testUnpairingHereForgetsTheRecordAndTellsTheDeviceWhenReachable() {
        var table = pairedTable()
        XCTAssertEqual(table.pairing(.unpair, device: Fixture.peerID, now: 0, wallClock: 0), [
            .saveRecords, .dropTransfers(device: Fixture.peerID), .report(device: Fixture.peerID, name: "phone", message: "unpaired"),
        ], "out of reach: nothing to send")
        XCTAssertTrue(table.records.devices.isEmpty)
        var reachable = pairedTable()
        _ = reachable.connected(Fixture.peer(), certificate: pinned, endpoint: Fixture.endpoint, outgoing: true, now: 0)
        XCTAssertEqual(
            reachable.pairing(.unpair, device: Fixture.peerID, now: 1, wallClock: 9).first,
            .send(device: Fixture.peerID, NetworkPacket(type: PacketType.pair, body: [("pair", .bool(false))], now: 9)))
    }

    func testRequestsTimeOutAndUnpairedDevicesOutOfReachAreForgotten() {
        var table = DeviceTable(records: DeviceRecords())
        _ = table.connected(Fixture.peer(), certificate: Fixture.certificate(Fixture.peerID), endpoint: Fixture.endpoint, outgoing: true, now: 0)
        _ = table.pairing(.request, device: Fixture.peerID, now: 0, wallClock: 0)
        XCTAssertEqual(table[Fixture.peerID]?.pairing.word, "requested")
        XCTAssertEqual(table.tick(now: 29, wallClock: 0), [])
        XCTAssertEqual(table.tick(now: 30, wallClock: 0).last, .report(device: Fixture.peerID, name: "phone", message: "pairing request timed out"))
        // Its link goes down with a request in flight: the request ends.
        _ = table.pairing(.request, device: Fixture.peerID, now: 31, wallClock: 0)
        XCTAssertEqual(table.disconnected(Fixture.peerID), [.report(device: Fixture.peerID, name: "phone", message: "pairing request ended: the device left")])
        XCTAssertEqual(table.tick(now: 300, wallClock: 0), [])
        XCTAssertNotNil(table[Fixture.peerID], "kept for five minutes")
        _ = table.tick(now: 300.1, wallClock: 0)
        XCTAssertNil(table[Fixture.peerID])
        // A paired device out of reach is never forgotten.
        var paired = pairedTable()
        _ = paired.tick(now: 1e6, wallClock: 0)
        XCTAssertNotNil(paired[Fixture.peerID])
    }

    func testTheTableHoldsAtMost128Devices() {
        var table = DeviceTable(records: DeviceRecords())
        for index in 0..<DeviceTable.maximumDevices {
            let id = String(format: "%032x", index)
            XCTAssertNotNil(table.connected(Fixture.peer(id), certificate: Fixture.certificate(id), endpoint: Fixture.endpoint, outgoing: false, now: 0))
        }
        let late = String(repeating: "f", count: 32)
        XCTAssertNil(table.connected(Fixture.peer(late), certificate: Fixture.certificate(late), endpoint: Fixture.endpoint, outgoing: false, now: 0))
        XCTAssertNotNil(
            table.connected(Fixture.peer(String(format: "%032x", 0)), certificate: Fixture.certificate("x"), endpoint: Fixture.endpoint, outgoing: false, now: 1),
            "a device already known comes back")
    }

    func testAddressesAddedAreKeptOnceAndBounded() {
        var table = DeviceTable(records: DeviceRecords())
        XCTAssertTrue(table.remember(address: "10.0.0.7:1716"))
        XCTAssertFalse(table.remember(address: "10.0.0.7:1716"))
        for index in 1..<DeviceRecords.maximumAddresses { XCTAssertTrue(table.remember(address: "10.0.1.\(index)")) }
        XCTAssertFalse(table.remember(address: "10.0.2.1"))
        XCTAssertEqual(table.records.addresses.count, DeviceRecords.maximumAddresses)
    }
}

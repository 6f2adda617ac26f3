import Foundation
import Pasteboard
import XCTest

@testable import KDEConnect

/// The control server's requests (what `pbctl devices` and `pbctl info` send) answered from a device
/// table and a status, and a client's request line as it arrives.
final class ControlServerTests: XCTestCase {
    let status = ControlServer.Status(
        id: Fixture.localID, name: "here", type: "laptop", fingerprint: "ab", tcpPort: 1716, discovery: true,
        statistics: ClipboardChannel.Statistics(sent: 3, received: 2, skipped: 1, last: "received from phone"))

    func answer(_ request: String, _ table: inout DeviceTable, isAddress: (String) -> Bool = { _ in true }) -> ControlServer.Reply {
        ControlServer.answer(Array(request.utf8), table: &table, status: status, now: 10, wallClock: 10_000, isAddress: isAddress)
    }

    /// A table with a paired device out of reach and an unpaired one that is reachable.
    func table() -> DeviceTable {
        let certificate = Fixture.certificate(Fixture.peerID)
        var table = DeviceTable(
            records: DeviceRecords(devices: [
                DeviceRecords.Device(
                    id: Fixture.peerID, name: "zz-paired", type: "phone", certificate: certificate.der, fingerprint: certificate.fingerprint,
                    protocolVersion: 7, address: "10.0.0.2", port: 1716, paired: 1)
            ]))
        let other = DeviceIdentity(id: Fixture.otherID, name: "aa-new", type: "desktop", tcpPort: 1716)
        _ = table.connected(other, certificate: Fixture.certificate(Fixture.otherID, 3), endpoint: Fixture.endpoint, outgoing: false, now: 0)
        return table
    }

    func testListAndStatusDescribeThisDeviceAndEveryDevicePairedFirst() throws {
        var table = table()
        let before = table
        for command in ["list", "status"] {
            let reply = answer(#"{"command":"\#(command)"}"#, &table)
            XCTAssertEqual(reply.effects, [])
            XCTAssertNil(reply.connect)
            XCTAssertEqual(reply.answer?["ok"]?.bool, true)
            let me = try XCTUnwrap(reply.answer?["self"])
            XCTAssertEqual(me["id"]?.string, Fixture.localID)
            XCTAssertEqual(me["tcpPort"]?.integer, 1716)
            XCTAssertEqual(me["sent"]?.integer, 3)
            XCTAssertEqual(me["skipped"]?.integer, 1)
            XCTAssertEqual(me["last"]?.string, "received from phone")
            let devices = try XCTUnwrap(reply.answer?["devices"]?.array)
            XCTAssertEqual(devices.map { $0["name"]?.string }, ["zz-paired", "aa-new"])
            XCTAssertEqual(devices.map { $0["state"]?.string }, ["paired", "unpaired"])
            XCTAssertEqual(devices.map { $0["reachable"]?.bool }, [false, true])
            XCTAssertEqual(devices.map { $0["clipboard"]?.string }, ["none", "pbctl"])
            XCTAssertEqual(devices.map { $0["address"]?.string }, ["10.0.0.2", "10.0.0.2"])
        }
        XCTAssertEqual(table, before, "listing changes nothing")
    }

    func testMalformedRequestsAreRefusedWithTheReason() {
        var table = table()
        XCTAssertEqual(answer("not json", &table).answer, .object([("ok", .bool(false)), ("error", .string("not a request"))]))
        XCTAssertEqual(answer(#"{"device":"x"}"#, &table).answer?["error"]?.string, "not a request")
        XCTAssertEqual(answer(#"{"command":"explode"}"#, &table).answer?["error"]?.string, "unknown command explode")
        XCTAssertEqual(answer(#"{"command":"pair"}"#, &table).answer?["error"]?.string, "no device  (pbctl devices lists them)")
        XCTAssertEqual(answer(#"{"command":"pair","device":"nobody"}"#, &table).answer?["error"]?.string, "no device nobody (pbctl devices lists them)")
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        XCTAssertEqual(answer(#"{"command":"list","x":\#(deep)}"#, &table).answer?["error"]?.string, "not a request")
    }

    /// `add` is answered once the link is up or has failed (``AddressLinks``): the server asks for the
    /// address and answers nothing yet; an address that is not one fails at once, with what it is.
    func testAddAsksForTheAddressAndAnswersOnceTheLinkIsUpOrWhyNot() throws {
        var table = table()
        let before = table
        let reply = answer(#"{"command":"add","address":"10.0.0.7:1739"}"#, &table)
        XCTAssertNil(reply.answer, "answered when the link is up, or why not")
        XCTAssertEqual(reply.effects, [], "kept only once a link is up")
        XCTAssertEqual(reply.connect, "10.0.0.7:1739")
        XCTAssertEqual(table, before)
        for bad in [#"{"command":"add"}"#, #"{"command":"add","address":"a b"}"#, #"{"command":"add","address":"host:99999"}"#] {
            let refused = answer(bad, &table)
            XCTAssertEqual(refused.answer?["error"]?.string, "not an address (host, host:port or an IPv4 address)", bad)
            XCTAssertEqual(refused.answer?["failure"]?.string, "usage", bad)
            XCTAssertNil(refused.connect)
        }
        let unknown = answer(#"{"command":"add","address":"nowhere.invalid"}"#, &table, isAddress: { $0 != "nowhere.invalid" })
        XCTAssertNil(unknown.connect)
        XCTAssertEqual(unknown.answer?["failure"]?.string, "unreachable")
        XCTAssertEqual(unknown.answer?["error"]?.string, "nowhere.invalid: not an IPv4 address, nor a name that resolves to one")
        // The answers the service sends when the attempt ends.
        let device = try XCTUnwrap(table[Fixture.otherID])
        let linked = ControlServer.linked(address: "10.0.0.2", device: device)
        XCTAssertEqual(linked["ok"]?.bool, true)
        XCTAssertEqual(linked["message"]?.string, "linked to aa-new (\(Fixture.otherID)) at 10.0.0.2; pbctl devices pair \(Fixture.otherID) to pair")
        XCTAssertEqual(linked["device"]?["reachable"]?.bool, true)
        let failed = ControlServer.notLinked(address: "10.0.0.9", reason: "cannot connect to 10.0.0.9:1716: Connection refused")
        XCTAssertEqual(failed["ok"]?.bool, false)
        XCTAssertEqual(failed["failure"]?.string, "unreachable")
        XCTAssertTrue(failed["error"]?.string?.hasPrefix("cannot link to 10.0.0.9: cannot connect to 10.0.0.9:1716: Connection refused (") == true)
        XCTAssertEqual(DeviceRecords.givesPort("10.0.0.7:1739"), true)
        XCTAssertEqual(DeviceRecords.givesPort("[fe80::1]:1739"), true)
        XCTAssertEqual(DeviceRecords.givesPort("10.0.0.7"), false)
        XCTAssertEqual(DeviceRecords.givesPort("[fe80::1]"), false)
        XCTAssertEqual(DeviceRecords.givesPort("host:99999"), false)
    }

    func testPairingStepsAnswerWhatTheyDid() throws {
        var table = table()
        // By name; the device is reachable, so the request goes out.
        let asked = answer(#"{"command":"pair","device":"aa-new"}"#, &table)
        XCTAssertEqual(asked.answer?["ok"]?.bool, true)
        XCTAssertEqual(asked.answer?["message"]?.string, "pairing requested; it has 30 s to accept")
        XCTAssertEqual(asked.answer?["device"]?["state"]?.string, "requested")
        XCTAssertEqual(
            asked.effects.first,
            .send(device: Fixture.otherID, NetworkPacket(type: PacketType.pair, body: [("pair", .bool(true)), ("timestamp", .integer(10))], now: 10_000)))
        // Nothing to accept: not ok, and said why.
        let nothing = answer(#"{"command":"accept","device":"\#(Fixture.otherID)"}"#, &table)
        XCTAssertEqual(nothing.answer?["ok"]?.bool, false)
        XCTAssertEqual(nothing.answer?["error"]?.string, "no pairing request to accept")
        // The paired device out of reach: pairing again changes nothing; unpairing forgets it.
        XCTAssertEqual(answer(#"{"command":"pair","device":"zz-paired"}"#, &table).answer?["ok"]?.bool, false)
        let unpaired = answer(#"{"command":"unpair","device":"zz-paired"}"#, &table)
        XCTAssertEqual(unpaired.answer?["ok"]?.bool, true)
        XCTAssertTrue(unpaired.effects.contains(.saveRecords))
        XCTAssertNil(table.records.device(Fixture.peerID))
        XCTAssertEqual(answer(#"{"command":"unpair","device":"zz-paired"}"#, &table).answer?["message"]?.string, "not paired")
    }

    func testAClientsRequestIsTakenWholeOrDropped() {
        var client = ControlServer.Client(now: 0)
        XCTAssertEqual(client.take(Array(#"{"command":"#.utf8), closed: false, now: 1), .waiting)
        XCTAssertEqual(client.take(Array(#""list"}"#.utf8) + [0x0A] + Array("more".utf8), closed: false, now: 2), .request(Array(#"{"command":"list"}"#.utf8)))
        var slow = ControlServer.Client(now: 0)
        XCTAssertEqual(slow.take([], closed: false, now: 5), .waiting)
        XCTAssertEqual(slow.take([], closed: false, now: 5.1), .drop)
        var long = ControlServer.Client(now: 0)
        XCTAssertEqual(long.take([UInt8](repeating: 0x41, count: ControlServer.maximumRequest + 1), closed: false, now: 0), .drop)
        var gone = ControlServer.Client(now: 0)
        XCTAssertEqual(gone.take(Array("{".utf8), closed: true, now: 0), .drop)
        var lastWord = ControlServer.Client(now: 0)
        XCTAssertEqual(lastWord.take(Array("{}\n".utf8), closed: true, now: 0), .request(Array("{}".utf8)), "a request before the client closed is answered")
    }

    func testTheClientsRequestIsWhatTheServerReads() throws {
        let line = ControlServer.request("pair", device: Fixture.peerID)
        let value = try JSONValue.parse(line)
        XCTAssertEqual(value["command"]?.string, "pair")
        XCTAssertEqual(value["device"]?.string, Fixture.peerID)
        XCTAssertFalse(line.contains(0x0A))
        XCTAssertEqual(ControlServer.Command.allCases.map(\.rawValue), ["list", "status", "add", "pair", "accept", "reject", "unpair"])
    }
}

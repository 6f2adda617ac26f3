import Foundation
import Pasteboard
import XCTest

@testable import KDEConnect

/// The packet, identity and record readers: what KDE Connect 22.12 and later send reads, and anything
/// malformed, oversized or nested too deep is refused with a reason (no socket, no clock).
final class KDEConnectPacketTests: XCTestCase {
    /// An identity exactly as kdeconnectd 22.12.3 sent it (captured in a network namespace), trimmed.
    let identity22 = #"{"body":{"deviceId":"_439923b8_65be_4a44_b404_144c09db49c6_","deviceName":"vm","deviceType":"desktop","incomingCapabilities":["kdeconnect.clipboard","kdeconnect.ping","kdeconnect.clipboard.connect"],"outgoingCapabilities":["kdeconnect.clipboard","kdeconnect.clipboard.connect"],"protocolVersion":7,"tcpPort":1716},"id":"1764150000000","type":"kdeconnect.identity"}"#

    func testKDEConnect2212IdentityReads() throws {
        let packet = try NetworkPacket.decode(Array(identity22.utf8))
        XCTAssertEqual(packet.id, 1_764_150_000_000)
        let identity = try DeviceIdentity(packet: packet)
        XCTAssertEqual(identity.id, "_439923b8_65be_4a44_b404_144c09db49c6_")
        XCTAssertEqual(identity.name, "vm")
        XCTAssertEqual(identity.protocolVersion, 7)
        XCTAssertEqual(identity.tcpPort, 1716)
        XCTAssertTrue(identity.speaksClipboard)
        XCTAssertFalse(identity.speaksRichClipboard)
    }

    func testOurIdentityReadsBackAndListsClipboardBothWays() throws {
        let ours = DeviceIdentity(id: String(repeating: "ab", count: 16), name: "laptop", type: "laptop", tcpPort: 1717)
        let line = ours.packet(now: 42).encoded()
        XCTAssertEqual(line.last, 0x0A)
        let back = try DeviceIdentity(packet: try NetworkPacket.decode(line.dropLast()))
        XCTAssertEqual(back, ours)
        XCTAssertTrue(back.speaksClipboard && back.speaksRichClipboard)
        XCTAssertLessThan(line.count, NetworkPacket.maximumIdentitySize)
    }

    func testMalformedPacketsAreRefusedWithAReason() {
        let cases: [String] = [
            "", "[]", "{}", #"{"type":"x"}"#, #"{"type":"","body":{}}"#, #"{"type":"kdeconnect.ping","body":[]}"#,
            #"{"type":"kdeconnect.ping","body":{}} trailing"#, #"{"type":"kdeconnect.ping","body":{"a":"\u00"}}"#,
            String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
            "{\"type\":\"a b\",\"body\":{}}", "{\"type\":\"x\",\"body\":{\"s\":\"\u{01}\"}}",
        ]
        for text in cases {
            XCTAssertThrowsError(try NetworkPacket.decode(Array(text.utf8)), text)
        }
        // Invalid UTF-8 inside a string.
        XCTAssertThrowsError(try NetworkPacket.decode(Array(#"{"type":"x","body":{"s":""#.utf8) + [0xFF] + Array(#""}}"#.utf8)))
        // Over the size cap, before any parsing.
        let big = Array(#"{"type":"x","body":{"s":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 100) + Array(#""}}"#.utf8)
        XCTAssertThrowsError(try NetworkPacket.decode(big, maximumSize: 64))
    }

    func testIdentitiesAreValidated() throws {
        func identity(_ body: String) throws -> DeviceIdentity {
            try DeviceIdentity(packet: try NetworkPacket.decode(Array(#"{"id":1,"type":"kdeconnect.identity","body":\#(body)}"#.utf8)))
        }
        let id = String(repeating: "a", count: 32)
        XCTAssertThrowsError(try identity(#"{"deviceId":"short","deviceName":"x","protocolVersion":7}"#))
        XCTAssertThrowsError(try identity(#"{"deviceId":"\#(id)","deviceName":"..","protocolVersion":7}"#))
        XCTAssertThrowsError(try identity(#"{"deviceId":"\#(id)","deviceName":"x","protocolVersion":6}"#))
        XCTAssertThrowsError(try identity(#"{"deviceId":"\#(id)","deviceName":"x","protocolVersion":7,"tcpPort":80}"#))
        XCTAssertThrowsError(try identity(#"{"deviceId":"\#(id)","deviceName":"x","protocolVersion":7,"incomingCapabilities":[1]}"#))
        let named = try identity(#"{"deviceId":"\#(id)","deviceName":"  <My> \"Phone\"!  with a very long name past thirty-two","protocolVersion":8,"deviceType":"fridge"}"#)
        XCTAssertEqual(named.name, "My Phone  with a very long name")
        XCTAssertEqual(named.type, "desktop")
    }

    func testJSONStringsRoundTripWithEmojiAndEscapes() throws {
        let text = "héllo 😀 \"quoted\" \\ back\nline\t\u{01}"
        let packet = NetworkPacket(type: PacketType.clipboard, body: [("content", .string(text))], now: 1)
        let back = try NetworkPacket.decode(packet.encoded())
        XCTAssertEqual(back.body["content"]?.string, text)
        // Surrogate pairs as KDE's Qt writes them.
        let escaped = try NetworkPacket.decode(Array(#"{"id":1,"type":"kdeconnect.clipboard","body":{"content":"\ud83d\ude00\u00e9"}}"#.utf8))
        XCTAssertEqual(escaped.body["content"]?.string, "😀é")
    }

    func testLineSplitterBoundsAnUnfinishedLine() throws {
        var splitter = LineSplitter(maximumLine: 8)
        XCTAssertEqual(try splitter.take(Array("abc\nde".utf8)), [Array("abc".utf8)])
        XCTAssertEqual(try splitter.take(Array("f\n".utf8)), [Array("def".utf8)])
        XCTAssertThrowsError(try splitter.take(Array(repeating: UInt8(ascii: "x"), count: 9)))
    }

    func testDeviceRecordsReadBackAndDropWhatFailsAChecks() throws {
        let certificate = Data(repeating: 7, count: 100)
        let fingerprint: (Data) -> String = { "fp\($0.count)" }
        var records = DeviceRecords(addresses: ["192.168.1.20", "host:1716"])
        records.set(.init(id: String(repeating: "c", count: 32), name: "phone", type: "phone", certificate: certificate, fingerprint: "fp100",
                          protocolVersion: 8, address: "10.0.0.2", port: 1716, paired: 5))
        let (back, problems) = try DeviceRecords.decode(records.encoded(), fingerprint: fingerprint)
        XCTAssertEqual(back, records)
        XCTAssertEqual(problems, [])
        // A fingerprint that does not match its certificate, a port out of range: dropped, said.
        var text = String(decoding: records.encoded(), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"fp100\"", with: "\"other\"")
        let (tampered, complaints) = try DeviceRecords.decode(Data(text.utf8), fingerprint: fingerprint)
        XCTAssertTrue(tampered.devices.isEmpty)
        XCTAssertEqual(complaints.count, 1)
        XCTAssertThrowsError(try DeviceRecords.decode(Data("{\"version\":2}".utf8), fingerprint: fingerprint))
        XCTAssertEqual(DeviceRecords.splitAddress("10.0.0.2")?.port, 1716)
        XCTAssertEqual(DeviceRecords.splitAddress("10.0.0.2:1720")?.port, 1720)
        XCTAssertNil(DeviceRecords.splitAddress("10.0.0.2:99999"))
        XCTAssertNil(DeviceRecords.splitAddress("a b"))
    }
}

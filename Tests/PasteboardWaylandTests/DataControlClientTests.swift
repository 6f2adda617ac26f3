import XCTest
@testable import PasteboardWayland
@testable import Pasteboard

/// The wire format and the data-control client without a compositor: recorded byte sequences in, the
/// state and the requests out.
final class WaylandWireTests: XCTestCase {
    func testRequestsEncodeAsTheCompositorReadsThem() {
        // wl_display.get_registry(new_id 2): object 1, size 12, opcode 1, then the id.
        let (bytes, fds) = WaylandWire.encode(WaylandMessage(object: 1, opcode: 1, arguments: [.newID(2)]))
        XCTAssertEqual(bytes, [1, 0, 0, 0, 1, 0, 12, 0, 2, 0, 0, 0])
        XCTAssertEqual(fds, [])
        // A string is its length with the NUL, the bytes, padding to 4; a descriptor travels aside.
        let receive = WaylandWire.encode(WaylandMessage(object: 7, opcode: 0, arguments: [.string("text/html"), .fd(9)]))
        XCTAssertEqual(receive.bytes.count, 8 + 4 + 12)
        XCTAssertEqual(Array(receive.bytes[8..<12]), [10, 0, 0, 0])
        XCTAssertEqual(Array(receive.bytes[12..<22]), Array("text/html".utf8) + [0])
        XCTAssertEqual(receive.fds, [9])
        XCTAssertEqual(WaylandWire.encode(WaylandMessage(object: 3, opcode: 0, arguments: [.object(0)])).bytes.count, 12)
    }

    func testEventsDecodeWithTheirDescriptors() throws {
        // zwlr_data_control_source_v1.send("text/plain", fd) as a compositor sends it.
        let message = WaylandMessage(object: 5, opcode: 0, arguments: [.string("text/plain"), .fd(42)])
        let (bytes, _) = WaylandWire.encode(message)
        let header = try XCTUnwrap(try WaylandWire.header(bytes[...]))
        XCTAssertEqual(header.object, 5)
        XCTAssertEqual(header.opcode, 0)
        XCTAssertEqual(header.size, bytes.count)
        var fds: [Int32] = [42, 43]
        let arguments = try WaylandWire.arguments(bytes[8...], types: [.string, .fd], fds: &fds)
        XCTAssertEqual(arguments, [.string("text/plain"), .fd(42)])
        XCTAssertEqual(fds, [43], "one descriptor consumed")
    }

    func testMalformedMessagesAreErrorsNeverCrashes() {
        XCTAssertThrowsError(try WaylandWire.header([1, 0, 0, 0, 0, 0, 4, 0][...]), "size below the header")
        XCTAssertThrowsError(try WaylandWire.header([1, 0, 0, 0, 0, 0, 9, 0][...]), "size not a multiple of 4")
        var none: [Int32] = []
        // A string claiming more bytes than the message has.
        XCTAssertThrowsError(try WaylandWire.arguments([200, 0, 0, 0, 65, 0, 0, 0][...], types: [.string], fds: &none))
        // A string without its NUL.
        XCTAssertThrowsError(try WaylandWire.arguments([4, 0, 0, 0, 65, 66, 67, 68][...], types: [.string], fds: &none))
        // A descriptor announced and not sent.
        XCTAssertThrowsError(try WaylandWire.arguments([][...], types: [.fd], fds: &none))
        // Fewer bytes than arguments.
        XCTAssertThrowsError(try WaylandWire.arguments([1, 0][...], types: [.uint], fds: &none))
        // Random bytes: errors or values, never a trap.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var fds: [Int32] = [1]
            _ = try? WaylandWire.arguments(bytes[...], types: [.string, .uint, .array, .fd, .object], fds: &fds)
            _ = try? WaylandWire.header(bytes[...])
        }
    }
}

final class DataControlClientTests: XCTestCase {
    /// A client after the registry listed `globals` and the data-control objects were bound.
    func boundClient(_ globals: [(String, UInt32)]) -> (DataControlClient, [WaylandMessage]?) {
        var client = DataControlClient()
        _ = client.getRegistry()
        for (index, (interface, version)) in globals.enumerated() {
            _ = client.handle(WaylandMessage(
                object: client.registry, opcode: 0, arguments: [.uint(UInt32(index + 1)), .string(interface), .uint(version)]))
        }
        let messages = client.bindDataControl()
        return (client, messages)
    }

    func testExtIsPreferredOverWlrAndMissingDataControlIsNil() throws {
        let (both, messages) = boundClient([("wl_seat", 7), ("zwlr_data_control_manager_v1", 2), ("ext_data_control_manager_v1", 1)])
        XCTAssertEqual(both.family, .ext)
        XCTAssertEqual(messages?.count, 3)
        if case .string(let name)? = messages?[1].arguments[1] { XCTAssertEqual(name, "ext_data_control_manager_v1") }
        let (wlr, _) = boundClient([("wl_seat", 7), ("zwlr_data_control_manager_v1", 2)])
        XCTAssertEqual(wlr.family, .wlr)
        XCTAssertTrue(wlr.supportsPrimary)
        let (wlrOne, _) = boundClient([("wl_seat", 7), ("zwlr_data_control_manager_v1", 1)])
        XCTAssertFalse(wlrOne.supportsPrimary, "wlr version 1 has no primary selection")
        let (gnome, none) = boundClient([("wl_seat", 7), ("wl_data_device_manager", 3)])
        XCTAssertNil(none)
        XCTAssertNil(gnome.family)
    }

    func testOffersAndSelectionsFollowTheEvents() {
        var (client, _) = boundClient([("wl_seat", 7), ("zwlr_data_control_manager_v1", 2)])
        let device = client.device
        let offer: UInt32 = 0xFF00_0001
        XCTAssertNil(client.handle(WaylandMessage(object: device, opcode: 0, arguments: [.newID(offer)])))
        for mime in ["text/plain;charset=utf-8", "text/html", "text/html"] {
            _ = client.handle(WaylandMessage(object: offer, opcode: 0, arguments: [.string(mime)]))
        }
        XCTAssertEqual(client.offers[offer], ["text/plain;charset=utf-8", "text/html"], "duplicates dropped")
        XCTAssertEqual(client.handle(WaylandMessage(object: device, opcode: 1, arguments: [.object(offer)])), .selection(primary: false, offer: offer))
        XCTAssertEqual(client.selection, offer)
        XCTAssertEqual(client.handle(WaylandMessage(object: device, opcode: 3, arguments: [.object(0)])), .selection(primary: true, offer: nil))
        XCTAssertNil(client.primarySelection)
        XCTAssertEqual(client.changes, 2)
        // An event for an object we never made is ignored.
        XCTAssertNil(client.handle(WaylandMessage(object: 999, opcode: 0, arguments: [.string("x")])))
        XCTAssertNil(client.eventSignature(object: 999, opcode: 0))
    }

    /// Every replaced offer is destroyed (one request each), so a watch or daemon that sees thousands of
    /// changes keeps seeing them: the bound on live offers never fills up.
    func testReplacedOffersAreDestroyedAndChangesKeepBeingSeen() {
        var (client, _) = boundClient([("wl_seat", 7), ("zwlr_data_control_manager_v1", 2)])
        let device = client.device
        for k in 0..<500 {
            let offer = 0xFF00_0000 + UInt32(k % 7)  // the compositor reuses freed ids
            _ = client.handle(WaylandMessage(object: device, opcode: 0, arguments: [.newID(offer)]))
            _ = client.handle(WaylandMessage(object: offer, opcode: 0, arguments: [.string("text/plain")]))
            XCTAssertEqual(client.handle(WaylandMessage(object: device, opcode: 1, arguments: [.object(offer)])),
                           .selection(primary: false, offer: offer), "change \(k) was not seen")
            let destroys = client.takeQueuedRequests()
            XCTAssertEqual(destroys.count, k == 0 ? 0 : 1)
            if k > 0 { XCTAssertEqual(destroys.first, WaylandMessage(object: 0xFF00_0000 + UInt32((k - 1) % 7), opcode: 1)) }
            XCTAssertEqual(client.offers.count, 1)
        }
        // An offer that is both the selection and the primary selection lives until neither holds it.
        let shared: UInt32 = 0xFF00_0100
        _ = client.handle(WaylandMessage(object: device, opcode: 0, arguments: [.newID(shared)]))
        _ = client.handle(WaylandMessage(object: device, opcode: 1, arguments: [.object(shared)]))
        _ = client.handle(WaylandMessage(object: device, opcode: 3, arguments: [.object(shared)]))
        _ = client.takeQueuedRequests()
        _ = client.handle(WaylandMessage(object: device, opcode: 1, arguments: [.object(0)]))
        XCTAssertEqual(client.takeQueuedRequests(), [], "still the primary selection")
        XCTAssertEqual(client.offers.count, 1)
        _ = client.handle(WaylandMessage(object: device, opcode: 3, arguments: [.object(0)]))
        XCTAssertEqual(client.takeQueuedRequests(), [WaylandMessage(object: shared, opcode: 1)])
        XCTAssertEqual(client.offers.count, 0)
    }

    func testSourcesAnswerSendAndCancelled() {
        var (client, _) = boundClient([("wl_seat", 7), ("zwlr_data_control_manager_v1", 2)])
        let (source, messages) = client.createSource(offering: ["text/plain", "text/html"])
        XCTAssertEqual(messages.count, 3)
        XCTAssertEqual(client.setSelection(source, primary: false).opcode, 0)
        XCTAssertEqual(client.setSelection(nil, primary: true), WaylandMessage(object: client.device, opcode: 2, arguments: [.object(0)]))
        XCTAssertEqual(
            client.handle(WaylandMessage(object: source, opcode: 0, arguments: [.string("text/html"), .fd(11)])),
            .send(source: source, mime: "text/html", fd: 11))
        XCTAssertEqual(client.handle(WaylandMessage(object: source, opcode: 1)), .cancelled(source: source))
    }

    func testAFloodOfOffersAndTypesIsBounded() {
        var (client, _) = boundClient([("wl_seat", 7), ("zwlr_data_control_manager_v1", 2)])
        for k in 0..<200 { _ = client.handle(WaylandMessage(object: client.device, opcode: 0, arguments: [.newID(0xFF00_0000 + UInt32(k))])) }
        XCTAssertLessThanOrEqual(client.offers.count, 64)
        let offer: UInt32 = 0xFF00_0000
        for k in 0..<10_000 { _ = client.handle(WaylandMessage(object: offer, opcode: 0, arguments: [.string("type/\(k)")])) }
        XCTAssertEqual(client.offers[offer]?.count, 1024)
    }

    func testSocketPath() {
        XCTAssertEqual(WaylandConnection.socketPath(display: "wayland-1", runtimeDirectory: "/run/user/1000"), "/run/user/1000/wayland-1")
        XCTAssertEqual(WaylandConnection.socketPath(display: "/tmp/w/wayland-2", runtimeDirectory: nil), "/tmp/w/wayland-2")
        XCTAssertNil(WaylandConnection.socketPath(display: "wayland-0", runtimeDirectory: nil))
    }
}

import XCTest
@testable import PasteboardWayland
@testable import Pasteboard

/// The wire codec against recorded byte sequences: what pbctl sends for a paste and a copy on ext and on
/// wlr, what a compositor sends back (descriptors beside the bytes), and malformed input.
final class WaylandWireTests: XCTestCase {
    /// A client bound as `family`'s, the registry having listed the seat (name 1) and the manager (name 2).
    func bound(_ family: DataControlFamily, version: UInt32) -> (DataControlClient, [WaylandMessage]) {
        var client = DataControlClient()
        _ = client.getRegistry()  // object 2
        _ = client.handle(WaylandMessage(object: 2, WlRegistry.Event.global, arguments: [.uint(1), .string("wl_seat"), .uint(7)]))
        _ = client.handle(WaylandMessage(object: 2, WlRegistry.Event.global, arguments: [.uint(2), .string(family.managerInterface), .uint(version)]))
        let messages = client.bindDataControl() ?? []
        return (client, messages)
    }

    func bytes(_ messages: [WaylandMessage]) -> [UInt8] { messages.flatMap { WaylandWire.encode($0).bytes } }

    func testAPastesRequestsAsRecordedOnExtAndWlr() {
        var client = DataControlClient()
        // wl_display.get_registry(new_id 2).
        XCTAssertEqual(WaylandWire.encode(client.getRegistry()).bytes, [1, 0, 0, 0, 1, 0, 12, 0, 2, 0, 0, 0])
        // wl_display.sync(new_id 3).
        XCTAssertEqual(WaylandWire.encode(client.sync().0).bytes, [1, 0, 0, 0, 0, 0, 12, 0, 3, 0, 0, 0])

        // ext: bind the seat (object 3), the manager (4) at version 1, get the device (5) for the seat.
        let (_, ext) = bound(.ext, version: 1)
        XCTAssertEqual(bytes(ext), [
            // wl_registry.bind(1, "wl_seat", 1, new_id 3): size 32.
            2, 0, 0, 0, 0, 0, 32, 0, 1, 0, 0, 0, 8, 0, 0, 0, 119, 108, 95, 115, 101, 97, 116, 0, 1, 0, 0, 0, 3, 0, 0, 0,
            // wl_registry.bind(2, "ext_data_control_manager_v1", 1, new_id 4): size 52.
            2, 0, 0, 0, 0, 0, 52, 0, 2, 0, 0, 0, 28, 0, 0, 0,
            101, 120, 116, 95, 100, 97, 116, 97, 95, 99, 111, 110, 116, 114, 111, 108, 95, 109, 97, 110, 97, 103, 101, 114, 95, 118, 49, 0,
            1, 0, 0, 0, 4, 0, 0, 0,
            // ext_data_control_manager_v1.get_data_device(new_id 5, seat 3): opcode 1, size 16.
            4, 0, 0, 0, 1, 0, 16, 0, 5, 0, 0, 0, 3, 0, 0, 0,
        ])
        // wlr: the same, but the interface's name ("zwlr_…", 29 bytes with its NUL, padded to 32) and
        // version 2 (the primary selection).
        let (_, wlr) = bound(.wlr, version: 3)
        XCTAssertEqual(bytes([wlr[1]]),
                       Bytes.header(2, size: 56, opcode: 0) + Bytes.words(2) + Bytes.string("zwlr_data_control_manager_v1") + Bytes.words(2, 4))
        XCTAssertEqual(bytes([wlr[1]]).count, 56)
        XCTAssertEqual(bytes([wlr[0], wlr[2]]), bytes([ext[0], ext[2]]), "the seat and the device: the same bytes")
    }

    /// `receive("text/plain;charset=utf-8", fd)` on an offer: the descriptor is not in the bytes, it goes
    /// beside them; the bytes are the same on both families.
    func testAReceiveCarriesItsDescriptorBesideTheBytes() {
        for family in [DataControlFamily.ext, .wlr] {
            let (client, _) = bound(family, version: family.supportedVersion)
            let (bytes, fds) = WaylandWire.encode(client.receive(0xFF00_0001, mime: "text/plain;charset=utf-8", fd: 9))
            XCTAssertEqual(bytes, [
                1, 0, 0, 255, 0, 0, 40, 0,  // offer 0xff000001, receive (0), size 40
                25, 0, 0, 0,  // the length, NUL included
                116, 101, 120, 116, 47, 112, 108, 97, 105, 110, 59, 99, 104, 97, 114, 115, 101, 116, 61, 117, 116, 102, 45, 56, 0,
                0, 0, 0,  // padding
            ])
            XCTAssertEqual(fds, [9])
        }
    }

    /// A copy: create the source, offer its types, set it as the selection (or the primary selection),
    /// then what the compositor sends the source.
    func testACopysRequestsAndTheSourcesEventsAsRecorded() throws {
        for family in [DataControlFamily.ext, .wlr] {
            var (client, _) = bound(family, version: family.supportedVersion)
            let (source, messages) = client.createSource(offering: ["text/plain"])
            XCTAssertEqual(source, 6)
            XCTAssertEqual(bytes(messages), [
                4, 0, 0, 0, 0, 0, 12, 0, 6, 0, 0, 0,  // manager.create_data_source(new_id 6)
                6, 0, 0, 0, 0, 0, 24, 0, 11, 0, 0, 0, 116, 101, 120, 116, 47, 112, 108, 97, 105, 110, 0, 0,  // source.offer("text/plain")
            ])
            XCTAssertEqual(WaylandWire.encode(client.setSelection(source, primary: false)).bytes, [5, 0, 0, 0, 0, 0, 12, 0, 6, 0, 0, 0])
            XCTAssertEqual(WaylandWire.encode(client.setSelection(source, primary: true)).bytes, [5, 0, 0, 0, 2, 0, 12, 0, 6, 0, 0, 0])
            XCTAssertEqual(WaylandWire.encode(client.setSelection(nil, primary: false)).bytes, [5, 0, 0, 0, 0, 0, 12, 0, 0, 0, 0, 0])

            // source.send("text/plain", fd) as the compositor sends it: 24 bytes, one descriptor aside.
            let send: [UInt8] = [6, 0, 0, 0, 0, 0, 24, 0, 11, 0, 0, 0, 116, 101, 120, 116, 47, 112, 108, 97, 105, 110, 0, 0]
            let header = try XCTUnwrap(try WaylandWire.header(send[...]))
            XCTAssertEqual(header.size, 24)
            let types = try XCTUnwrap(client.eventSignature(object: header.object, opcode: header.opcode))
            var fds: [Int32] = [42, 43]
            let arguments = try WaylandWire.arguments(send[8...], types: types, fds: &fds)
            XCTAssertEqual(fds, [43], "one descriptor taken, in order")
            XCTAssertEqual(client.handle(WaylandMessage(object: header.object, opcode: header.opcode, arguments: arguments)),
                           .send(source: 6, mime: "text/plain", fd: 42))
            // source.cancelled: a header alone.
            XCTAssertEqual(client.handle(WaylandMessage(object: 6, opcode: try XCTUnwrap(try WaylandWire.header([6, 0, 0, 0, 1, 0, 8, 0][...])).opcode)),
                           .cancelled(source: 6))
            // The source destroyed: source.destroy (1), a header alone.
            XCTAssertEqual(WaylandWire.encode(try XCTUnwrap(client.destroy(source))).bytes, [6, 0, 0, 0, 1, 0, 8, 0])
            XCTAssertEqual(client.eventSignature(object: 6, opcode: 0), [.string, .fd],
                           "a destroyed source's send is still decoded, its descriptor taken (and closed by the driver)")
        }
    }

    /// The events of a paste, as recorded from a compositor: the device announces an offer, its types,
    /// then makes it the selection.
    func testAnOffersEventsDecodeAsRecorded() throws {
        for family in [DataControlFamily.ext, .wlr] {
            var (client, _) = bound(family, version: family.supportedVersion)
            let recorded: [UInt8] = [
                5, 0, 0, 0, 0, 0, 12, 0, 1, 0, 0, 255,  // device.data_offer(new_id 0xff000001)
                1, 0, 0, 255, 0, 0, 24, 0, 11, 0, 0, 0, 116, 101, 120, 116, 47, 112, 108, 97, 105, 110, 0, 0,  // offer.offer("text/plain")
                1, 0, 0, 255, 0, 0, 20, 0, 5, 0, 0, 0, 84, 69, 88, 84, 0, 0, 0, 0,  // offer.offer("TEXT")
                5, 0, 0, 0, 1, 0, 12, 0, 1, 0, 0, 255,  // device.selection(0xff000001)
                5, 0, 0, 0, 3, 0, 12, 0, 0, 0, 0, 0,  // device.primary_selection(null)
            ]
            var slice = recorded[...]
            var events: [DataControlClient.Event] = []
            var none: [Int32] = []
            while let header = try WaylandWire.header(slice) {
                let types = try XCTUnwrap(client.eventSignature(object: header.object, opcode: header.opcode))
                let body = slice[(slice.startIndex + 8)..<(slice.startIndex + header.size)]
                let message = WaylandMessage(object: header.object, opcode: header.opcode,
                                             arguments: try WaylandWire.arguments(body, types: types, fds: &none))
                XCTAssertEqual(WaylandWire.encode(message).bytes, Array(slice.prefix(header.size)), "encodes back to the same bytes")
                if let event = client.handle(message) { events.append(event) }
                slice = slice.dropFirst(header.size)
            }
            XCTAssertEqual(events, [.selection(primary: false, offer: 0xFF00_0001), .selection(primary: true, offer: nil)])
            XCTAssertEqual(client.offers[0xFF00_0001], ["text/plain", "TEXT"])
            XCTAssertEqual(client.selection, 0xFF00_0001)
        }
    }

    func testEveryArgumentTypeEncodesAndDecodesBack() throws {
        let message = WaylandMessage(object: 3, opcode: 2, arguments: [
            .int(-2), .uint(0xDEAD_BEEF), .fixed(256 * 3), .string("é"), .string(nil), .object(0), .newID(7), .array([1, 2, 3, 4, 5]), .fd(11),
        ])
        let (bytes, fds) = WaylandWire.encode(message)
        XCTAssertEqual(fds, [11])
        XCTAssertEqual(bytes.count % 4, 0)
        let header = try XCTUnwrap(try WaylandWire.header(bytes[...]))
        XCTAssertEqual(header.size, bytes.count)
        var received = fds
        let arguments = try WaylandWire.arguments(bytes[8...], types: [.int, .uint, .fixed, .string, .string, .object, .newID, .array, .fd], fds: &received)
        XCTAssertEqual(arguments, message.arguments)
        XCTAssertEqual(Array(bytes[8..<12]), [254, 255, 255, 255], "int: two's complement, little-endian")
        XCTAssertEqual(WaylandWire.encode(WaylandMessage(object: 1, opcode: 0, arguments: [.string(nil)])).bytes, [1, 0, 0, 0, 0, 0, 12, 0, 0, 0, 0, 0],
                       "a null string: length 0")
        XCTAssertNil(try WaylandWire.header([1, 0, 0, 0, 0, 0][...]), "no header before 8 bytes")
    }

    func testMalformedMessagesAreErrorsNeverCrashes() {
        XCTAssertThrowsError(try WaylandWire.header([1, 0, 0, 0, 0, 0, 4, 0][...]), "size below the header")
        XCTAssertThrowsError(try WaylandWire.header([1, 0, 0, 0, 0, 0, 9, 0][...]), "size not a multiple of 4")
        var none: [Int32] = []
        // A string claiming more bytes than the message has.
        XCTAssertThrowsError(try WaylandWire.arguments([200, 0, 0, 0, 65, 0, 0, 0][...], types: [.string], fds: &none))
        // A string without its NUL.
        XCTAssertThrowsError(try WaylandWire.arguments([4, 0, 0, 0, 65, 66, 67, 68][...], types: [.string], fds: &none))
        // Padding past the message's end.
        XCTAssertThrowsError(try WaylandWire.arguments([2, 0, 0, 0, 65, 0][...], types: [.string], fds: &none))
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

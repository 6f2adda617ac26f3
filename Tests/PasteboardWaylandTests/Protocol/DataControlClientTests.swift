import XCTest
@testable import PasteboardWayland
@testable import Pasteboard

/// The data-control client without a compositor: events in, the state and the requests out.
final class DataControlClientTests: XCTestCase {
    /// A client after the registry listed `globals` and the data-control objects were bound.
    func boundClient(_ globals: [(String, UInt32)]) -> (DataControlClient, [WaylandMessage]?) {
        var client = DataControlClient()
        _ = client.getRegistry()
        for (index, (interface, version)) in globals.enumerated() {
            _ = client.handle(WaylandMessage(
                object: client.registry, WlRegistry.Event.global, arguments: [.uint(UInt32(index + 1)), .string(interface), .uint(version)]))
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
        XCTAssertNil(client.handle(WaylandMessage(object: device, DataControlDevice.Event.dataOffer, arguments: [.newID(offer)])))
        for mime in ["text/plain;charset=utf-8", "text/html", "text/html"] {
            _ = client.handle(WaylandMessage(object: offer, DataControlOffer.Event.offer, arguments: [.string(mime)]))
        }
        XCTAssertEqual(client.offers[offer], ["text/plain;charset=utf-8", "text/html"], "duplicates dropped")
        XCTAssertEqual(client.handle(WaylandMessage(object: device, DataControlDevice.Event.selection, arguments: [.object(offer)])), .selection(primary: false, offer: offer))
        XCTAssertEqual(client.selection, offer)
        XCTAssertEqual(client.handle(WaylandMessage(object: device, DataControlDevice.Event.primarySelection, arguments: [.object(0)])), .selection(primary: true, offer: nil))
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
            _ = client.handle(WaylandMessage(object: device, DataControlDevice.Event.dataOffer, arguments: [.newID(offer)]))
            _ = client.handle(WaylandMessage(object: offer, DataControlOffer.Event.offer, arguments: [.string("text/plain")]))
            XCTAssertEqual(client.handle(WaylandMessage(object: device, DataControlDevice.Event.selection, arguments: [.object(offer)])),
                           .selection(primary: false, offer: offer), "change \(k) was not seen")
            let destroys = client.takeQueuedRequests()
            XCTAssertEqual(destroys.count, k == 0 ? 0 : 1)
            if k > 0 { XCTAssertEqual(destroys.first, WaylandMessage(object: 0xFF00_0000 + UInt32((k - 1) % 7), DataControlOffer.Request.destroy)) }
            XCTAssertEqual(client.offers.count, 1)
        }
        // An offer that is both the selection and the primary selection lives until neither holds it.
        let shared: UInt32 = 0xFF00_0100
        _ = client.handle(WaylandMessage(object: device, DataControlDevice.Event.dataOffer, arguments: [.newID(shared)]))
        _ = client.handle(WaylandMessage(object: device, DataControlDevice.Event.selection, arguments: [.object(shared)]))
        _ = client.handle(WaylandMessage(object: device, DataControlDevice.Event.primarySelection, arguments: [.object(shared)]))
        _ = client.takeQueuedRequests()
        _ = client.handle(WaylandMessage(object: device, DataControlDevice.Event.selection, arguments: [.object(0)]))
        XCTAssertEqual(client.takeQueuedRequests(), [], "still the primary selection")
        XCTAssertEqual(client.offers.count, 1)
        _ = client.handle(WaylandMessage(object: device, DataControlDevice.Event.primarySelection, arguments: [.object(0)]))
        XCTAssertEqual(client.takeQueuedRequests(), [WaylandMessage(object: shared, DataControlOffer.Request.destroy)])
        XCTAssertEqual(client.offers.count, 0)
    }

    func testSourcesAnswerSendAndCancelled() {
        var (client, _) = boundClient([("wl_seat", 7), ("zwlr_data_control_manager_v1", 2)])
        let (source, messages) = client.createSource(offering: ["text/plain", "text/html"])
        XCTAssertEqual(messages.count, 3)
        XCTAssertTrue(client.setSelection(source, primary: false).is(DataControlDevice.Request.setSelection))
        XCTAssertEqual(client.setSelection(nil, primary: true), WaylandMessage(object: client.device, DataControlDevice.Request.setPrimarySelection, arguments: [.object(0)]))
        XCTAssertEqual(
            client.handle(WaylandMessage(object: source, DataControlSource.Event.send, arguments: [.string("text/html"), .fd(11)])),
            .send(source: source, mime: "text/html", fd: 11))
        XCTAssertEqual(client.handle(WaylandMessage(object: source, DataControlSource.Event.cancelled)), .cancelled(source: source))
    }

    func testAFloodOfOffersAndTypesIsBounded() {
        var (client, _) = boundClient([("wl_seat", 7), ("zwlr_data_control_manager_v1", 2)])
        for k in 0..<200 { _ = client.handle(WaylandMessage(object: client.device, DataControlDevice.Event.dataOffer, arguments: [.newID(0xFF00_0000 + UInt32(k))])) }
        XCTAssertLessThanOrEqual(client.offers.count, 64)
        let offer: UInt32 = 0xFF00_0000
        for k in 0..<10_000 { _ = client.handle(WaylandMessage(object: offer, DataControlOffer.Event.offer, arguments: [.string("type/\(k)")])) }
        XCTAssertEqual(client.offers[offer]?.count, 1024)
    }

    func testTheDisplaysEventsAndTheRegistrysChanges() {
        var (client, _) = boundClient([("wl_seat", 7), ("ext_data_control_manager_v1", 1)])
        // wl_display.error: the compositor ends the connection, saying why.
        XCTAssertEqual(client.handle(WaylandMessage(object: 1, WlDisplay.Event.error, arguments: [.object(5), .uint(2), .string("bad request")])),
                       .fatal("the compositor reported an error: bad request"))
        // A round trip's callback: done, then forgotten (its id deleted).
        let (_, callback) = client.sync()
        XCTAssertEqual(client.handle(WaylandMessage(object: callback, WlCallback.Event.done, arguments: [.uint(1)])), .done(callback: callback))
        XCTAssertNil(client.objects[callback])
        XCTAssertNil(client.handle(WaylandMessage(object: 1, WlDisplay.Event.deleteID, arguments: [.uint(callback)])))
        // A global removed; the seat's events mean nothing to a clipboard.
        XCTAssertNil(client.handle(WaylandMessage(object: client.registry, WlRegistry.Event.globalRemove, arguments: [.uint(1)])))
        XCTAssertEqual(client.globals.map(\.interface), ["ext_data_control_manager_v1"])
        XCTAssertNil(client.handle(WaylandMessage(object: client.seat, WlSeat.Event.capabilities, arguments: [.uint(3)])))
        XCTAssertNil(client.handle(WaylandMessage(object: client.seat, WlSeat.Event.name, arguments: [.string("seat0")])))
        // The device finished: the seat went away.
        XCTAssertEqual(client.handle(WaylandMessage(object: client.device, DataControlDevice.Event.finished)), .finished)
    }

    func testEachFamilysInterfacesAndPrimarySelection() {
        XCTAssertEqual(DataControlFamily.ext.interface(.device), "ext_data_control_device_v1")
        XCTAssertEqual(DataControlFamily.wlr.interface(.offer), "zwlr_data_control_offer_v1")
        let (ext, _) = boundClient([("wl_seat", 7), ("ext_data_control_manager_v1", 3)])
        XCTAssertEqual(ext.managerVersion, 1, "never above the version pbctl speaks")
        XCTAssertTrue(ext.supportsPrimary)
        let (none, _) = boundClient([("wl_seat", 7)])
        XCTAssertFalse(none.supportsPrimary)
        let (noSeat, messages) = boundClient([("zwlr_data_control_manager_v1", 2)])
        XCTAssertNil(messages, "no seat, no clipboard")
        XCTAssertNotNil(noSeat.availableManager)
    }

    /// A message whose arguments do not match its event's (a caller's mistake, never the decoder's) is
    /// ignored, not trusted.
    func testEventsWithTheWrongArgumentsAreIgnored() {
        var (client, _) = boundClient([("wl_seat", 7), ("zwlr_data_control_manager_v1", 2)])
        XCTAssertNil(client.handle(WaylandMessage(object: client.device, DataControlDevice.Event.selection)))
        XCTAssertNil(client.handle(WaylandMessage(object: client.registry, WlRegistry.Event.global, arguments: [.uint(9)])))
        XCTAssertEqual(client.changes, 0)
        // A selection naming an object that is no offer is a cleared selection.
        XCTAssertEqual(client.handle(WaylandMessage(object: client.device, DataControlDevice.Event.selection, arguments: [.object(client.seat)])),
                       .selection(primary: false, offer: nil))
        // Offers and sources only are destroyed.
        XCTAssertNil(client.destroy(client.device))
        XCTAssertNil(client.destroy(12345))
    }

    /// A source destroyed is remembered until the compositor releases its id: a `send` it made before it
    /// saw the destroy still takes its descriptor off the socket (for the driver to close) instead of
    /// leaving it to the next message that carries one.
    func testADestroyedSourcesEventsAreDecodedUntilItsIdIsReleased() {
        var (client, _) = boundClient([("wl_seat", 7), ("ext_data_control_manager_v1", 1)])
        let (source, _) = client.createSource(offering: ["text/plain"])
        XCTAssertEqual(client.destroy(source), WaylandMessage(object: source, DataControlSource.Request.destroy))
        XCTAssertNil(client.objects[source])
        XCTAssertEqual(client.destroyedSources, [source])
        XCTAssertEqual(client.handle(WaylandMessage(object: source, DataControlSource.Event.send, arguments: [.string("text/plain"), .fd(9)])),
                       .send(source: source, mime: "text/plain", fd: 9))
        XCTAssertNil(client.destroy(source), "destroyed once")
        _ = client.handle(WaylandMessage(object: 1, WlDisplay.Event.deleteID, arguments: [.uint(source)]))
        XCTAssertEqual(client.destroyedSources, [])
        XCTAssertNil(client.eventSignature(object: source, opcode: 0))
        // Bounded: a compositor that never releases ids cannot make the list grow without end.
        for _ in 0..<100 {
            let (another, _) = client.createSource(offering: [])
            _ = client.destroy(another)
        }
        XCTAssertEqual(client.destroyedSources.count, 64)
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import SystemIO
@testable import PasteboardWayland
@testable import Pasteboard

/// The socket and the protocol client joined, against a peer on a socket pair that plays the compositor.
final class WaylandConnectionTests: XCTestCase {
    func now() -> UInt64 { MonotonicClock.nanoseconds() }

    /// A connection whose client is bound to `family`'s data control as a compositor would bind it: the
    /// registry's globals, then the device (objects: registry 2, seat 3, manager 4, device 5).
    func bound(_ family: DataControlFamily, peer: Peer) -> WaylandConnection {
        let connection = WaylandConnection(connected: peer.clientFD, path: "test")
        _ = connection.client.getRegistry()
        for (name, interface, version) in [(UInt32(1), "wl_seat", UInt32(7)), (2, family.managerInterface, family.supportedVersion)] {
            _ = connection.client.handle(
                WaylandMessage(object: 2, WlRegistry.Event.global, arguments: [.uint(name), .string(interface), .uint(version)]))
        }
        _ = connection.client.bindDataControl()
        return connection
    }

    /// A round trip reads past its own `done`; what came after it must still be seen by an owner that
    /// polls the socket (poll cannot see bytes read already). This was a 5 s stall of the first paste
    /// from a fresh `pbctl copy` whenever the compositor sent the `send` in the same read as the `done`.
    func testEventsReadPastARoundTripAreNotLeftBehind() throws {
        let peer = Peer()
        let connection = WaylandConnection(connected: peer.clientFD, path: "test")
        _ = connection.client.getRegistry()                // object 2
        let (_, earlier) = connection.client.sync()         // object 3: a callback the test answers late
        // wl_callback.done for the round trip's callback (object 4), then for object 3, in one write.
        peer.send([WaylandMessage(object: 4, WlCallback.Event.done, arguments: [.uint(1)])]
                  .flatMap { WaylandWire.encode($0).bytes } + WaylandWire.encode(WaylandMessage(object: earlier, WlCallback.Event.done, arguments: [.uint(2)])).bytes)
        try connection.roundTrip(deadline: now() + 2_000_000_000)
        XCTAssertEqual(connection.roundTrips, 1)
        XCTAssertEqual(try WaylandPipes.poll([.readable(connection.fd)], milliseconds: 0), [false], "the socket is drained: only the buffer holds the event")
        XCTAssertTrue(try connection.hasBufferedEvents())
        XCTAssertEqual(try connection.nextEvent(deadline: now()), .done(callback: earlier))
        XCTAssertFalse(try connection.hasBufferedEvents())
        // A message cut in two is not an event until its end arrives.
        let (_, later) = connection.client.sync()
        let half = WaylandWire.encode(WaylandMessage(object: later, WlCallback.Event.done, arguments: [.uint(3)])).bytes
        peer.send(Array(half[0..<6]))
        XCTAssertNil(try connection.nextEvent(deadline: now() + 50_000_000))
        peer.send(Array(half[6...]))
        XCTAssertEqual(try connection.nextEvent(deadline: now() + 2_000_000_000), .done(callback: later))
    }

    /// The round trip sends `wl_display.sync` and waits for its `done`; the events before it are kept, in
    /// order, for the caller; a compositor that does not answer in time is an error, the events kept.
    func testARoundTripKeepsTheEventsBeforeItsEndAndHasADeadline() throws {
        let peer = Peer()
        let connection = bound(.wlr, peer: peer)
        // Before the sync's answer: an offer made the selection.
        peer.send([
            WaylandMessage(object: 5, DataControlDevice.Event.dataOffer, arguments: [.newID(0xFF00_0001)]),
            WaylandMessage(object: 0xFF00_0001, DataControlOffer.Event.offer, arguments: [.string("text/plain")]),
            WaylandMessage(object: 5, DataControlDevice.Event.selection, arguments: [.object(0xFF00_0001)]),
            WaylandMessage(object: 6, WlCallback.Event.done, arguments: [.uint(0)]),  // the sync will be object 6
        ])
        try connection.roundTrip(deadline: now() + 2_000_000_000)
        let sent = try peer.receiveMessages { object, opcode in object == 1 ? WlDisplay.Request(rawValue: opcode)?.signature : nil }
        XCTAssertEqual(sent, [WaylandMessage(object: 1, WlDisplay.Request.sync, arguments: [.newID(6)])])
        XCTAssertEqual(connection.client.offers[0xFF00_0001], ["text/plain"])
        XCTAssertEqual(try connection.nextEvent(deadline: now()), .selection(primary: false, offer: 0xFF00_0001))
        XCTAssertNil(try connection.nextEvent(deadline: now()))

        // No answer: the deadline ends the wait, and the event that came is kept.
        peer.send([WaylandMessage(object: 5, DataControlDevice.Event.primarySelection, arguments: [.object(0)])])
        let start = now()
        XCTAssertThrowsError(try connection.roundTrip(deadline: start + 100_000_000)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .timedOut)
        }
        XCTAssertLessThan(now() - start, 2_000_000_000)
        XCTAssertEqual(connection.roundTrips, 2)
        XCTAssertEqual(try connection.nextEvent(deadline: now()), .selection(primary: true, offer: nil))
    }

    func testAnErrorOrALostCompositorEndsTheConnection() throws {
        let peer = Peer()
        let connection = bound(.ext, peer: peer)
        peer.send([WaylandMessage(object: 1, WlDisplay.Event.error, arguments: [.object(5), .uint(1), .string("invalid source")])])
        XCTAssertThrowsError(try connection.roundTrip(deadline: now() + 2_000_000_000)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .unavailable)
            XCTAssertTrue("\(error)".contains("invalid source"), "\(error)")
        }
        shutdown(peer.fd, Int32(SHUT_RDWR))
        XCTAssertThrowsError(try connection.nextEvent(deadline: now() + 2_000_000_000)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .unavailable)
        }
    }

    /// An offer replaced as the selection is destroyed: the request goes out before the next wait, so a
    /// long watch never fills the compositor's (or the client's) bound on live offers.
    func testReplacedOffersAreDestroyedBeforeTheNextWait() throws {
        let peer = Peer()
        let connection = bound(.wlr, peer: peer)
        for offer in [UInt32(0xFF00_0001), 0xFF00_0002] {
            peer.send([
                WaylandMessage(object: 5, DataControlDevice.Event.dataOffer, arguments: [.newID(offer)]),
                WaylandMessage(object: 5, DataControlDevice.Event.selection, arguments: [.object(offer)]),
            ])
            XCTAssertEqual(try connection.nextEvent(deadline: now() + 2_000_000_000), .selection(primary: false, offer: offer))
        }
        XCTAssertNil(try connection.nextEvent(deadline: now() + 20_000_000))
        let sent = try peer.receiveMessages { object, opcode in object == 0xFF00_0001 ? DataControlOffer.Request(rawValue: opcode)?.signature : nil }
        XCTAssertEqual(sent, [WaylandMessage(object: 0xFF00_0001, DataControlOffer.Request.destroy)])
    }

    /// A paste's transfer, on both families, as recorded: `receive` with the pipe's write end beside its
    /// bytes; the owner writes into it and closes it. Written at once and smaller than the pipe, it is
    /// whole without a round trip (TransferCompleteness).
    func testAReceiveSendsThePipeAndReadsWhatTheOwnerWrites() throws {
        for family in [DataControlFamily.ext, .wlr] {
            let peer = Peer()
            let connection = bound(family, peer: peer)
            peer.send([
                WaylandMessage(object: 5, DataControlDevice.Event.dataOffer, arguments: [.newID(0xFF00_0001)]),
                WaylandMessage(object: 0xFF00_0001, DataControlOffer.Event.offer, arguments: [.string("text/plain")]),
                WaylandMessage(object: 5, DataControlDevice.Event.selection, arguments: [.object(0xFF00_0001)]),
            ])
            XCTAssertEqual(try connection.nextEvent(deadline: now() + 2_000_000_000), .selection(primary: false, offer: 0xFF00_0001))
            let owner = Thread {
                let (bytes, fds) = peer.receive()
                XCTAssertEqual(bytes, Bytes.header(0xFF00_0001, size: 24, opcode: 0) + Bytes.string("text/plain"), "\(family)")
                XCTAssertEqual(fds.count, 1)
                for fd in fds {
                    _ = "pasted \(family)".withCString { write(fd, $0, strlen($0)) }
                    close(fd)
                }
                // On a machine so busy that the write took longer than a quick one, the reader confirms
                // by asking again: the owner, alive, writes again.
                var poller = pollfd(fd: peer.fd, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 500) > 0 {
                    let (again, probeFDs) = peer.receive()
                    XCTAssertEqual(again, Bytes.header(0xFF00_0001, size: 24, opcode: 0) + Bytes.string("text/plain"), "the same request")
                    for fd in probeFDs {
                        _ = write(fd, "p", 1)
                        close(fd)
                    }
                }
            }
            owner.start()
            let sink = DataSink()
            try connection.receive(offer: 0xFF00_0001, mime: "text/plain", primary: false, into: sink, stepTimeout: 5)
            XCTAssertEqual(String(decoding: sink.data, as: UTF8.self), "pasted \(family)")
            XCTAssertEqual(connection.roundTrips, 0, "none for a transfer")
            XCTAssertLessThanOrEqual(connection.probes, 1, "none for a quick small transfer")
        }
    }

    /// Answers the next request, a `wl_display.sync`, with its callback's `done`; `before` goes first.
    static func answerSync(_ peer: Peer, before: [WaylandMessage] = []) {
        let (bytes, _) = peer.receive()
        guard bytes.count >= 12 else { return XCTFail("no sync request: \(bytes)") }
        let callback = UInt32(bytes[8]) | UInt32(bytes[9]) << 8 | UInt32(bytes[10]) << 16 | UInt32(bytes[11]) << 24
        peer.send(before + [WaylandMessage(object: callback, WlCallback.Event.done, arguments: [.uint(0)])])
    }

    /// An owner that dies mid-write closes its pipe as one that finished does; the compositor then
    /// clears the selection, before it answers the round trip after the end of data: cut short (here an
    /// owner that sent nothing at all, which is always confirmed).
    func testAnOwnerGoneAtTheEndOfDataIsACutShortTransfer() throws {
        let peer = Peer()
        let connection = bound(.ext, peer: peer)
        peer.send([
            WaylandMessage(object: 5, DataControlDevice.Event.dataOffer, arguments: [.newID(0xFF00_0001)]),
            WaylandMessage(object: 0xFF00_0001, DataControlOffer.Event.offer, arguments: [.string("text/plain")]),
            WaylandMessage(object: 5, DataControlDevice.Event.selection, arguments: [.object(0xFF00_0001)]),
        ])
        XCTAssertEqual(try connection.nextEvent(deadline: now() + 2_000_000_000), .selection(primary: false, offer: 0xFF00_0001))
        let owner = Thread {
            let (_, fds) = peer.receive()
            for fd in fds { close(fd) }
            Self.answerSync(peer, before: [WaylandMessage(object: 5, DataControlDevice.Event.selection, arguments: [.object(0)])])
        }
        owner.start()
        let sink = DataSink()
        XCTAssertThrowsError(try connection.receive(offer: 0xFF00_0001, mime: "text/plain", primary: false, into: sink, stepTimeout: 5)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .unavailable, "\($0)")
            XCTAssertTrue("\($0)".contains("cut short"), "\($0)")
        }
        // The events met are the caller's still: the clearing is there for the daemon to see.
        XCTAssertEqual(try connection.nextEvent(deadline: now()), .selection(primary: false, offer: nil))
    }

    /// A `send` to the connection's source arrives with its descriptor, which the event hands over.
    func testASendsDescriptorIsHandedOverWithItsEvent() throws {
        let peer = Peer()
        let connection = bound(.ext, peer: peer)
        let (source, _) = connection.client.createSource(offering: ["text/plain"])
        let pipe = TestPipe()
        let (bytes, _) = WaylandWire.encode(WaylandMessage(object: source, DataControlSource.Event.send, arguments: [.string("text/plain"), .fd(-1)]))
        peer.send(bytes, fds: [pipe.writeEnd])
        pipe.closeWrite()
        guard case .send(let from, let mime, let fd)? = try connection.nextEvent(deadline: now() + 2_000_000_000) else {
            return XCTFail("no send")
        }
        XCTAssertEqual(from, source)
        XCTAssertEqual(mime, "text/plain")
        XCTAssertEqual(write(fd, "ok", 2), 2)
        close(fd)
        XCTAssertEqual(pipe.readAll(), Array("ok".utf8))
    }

    func testAnEventForADestroyedObjectIsSkipped() throws {
        let peer = Peer()
        let connection = bound(.wlr, peer: peer)
        peer.send([
            WaylandMessage(object: 0xFF00_0009, DataControlOffer.Event.offer, arguments: [.string("x")]),  // never announced
            WaylandMessage(object: 5, DataControlDevice.Event.finished),
        ])
        XCTAssertEqual(try connection.nextEvent(deadline: now() + 2_000_000_000), .finished)
    }

    /// Descriptors stay with their messages when a `send` is for a source already destroyed: each event
    /// carries its own, and none is left open.
    func testDescriptorsStayWithTheirMessagesPastADestroyedSource() throws {
        let peer = Peer()
        let connection = bound(.wlr, peer: peer)
        let (old, _) = connection.client.createSource(offering: ["text/plain"])
        let (live, _) = connection.client.createSource(offering: ["text/plain"])
        connection.send(try XCTUnwrap(connection.client.destroy(old)))
        try connection.flush(deadline: now() + 2_000_000_000)
        let first = TestPipe(), second = TestPipe()
        let send = { (source: UInt32) in
            WaylandWire.encode(WaylandMessage(object: source, DataControlSource.Event.send, arguments: [.string("text/plain"), .fd(-1)])).bytes
        }
        peer.send(send(old) + send(live), fds: [first.writeEnd, second.writeEnd])
        first.closeWrite()
        second.closeWrite()
        guard case .send(old, _, let stale)? = try connection.nextEvent(deadline: now() + 2_000_000_000),
              case .send(live, _, let fresh)? = try connection.nextEvent(deadline: now() + 2_000_000_000)
        else { return XCTFail("the sends did not come in order") }
        XCTAssertEqual(write(fresh, "live", 4), 4)
        close(fresh)
        close(stale)
        XCTAssertEqual(second.readAll(), Array("live".utf8), "the live source's descriptor is the live source's pipe")
        XCTAssertEqual(first.readAll(), [], "the stale one closed: end of file")
    }

    /// Events nobody took are dropped with the connection, their descriptors closed.
    func testAConnectionClosesTheDescriptorsOfEventsNobodyTook() throws {
        let pipe = TestPipe()
        do {
            let peer = Peer()
            let connection = bound(.ext, peer: peer)
            let (source, _) = connection.client.createSource(offering: ["text/plain"])
            peer.send(WaylandWire.encode(WaylandMessage(object: source, DataControlSource.Event.send, arguments: [.string("a"), .fd(-1)])).bytes,
                      fds: [pipe.writeEnd])
            XCTAssertTrue(try connection.hasBufferedEvents() || (try connection.socket.read(deadline: now() + 2_000_000_000) && connection.hasBufferedEvents()))
        }
        pipe.closeWrite()
        XCTAssertEqual(pipe.readAll(), [], "no copy of the descriptor left open")
    }

    /// An owner that dies mid-write closes its pipe as one that finished does, and the compositor may
    /// report the death late: the reader asks the offer again, and a dead owner's descriptor is closed
    /// unwritten (here before the compositor says anything about the selection): cut short. An owner
    /// alive writes a byte: whole.
    func testAnEndOfDataIsConfirmedByAskingTheOwnerAgain() throws {
        for alive in [false, true] {
            let peer = Peer()
            let connection = bound(.ext, peer: peer)
            peer.send([
                WaylandMessage(object: 5, DataControlDevice.Event.dataOffer, arguments: [.newID(0xFF00_0001)]),
                WaylandMessage(object: 0xFF00_0001, DataControlOffer.Event.offer, arguments: [.string("text/plain")]),
                WaylandMessage(object: 5, DataControlDevice.Event.selection, arguments: [.object(0xFF00_0001)]),
            ])
            XCTAssertEqual(try connection.nextEvent(deadline: now() + 2_000_000_000), .selection(primary: false, offer: 0xFF00_0001))
            let content = Data(repeating: UInt8(ascii: "x"), count: 2 << 20)  // more than one write: never taken whole at once
            let owner = Thread {
                let (_, fds) = peer.receive()
                for fd in fds {
                    content.withUnsafeBytes { raw in
                        var offset = 0
                        while offset < raw.count {
                            let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                            if n <= 0 { break }
                            offset += n
                        }
                    }
                    close(fd)
                }
                let (again, probeFDs) = peer.receive()
                XCTAssertEqual(again, Bytes.header(0xFF00_0001, size: 24, opcode: 0) + Bytes.string("text/plain"), "the same request again")
                XCTAssertEqual(probeFDs.count, 1)
                for fd in probeFDs {
                    if alive { _ = write(fd, "x", 1) }
                    close(fd)
                }
            }
            owner.start()
            let sink = DataSink()
            if alive {
                try connection.receive(offer: 0xFF00_0001, mime: "text/plain", primary: false, into: sink, stepTimeout: 5)
                XCTAssertEqual(sink.data.count, content.count)
            } else {
                XCTAssertThrowsError(try connection.receive(offer: 0xFF00_0001, mime: "text/plain", primary: false, into: sink, stepTimeout: 5)) {
                    XCTAssertEqual(($0 as? PasteboardError)?.code, .unavailable, "\($0)")
                    XCTAssertTrue("\($0)".contains("cut short"), "\($0)")
                }
            }
            XCTAssertEqual(connection.probes, 1)
            XCTAssertEqual(connection.roundTrips, 0, "no wait on the compositor")
        }
    }
}

import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import PasteboardWayland

/// The connection's framing against a peer on a socket pair that plays the compositor.
final class WaylandConnectionTests: XCTestCase {
    /// A round trip reads past its own `done`; what came after it must still be seen by an owner that
    /// polls the socket (poll cannot see bytes read already). This was a 5 s stall of the first paste
    /// from a fresh `pbctl copy` whenever the compositor sent the `send` in the same read as the `done`.
    func testEventsReadPastARoundTripAreNotLeftBehind() throws {
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        let connection = WaylandConnection(connected: pair[0], path: "test")
        defer { close(pair[1]) }
        _ = connection.client.getRegistry()                // object 2
        let (_, earlier) = connection.client.sync()         // object 3: a callback the test answers late
        // wl_callback.done for the round trip's callback (object 4), then for object 3, in one write.
        var bytes: [UInt8] = []
        bytes += WaylandWire.encode(WaylandMessage(object: 4, opcode: 0, arguments: [.uint(1)])).bytes
        bytes += WaylandWire.encode(WaylandMessage(object: earlier, opcode: 0, arguments: [.uint(2)])).bytes
        XCTAssertEqual(write(pair[1], bytes, bytes.count), bytes.count)
        try connection.roundTrip(deadline: waylandNow() + 2_000_000_000)
        var poller = pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&poller, 1, 0), 0, "the socket is drained: only the buffer holds the event")
        XCTAssertTrue(try connection.hasBufferedEvents())
        XCTAssertEqual(try connection.nextEvent(deadline: waylandNow()), .done(callback: earlier))
        XCTAssertFalse(try connection.hasBufferedEvents())
        // A message cut in two is not an event until its end arrives.
        let (_, later) = connection.client.sync()
        let half = WaylandWire.encode(WaylandMessage(object: later, opcode: 0, arguments: [.uint(3)])).bytes
        XCTAssertEqual(write(pair[1], half, 6), 6)
        XCTAssertNil(try connection.nextEvent(deadline: waylandNow() + 50_000_000))
        XCTAssertEqual(write(pair[1], Array(half[6...]), half.count - 6), half.count - 6)
        XCTAssertEqual(try connection.nextEvent(deadline: waylandNow() + 2_000_000_000), .done(callback: later))
    }
}

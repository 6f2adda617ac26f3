import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import SystemIO
@testable import PasteboardWayland
@testable import Pasteboard

/// The socket alone, over a socket pair, without the protocol: framing, descriptors both ways, deadlines,
/// and a peer that misbehaves. The signatures are the test's own.
final class WaylandSocketTests: XCTestCase {
    /// Object 7's message 0 carries a string and a descriptor, message 1 a uint; nothing else is known.
    let signature: WaylandSocket.Signature = { object, opcode in
        guard object == 7 else { return nil }
        switch opcode {
        case 0: return [.string, .fd]
        case 1: return [.uint]
        default: return nil
        }
    }

    func now() -> UInt64 { MonotonicClock.nanoseconds() }

    func testMessagesAreFramedWhateverTheReadsCutThemInto() throws {
        let peer = Peer()
        let socket = WaylandSocket(connected: peer.clientFD, path: "test")
        let first = Bytes.header(7, size: 12, opcode: 1) + Bytes.words(42)
        let second = Bytes.header(7, size: 12, opcode: 1) + Bytes.words(43)
        // Two whole messages in one write.
        peer.send(first + second)
        XCTAssertNil(try socket.nextMessage(signature: signature), "nothing read yet")
        XCTAssertTrue(try socket.read(deadline: now() + 2_000_000_000))
        XCTAssertEqual(try socket.nextMessage(signature: signature), WaylandMessage(object: 7, opcode: 1, arguments: [.uint(42)]))
        XCTAssertEqual(try socket.nextMessage(signature: signature), WaylandMessage(object: 7, opcode: 1, arguments: [.uint(43)]))
        XCTAssertNil(try socket.nextMessage(signature: signature))
        XCTAssertFalse(socket.hasBufferedBytes)
        // One message in three writes: a header cut in two, then the body.
        peer.send(Array(first[0..<3]))
        XCTAssertTrue(try socket.read(deadline: now() + 2_000_000_000))
        XCTAssertNil(try socket.nextMessage(signature: signature), "a header cut short is no message")
        XCTAssertTrue(socket.hasBufferedBytes)
        peer.send(Array(first[3..<9]))
        XCTAssertTrue(try socket.read(deadline: now() + 2_000_000_000))
        XCTAssertNil(try socket.nextMessage(signature: signature), "a body cut short is no message")
        peer.send(Array(first[9...]))
        XCTAssertTrue(try socket.read(deadline: now() + 2_000_000_000))
        XCTAssertEqual(try socket.nextMessage(signature: signature)?.arguments, [.uint(42)])
    }

    func testMessagesTheCallerDoesNotKnowAreSkipped() throws {
        let peer = Peer()
        let socket = WaylandSocket(connected: peer.clientFD, path: "test")
        let unknownObject = Bytes.header(9, size: 12, opcode: 0) + Bytes.words(1)
        let unknownOpcode = Bytes.header(7, size: 8, opcode: 5)
        let known = Bytes.header(7, size: 12, opcode: 1) + Bytes.words(5)
        peer.send(unknownObject + unknownOpcode + known)
        XCTAssertTrue(try socket.read(deadline: now() + 2_000_000_000))
        XCTAssertEqual(try socket.nextMessage(signature: signature), WaylandMessage(object: 7, opcode: 1, arguments: [.uint(5)]))
        XCTAssertNil(try socket.nextMessage(signature: signature))
    }

    /// A descriptor arrives beside the bytes of its message (SCM_RIGHTS), under a number of its own, and
    /// is handed out with the message whose signature asks for it, in order.
    func testDescriptorsComeWithTheirMessagesInOrder() throws {
        let peer = Peer()
        let socket = WaylandSocket(connected: peer.clientFD, path: "test")
        let a = TestPipe(), b = TestPipe()
        let message = Bytes.header(7, size: 20, opcode: 0) + Bytes.string("text")
        XCTAssertEqual(message.count, 20)
        peer.send(message + message, fds: [a.writeEnd, b.writeEnd])
        XCTAssertTrue(try socket.read(deadline: now() + 2_000_000_000))
        XCTAssertEqual(socket.waitingDescriptors, 2)
        guard case .fd(let first)? = try socket.nextMessage(signature: signature)?.arguments.last,
              case .fd(let second)? = try socket.nextMessage(signature: signature)?.arguments.last
        else { return XCTFail("no descriptors") }
        XCTAssertEqual(socket.waitingDescriptors, 0)
        XCTAssertNotEqual(first, a.writeEnd)
        XCTAssertEqual(fcntl(first, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC, "received close-on-exec")
        // Each is a copy of the one sent, in order.
        XCTAssertEqual(write(first, "1", 1), 1)
        XCTAssertEqual(write(second, "2", 1), 1)
        close(first)
        close(second)
        a.closeWrite()
        b.closeWrite()
        XCTAssertEqual(a.readAll(), Array("1".utf8))
        XCTAssertEqual(b.readAll(), Array("2".utf8))
    }

    /// What the client sends: the encoded bytes, its descriptors beside them as copies (the caller keeps
    /// and closes its own).
    func testSendingCarriesDescriptorsAndKeepsTheCallers() throws {
        let peer = Peer()
        let socket = WaylandSocket(connected: peer.clientFD, path: "test")
        let pipe = TestPipe()
        let receive = WaylandMessage(object: 0xFF00_0003, DataControlOffer.Request.receive, arguments: [.string("text/plain"), .fd(pipe.writeEnd)])
        socket.send(receive)
        socket.send(WaylandMessage(object: 1, WlDisplay.Request.sync, arguments: [.newID(9)]))
        XCTAssertTrue(socket.hasQueuedOutput)
        try socket.flush(deadline: now() + 2_000_000_000)
        XCTAssertFalse(socket.hasQueuedOutput)
        XCTAssertTrue(isOpen(pipe.writeEnd), "the caller's descriptor stays the caller's")
        let (bytes, fds) = peer.receive()
        XCTAssertEqual(
            bytes,
            Bytes.header(0xFF00_0003, size: 24, opcode: 0) + Bytes.string("text/plain") + Bytes.header(1, size: 12, opcode: 0) + Bytes.words(9))
        XCTAssertEqual(fds.count, 1)
        XCTAssertEqual(write(fds[0], "x", 1), 1)
        close(fds[0])
        pipe.closeWrite()
        XCTAssertEqual(pipe.readAll(), Array("x".utf8))
    }

    func testWaitsEndAtTheirDeadline() throws {
        let peer = Peer()
        let socket = WaylandSocket(connected: peer.clientFD, path: "test")
        let start = now()
        XCTAssertFalse(try socket.read(deadline: start + 50_000_000))
        let waited = now() - start
        XCTAssertGreaterThanOrEqual(waited, 45_000_000)
        XCTAssertLessThan(waited, 1_000_000_000)
        XCTAssertFalse(try socket.readAvailable(), "nothing arrived: no wait, no read")
        XCTAssertFalse(try socket.read(deadline: 0), "a deadline passed: a look, no wait")
        peer.send(Bytes.header(7, size: 12, opcode: 1) + Bytes.words(1))
        XCTAssertTrue(try socket.readAvailable())
        XCTAssertNotNil(try socket.nextMessage(signature: signature))
    }

    /// A peer that stops reading: the client's writes fill the socket, and flush gives up at its deadline.
    /// Meanwhile what the peer sends is read, so a peer blocked writing to us is not blocked for ever.
    func testAFlushToAPeerThatDoesNotReadEndsAtItsDeadline() throws {
        let peer = Peer()
        var small: Int32 = 4096
        setsockopt(peer.clientFD, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(peer.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let socket = WaylandSocket(connected: peer.clientFD, path: "test")
        peer.send(Bytes.header(7, size: 12, opcode: 1) + Bytes.words(77))
        for k in 0..<20_000 { socket.send(WaylandMessage(object: 3, opcode: 0, arguments: [.string("type/\(k)")])) }
        let start = now()
        XCTAssertThrowsError(try socket.flush(deadline: start + 200_000_000)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .timedOut)
        }
        XCTAssertLessThan(now() - start, 2_000_000_000)
        XCTAssertTrue(socket.hasQueuedOutput)
        XCTAssertEqual(try socket.nextMessage(signature: signature)?.arguments, [.uint(77)], "read while waiting to write")
    }

    func testAPeerThatGoesAwayOrBreaksTheFramingIsAnError() throws {
        do {
            let peer = Peer()
            let socket = WaylandSocket(connected: peer.clientFD, path: "test")
            shutdown(peer.fd, Int32(SHUT_RDWR))
            XCTAssertThrowsError(try socket.read(deadline: now() + 2_000_000_000)) { error in
                XCTAssertEqual((error as? PasteboardError)?.code, .unavailable)
                XCTAssertTrue("\(error)".contains("closed the connection"), "\(error)")
            }
        }
        do {
            let peer = Peer()
            let socket = WaylandSocket(connected: peer.clientFD, path: "test")
            peer.send(Bytes.header(7, size: 4, opcode: 1))  // a size below the header's
            XCTAssertTrue(try socket.read(deadline: now() + 2_000_000_000))
            XCTAssertThrowsError(try socket.nextMessage(signature: signature)) { error in
                XCTAssertEqual((error as? PasteboardError)?.code, .unavailable)
                XCTAssertTrue("\(error)".contains("malformed"), "\(error)")
            }
        }
        do {
            let peer = Peer()
            let socket = WaylandSocket(connected: peer.clientFD, path: "test")
            peer.send(Bytes.header(7, size: 20, opcode: 0) + Bytes.string("text"))  // a descriptor announced, none sent
            XCTAssertTrue(try socket.read(deadline: now() + 2_000_000_000))
            XCTAssertThrowsError(try socket.nextMessage(signature: signature))
        }
    }

    /// A peer that sends descriptors without messages cannot make the client hold them without end: past
    /// 256 they are all closed and the connection fails. Those it holds are closed with the socket.
    func testDescriptorsWithoutMessagesAreBoundedAndClosed() throws {
        let pipe = TestPipe()
        do {
            let peer = Peer()
            let socket = WaylandSocket(connected: peer.clientFD, path: "test")
            peer.send(Bytes.header(9, size: 8, opcode: 0), fds: Array(repeating: pipe.writeEnd, count: 20))
            XCTAssertTrue(try socket.read(deadline: now() + 2_000_000_000))
            XCTAssertEqual(socket.waitingDescriptors, 20)
        }
        // Every copy closed with the socket: the pipe's only writer left is the test's.
        pipe.closeWrite()
        XCTAssertEqual(pipe.readAll(), [], "end of file: no copy left open")

        let other = TestPipe()
        let peer = Peer()
        let socket = WaylandSocket(connected: peer.clientFD, path: "test")
        var error: (any Error)?
        for _ in 0..<20 {
            peer.send(Bytes.header(9, size: 8, opcode: 0), fds: Array(repeating: other.writeEnd, count: 28))
            do {
                _ = try socket.read(deadline: now() + 2_000_000_000)
            } catch let caught {
                error = caught
                break
            }
        }
        XCTAssertTrue("\(error.map { "\($0)" } ?? "")".contains("too many file descriptors"))
        XCTAssertEqual(socket.waitingDescriptors, 0)
        other.closeWrite()
        XCTAssertEqual(other.readAll(), [], "every descriptor closed")
    }

    func testSocketPathAndAMissingCompositor() {
        XCTAssertEqual(WaylandSocket.socketPath(display: "wayland-1", runtimeDirectory: "/run/user/1000"), "/run/user/1000/wayland-1")
        XCTAssertEqual(WaylandSocket.socketPath(display: "/tmp/w/wayland-2", runtimeDirectory: nil), "/tmp/w/wayland-2")
        XCTAssertEqual(WaylandSocket.socketPath(display: nil, runtimeDirectory: "/run/user/1"), "/run/user/1/wayland-0")
        XCTAssertNil(WaylandSocket.socketPath(display: "wayland-0", runtimeDirectory: nil))
        XCTAssertThrowsError(try WaylandSocket(path: "/nonexistent/wayland-9")) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .unavailable)
        }
        XCTAssertThrowsError(try WaylandSocket(path: "/" + String(repeating: "x", count: 200))) { error in
            XCTAssertTrue("\(error)".contains("too long"))
        }
    }
}

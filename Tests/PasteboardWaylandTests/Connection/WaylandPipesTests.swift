import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import SystemIO
@testable import PasteboardWayland
@testable import Pasteboard

/// A sink that takes pipes as a splice would (it reads them itself), to drive the kernel-copy path.
final class PipeTakingSink: RepresentationSink {
    var data = Data()
    var transfers = 0
    func write(_ chunk: Data) throws { data.append(chunk) }
    func transfer(fromPipe descriptor: Int32, limit: Int) throws -> Int? {
        transfers += 1
        var buffer = [UInt8](repeating: 0, count: min(limit, 65536))
        let n = read(descriptor, &buffer, buffer.count)
        if n > 0 { data.append(contentsOf: buffer[0..<n]) }
        return max(0, n)
    }
}

/// The pipes of a transfer, both sides, without a compositor: the owner's side is played by the test.
final class WaylandPipesTests: XCTestCase {
    override func setUp() {
        signal(SIGPIPE, SIG_IGN)  // a write to a pipe whose reader left is an error here, not a death
    }

    /// The receive: a pipe whose write end goes to the owner (here, the `ask` closure), closed once handed
    /// over, then read to its end, through the sink's splice when it takes one.
    func testAReceiveReadsWhatTheOwnerWritesUntilItCloses() throws {
        var writeEnd: Int32 = -1
        let sink = DataSink()
        try WaylandPipes.receive(mime: "text/plain", into: sink, stepTimeout: 2) { fd in
            writeEnd = fd
            XCTAssertEqual(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC)
            XCTAssertEqual(write(fd, "hello", 5), 5)
        }
        // The end of file came: the write end handed over was closed once asked with.
        XCTAssertEqual(sink.data, Data("hello".utf8))
        XCTAssertGreaterThanOrEqual(writeEnd, 0)

        let splicing = PipeTakingSink()
        try WaylandPipes.receive(mime: "text/plain", into: splicing, stepTimeout: 2) { fd in
            XCTAssertEqual(write(fd, "spliced", 7), 7)
        }
        XCTAssertEqual(splicing.data, Data("spliced".utf8))
        XCTAssertGreaterThan(splicing.transfers, 0)
    }

    /// The pipe is enlarged to 1 MiB where the system allows it, so the owner writes in large chunks.
    func testThePipeIsLarge() throws {
        try WaylandPipes.receive(mime: "x", into: DataSink(), stepTimeout: 2) { fd in
            // F_GETPIPE_SZ (1032), through the write end: the same pipe.
            XCTAssertGreaterThanOrEqual(fcntl(fd, 1032), 65536)
        }
    }

    func testAnOwnerThatStallsTimesOutAndOneThatSendsTooMuchIsRefused() throws {
        var kept: Int32 = -1
        let start = MonotonicClock.nanoseconds()
        XCTAssertThrowsError(try WaylandPipes.receive(mime: "text/html", into: DataSink(), stepTimeout: 0.1) { fd in
            kept = dup(fd)  // the owner holds the pipe open and writes nothing
        }) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .timedOut)
            XCTAssertTrue("\(error)".contains("text/html"))
        }
        XCTAssertLessThan(MonotonicClock.nanoseconds() - start, 2_000_000_000)
        close(kept)

        for sink in [DataSink(), PipeTakingSink()] as [any RepresentationSink] {
            XCTAssertThrowsError(try WaylandPipes.receive(mime: "big", into: sink, limit: 4, stepTimeout: 2) { fd in
                XCTAssertEqual(write(fd, "12345678", 8), 8)
            }) { error in
                XCTAssertEqual((error as? PasteboardError)?.code, .refused)
            }
        }
        // Exactly the limit is not too much.
        let sink = DataSink()
        try WaylandPipes.receive(mime: "exact", into: sink, limit: 4, stepTimeout: 2) { fd in _ = write(fd, "1234", 4) }
        XCTAssertEqual(sink.data.count, 4)
    }

    func testAFailureToAskClosesBothEnds() throws {
        var ends: Int32 = -1
        struct Refused: Error {}
        XCTAssertThrowsError(try WaylandPipes.receive(mime: "x", into: DataSink(), stepTimeout: 2) { fd in
            ends = fd
            throw Refused()
        })
        XCTAssertFalse(isOpen(ends))
    }

    /// The owner's side: non-blocking writes take what the pipe holds and say when the reader left.
    func testWritesTakeWhatThePipeHoldsAndSeeTheReaderGo() {
        let pipe = TestPipe()
        WaylandPipes.makeNonBlocking(pipe.writeEnd)
        XCTAssertNotEqual(fcntl(pipe.writeEnd, F_GETFL) & O_NONBLOCK, 0)
        let data = Data(repeating: 7, count: 1 << 20)
        let first = WaylandPipes.write(pipe.writeEnd, data, from: 0)
        XCTAssertFalse(first.failed)
        XCTAssertGreaterThan(first.count, 0)
        XCTAssertLessThan(first.count, data.count, "a full pipe takes no more: the write does not block")
        XCTAssertEqual(WaylandPipes.unreadBytes(pipe.writeEnd), first.count)
        XCTAssertEqual(WaylandPipes.write(pipe.writeEnd, data, from: first.count), .init(count: 0, failed: false))
        XCTAssertFalse(WaylandPipes.readerGone(pipe.writeEnd, waitingAtMost: 0))
        pipe.closeRead()
        XCTAssertTrue(WaylandPipes.readerGone(pipe.writeEnd, waitingAtMost: 0))
        XCTAssertTrue(WaylandPipes.write(pipe.writeEnd, data, from: first.count).failed)
        // The end of the data: nothing to write.
        XCTAssertEqual(WaylandPipes.write(pipe.writeEnd, data, from: data.count), .init(count: 0, failed: false))
    }

    func testUnreadBytesOfAPipeAndOfSomethingElse() throws {
        let pipe = TestPipe()
        XCTAssertEqual(WaylandPipes.unreadBytes(pipe.writeEnd), 0)
        pipe.write("abc")
        XCTAssertEqual(WaylandPipes.unreadBytes(pipe.writeEnd), 3)
        XCTAssertEqual(WaylandPipes.unreadBytes(pipe.readEnd), 3)
        XCTAssertNil(WaylandPipes.unreadBytes(-1))
    }

    func testPollSaysWhichAreReady() throws {
        let a = TestPipe(), b = TestPipe()
        var ready = try WaylandPipes.poll([.readable(a.readEnd), .writable(b.writeEnd)], milliseconds: 0)
        XCTAssertEqual(ready, [false, true])
        a.write("x")
        ready = try WaylandPipes.poll([.readable(a.readEnd), .writable(b.writeEnd)], milliseconds: 0)
        XCTAssertEqual(ready, [true, true])
        // A reader that hung up counts as ready: it reads the end.
        let c = TestPipe()
        c.closeWrite()
        XCTAssertEqual(try WaylandPipes.poll([.readable(c.readEnd)], milliseconds: 0), [true])
        // Nothing ready: the wait lasts its time.
        let d = TestPipe()
        let start = MonotonicClock.nanoseconds()
        XCTAssertEqual(try WaylandPipes.poll([.readable(d.readEnd)], milliseconds: 30), [false])
        XCTAssertGreaterThanOrEqual(MonotonicClock.nanoseconds() - start, 25_000_000)
    }
}

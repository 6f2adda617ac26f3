import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import PasteboardWayland

/// Clients that misbehave on purpose, spoken with pbctl's own protocol code against a real sway: a
/// source offering 5,000 types, readers asking for a type never offered, closing their pipe at once,
/// or never reading. pbctl must stay bounded, answer or fail clearly, and keep serving everyone else.
final class WaylandHostilePeerTests: WaylandTestCase {
    let wlPaste = "/usr/bin/wl-paste"

    func connect() throws -> WaylandConnection {
        try WaylandBackend.connect(display: Self.swaySocket, runtimeDirectory: nil)
    }

    /// Runs `arguments` while this test answers every `send` on `source` with `text` (the source's
    /// owner must be served from this thread); the child's result.
    func run(_ arguments: [String], serving source: UInt32, on connection: WaylandConnection, text: String,
             timeout: TimeInterval = 15) throws -> (status: Int32?, stdout: String, stderr: String) {
        let peer = try startPeer(arguments, waitFor: nil)
        let end = Date().addingTimeInterval(timeout)
        var output = Data()
        while Date() < end {
            if let chunk = readSome(peer.stdoutFD, timeoutMS: 0), !chunk.isEmpty { output += chunk }
            if peer.child.wait(timeout: 0) { break }
            guard let event = try connection.nextEvent(deadline: waylandNowForTests() + 20_000_000) else { continue }
            if case .send(let from, let mime, let fd) = event {
                if from == source, mime.hasPrefix("text/plain") {
                    _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
                }
                close(fd)
            }
        }
        if !peer.child.wait(timeout: 0) {
            peer.kill()
            XCTFail("\(arguments) did not end within \(timeout) s")
        }
        output += readToEnd(peer.stdoutFD)
        return (peer.child.status, String(decoding: output, as: UTF8.self),
                String(decoding: readToEnd(peer.stderrFD), as: UTF8.self))
    }

    func testASourceOfferingThousandsOfTypes() throws {
        let connection = try connect()
        // 5,000 short names (100 KB of events): sway (libwayland 1.21) drops a client it cannot write
        // to at once, and it writes all the offer events to every data-control client, this one
        // included, when the selection is set; 10,000 made the test's own client race that limit.
        let mimes = ["text/plain;charset=utf-8"] + (0..<5_000).map { "x/\($0)" }
        let (source, messages) = connection.client.createSource(offering: mimes)
        connection.send(messages)
        connection.send(connection.client.setSelection(source, primary: false))
        try connection.roundTrip(deadline: waylandNowForTests() + 10_000_000_000)

        let types = try run([pbctl, "types"], serving: source, on: connection, text: "hostile text")
        XCTAssertEqual(types.status, 0, types.stderr)
        let lines = types.stdout.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains("public.utf8-plain-text") }, "\(lines.prefix(3))")
        XCTAssertGreaterThan(lines.count, 100)
        XCTAssertLessThanOrEqual(lines.count, 1025, "the offer's types are not bounded (1024 kept)")
        let paste = try run([pbctl, "paste"], serving: source, on: connection, text: "hostile text")
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(paste.stdout, "hostile text")
        let wanted = try run([pbctl, "paste", "--type", "x/4999"], serving: source, on: connection, text: "")
        XCTAssertNotEqual(wanted.status, 0, "a type beyond the 1024 kept cannot be asked for")
        XCTAssertTrue(wanted.stderr.contains("not offered"), wanted.stderr)
        let kept = try run([pbctl, "paste", "--type", "x/1000"], serving: source, on: connection, text: "")
        XCTAssertEqual(kept.status, 0, "a type among the 1024 kept can be asked for: \(kept.stderr)")
    }

    /// A source offering 20,000 long types makes sway drop the data-control clients it cannot write
    /// the offer to at once (libwayland 1.21). The daemon connects again and keeps working.
    func testTheDaemonSurvivesBeingDroppedByTheCompositor() throws {
        let log = scratch + "/daemon.log"
        daemonLog = log
        defer {
            if (testRun?.failureCount ?? 0) > 0, let text = try? String(contentsOfFile: log, encoding: .utf8) {
                print("daemon log:\n" + text)
            }
        }
        XCTAssertEqual(try run([pbctl, "daemon", "--detach"], timeout: 20, detached: true).status, 0)
        defer { _ = try? run(["/usr/bin/pkill", "-f", "__daemon --wayland"]) }
        // The daemon stopped while the flood is offered: it cannot read, so sway surely cannot write the
        // offer to it at once (a daemon that reads fast enough was not always dropped).
        let daemonPID = pid_t(try run(["/usr/bin/pgrep", "-f", "__daemon --wayland"]).text.split(separator: "\n").first ?? "") ?? 0
        XCTAssertGreaterThan(daemonPID, 0)
        kill(daemonPID, SIGSTOP)
        defer { kill(daemonPID, SIGCONT) }
        do {
            let connection = try connect()
            let mimes = (0..<20_000).map { "application/x-flood-\($0)-" + String(repeating: "y", count: 48) }
            let (source, messages) = connection.client.createSource(offering: mimes)
            connection.send(messages)
            connection.send(connection.client.setSelection(source, primary: false))
            try connection.roundTrip(deadline: waylandNowForTests() + 10_000_000_000)
            usleep(500_000)
        } catch {
            // The flooding client may be dropped too.
        }
        kill(daemonPID, SIGCONT)
        XCTAssertTrue(try eventually(timeout: 5) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("connected again")
        }, "the compositor did not drop the daemon (or it did not connect again)")
        XCTAssertEqual(try run([pbctl, "daemon", "--status"]).status, 0, "the daemon exited")
        let text = try write(Data("after the flood".utf8), "after.txt")
        XCTAssertEqual(try run(["/usr/bin/wl-copy"], inputFile: text, detached: true).status, 0)
        XCTAssertTrue(try eventually(timeout: 10) { try self.run([self.pbctl, "history"]).text.contains("after the flood") })
        _ = try run(["/usr/bin/pkill", "-x", "wl-copy"])
        XCTAssertTrue(try eventually(timeout: 10) { try self.run([self.pbctl, "paste"]).text == "after the flood" },
                      "the daemon did not keep the clipboard after connecting again")
    }

    func testReadersThatMisbehaveDoNotStopTheOwner() throws {
        let payload = try write(Data((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }), "payload.bin")
        XCTAssertEqual(try run([pbctl, "copy", "--type", "application/octet-stream", payload], timeout: 20).status, 0)
        let connection = try connect()
        try connection.roundTrip(deadline: waylandNowForTests() + 5_000_000_000)
        let offer = try XCTUnwrap(connection.client.selection)
        func request(_ mime: String) -> Int32 {
            var fds: [Int32] = [-1, -1]
            _ = pipe(&fds)
            connection.send(connection.client.receive(offer, mime: mime, fd: fds[1]))
            try? connection.flush(deadline: waylandNowForTests() + 2_000_000_000)
            close(fds[1])
            return fds[0]
        }
        // A type never offered: refused at once (end of file, no bytes).
        let refused = request("application/x-never-offered")
        var byte: UInt8 = 0
        var poller = pollfd(fd: refused, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&poller, 1, 5000), 1, "no answer to a type never offered")
        XCTAssertEqual(read(refused, &byte, 1), 0)
        close(refused)
        // A reader that closes its pipe at once, and twenty that never read.
        close(request("application/octet-stream"))
        let stalled = (0..<20).map { _ in request("application/octet-stream") }
        defer { for fd in stalled { close(fd) } }
        usleep(300_000)
        // The owner still serves a well-behaved paste in full.
        let good = try run([wlPaste, "-t", "application/octet-stream"], timeout: 20)
        XCTAssertEqual(good.status, 0)
        XCTAssertEqual(good.stdout, try Data(contentsOf: URL(fileURLWithPath: payload)))
        let pasted = try run([pbctl, "paste", "--type", "application/octet-stream"], timeout: 20)
        XCTAssertEqual(pasted.stdout.count, 8 << 20)
    }
}

/// CLOCK_MONOTONIC in nanoseconds, as the Wayland code's deadlines count.
func waylandNowForTests() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

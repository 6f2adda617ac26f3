import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Sizes, lifetimes, deadlines and watching, with the pbctl binary and xclip under a private Xvfb.
final class X11TransferTests: X11TestCase {
    let xclip = "/usr/bin/xclip"

    func sameFiles(_ a: String, _ b: String) throws -> Bool {
        let x = try Data(contentsOf: URL(fileURLWithPath: a))
        let y = try Data(contentsOf: URL(fileURLWithPath: b))
        return x.count == y.count && x == y
    }

    func testOneByteBothWays() throws {
        try requireTool(xclip)
        XCTAssertEqual(try run([pbctl, "copy"], input: Data("a".utf8)).status, 0)
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard"]).stdout, Data("a".utf8))
        let file = try write(Data("b".utf8), "b.txt")
        _ = try run([xclip, "-i", "-selection", "clipboard", file], detached: true)
        XCTAssertEqual(try run([pbctl, "paste"]).stdout, Data("b".utf8))
    }

    /// A plain `pbctl paste` answers as the negotiation does, whichever way it goes (the quick
    /// UTF8_STRING path or the full one): plain text when offered, else the richer text forms.
    func testPlainPasteChoosesLikeTheNegotiation() throws {
        try requireTool(xclip)
        let html = try write(Data("<b>rich</b>".utf8), "rich.html")
        _ = try run([xclip, "-i", "-selection", "clipboard", "-t", "text/html", html], detached: true)
        XCTAssertEqual(try run([pbctl, "paste"]).text, "<b>rich</b>", "an HTML-only owner gives its HTML")
        XCTAssertEqual(try run([pbctl, "copy", "--type", "md"], input: Data("# Title\n\n*x*\n".utf8)).status, 0)
        XCTAssertEqual(try run([pbctl, "paste"]).text, "# Title\n\n*x*\n", "Markdown's plain text is its source")
        XCTAssertEqual(try run([pbctl, "paste", "--type", "public.html"]).text, "<h1>Title</h1>\n<p><em>x</em></p>\n")
        let latin1 = try write(Data([0x63, 0x61, 0x66, 0xE9]), "latin1.txt")
        _ = try run([xclip, "-i", "-selection", "clipboard", "-t", "STRING", latin1], detached: true)
        XCTAssertEqual(try run([pbctl, "paste"]).text, "café", "STRING only: decoded from Latin-1")
        XCTAssertEqual(try run([pbctl, "clear"]).status, 0)
        let empty = try run([pbctl, "paste"])
        XCTAssertEqual(empty.status, 1, empty.stderr)
        XCTAssertTrue(empty.stderr.contains("nothing to paste"), empty.stderr)
    }

    /// 100 MB each way through INCR (the server's maximum request is 16 MiB; chunks are 2 MiB).
    func testHundredMegabytesBothWaysByteExact() throws {
        try requireTool(xclip)
        var line = Data((0..<99).map { UInt8(0x21 + ($0 * 7) % 90) })
        line.append(0x0A)
        var payload = Data(capacity: 100_000_000)
        for _ in 0..<1_000_000 { payload.append(line) }
        let source = try write(payload, "big.txt")
        payload = Data()

        let copy = try run([pbctl, "copy", "--type", "txt"], inputFile: source, timeout: 60)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        let out1 = scratch + "/out1.txt"
        let paste1 = try run([xclip, "-o", "-selection", "clipboard"], outputFile: out1, timeout: 60)
        XCTAssertEqual(paste1.status, 0)
        XCTAssertTrue(try sameFiles(source, out1), "xclip -o did not get the same 100 MB")

        _ = try run([xclip, "-i", "-selection", "clipboard", source], detached: true)
        let out2 = scratch + "/out2.txt"
        let paste2 = try run([pbctl, "paste"], outputFile: out2, timeout: 60)
        XCTAssertEqual(paste2.status, 0, paste2.stderr)
        XCTAssertTrue(try sameFiles(source, out2), "pbctl paste did not get the same 100 MB")
    }

    func xclipOwnerPID() throws -> pid_t? {
        let text = try run(["/bin/sh", "-c", "pgrep -n -x xclip"]).text
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func testStalledOwnerMakesPasteExitNonZeroAtItsDeadline() throws {
        try requireTool(xclip)
        let file = try write(Data("stalled".utf8), "s.txt")
        _ = try run([xclip, "-i", "-selection", "clipboard", file], detached: true)
        let pid = try XCTUnwrap(try xclipOwnerPID())
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGKILL); kill(pid, SIGCONT) }
        let paste = try run([pbctl, "paste", "--type", "txt"], environment: ["PBCTL_X11_TIMEOUT": "1"], timeout: 10)
        XCTAssertEqual(paste.status, 69, paste.stderr)
        XCTAssertTrue(paste.stderr.contains("stopped answering"), paste.stderr)
        XCTAssertLessThan(paste.seconds, 3)
    }

    func testOwnerKilledDuringPasteMakesPasteExitNonZeroPromptly() throws {
        try requireTool(xclip)
        let file = try write(Data("doomed".utf8), "d.txt")
        _ = try run([xclip, "-i", "-selection", "clipboard", file], detached: true)
        let pid = try XCTUnwrap(try xclipOwnerPID())
        kill(pid, SIGSTOP)
        var env = environment
        env["PBCTL_X11_TIMEOUT"] = "20"
        let paste = try Spawned([pbctl, "paste", "--type", "txt"], environment: env)
        spawned.append(paste)
        usleep(300_000)
        let killed = Date()
        kill(pid, SIGKILL)
        XCTAssertTrue(paste.child.wait(timeout: 5), "pbctl paste kept waiting for a dead owner")
        XCTAssertLessThan(Date().timeIntervalSince(killed), 2)
        XCTAssertEqual(paste.child.status, 69)
        let errors = String(decoding: readSome(paste.stderrFD, timeoutMS: 500) ?? Data(), as: UTF8.self)
        XCTAssertTrue(errors.contains("exited"), errors)
    }

    func testWatchPrintsOneLinePerChange() throws {
        try requireTool(xclip)
        let watch = try Spawned([pbctl, "watch", "--json", "--count", "2"], environment: environment)
        spawned.append(watch)
        usleep(500_000)
        XCTAssertEqual(try run([pbctl, "copy", "--type", "html"], input: Data("<b>w</b>".utf8)).status, 0)
        usleep(300_000)
        _ = try run([pbctl, "clear"])
        XCTAssertTrue(watch.child.wait(timeout: 10), "watch did not report two changes")
        let lines = String(decoding: readToEnd(watch.stdoutFD), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(lines.first?.contains("\"changeCount\":1") ?? false, "\(lines)")
        XCTAssertTrue(lines.first?.contains("public.html") ?? false, "\(lines)")
        XCTAssertTrue(lines.first?.contains("\"state\":\"data\"") ?? false, "\(lines)")
        XCTAssertTrue(lines.last?.contains("\"state\":\"nil\"") ?? false, "\(lines)")
    }

    func testWatchRunsCommandWithContentAndEnvironmentAndWithholdsSecrets() throws {
        try requireTool(xclip)
        let log = scratch + "/watch.log"
        let script = "cat >> \"$0\"; echo \" [$PBCTL_STATE] $PBCTL_TYPES\" >> \"$0\""
        let watch = try Spawned([pbctl, "watch", "--count", "1", "--", "/bin/sh", "-c", script, log], environment: environment)
        spawned.append(watch)
        usleep(500_000)
        XCTAssertEqual(try run([pbctl, "copy"], input: Data("watched".utf8)).status, 0)
        XCTAssertTrue(watch.child.wait(timeout: 10))
        let text = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("watched [data] public.utf8-plain-text"), text)
    }
}

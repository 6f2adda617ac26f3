import Foundation
import XCTest

/// The X server going away in the middle of a paste: the paste ends at once with exit 69.
final class X11ServerGoneTests: X11TestCase {
    func testServerKilledMidPasteEndsThePasteWith69() throws {
        let xclip = "/usr/bin/xclip"
        try requireTool(xclip)
        let file = scratch + "/s.txt"
        try Data("stalled".utf8).write(to: URL(fileURLWithPath: file))
        _ = try run([xclip, "-i", "-selection", "clipboard", file], detached: true)
        let owner = try run(["/bin/sh", "-c", "pgrep -n -x xclip"]).text.trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try XCTUnwrap(pid_t(owner))
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGKILL); kill(pid, SIGCONT) }
        var env = environment
        env["PBCTL_X11_TIMEOUT"] = "20"
        let paste = try Spawned([pbctl, "paste", "--type", "txt"], environment: env)
        spawned.append(paste)
        usleep(300_000)
        let killed = Date()
        Self.server?.stop()
        XCTAssertTrue(paste.child.wait(timeout: 5), "pbctl paste kept waiting on a dead X server")
        XCTAssertLessThan(Date().timeIntervalSince(killed), 2)
        XCTAssertEqual(paste.child.status, 69)
        let errors = String(decoding: readSome(paste.stderrFD, timeoutMS: 500) ?? Data(), as: UTF8.self)
        XCTAssertFalse(errors.isEmpty, "no message")
    }

    override func tearDownWithError() throws {
        for process in spawned { process.kill() }
        spawned = []
        try? FileManager.default.removeItem(atPath: scratch)
    }
}

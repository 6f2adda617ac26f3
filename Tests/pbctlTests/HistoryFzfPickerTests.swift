import Foundation
import XCTest

/// `pbctl history pick` in a terminal: fzf (found when both standard streams are a terminal) in a pane
/// of a private tmux server, typed into with send-keys, its preview showing `history show`.
final class HistoryFzfPickerTests: XCTestCase {
    var scratch = ""
    var socket = ""
    let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }

    override func setUpWithError() throws {
        try XCTSkipUnless(tmux != nil, "tmux is not installed")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/fzf"), "fzf is not installed")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: PbctlRunner.binary), "pbctl is not built")
        scratch = NSTemporaryDirectory() + "pbctl-fzf-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        socket = "pbctl-fzf-\(getpid())-\(UUID().uuidString.prefix(8))"
        XCTAssertEqual(tmuxCommand(["-f", "/dev/null", "new-session", "-d", "-x", "150", "-y", "40"]).status, 0)
    }

    override func tearDownWithError() throws {
        if tmux != nil { _ = tmuxCommand(["kill-server"]) }
        try? FileManager.default.removeItem(atPath: scratch)
    }

    @discardableResult
    func tmuxCommand(_ arguments: [String]) -> (status: Int32, output: Data) {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TMUX")
        let file = scratch + "/tmux-\(UUID().uuidString.prefix(8)).out"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer {
            close(fd)
            try? FileManager.default.removeItem(atPath: file)
        }
        guard let child = try? ChildProcess([tmux!, "-L", socket] + arguments, environment: environment, stdout: fd) else { return (-1, Data()) }
        guard child.wait(timeout: 20) else {
            child.kill()
            return (-1, Data())
        }
        return (child.status ?? -1, (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data())
    }

    func testFzfPicksWithAPreview() throws {
        var runner = PbctlRunner(store: scratch + "/store")
        runner.environment["PBCTL_BACKEND"] = "store"
        for text in ["alpha entry", "beta entry", "gamma entry"] { XCTAssertEqual(try runner.run("copy", stdin: text).status, 0) }
        let status = scratch + "/status"
        let line = "env -u DISPLAY -u WAYLAND_DISPLAY PBCTL_BACKEND=store PBCTL_STORE='\(scratch)/store' PBCTL_HISTORY='\(scratch)/store-history' "
            + "'\(PbctlRunner.binary)' history pick; echo $? > '\(status)'"
        XCTAssertEqual(tmuxCommand(["new-window", "-d", "-n", "pick", line]).status, 0)
        func screen() -> String { String(decoding: tmuxCommand(["capture-pane", "-p", "-t", "pick"]).output, as: UTF8.self) }
        let deadline = Date().addingTimeInterval(20)
        while !screen().contains("clipboard>"), Date() < deadline { usleep(100_000) }
        XCTAssertTrue(screen().contains("gamma entry"), screen())
        XCTAssertEqual(tmuxCommand(["send-keys", "-t", "pick", "beta"]).status, 0)
        var shown = ""
        let previewDeadline = Date().addingTimeInterval(20)
        repeat {
            usleep(100_000)
            shown = screen()
        } while !shown.contains("entry 2") && Date() < previewDeadline
        XCTAssertTrue(shown.contains("entry 2") && shown.contains("source: pbctl"), "the preview shows history show: \(shown)")
        XCTAssertEqual(tmuxCommand(["send-keys", "-t", "pick", "Enter"]).status, 0)
        let end = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: status), Date() < end { usleep(100_000) }
        XCTAssertEqual((try? String(contentsOfFile: status, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines), "0")
        XCTAssertEqual(try runner.run("paste").text, "beta entry")
        XCTAssertEqual(try runner.run("history").text.split(separator: "\n").first, "2\tbeta entry", "picked: at the top")
    }
}

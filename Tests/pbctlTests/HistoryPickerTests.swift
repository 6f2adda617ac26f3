import Foundation
import XCTest

/// `pbctl history pick` driven for real: rofi (found for an X11 session) under Xvfb, typed into with
/// xdotool; the chosen entry becomes the clipboard with every type, or is printed with `--print`;
/// image entries come with a thumbnail rofi shows as the line's icon.
final class HistoryRofiPickerTests: X11TestCase {
    let rofi = "/usr/bin/rofi"
    let xdotool = "/usr/bin/xdotool"
    let xclip = "/usr/bin/xclip"

    /// Entries recorded through the store (a copy there records itself): three texts and a picture.
    func recordEntries() throws -> Data {
        let png = try XCTUnwrap(Data(base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGP4z8AAQQxwFgBB0gX7h/C5SAAAAABJRU5ErkJggg=="))
        let store = ["PBCTL_BACKEND": "store"]
        for text in ["first entry", "second entry", "<p>third <b>entry</b></p>"] {
            let result = try run([pbctl, "copy"] + (text.hasPrefix("<") ? ["--type", "html"] : []), input: Data(text.utf8), environment: store)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        XCTAssertEqual(try run([pbctl, "copy", try write(png, "shot.png")], environment: store).status, 0)
        return png
    }

    /// Types `text` into rofi once its window is up, then Return.
    func choose(_ text: String) throws {
        XCTAssertTrue(eventually(timeout: 15) { (try? run([xdotool, "search", "--class", "rofi"], timeout: 5).status) == 0 }, "no rofi window")
        usleep(300_000)
        XCTAssertEqual(try run([xdotool, "type", "--delay", "30", text]).status, 0)
        XCTAssertEqual(try run([xdotool, "key", "Return"]).status, 0)
    }

    func testRofiPicksAnEntryAndShowsThumbnails() throws {
        try requireTool(rofi)
        try requireTool(xdotool)
        try requireTool(xclip)
        let png = try recordEntries()
        let cache = scratch + "/cache"
        // --print: the chosen entry on standard output, as `history paste` gives it.
        let printing = try Spawned([pbctl, "history", "pick", "--print"], environment: environment.merging(["XDG_CACHE_HOME": cache]) { $1 })
        spawned.append(printing)
        try choose("second")
        XCTAssertTrue(printing.child.wait(timeout: 15), "pick did not end")
        XCTAssertEqual(printing.child.status, 0)
        XCTAssertEqual(String(decoding: readToEnd(printing.stdoutFD), as: UTF8.self), "second entry")
        // The picture's thumbnail was made for rofi's icon, once, in the history's folder, named by the
        // entry and the picture's SHA-256 (never another entry's, nor another history's).
        let thumbnails = try FileManager.default.contentsOfDirectory(atPath: scratch + "/history/thumbnails")
        XCTAssertEqual(thumbnails.count, 1, "\(thumbnails)")
        XCTAssertTrue(thumbnails.first?.hasPrefix("4-") == true && thumbnails.first?.hasSuffix(".png") == true, "\(thumbnails)")
        let thumbnail = scratch + "/history/thumbnails/" + (thumbnails.first ?? "")
        let made = try Data(contentsOf: URL(fileURLWithPath: thumbnail))
        XCTAssertEqual(made.prefix(8), png.prefix(8), "a PNG")
        // Without --print: the entry becomes the clipboard, every type with it.
        let picking = try Spawned([pbctl, "history", "pick"], environment: environment.merging(["XDG_CACHE_HOME": cache]) { $1 })
        spawned.append(picking)
        try choose("third")
        XCTAssertTrue(picking.child.wait(timeout: 15), "pick did not end")
        XCTAssertEqual(picking.child.status, 0, String(decoding: readToEnd(picking.stderrFD), as: UTF8.self))
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "text/html"]).text, "<p>third <b>entry</b></p>")
        XCTAssertTrue(try run([xclip, "-o", "-selection", "clipboard"]).text.hasPrefix("third entry"), "its plain text too")
        // Escape: nothing chosen, exit 1, the clipboard as it was.
        let cancelled = try Spawned([pbctl, "history", "pick"], environment: environment.merging(["XDG_CACHE_HOME": cache]) { $1 })
        spawned.append(cancelled)
        XCTAssertTrue(eventually(timeout: 15) { (try? run([xdotool, "search", "--class", "rofi"], timeout: 5).status) == 0 })
        usleep(300_000)
        XCTAssertEqual(try run([xdotool, "key", "Escape"]).status, 0)
        XCTAssertTrue(cancelled.child.wait(timeout: 15))
        XCTAssertEqual(cancelled.child.status, 1)
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "text/html"]).text, "<p>third <b>entry</b></p>")
    }

    /// `--menu` runs the given command as it is (rofi with a filter of its own here), the history's
    /// filters applied first.
    func testMenuCommandAndFilters() throws {
        try requireTool(rofi)
        try requireTool(xdotool)
        _ = try recordEntries()
        let chosen = try Spawned(
            [pbctl, "history", "pick", "--print", "--type", "text/html", "--menu", "rofi -dmenu -filter third"], environment: environment)
        spawned.append(chosen)
        XCTAssertTrue(eventually(timeout: 15) { (try? run([xdotool, "search", "--class", "rofi"], timeout: 5).status) == 0 }, "no rofi window")
        usleep(300_000)
        XCTAssertEqual(try run([xdotool, "key", "Return"]).status, 0)
        XCTAssertTrue(chosen.child.wait(timeout: 15))
        XCTAssertEqual(chosen.child.status, 0)
        // Pasted as `history paste` pastes: the text of the HTML entry.
        XCTAssertTrue(String(decoding: readToEnd(chosen.stdoutFD), as: UTF8.self).hasPrefix("third entry"))
        let none = try run([pbctl, "history", "pick", "--menu", "/nonexistent/launcher"], timeout: 30)
        XCTAssertNotEqual(none.status, 0)
    }
}

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

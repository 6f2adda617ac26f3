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

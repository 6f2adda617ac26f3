import Foundation
import XCTest

/// The history `pbctl daemon` records from real owners (xclip, GTK 3, Qt 5) under a private Xvfb, the
/// clipboard served again when the daemon restarts, and files exchanged with GTK and Qt.
final class X11HistoryTests: X11TestCase {
    let xclip = "/usr/bin/xclip"

    func historyLines() throws -> [String] {
        try run([pbctl, "history"]).text.split(separator: "\n").map(String.init)
    }

    /// Waits until the history lists `count` entries.
    func waitForEntries(_ count: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let ok = try eventually(timeout: 10) { try historyLines().count >= count }
        let held = (try? historyLines()) ?? []
        XCTAssertTrue(ok, "the history holds \(held)", file: file, line: line)
    }

    func testTheDaemonRecordsEveryOwnerWithEveryType() throws {
        try requireTool(xclip)
        try requirePython("gi")
        try requirePython("PyQt5.QtWidgets")
        try startDaemon()
        // xclip: plain text.
        let text = try write(Data("from xclip\n".utf8), "t.txt")
        try startPeer([xclip, "-i", "-quiet", "-selection", "clipboard", text], waitFor: nil)
        try waitForEntries(1)
        // GTK: HTML and text together.
        let html = try write(Data("<p>from <b>GTK</b></p>".utf8), "g.html")
        let plain = try write(Data("from GTK".utf8), "g.txt")
        try startPeer([python, peers + "/gtk_peer.py", "copy", "text/html", html, "UTF8_STRING", plain])
        try waitForEntries(2)
        // Qt: an image.
        try startPeer([python, peers + "/qt_peer.py", "copy-image", "40", "30"], environment: ["QT_QPA_PLATFORM": "xcb"])
        try waitForEntries(3)
        let lines = try historyLines()
        XCTAssertTrue(lines[0].hasPrefix("3\t[image/png 40×30 "), lines[0])
        XCTAssertEqual(lines[1], "2\tfrom GTK")
        XCTAssertEqual(lines[2], "1\tfrom xclip")
        // Every type GTK offered is there; pasting negotiates.
        let json = try JSONSerialization.jsonObject(with: try run([pbctl, "history", "--json"]).stdout) as? [[String: Any]]
        let gtkTypes = (json?[1]["types"] as? [[String: Any]])?.compactMap { $0["type"] as? String } ?? []
        XCTAssertTrue(gtkTypes.contains("public.html") && gtkTypes.contains("public.utf8-plain-text"), "\(gtkTypes)")
        XCTAssertEqual(try run([pbctl, "history", "paste", "2", "--type", "html"]).text, "<p>from <b>GTK</b></p>")
        XCTAssertEqual(try run([pbctl, "history", "paste", "2", "--as", "markdown"]).text, "from **GTK**\n")
        // Copying an entry back makes it the clipboard again, for every client.
        XCTAssertEqual(try run([pbctl, "history", "copy", "2"], timeout: 20).status, 0)
        XCTAssertEqual(try run([python, peers + "/gtk_peer.py", "paste", "text/html"]).text, "<p>from <b>GTK</b></p>")
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard"]).text, "from GTK")
    }

    func testSensitiveOwnersAreNeverRecorded() throws {
        try requirePython("gi")
        try startDaemon()
        let secret = try write(Data("hunter2".utf8), "s.txt")
        let hint = try write(Data("secret".utf8), "hint")
        try startPeer([python, peers + "/gtk_peer.py", "copy", "UTF8_STRING", secret, "x-kde-passwordManagerHint", hint])
        let concealed = try write(Data("also secret".utf8), "c.txt")
        try startPeer([python, peers + "/gtk_peer.py", "copy", "UTF8_STRING", concealed, "org.nspasteboard.ConcealedType", hint])
        let plain = try write(Data("public".utf8), "p.txt")
        try startPeer([python, peers + "/gtk_peer.py", "copy", "UTF8_STRING", plain])
        try waitForEntries(1)
        sleep(1)
        XCTAssertEqual(try historyLines(), ["1\tpublic"])
        let stored = try FileManager.default.subpathsOfDirectory(atPath: scratch + "/history").compactMap {
            try? String(contentsOfFile: scratch + "/history/" + $0, encoding: .utf8)
        }
        XCTAssertFalse(stored.contains { $0.contains("hunter2") || $0.contains("also secret") })
    }

    /// The daemon started again on an empty clipboard serves the newest entry; and `pbctl copy` handed to
    /// the daemon is recorded too.
    func testARestartedDaemonServesTheNewestEntry() throws {
        try requireTool(xclip)
        let daemon = try startDaemon()
        XCTAssertEqual(try run([pbctl, "copy", "--from", "markdown"], input: Data("# kept\n".utf8), timeout: 20).status, 0)
        try waitForEntries(1)
        daemon.kill()
        XCTAssertTrue(eventually(timeout: 5) { (try? run([xclip, "-o", "-selection", "clipboard"]).status) != 0 },
                      "the clipboard outlived the daemon")
        try startDaemon()
        XCTAssertTrue(eventually(timeout: 5) { (try? run([xclip, "-o", "-selection", "clipboard"]).text) == "# kept\n" })
        XCTAssertTrue(try run([xclip, "-o", "-selection", "clipboard", "-t", "TARGETS"]).text.contains("text/html"))
        // A pause is kept across restarts, and nothing is recorded meanwhile.
        XCTAssertEqual(try run([pbctl, "history", "pause"]).status, 0)
        let text = try write(Data("while paused".utf8), "w.txt")
        try startPeer([xclip, "-i", "-quiet", "-selection", "clipboard", text], waitFor: nil)
        sleep(1)
        XCTAssertEqual(try historyLines().count, 1)
    }

    /// A history the daemon can neither read nor record in (a file where its folder should be) is said
    /// on standard error with its cause, once per cause, and the clipboard is kept all the same: not an
    /// error that stops the daemon.
    func testAHistoryThatCannotBeUsedIsSaidOnceAndTheClipboardIsKeptAllTheSame() throws {
        try requireTool(xclip)
        let blocked = try write(Data("not a folder".utf8), "blocked")
        let daemon = try startDaemon(environment: ["PBCTL_HISTORY": blocked])
        for text in ["one", "two"] {
            XCTAssertEqual(try run([pbctl, "copy"], input: Data(text.utf8), environment: ["PBCTL_HISTORY": blocked], timeout: 20).status, 0)
        }
        XCTAssertTrue(eventually(timeout: 5) { (try? run([xclip, "-o", "-selection", "clipboard"]).text) == "two" })
        var errors = ""
        func count(_ text: String) -> Int { errors.components(separatedBy: text).count - 1 }
        // --verbose logs each failure; the warning is said once for the one cause.
        _ = eventually(timeout: 10) {
            errors += stderrText(daemon)
            return count("history: could not record: ") >= 2
        }
        XCTAssertEqual(count("history: could not record: "), 2, errors)
        XCTAssertEqual(count("history: could not record the clipboard: "), 1, errors)
        XCTAssertTrue(errors.contains(blocked), errors)
        XCTAssertEqual(count("history: could not read the newest entry to serve: "), 1, errors)
        XCTAssertTrue(daemon.child.isRunning)
    }

    /// An xclip copy over `history.max-entry-size` reaches the daemon in INCR chunks, xclip writing each
    /// only once the last is deleted: a daemon that gave up at the cap left xclip waiting forever, and
    /// the clipboard froze (`xclip -o` hung, `pbctl paste` exited 69). The daemon now reads the rest
    /// to its end without keeping it, and lists the entry with the target skipped, with its size.
    func testAnOverCapCopyIsDrainedAndListedAsSkipped() throws {
        try requireTool(xclip)
        let config = scratch + "/config"
        try FileManager.default.createDirectory(atPath: config + "/pbctl", withIntermediateDirectories: true)
        try Data("history.max-entry-size = 1M\n".utf8).write(to: URL(fileURLWithPath: config + "/pbctl/config"))
        try startDaemon(environment: ["XDG_CONFIG_HOME": config])
        let size = 3 << 20
        let line = Data((0..<99).map { UInt8(ascii: "a") + UInt8($0 % 26) } + [0x0A])
        var content = Data()
        while content.count < size { content.append(line) }
        content = content.prefix(size)
        let big = try write(content, "big.txt")
        try startPeer([xclip, "-i", "-quiet", "-selection", "clipboard", big], waitFor: nil)
        try waitForEntries(1)
        let pasted = try run([xclip, "-o", "-selection", "clipboard"], timeout: 5)
        XCTAssertEqual(pasted.status, 0, "xclip -o: \(pasted.stderr)")
        XCTAssertTrue(pasted.stdout == content, "xclip -o got \(pasted.stdout.count) bytes")
        let paste = try run([pbctl, "paste"], timeout: 5)
        XCTAssertEqual(paste.status, 0, "pbctl paste: \(paste.stderr)")
        XCTAssertTrue(paste.stdout == content, "pbctl paste got \(paste.stdout.count) bytes")
        let json = try JSONSerialization.jsonObject(with: try run([pbctl, "history", "--json"]).stdout) as? [[String: Any]]
        XCTAssertEqual(json?.count, 1)
        let skipped = json?.first?["skipped"] as? [[String: Any]] ?? []
        XCTAssertEqual(skipped.map { $0["type"] as? String }, ["public.utf8-plain-text"], "\(String(describing: json))")
        XCTAssertEqual(skipped.first?["size"] as? Int, size)
        XCTAssertEqual((json?.first?["types"] as? [Any])?.count, 0, "nothing over the cap is kept")
    }

    /// `history.primary = yes` without `--primary` (README: "`pbctl daemon` records PRIMARY even without
    /// `--primary`"): the daemon watched PRIMARY only with `--primary`, so nothing was recorded. Each new
    /// PRIMARY content is recorded now, and PRIMARY is still left alone when its owner goes away.
    func testHistoryPrimaryRecordsPrimaryWithoutRestoringIt() throws {
        try requireTool(xclip)
        let config = scratch + "/config"
        try FileManager.default.createDirectory(atPath: config + "/pbctl", withIntermediateDirectories: true)
        try Data("history.primary = yes\n".utf8).write(to: URL(fileURLWithPath: config + "/pbctl/config"))
        let daemon = try startDaemon(environment: ["XDG_CONFIG_HOME": config])
        let text = try write(Data("from the mouse".utf8), "m.txt")
        let owner = try startPeer([xclip, "-i", "-quiet", "-selection", "primary", text], waitFor: nil)
        try waitForEntries(1)
        XCTAssertEqual(try historyLines(), ["1\tfrom the mouse"])
        let listing = try JSONSerialization.jsonObject(with: try run([pbctl, "history", "--json"]).stdout) as? [[String: Any]]
        XCTAssertEqual(listing?.first?["selection"] as? String, "primary")
        // Its owner gone, PRIMARY stays empty: restoring it is --primary's job.
        owner.kill()
        XCTAssertTrue(eventually { (try? run([xclip, "-o", "-selection", "primary"], timeout: 5).status) != 0 },
                      "PRIMARY was restored without --primary")
        usleep(1_000_000)
        XCTAssertNotEqual(try run([xclip, "-o", "-selection", "primary"], timeout: 5).status, 0, "PRIMARY was restored without --primary")
        XCTAssertTrue(daemon.child.isRunning)
    }

    func testFilesBetweenPbctlGTKAndQt() throws {
        try requirePython("gi")
        try requirePython("PyQt5.QtWidgets")
        let folder = scratch + "/files"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let first = folder + "/report 1.pdf", second = folder + "/naïve.png"
        for path in [first, second] { try Data("x".utf8).write(to: URL(fileURLWithPath: path)) }
        // pbctl → GTK (wait_for_uris) and Qt (urls).
        XCTAssertEqual(try run([pbctl, "copy", "--files", first, second], timeout: 20).status, 0)
        let uris = try run([python, peers + "/gtk_peer.py", "uris"])
        XCTAssertEqual(uris.status, 0, uris.stderr)
        XCTAssertEqual(uris.text, "file://\(folder)/report%201.pdf\nfile://\(folder)/na%C3%AFve.png\n")
        let qtURLs = try run([python, peers + "/qt_peer.py", "urls"], environment: ["QT_QPA_PLATFORM": "xcb"])
        XCTAssertEqual(qtURLs.text, "\(first)\n\(second)\n")
        // GTK's own file list (what Nautilus sets) → pbctl.
        let gnome = try write(Data("cut\nfile://\(folder)/report%201.pdf".utf8), "gnome")
        let list = try write(Data("file://\(folder)/report%201.pdf\r\n".utf8), "list")
        try startPeer([python, peers + "/gtk_peer.py", "copy", "x-special/gnome-copied-files", gnome, "text/uri-list", list])
        XCTAssertTrue(eventually { (try? run([pbctl, "paste", "--files"]).text) == "\(first)\n" })
        let target = scratch + "/into"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        XCTAssertEqual(try run([pbctl, "paste", "--files", "--into", target]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: target + "/report 1.pdf"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: first), "GTK said cut: the file moved")
        // Qt's setUrls (Dolphin) → pbctl.
        try startPeer([python, peers + "/qt_peer.py", "copy-urls", second], environment: ["QT_QPA_PLATFORM": "xcb"])
        XCTAssertTrue(eventually { (try? run([pbctl, "paste", "--files"]).text) == "\(second)\n" })
    }

    // MARK: Issue 46: owners with many targets, owners dying mid-transfer

    /// An owner offering hundreds of private targets before UTF8_STRING (and, the second time, so many
    /// that TARGETS is over 64 KB): the daemon kept the first 64 targets offered, so the text was lost to
    /// 2-byte private blobs, and over 64 KB it kept nothing. Text, rich text, images and files are
    /// fetched first now, and a long TARGETS list is read bounded: the text is recorded as text and,
    /// its owner gone, pasted again.
    func testAnOwnerOfferingThousandsOfPrivateTargetsBeforeItsTextKeepsTheText() throws {
        try requireTool(xclip)
        try requirePython("gi")
        let daemon = try startDaemon()
        for (round, count) in [300, 20_000].enumerated() {
            let text = "the text after \(count) private targets"
            let file = try write(Data(text.utf8), "many\(count).txt")
            let owner = try startPeer([python, peers + "/gtk_peer.py", "copy-many", "\(count)", "UTF8_STRING", file])
            let listed = try eventually(timeout: 30) { try historyLines().first == "\(round + 1)\t\(text)" }
            XCTAssertTrue(listed, "\(count) targets: the history holds \((try? historyLines()) ?? []): \(stderrText(daemon))")
            let json = try JSONSerialization.jsonObject(with: try run([pbctl, "history", "--json", "--limit", "1"]).stdout) as? [[String: Any]]
            let types = (json?.first?["types"] as? [[String: Any]])?.compactMap { $0["type"] as? String } ?? []
            XCTAssertEqual(types.first, "public.utf8-plain-text", "\(count) targets: \(types.prefix(5))")
            owner.kill()
            XCTAssertTrue(try eventually(timeout: 10) { try run([pbctl, "paste"], timeout: 10).text == text },
                          "\(count) targets: pbctl paste after the owner exited: \(stderrText(daemon))")
            XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard"], timeout: 10).text, text)
        }
        XCTAssertTrue(daemon.child.isRunning)
    }

    /// An owner killed in the middle of an INCR transfer: the X11 daemon recorded nothing of it, where
    /// the Wayland daemon lists it as not kept (one rule for every keeper: FetchVerdict). Nothing
    /// half-fetched is kept, served or recorded as content, the clipboard it replaced is not served
    /// again, and the history lists the entry as not kept, saying why. Two rounds.
    func testAnOwnerKilledMidTransferIsListedAsNotKeptAndNothingOfItIsServed() throws {
        try requireTool(xclip)
        let daemon = try startDaemon()
        let big = try write(Data(repeating: UInt8(ascii: "z"), count: 4 << 20), "big.txt")
        for round in 1...2 {
            let earlier = try write(Data("earlier text \(round)".utf8), "earlier.txt")
            try startPeer([xclip, "-i", "-quiet", "-selection", "clipboard", earlier], waitFor: nil)
            XCTAssertTrue(try eventually(timeout: 10) { try historyLines().first == "\(2 * round - 1)\tearlier text \(round)" },
                          "round \(round): \(stderrText(daemon))")
            // The owner sends 8 of its 64 chunks, then stops answering; it is killed there.
            let owner = try startPeer([python, peers + "/incr_peer.py", big, "8"])
            try owner.waitForLine("midway")
            XCTAssertEqual(kill(owner.child.pid, SIGKILL), 0)
            XCTAssertTrue(owner.child.wait(timeout: 5))
            let expected = "\(2 * round)\t[not kept: text/plain;charset=utf-8, its owner went away before sending all of it]"
            XCTAssertTrue(try eventually(timeout: 10) { try historyLines().first == expected },
                          "round \(round): the history holds \((try? historyLines()) ?? []): \(stderrText(daemon))")
            let json = try JSONSerialization.jsonObject(with: try run([pbctl, "history", "--json", "--limit", "1"]).stdout) as? [[String: Any]]
            XCTAssertEqual((json?.first?["types"] as? [Any])?.count, 0, "round \(round): nothing of it is kept")
            let skipped = json?.first?["skipped"] as? [[String: Any]] ?? []
            XCTAssertEqual(skipped.map { $0["type"] as? String }, ["public.utf8-plain-text"], "round \(round)")
            XCTAssertEqual(skipped.first?["cutShort"] as? Bool, true, "round \(round)")
            // Nothing half-fetched is served, nor the content it replaced.
            usleep(300_000)
            let xclipPaste = try run([xclip, "-o", "-selection", "clipboard"], timeout: 10)
            XCTAssertNotEqual(xclipPaste.status, 0, "round \(round): xclip -o got \(xclipPaste.stdout.count) bytes")
            let paste = try run([pbctl, "paste"], timeout: 10)
            XCTAssertNotEqual(paste.status, 0, "round \(round): pbctl paste got \(paste.stdout.count) bytes")
            XCTAssertEqual(try run([pbctl, "history", "paste", "\(2 * round)"]).status, 1, "round \(round): the entry keeps nothing to paste")
            XCTAssertTrue(daemon.child.isRunning)
        }
    }
}

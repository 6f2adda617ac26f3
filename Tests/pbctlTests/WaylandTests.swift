import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A headless sway for one test class (scripts/headless-sway.sh: sway runs as an unprivileged user), and
/// Xvfb beside it (X11TestCase) for the auto order.
class WaylandTestCase: X11TestCase {
    nonisolated(unsafe) static var swaySocket: String?
    nonisolated(unsafe) static var swayPID: Int32 = 0
    nonisolated(unsafe) static var swayError: String?
    nonisolated(unsafe) static var swayDirectory = ""
    /// Where a detached daemon logs (PBCTL_X11_LOG), when a test wants it.
    var daemonLog: String?

    override class func setUp() {
        super.setUp()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/headless-sway.sh").path
        swayDirectory = NSTemporaryDirectory() + "pbctl-sway-\(getpid())-\(UUID().uuidString.prefix(8))"
        // ChildProcess, not Foundation's Process: the script leaves sway running, and Process can miss
        // the exit of a child that forks.
        do {
            let script = try Spawned(["/bin/bash", script, swayDirectory], environment: ProcessInfo.processInfo.environment)
            guard script.child.wait(timeout: 30) else {
                script.kill()
                swayError = "headless sway did not start within 30 s"
                return
            }
            let parts = String(decoding: readToEnd(script.stdoutFD), as: UTF8.self).split(separator: " ")
            if script.child.status == 0, parts.count == 2 {
                swaySocket = String(parts[0])
                swayPID = Int32(parts[1].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            } else {
                let errors = String(decoding: readToEnd(script.stderrFD), as: UTF8.self)
                swayError = "headless sway did not start (exit \(script.child.status ?? -1)): \(errors)"
            }
        } catch {
            swayError = "\(error)"
        }
    }

    override class func tearDown() {
        if swayPID > 0 { kill(swayPID, SIGTERM) }
        swaySocket = nil
        swayPID = 0
        try? FileManager.default.removeItem(atPath: swayDirectory)
        super.tearDown()
    }

    override var environment: [String: String] {
        var env = super.environment
        env["WAYLAND_DISPLAY"] = Self.swaySocket ?? ""
        env["PBCTL_BACKEND"] = "wayland"
        if let daemonLog { env["PBCTL_X11_LOG"] = daemonLog }
        return env
    }

    override func setUpWithError() throws {
        guard Self.swaySocket != nil else { throw XCTSkip(Self.swayError ?? "no headless sway") }
        try requireTool("/usr/bin/wl-copy")
        try super.setUpWithError()
    }
}

/// pbctl and wl-clipboard exchanging every type both ways on a real compositor.
final class WaylandTests: WaylandTestCase {
    let wlCopy = "/usr/bin/wl-copy", wlPaste = "/usr/bin/wl-paste"

    func testWlCopyToPbctl() throws {
        let text = try write(Data("héllo from wl-copy\n".utf8), "t.txt")
        XCTAssertEqual(try run([wlCopy], inputFile: text, detached: true).status, 0)
        XCTAssertEqual(try run([pbctl, "paste"]).text, "héllo from wl-copy\n")
        XCTAssertTrue(try run([pbctl, "types"]).text.contains("public.utf8-plain-text"))
        let html = try write(Data("<p>Some <b>bold</b></p>".utf8), "h.html")
        XCTAssertEqual(try run([wlCopy, "-t", "text/html"], inputFile: html, detached: true).status, 0)
        XCTAssertEqual(try run([pbctl, "paste", "--type", "html"]).text, "<p>Some <b>bold</b></p>")
        XCTAssertEqual(try run([pbctl, "paste", "--as", "markdown"]).text, "Some **bold**\n", "the negotiator converts")
        let png = try XCTUnwrap(Data(base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGP4z8AAQQxwFgBB0gX7h/C5SAAAAABJRU5ErkJggg=="))
        let image = try write(png, "i.png")
        XCTAssertEqual(try run([wlCopy, "-t", "image/png"], inputFile: image, detached: true).status, 0)
        XCTAssertEqual(try run([pbctl, "paste", "--type", "png"]).stdout, png)
    }

    /// An image copy offers every raster type as MIME types (BMP under the names RDP clients and WSLg ask
    /// for too); an owner offering only BMP pastes as any other.
    func testImagesBothWays() throws {
        try requireTool("/usr/bin/convert")
        let png = scratch + "/picture.png", bmp = scratch + "/picture.bmp"
        for path in [png, bmp] {
            XCTAssertEqual(try run(["/usr/bin/convert", "-size", "30x20", "gradient:red-blue", "-depth", "8", path]).status, 0)
        }
        XCTAssertEqual(try run([pbctl, "copy", png], timeout: 20).status, 0)
        let types = try run([wlPaste, "--list-types"]).text.split(separator: "\n").map(String.init)
        for expected in ["image/png", "image/jpeg", "image/bmp", "image/x-bmp", "image/x-ms-bmp", "image/tiff", "image/webp", "text/html", "text/rtf"] {
            XCTAssertTrue(types.contains(expected), "\(expected) not offered: \(types)")
        }
        XCTAssertFalse(types.contains("text/plain"), "an image offers no plain text")
        XCTAssertEqual(try run([wlPaste, "-t", "image/x-ms-bmp"]).stdout.prefix(2), Data("BM".utf8))
        XCTAssertEqual(try run([wlPaste, "-t", "image/webp"]).stdout.prefix(4), Data("RIFF".utf8))
        XCTAssertEqual(try run([wlCopy, "-t", "image/bmp"], inputFile: bmp, detached: true).status, 0)
        let converted = try run([pbctl, "paste", "--as", "png"])
        XCTAssertEqual(converted.status, 0, converted.stderr)
        XCTAssertEqual(converted.stdout.prefix(4), Data([0x89, 0x50, 0x4E, 0x47]))
        let jpeg = try run([pbctl, "paste", "--as", "jpeg"])
        XCTAssertEqual(jpeg.stdout.prefix(3), Data([0xFF, 0xD8, 0xFF]))
    }

    func testPbctlCopyOffersEveryRepresentationToWlPaste() throws {
        let markdown = "# Notes\n\nSome *emphasis*.\n"
        XCTAssertEqual(try run([pbctl, "copy", "--from", "markdown"], input: Data(markdown.utf8), timeout: 20).status, 0)
        let types = try run([wlPaste, "--list-types"]).text.split(separator: "\n").map(String.init)
        for expected in ["text/markdown", "text/html", "text/rtf", "text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "STRING", "TEXT"] {
            XCTAssertTrue(types.contains(expected), "\(expected) not offered: \(types)")
        }
        XCTAssertEqual(try run([wlPaste, "--no-newline"]).text, markdown)
        XCTAssertEqual(try run([wlPaste, "--no-newline", "-t", "text/html"]).text, "<h1>Notes</h1>\n<p>Some <em>emphasis</em>.</p>\n")
        XCTAssertTrue(try run([wlPaste, "-t", "text/rtf"]).text.hasPrefix("{\\rtf1"))
        XCTAssertEqual(try run([pbctl, "paste", "--type", "markdown"]).text, markdown)
        // `info` names the backend and why.
        var env = environment
        env["PBCTL_BACKEND"] = "auto"
        let info = try JSONSerialization.jsonObject(with: try run([pbctl, "info", "--json"], environment: env).stdout) as? [String: Any]
        XCTAssertEqual(info?["backend"] as? String, "wayland")
        XCTAssertTrue((info?["reason"] as? String)?.contains("data-control") == true)
    }

    func testHundredMegabytesBothWaysByteExact() throws {
        let big = scratch + "/big.bin"
        XCTAssertEqual(try run(["/bin/sh", "-c", "head -c 100000000 /dev/urandom > '\(big)'"]).status, 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: big))
        XCTAssertEqual(try run([wlCopy, "-t", "application/octet-stream"], inputFile: big, timeout: 60, detached: true).status, 0)
        let pasted = try run([pbctl, "paste", "--type", "application/octet-stream"], timeout: 60)
        XCTAssertEqual(pasted.status, 0, pasted.stderr)
        XCTAssertTrue(pasted.stdout == original, "pbctl paste of 100 MB differs (\(pasted.stdout.count) bytes)")
        XCTAssertEqual(try run([pbctl, "copy", "--type", "public.data", big], timeout: 60).status, 0)
        let back = try run([wlPaste, "-t", "application/octet-stream"], timeout: 60)
        XCTAssertTrue(back.stdout == original, "wl-paste of pbctl's 100 MB differs (\(back.stdout.count) bytes)")
    }

    func testPrimarySelectionBothWays() throws {
        let text = try write(Data("primary text".utf8), "p.txt")
        XCTAssertEqual(try run([wlCopy, "--primary"], inputFile: text, detached: true).status, 0)
        XCTAssertEqual(try run([pbctl, "paste", "--primary"]).text, "primary text")
        XCTAssertEqual(try run([pbctl, "copy", "--primary"], input: Data("from pbctl".utf8), timeout: 20).status, 0)
        XCTAssertEqual(try run([wlPaste, "--primary", "--no-newline"]).text, "from pbctl")
        XCTAssertNotEqual(try run([wlPaste, "--no-newline"]).text, "from pbctl", "the clipboard is not the primary selection")
    }

    /// The background owner serves until another client takes the selection, then exits; a stalled reader
    /// does not hold up another paste.
    func testOwnerLifecycleAndAStalledReader() throws {
        let marker = "pbctl-owner-\(UUID().uuidString.prefix(8))"
        let payload = scratch + "/payload.txt"
        XCTAssertEqual(try run(["/bin/sh", "-c", "head -c 30000000 /dev/urandom | base64 > '\(payload)'"]).status, 0)
        XCTAssertEqual(try run([pbctl, "copy", "--source", marker, payload], timeout: 20).status, 0)
        let running = { (try? self.run(["/usr/bin/pgrep", "-f", marker]).status) == 0 }
        XCTAssertTrue(running(), "no background owner")
        // A reader that stops reading (SIGSTOP) while another pastes.
        let stalled = try startPeer(["/bin/sh", "-c", "exec \(wlPaste) > /dev/null"], waitFor: nil)
        usleep(200_000)
        kill(stalled.child.pid, SIGSTOP)
        let small = try run([pbctl, "types"], timeout: 10)
        XCTAssertEqual(small.status, 0)
        let other = try run([pbctl, "paste"], timeout: 30)
        XCTAssertEqual(other.status, 0, "a stalled reader held up another paste: \(other.stderr)")
        XCTAssertEqual(other.stdout.count, try Data(contentsOf: URL(fileURLWithPath: payload)).count)
        kill(stalled.child.pid, SIGCONT)
        // Another client takes the selection: the owner exits.
        let text = try write(Data("taken".utf8), "taken.txt")
        XCTAssertEqual(try run([wlCopy], inputFile: text, detached: true).status, 0)
        XCTAssertTrue(eventually(timeout: 10) { !running() }, "the owner did not exit when the selection was taken")

        // --paste-once: the first paste gets the content, then the selection is given up.
        XCTAssertEqual(try run([pbctl, "copy", "--paste-once"], input: Data("only once".utf8), timeout: 20).status, 0)
        XCTAssertEqual(try run([wlPaste, "--no-newline"]).text, "only once")
        XCTAssertTrue(try eventually(timeout: 5) { try self.run([self.wlPaste]).status != 0 }, "still offered after one paste")
        // --clear-after: offered until the time is up, then cleared.
        XCTAssertEqual(try run([pbctl, "copy", "--clear-after", "1"], input: Data("for a second".utf8), timeout: 20).status, 0)
        XCTAssertEqual(try run([pbctl, "paste"]).text, "for a second")
        XCTAssertTrue(try eventually(timeout: 5) { try self.run([self.wlPaste]).status != 0 }, "still offered after --clear-after 1")
        // --foreground: served by the copy command itself until another client takes the selection.
        let served = try write(Data("served in the foreground".utf8), "foreground.txt")
        let foreground = try startPeer([pbctl, "copy", "--foreground", "--type", "txt", served], waitFor: nil)
        XCTAssertTrue(try eventually(timeout: 10) { try self.run([self.wlPaste, "--no-newline"]).text == "served in the foreground" })
        XCTAssertFalse(foreground.child.wait(timeout: 0.3), "copy --foreground returned while it owns the selection")
        XCTAssertEqual(try run([wlCopy], inputFile: text, detached: true).status, 0)
        XCTAssertTrue(foreground.child.wait(timeout: 10), "copy --foreground did not end when the selection was taken")
        XCTAssertEqual(foreground.child.status, 0)
    }

    /// When `copy` cannot fork (several threads; PBCTL_SPAWN_OWNER=1 forces it), a spawned pbctl
    /// (`__serve-wayland`) serves the same item the same way: every type, the primary selection, one paste.
    func testASpawnedOwnerServesLikeAForkedOne() throws {
        var env = environment
        env["PBCTL_SPAWN_OWNER"] = "1"
        XCTAssertEqual(try run([pbctl, "copy", "--from", "markdown"], input: Data("# Spawned\n".utf8), environment: env, timeout: 20).status, 0)
        XCTAssertTrue(try run(["/usr/bin/pgrep", "-f", "__serve-wayland"]).status == 0, "no spawned owner")
        XCTAssertEqual(try run([wlPaste, "--no-newline", "-t", "text/html"]).text, "<h1>Spawned</h1>\n")
        XCTAssertEqual(try run([wlPaste, "--no-newline", "-t", "text/markdown"]).text, "# Spawned\n")
        XCTAssertEqual(try run([pbctl, "paste"]).text, "# Spawned\n", "plain text of Markdown is its source, as from a forked owner")
        XCTAssertEqual(try run([pbctl, "copy", "--primary"], input: Data("spawned primary".utf8), environment: env, timeout: 20).status, 0)
        XCTAssertEqual(try run([wlPaste, "--primary", "--no-newline"]).text, "spawned primary")
        XCTAssertEqual(try run([pbctl, "copy", "--paste-once"], input: Data("spawned once".utf8), environment: env, timeout: 20).status, 0)
        XCTAssertEqual(try run([wlPaste, "--no-newline"]).text, "spawned once")
        XCTAssertTrue(try eventually(timeout: 5) { try self.run([self.wlPaste]).status != 0 }, "still offered after one paste")
    }

    /// wl-paste 2.1 (Debian 12) makes a round trip after asking for the content, and a `selection` of
    /// nothing arriving in it makes it print "No selection" instead of what it was sent. A paste-once
    /// owner that cleared the selection as soon as it had written lost about one paste in five to
    /// that; it now waits until the reader has taken the bytes. Forked and spawned owners, 15 each.
    func testPasteOnceIsReadEveryTime() throws {
        var spawned = environment
        spawned["PBCTL_SPAWN_OWNER"] = "1"
        for (round, env) in ([environment, spawned].flatMap { Array(repeating: $0, count: 15) }).enumerated() {
            let text = "once \(round)"
            XCTAssertEqual(try run([pbctl, "copy", "--paste-once"], input: Data(text.utf8), environment: env, timeout: 20).status, 0)
            let paste = try run([wlPaste, "--no-newline"])
            XCTAssertEqual(paste.text, text, "round \(round): \(paste.stderr)")
            XCTAssertTrue(try eventually(timeout: 5) { try self.run([self.wlPaste]).status != 0 }, "round \(round): still offered after one paste")
        }
    }

    /// `--clear-after` clears the selection when the time is up, but a paste that began in time still
    /// gets every byte (it was cut at what the pipes held: 196,608 of 10,000,000 bytes).
    func testAPasteBegunBeforeClearAfterGetsEverything() throws {
        let size = 10_000_000
        let big = try write(Data(repeating: UInt8(ascii: "x"), count: size), "big.txt")
        XCTAssertEqual(try run([pbctl, "copy", "--clear-after", "1", big], timeout: 20).status, 0)
        let slow = try run(["/bin/sh", "-c", "'\(wlPaste)' --no-newline | (sleep 1.6; wc -c)"], timeout: 20)
        XCTAssertEqual(slow.text.trimmingCharacters(in: .whitespacesAndNewlines), "\(size)", slow.stderr)
        XCTAssertTrue(try eventually(timeout: 5) { try self.run([self.wlPaste]).status != 0 }, "still offered after --clear-after 1")
    }

    func testSensitiveContentCarriesTheHint() throws {
        XCTAssertEqual(try run([pbctl, "copy", "--sensitive"], input: Data("hunter2".utf8), timeout: 20).status, 0)
        XCTAssertTrue(try run([wlPaste, "--list-types"]).text.contains("x-kde-passwordManagerHint"))
        XCTAssertEqual(try run([wlPaste, "-t", "x-kde-passwordManagerHint"]).text, "secret")
        XCTAssertTrue(try run([pbctl, "info"]).text.contains("flags:   sensitive"))
        XCTAssertEqual(try run([pbctl, "history"]).text, "", "sensitive content reached the history")
    }

    /// A watch outlives the bound on live offers: each replaced offer is destroyed, so change 70 is seen
    /// with its types like change 1 (before, changes after the 64th looked like a cleared clipboard).
    func testAWatchSeesChangesPastTheOfferBound() throws {
        let changes = 70
        let watch = try startPeer([pbctl, "watch", "--count", "\(changes)"], waitFor: nil)
        usleep(300_000)
        for k in 1...changes {
            XCTAssertEqual(try run([pbctl, "copy"], input: Data("change \(k)".utf8), timeout: 20).status, 0)
        }
        XCTAssertTrue(watch.child.wait(timeout: 20), "watch did not see \(changes) changes")
        let lines = String(decoding: readToEnd(watch.stdoutFD), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, changes)
        XCTAssertEqual(lines.filter { $0.contains("\tdata\t") }.count, changes, "\(lines.suffix(8))")
        XCTAssertEqual(try run([pbctl, "paste"]).text, "change \(changes)")
    }

    func testClearWatchAndAMissingCompositor() throws {
        let text = try write(Data("to clear".utf8), "c.txt")
        XCTAssertEqual(try run([wlCopy], inputFile: text, detached: true).status, 0)
        XCTAssertEqual(try run([pbctl, "clear"]).status, 0)
        XCTAssertNotEqual(try run([wlPaste]).status, 0, "the selection was not cleared")
        // watch: one line per change, like on X11.
        let watch = try startPeer([pbctl, "watch", "--count", "2"], waitFor: nil)
        usleep(300_000)
        XCTAssertEqual(try run([wlCopy], inputFile: text, detached: true).status, 0)
        usleep(200_000)
        XCTAssertEqual(try run([pbctl, "clear"]).status, 0)
        XCTAssertTrue(watch.child.wait(timeout: 10), "watch did not end after two changes")
        let lines = String(decoding: readToEnd(watch.stdoutFD), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(lines.first?.contains("\tdata\tpublic.utf8-plain-text") == true, "\(lines)")
        XCTAssertTrue(lines.last?.contains("\tnil\t-") == true, "\(lines)")
        // No compositor there: exit 69 with --backend wayland; auto falls back to X11 and says why.
        var env = environment
        env["WAYLAND_DISPLAY"] = scratch + "/no-such-socket"
        let missing = try run([pbctl, "paste"], environment: env)
        XCTAssertEqual(missing.status, 69, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("no Wayland compositor"), missing.stderr)
        env["PBCTL_BACKEND"] = "auto"
        let info = try JSONSerialization.jsonObject(with: try run([pbctl, "info", "--json"], environment: env).stdout) as? [String: Any]
        XCTAssertEqual(info?["backend"] as? String, "x11")
        XCTAssertTrue((info?["reason"] as? String)?.contains("Wayland skipped") == true, "\(String(describing: info))")
    }

    /// `pbctl daemon` on Wayland: keeps every type when the owner exits, records the history, never keeps
    /// sensitive content, runs once per compositor, and serves the newest entry again after a restart.
    func testDaemonKeepsTheClipboardAndRecordsHistory() throws {
        // The detached daemon's log, shown when the test fails.
        let log = scratch + "/daemon.log"
        daemonLog = log
        defer {
            if (testRun?.failureCount ?? 0) > 0, let text = try? String(contentsOfFile: log, encoding: .utf8) {
                print("daemon log:\n" + text)
            }
        }
        XCTAssertEqual(try run([pbctl, "daemon", "--status"]).status, 1)
        XCTAssertEqual(try run([pbctl, "daemon", "--detach"], timeout: 20, detached: true).status, 0)
        defer { _ = try? run(["/usr/bin/pkill", "-f", "__daemon --wayland"]) }
        let status = try run([pbctl, "daemon", "--status"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let second = try run([pbctl, "daemon"], timeout: 10)
        XCTAssertEqual(second.status, 69, "a second daemon on the same compositor: \(second.stderr)")
        XCTAssertTrue(second.stderr.contains("already running"), second.stderr)

        // A copy from wl-copy is recorded.
        let text = try write(Data("from wl-copy".utf8), "w.txt")
        XCTAssertEqual(try run([wlCopy], inputFile: text, detached: true).status, 0)
        XCTAssertTrue(try eventually(timeout: 10) { try self.run([self.pbctl, "history"]).text.contains("from wl-copy") })

        // pbctl's owner killed: the daemon offers every type again.
        let marker = "pbctl-daemon-\(UUID().uuidString.prefix(8))"
        XCTAssertEqual(try run([pbctl, "copy", "--from", "markdown", "--source", marker], input: Data("# Kept\n".utf8), timeout: 20).status, 0)
        XCTAssertTrue(try eventually(timeout: 10) { try self.run([self.pbctl, "history"]).text.contains("# Kept") })
        XCTAssertEqual(try run(["/usr/bin/pkill", "-f", marker]).status, 0)
        XCTAssertTrue(try eventually(timeout: 10) {
            try self.run([self.wlPaste, "--no-newline", "-t", "text/html"]).text == "<h1>Kept</h1>\n"
        }, "the daemon did not offer the content again")
        let types = try run([wlPaste, "--list-types"]).text
        XCTAssertTrue(types.contains("text/markdown") && types.contains("text/rtf"), types)

        // Sensitive content: not recorded, not kept; its owner gone, the clipboard stays empty.
        let before = try run([pbctl, "history"]).text
        let secret = "pbctl-secret-\(UUID().uuidString.prefix(8))"
        XCTAssertEqual(try run([pbctl, "copy", "--sensitive", "--source", secret], input: Data("hunter2".utf8), timeout: 20).status, 0)
        usleep(500_000)
        XCTAssertEqual(try run([pbctl, "history"]).text, before, "sensitive content reached the history")
        XCTAssertEqual(try run(["/usr/bin/pkill", "-f", secret]).status, 0)
        usleep(500_000)
        XCTAssertNotEqual(try run([wlPaste]).text, "hunter2")
        XCTAssertFalse(try run([pbctl, "history", "search", "hunter2"]).text.contains("hunter2"))

        // Stopped and started again on an empty clipboard: the newest entry is served.
        XCTAssertEqual(try run(["/usr/bin/pkill", "-f", "__daemon --wayland"]).status, 0)
        XCTAssertTrue(try eventually(timeout: 10) { (try? self.run([self.pbctl, "daemon", "--status"]).status) == 1 })
        XCTAssertEqual(try run([pbctl, "clear"]).status, 0)
        XCTAssertEqual(try run([pbctl, "daemon", "--detach"], timeout: 20, detached: true).status, 0)
        XCTAssertTrue(try eventually(timeout: 10) { try self.run([self.pbctl, "paste", "--type", "markdown"]).text == "# Kept\n" },
                      "the newest entry was not served after a restart")
    }

    /// `pbctl daemon --primary` on Wayland: keeps the clipboard and the primary selection at once (two
    /// sources served by one process), records both in the history, and still hands each over to a new
    /// owner.
    func testDaemonWithPrimaryKeepsBothSelections() throws {
        let log = scratch + "/daemon.log"
        daemonLog = log
        defer {
            if (testRun?.failureCount ?? 0) > 0, let text = try? String(contentsOfFile: log, encoding: .utf8) {
                print("daemon log:\n" + text)
            }
        }
        XCTAssertEqual(try run([pbctl, "daemon", "--detach", "--primary"], timeout: 20, detached: true).status, 0)
        defer { _ = try? run(["/usr/bin/pkill", "-f", "__daemon --wayland"]) }
        let marker = "pbctl-both-\(UUID().uuidString.prefix(8))"
        XCTAssertEqual(try run([pbctl, "copy", "--source", marker], input: Data("clipboard kept".utf8), timeout: 20).status, 0)
        XCTAssertEqual(try run([pbctl, "copy", "--primary", "--source", marker], input: Data("primary kept".utf8), timeout: 20).status, 0)
        XCTAssertTrue(try eventually(timeout: 10) { try self.run([self.pbctl, "history"]).text.contains("primary kept") },
                      "the primary selection was not recorded")
        XCTAssertTrue(try run([pbctl, "history"]).text.contains("clipboard kept"))
        // Both owners gone at once: the daemon offers both again.
        XCTAssertEqual(try run(["/usr/bin/pkill", "-f", marker]).status, 0)
        XCTAssertTrue(try eventually(timeout: 10) {
            try self.run([self.wlPaste, "--no-newline"]).text == "clipboard kept"
                && self.run([self.wlPaste, "--primary", "--no-newline"]).text == "primary kept"
        }, "the daemon did not offer both selections again")
        // Several pastes of both while the daemon serves them.
        for _ in 0..<5 {
            XCTAssertEqual(try run([pbctl, "paste", "--primary"]).text, "primary kept")
            XCTAssertEqual(try run([pbctl, "paste"]).text, "clipboard kept")
        }
        // A new primary owner takes over; its content is kept in turn when it exits.
        let newer = "pbctl-newer-\(UUID().uuidString.prefix(8))"
        XCTAssertEqual(try run([pbctl, "copy", "--primary", "--source", newer], input: Data("newer primary".utf8), timeout: 20).status, 0)
        XCTAssertTrue(try eventually(timeout: 10) { try self.run([self.pbctl, "history"]).text.contains("newer primary") })
        XCTAssertEqual(try run(["/usr/bin/pkill", "-f", newer]).status, 0)
        XCTAssertTrue(try eventually(timeout: 10) { try self.run([self.wlPaste, "--primary", "--no-newline"]).text == "newer primary" })
        XCTAssertEqual(try run([wlPaste, "--no-newline"]).text, "clipboard kept", "the clipboard was disturbed")
    }

    /// Writes `lines` into `$XDG_CONFIG_HOME/pbctl/config` under the scratch folder; the environment a
    /// daemon reads it with.
    func configure(_ lines: String) throws -> [String: String] {
        let config = scratch + "/config"
        try FileManager.default.createDirectory(atPath: config + "/pbctl", withIntermediateDirectories: true)
        try Data(lines.utf8).write(to: URL(fileURLWithPath: config + "/pbctl/config"))
        return ["XDG_CONFIG_HOME": config]
    }

    /// Starts `pbctl daemon` in the foreground (ended by its pid when the test ends) and waits until it runs.
    func startForegroundDaemon(environment extra: [String: String]) throws -> Spawned {
        // A daemon an earlier test stopped (pkill returns at once) may still hold the compositor's lock.
        XCTAssertTrue(try eventually(timeout: 10) { try run([pbctl, "daemon", "--status"]).status != 0 }, "an earlier daemon still runs")
        let daemon = try startPeer([pbctl, "daemon", "--verbose"], environment: extra, waitFor: nil)
        let started = try eventually(timeout: 10) { try run([pbctl, "daemon", "--status"]).status == 0 }
        XCTAssertTrue(started, "the daemon did not start: \(stderrText(daemon))")
        return daemon
    }

    /// The history's records as `pbctl history --json` lists them, newest first (with the selection
    /// when it is not the clipboard).
    func historyIndex() throws -> [[String: Any]] {
        let listed = try run([pbctl, "history", "--json"])
        guard listed.status == 0 else { throw NSError(domain: "history", code: Int(listed.status), userInfo: [NSLocalizedDescriptionKey: listed.stderr]) }
        return try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]] ?? []
    }

    /// A copy over `history.max-entry-size`: the daemon does not keep it, but its owner is never left
    /// stalled (the pipe is read to its end, or closed), every reader still gets it, and the history
    /// lists it as skipped with its size.
    func testDaemonListsAnOverCapCopyAsSkippedWithItsSize() throws {
        let daemon = try startForegroundDaemon(environment: try configure("history.max-entry-size = 1M\n"))
        let size = 3 << 20
        let content = Data((0..<size).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        let big = try write(content, "big.txt")
        XCTAssertEqual(try run([wlCopy], inputFile: big, detached: true).status, 0)
        let listed = try eventually(timeout: 10) { try run([pbctl, "history"]).text.contains("not kept") }
        XCTAssertTrue(listed, "not listed: \((try? run([pbctl, "history"]).text) ?? "")\n\(stderrText(daemon))")
        let pasted = try run([wlPaste, "--no-newline"], timeout: 5)
        XCTAssertTrue(pasted.stdout == content, "wl-paste got \(pasted.stdout.count) bytes: \(pasted.stderr)")
        let paste = try run([pbctl, "paste"], timeout: 5)
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertTrue(paste.stdout == content, "pbctl paste got \(paste.stdout.count) bytes")
        let json = try JSONSerialization.jsonObject(with: try run([pbctl, "history", "--json"]).stdout) as? [[String: Any]]
        XCTAssertEqual(json?.count, 1, "\(String(describing: json))")
        let skipped = json?.first?["skipped"] as? [[String: Any]] ?? []
        XCTAssertEqual(skipped.map { $0["type"] as? String }, ["public.utf8-plain-text"], "\(String(describing: json))")
        XCTAssertEqual(skipped.first?["size"] as? Int, size)
        XCTAssertEqual((json?.first?["types"] as? [Any])?.count, 0, "nothing over the cap is kept")
    }

    /// `history.primary = yes` without `--primary`: the primary selection is recorded, but not offered
    /// again when its owner goes away (that is `--primary`'s job).
    func testHistoryPrimaryRecordsThePrimarySelectionWithoutRestoringIt() throws {
        let daemon = try startForegroundDaemon(environment: try configure("history.primary = yes\n"))
        let owner = try startPeer([wlCopy, "--foreground", "--primary", "primary recorded"], waitFor: nil)
        let recorded = eventually(timeout: 10) {
            ((try? historyIndex()) ?? []).contains { $0["preview"] as? String == "primary recorded" }
        }
        XCTAssertTrue(recorded, "not recorded: \((try? run([pbctl, "history"]).text) ?? "")\n\(stderrText(daemon))")
        let entry = try historyIndex().first { $0["preview"] as? String == "primary recorded" }
        XCTAssertEqual(entry?["selection"] as? String, "primary")
        XCTAssertEqual(try run([wlPaste, "--primary", "--no-newline"]).text, "primary recorded")
        // Its owner gone, the primary selection stays empty.
        owner.kill()
        XCTAssertTrue(try eventually(timeout: 5) { try run([wlPaste, "--primary"]).status != 0 }, "the primary selection was not cleared")
        usleep(1_000_000)
        let after = try run([wlPaste, "--primary", "--no-newline"])
        XCTAssertNotEqual(after.status, 0, "offered again without --primary: \(after.text)")
        XCTAssertTrue(daemon.child.isRunning)
    }

    /// `pbctl paste` on Wayland takes a fast path (no type registry) when a plain-text MIME type is
    /// offered; it must answer exactly as the full paste (`-v` goes the full way).
    func testFastPasteAgreesWithTheFullPaste() throws {
        func assertSameAnswer(_ label: String, line: UInt = #line) throws {
            let fast = try run([pbctl, "paste"])
            let full = try run([pbctl, "paste", "-v"])
            XCTAssertEqual(fast.status, full.status, "\(label): exit status", line: line)
            XCTAssertEqual(fast.stdout, full.stdout, "\(label): the fast path and the full paste differ", line: line)
            XCTAssertEqual(fast.status, 0, "\(label): \(fast.stderr)", line: line)
        }
        let text = try write(Data("naïve café — ünïcode\n".utf8), "text.txt")
        XCTAssertEqual(try run([wlCopy], inputFile: text, detached: true).status, 0)
        try assertSameAnswer("wl-copy text")
        let html = try write(Data("<p>only <b>html</b></p>".utf8), "only.html")
        XCTAssertEqual(try run([wlCopy, "-t", "text/html"], inputFile: html, detached: true).status, 0)
        try assertSameAnswer("text/html only")
        XCTAssertEqual(try run([pbctl, "copy", "--type", "markdown"], input: Data("# T\n\n*x*\n".utf8), timeout: 20).status, 0)
        try assertSameAnswer("pbctl Markdown owner")
        XCTAssertEqual(try run([pbctl, "copy", "--type", "public.rtf"], input: Data("{\\rtf1 Hello \\b bold\\b0.}".utf8), timeout: 20).status, 0)
        try assertSameAnswer("pbctl RTF owner")
        // With DISPLAY set as well (Xwayland), auto still means Wayland, fast path or not.
        var both = environment
        both["PBCTL_BACKEND"] = "auto"
        XCTAssertEqual(try run([pbctl, "paste"], environment: both).stdout, try run([pbctl, "paste", "-v"], environment: both).stdout)
    }

    // MARK: Kept images, owners gone mid-transfer, paste-once, the change count

    /// A kept image gets every format a copy of it would: wl-copy offering only image/jpeg is killed,
    /// and the daemon offers PNG (decoded here by ImageMagick, same size), WebP, BMP and TIFF as well.
    func testAKeptJPEGIsServedInEveryImageFormat() throws {
        try requireTool("/usr/bin/convert")
        try requireTool("/usr/bin/identify")
        let daemon = try startForegroundDaemon(environment: [:])
        let picture = scratch + "/pic.jpg"
        XCTAssertEqual(try run(["/usr/bin/convert", "-size", "40x30", "gradient:red-blue", picture]).status, 0)
        let owner = try startPeer(["/bin/sh", "-c", "exec \(wlCopy) --foreground -t image/jpeg < '\(picture)'"], waitFor: nil)
        XCTAssertTrue(try eventually(timeout: 10) { try run([pbctl, "history"]).text.contains("[image/jpeg 40×30") },
                      "the daemon did not record the JPEG: \(stderrText(daemon))")
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(owner.child.wait(timeout: 5))
        XCTAssertTrue(try eventually(timeout: 10) { try run([wlPaste, "--list-types"]).text.contains("image/png") },
                      "the kept JPEG is not offered as PNG: \(stderrText(daemon))")
        let types = try run([wlPaste, "--list-types"]).text.split(separator: "\n").map(String.init)
        for expected in ["image/jpeg", "image/png", "image/webp", "image/bmp", "image/tiff"] {
            XCTAssertTrue(types.contains(expected), "\(expected) not offered: \(types)")
        }
        let png = scratch + "/out.png"
        XCTAssertEqual(try run([wlPaste, "-t", "image/png"], outputFile: png, timeout: 20).status, 0)
        XCTAssertEqual(try run(["/usr/bin/identify", "-format", "%m %w %h", png]).text, "PNG 40 30")
        XCTAssertEqual(try run([wlPaste, "-t", "image/jpeg"]).stdout, try Data(contentsOf: URL(fileURLWithPath: picture)), "the original changed")
    }

    /// `count` bytes of text lines in a file of the scratch folder.
    func bigText(_ count: Int, _ name: String) throws -> (path: String, data: Data) {
        var block = Data()
        for index in 0..<30_000 { block.append(Data("line \(index) of the big text, 0123456789\n".utf8)) }
        var data = Data(capacity: count)
        while data.count < count { data.append(block.prefix(count - data.count)) }
        return (try write(data, name), data)
    }

    /// The state letter of `pid` (/proc/PID/stat: R, S, T…), nil when it is gone.
    func processState(_ pid: pid_t) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[close...].dropFirst(2).first
    }

    /// The bytes `pid` has written so far (/proc/PID/io wchar).
    func bytesWritten(_ pid: pid_t) -> Int {
        let io = (try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)) ?? ""
        return io.split(separator: "\n").first { $0.hasPrefix("wchar:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    /// `pbctl copy --foreground PATH` whose writes strace delays by 0.1 s each (the owner writes in
    /// chunks of at most 1 MiB): a transfer of tens of megabytes lasts seconds, so the owner can be
    /// killed after a given amount has gone, not at a moment guessed. The owner's own pid.
    func startSlowOwner(_ path: String) throws -> pid_t {
        try requireTool("/usr/bin/strace")
        let tracer = try startPeer(
            ["/usr/bin/strace", "-f", "-o", "/dev/null", "-e", "trace=write", "-e", "inject=write:delay_enter=100000",
             pbctl, "copy", "--foreground", path], waitFor: nil)
        var owner: pid_t?
        XCTAssertTrue(eventually(timeout: 10) {
            // strace forks short-lived children of its own to probe ptrace: the owner is the one running pbctl.
            let children = (try? String(contentsOfFile: "/proc/\(tracer.child.pid)/task/\(tracer.child.pid)/children", encoding: .utf8)) ?? ""
            owner = children.split(separator: " ").compactMap { pid_t($0) }.first { pid in
                ((try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "").hasPrefix(pbctl + "\0copy\0")
            }
            return owner != nil
        }, "strace started no owner")
        let pid = try XCTUnwrap(owner)
        addTeardownBlock { kill(pid, SIGKILL) }
        return pid
    }

    /// The owner killed while `pbctl paste` writes into a pipe whose reader took 1 MiB and stopped: the
    /// paste exits 69 saying the content may be cut short. The reader (Python) stops itself after 1 MiB,
    /// so the owner is blocked mid-write when it is killed.
    func testAPasteWhoseOwnerIsKilledMidTransferExits69() throws {
        try requireTool(python)
        let (big, _) = try bigText(50_000_000, "big.txt")
        let owner = try startPeer([pbctl, "copy", "--foreground", big], waitFor: nil)
        XCTAssertTrue(try eventually(timeout: 20) { try run([wlPaste, "--list-types"]).text.contains("text/plain") }, "the owner never took the selection")
        let reader = try write(Data("""
            import os, signal, sys
            mark, count = sys.argv[1], sys.argv[2]
            total = len(sys.stdin.buffer.read(1 << 20))
            with open(mark + ".tmp", "w") as f:
                f.write(str(os.getpid()))
            os.rename(mark + ".tmp", mark)
            os.kill(os.getpid(), signal.SIGSTOP)
            while True:
                chunk = sys.stdin.buffer.read(1 << 16)
                if not chunk:
                    break
                total += len(chunk)
            with open(count, "w") as f:
                f.write(str(total))

            """.utf8), "reader.py")
        let (mark, count, status, errors) = (scratch + "/reader.pid", scratch + "/count", scratch + "/status", scratch + "/err")
        let pipeline = try startPeer(
            ["/bin/bash", "-c", "{ '\(pbctl)' paste 2>'\(errors)'; echo $? > '\(status)'; } | '\(python)' '\(reader)' '\(mark)' '\(count)'"],
            waitFor: nil)
        var readerPID: pid_t?
        defer {
            if let readerPID {
                kill(readerPID, SIGKILL)
                kill(readerPID, SIGCONT)
            }
        }
        XCTAssertTrue(eventually(timeout: 30) {
            readerPID = (try? String(contentsOfFile: mark, encoding: .utf8)).flatMap { pid_t($0) }
            return readerPID.map { processState($0) == "T" } ?? false
        }, "the reader never took its first MiB")
        let stopped = try XCTUnwrap(readerPID)
        // The reader holds still, the pipes are full: the owner is blocked mid-write when it dies.
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(owner.child.wait(timeout: 5))
        kill(stopped, SIGCONT)
        XCTAssertTrue(pipeline.child.wait(timeout: 60), "the paste did not end")
        XCTAssertEqual(try String(contentsOfFile: status, encoding: .utf8), "69\n")
        let message = try String(contentsOfFile: errors, encoding: .utf8)
        XCTAssertTrue(message.contains("cut short"), message)
        let received = Int((try? String(contentsOfFile: count, encoding: .utf8)) ?? "") ?? -1
        XCTAssertGreaterThanOrEqual(received, 1 << 20)
        XCTAssertLessThan(received, 50_000_000, "the owner was not killed mid-transfer")
    }

    /// The same with `paste -o out.txt`: the owner (slowed by strace) killed once the temporary file holds
    /// 1 MiB; the paste exits 69 and leaves neither out.txt nor its temporary file. Five rounds: the
    /// paste meets the end of data right as the owner dies, each time.
    func testAPasteIntoAFileWhoseOwnerIsKilledMidTransferLeavesNothing() throws {
        let (big, _) = try bigText(50_000_000, "big.txt")
        let output = scratch + "/out.txt"
        func leftovers() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? []).filter { $0.hasPrefix("out.txt") } }
        for round in 1...5 {
            let owner = try startSlowOwner(big)
            XCTAssertTrue(try eventually(timeout: 20) { try run([wlPaste, "--list-types"]).text.contains("text/plain") }, "the owner never took the selection")
            let paste = try startPeer([pbctl, "paste", "-o", output], waitFor: nil)
            XCTAssertTrue(eventually(timeout: 30) {
                leftovers().contains { name in
                    var info = stat()
                    return name.hasSuffix("-partial") && stat(scratch + "/" + name, &info) == 0 && info.st_size >= 1 << 20
                }
            }, "round \(round): the paste never received 1 MiB: \(leftovers())")
            XCTAssertEqual(kill(owner, SIGKILL), 0)
            XCTAssertTrue(paste.child.wait(timeout: 60), "round \(round): the paste did not end")
            let message = String(decoding: readToEnd(paste.stderrFD), as: UTF8.self)
            var info = stat()
            let written = stat(output, &info) == 0 ? Int(info.st_size) : -1
            XCTAssertEqual(paste.child.status, 69, "round \(round): out.txt holds \(written) of 50000000 bytes: \(message)")
            XCTAssertTrue(message.contains("cut short"), "round \(round): \(message)")
            XCTAssertEqual(leftovers(), [], "round \(round): paste -o left a file behind")
            try? FileManager.default.removeItem(atPath: output)
        }
    }

    /// The daemon reading an owner of 49 MB of text that is killed mid-fetch keeps nothing of it: no
    /// truncated text is served, the content it replaced is not served again, and the history lists
    /// the entry as not kept, saying why. Three rounds.
    func testTheDaemonKeepsNothingOfAnOwnerKilledMidFetch() throws {
        let daemon = try startForegroundDaemon(environment: [:])
        let (big, content) = try bigText(49_000_000, "big.txt")
        for round in 1...3 {
            let earlier = try write(Data("earlier text \(round)".utf8), "earlier.txt")
            XCTAssertEqual(try run([wlCopy], inputFile: earlier, detached: true).status, 0)
            XCTAssertTrue(try eventually(timeout: 10) { try run([pbctl, "history", "--limit", "1"]).text == "\(2 * round - 1)\tearlier text \(round)\n" },
                          "round \(round): \(stderrText(daemon))")
            let owner = try startSlowOwner(big)
            // The daemon is fetching it: the owner has written 2 MiB of the 49 MB.
            XCTAssertTrue(eventually(timeout: 30) { bytesWritten(owner) >= 2 << 20 }, "round \(round): the daemon never fetched from the owner: \(stderrText(daemon))")
            XCTAssertEqual(kill(owner, SIGKILL), 0)
            let expected = "\(2 * round)\t[not kept: text/plain;charset=utf-8, its owner went away before sending all of it]\n\(2 * round - 1)\tearlier text \(round)\n"
            XCTAssertTrue(try eventually(timeout: 20) { try run([pbctl, "history", "--limit", "2"]).text == expected },
                          "round \(round): history: \((try? run([pbctl, "history", "--limit", "2"]).text.prefix(300)) ?? "")\n\(stderrText(daemon))")
            XCTAssertTrue(daemon.child.isRunning)
            let paste = try run([pbctl, "paste"], timeout: 20)
            XCTAssertNotEqual(paste.text, "earlier text \(round)", "round \(round): the replaced content was served again")
            if paste.status == 0 {
                XCTAssertFalse(paste.stdout.isEmpty || content.starts(with: paste.stdout), "round \(round): a truncated text is served (\(paste.stdout.count) bytes)")
            }
            let listed = try run([wlPaste, "--no-newline"], timeout: 20)
            XCTAssertFalse(listed.status == 0 && content.starts(with: listed.stdout), "round \(round): wl-paste gets a truncated text (\(listed.stdout.count) bytes)")
        }
    }

    /// Owners that clear the selection on purpose after one paste are no owners gone mid-write:
    /// `wl-copy -o` (it writes, then gives up the selection) ten times in a row, and pbctl's own
    /// `--paste-once` of 20 MB, read whole.
    func testWlCopyPasteOnceIsReadWholeEveryTime() throws {
        for round in 1...10 {
            XCTAssertEqual(try run([wlCopy, "-o", "once \(round)"], detached: true).status, 0)
            let paste = try run([pbctl, "paste"])
            XCTAssertEqual(paste.status, 0, "round \(round): \(paste.stderr)")
            XCTAssertEqual(paste.text, "once \(round)", "round \(round)")
        }
    }

    func testPbctlPasteOnceOfTwentyMegabytesIsReadWhole() throws {
        let (big, content) = try bigText(20_000_000, "big.txt")
        XCTAssertEqual(try run([pbctl, "copy", "--paste-once", big], timeout: 20).status, 0)
        let paste = try run([pbctl, "paste"], timeout: 60)
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertTrue(paste.stdout == content, "pasted \(paste.stdout.count) of \(content.count) bytes")
        XCTAssertTrue(try eventually(timeout: 5) { try run([wlPaste]).status != 0 }, "still offered after one paste")
    }

    /// An owner that stops answering (SIGSTOP) while the daemon fetches from it holds no newer copy
    /// back: the newer selection ends that fetch and is fetched at once, kept and recorded, and offered
    /// again once its owner exits. Each wait of a fetch may last ten minutes here
    /// (`PBCTL_WAYLAND_TIMEOUT`), so only the newer selection can end the stalled one in the test's time.
    func testANewerCopySupersedesAFetchFromAStalledOwner() throws {
        let stalled = try startPeer([wlCopy, "--foreground", "the stalled owner's text"], waitFor: nil)
        addTeardownBlock {
            kill(stalled.child.pid, SIGKILL)
            kill(stalled.child.pid, SIGCONT)
        }
        XCTAssertTrue(try eventually(timeout: 10) { try run([wlPaste, "--list-types"]).text.contains("text/plain") }, "wl-copy never took the selection")
        XCTAssertEqual(kill(stalled.child.pid, SIGSTOP), 0)
        let daemon = try startForegroundDaemon(environment: ["PBCTL_WAYLAND_TIMEOUT": "600"])
        // The daemon asks the stopped owner for its text at start, and waits.
        XCTAssertTrue(eventually(timeout: 10) { stderrText(daemon).contains("fetching the clipboard") }, stderrText(daemon))
        for round in 1...2 {
            let newer = try startPeer([wlCopy, "--foreground", "newer text \(round)"], waitFor: nil)
            XCTAssertTrue(try eventually(timeout: 20) { try run([pbctl, "history", "--limit", "1"]).text == "\(round)\tnewer text \(round)\n" },
                          "round \(round): the newer copy was not recorded: \(stderrText(daemon))")
            // Its owner exits: the daemon offers what it kept.
            kill(newer.child.pid, SIGTERM)
            XCTAssertTrue(newer.child.wait(timeout: 10))
            XCTAssertTrue(try eventually(timeout: 10) { try run([wlPaste, "--no-newline"]).text == "newer text \(round)" },
                          "round \(round): the newer copy was not kept: \(stderrText(daemon))")
        }
        XCTAssertEqual(try run([pbctl, "history"]).text, "2\tnewer text 2\n1\tnewer text 1\n", "the stalled owner's text was recorded")
        XCTAssertTrue(daemon.child.isRunning)
    }

    /// The clipboard never waits on the primary selection: with `history.primary`, a primary owner that
    /// stopped answering while the daemon fetches from it holds back no clipboard copy.
    func testANewClipboardSupersedesAFetchFromAStalledPrimaryOwner() throws {
        let stalled = try startPeer([wlCopy, "--foreground", "--primary", "the stalled primary owner's text"], waitFor: nil)
        addTeardownBlock {
            kill(stalled.child.pid, SIGKILL)
            kill(stalled.child.pid, SIGCONT)
        }
        XCTAssertTrue(try eventually(timeout: 10) { try run([wlPaste, "--primary", "--list-types"]).text.contains("text/plain") }, "wl-copy never took the primary selection")
        XCTAssertEqual(kill(stalled.child.pid, SIGSTOP), 0)
        var environment = try configure("history.primary = yes\n")
        environment["PBCTL_WAYLAND_TIMEOUT"] = "600"
        let daemon = try startForegroundDaemon(environment: environment)
        XCTAssertTrue(eventually(timeout: 10) { stderrText(daemon).contains("fetching the primary selection") }, stderrText(daemon))
        let copier = try startPeer([wlCopy, "--foreground", "clipboard while primary stalls"], waitFor: nil)
        XCTAssertTrue(try eventually(timeout: 20) { try run([pbctl, "history", "--limit", "1"]).text == "1\tclipboard while primary stalls\n" },
                      "the clipboard copy waited on the primary selection: \(stderrText(daemon))")
        kill(copier.child.pid, SIGTERM)
        XCTAssertTrue(copier.child.wait(timeout: 10))
        XCTAssertTrue(try eventually(timeout: 10) { try run([wlPaste, "--no-newline"]).text == "clipboard while primary stalls" },
                      "the clipboard copy was not kept: \(stderrText(daemon))")
        XCTAssertTrue(daemon.child.isRunning)
    }

    /// The daemon fetching 49 MB from an owner killed mid-fetch while the compositor is stopped (it
    /// notices the owner's death 300 ms late, as a loaded machine's does): nothing of it is kept,
    /// served or recorded as whole, in every round.
    func testAnOwnerKilledWhileTheCompositorIsSlowToNoticeIsNotKept() throws {
        let daemon = try startForegroundDaemon(environment: [:])
        let (big, content) = try bigText(49_000_000, "big.txt")
        let sway = Self.swayPID
        XCTAssertGreaterThan(sway, 0)
        for round in 1...4 {
            let earlier = try write(Data("earlier text \(round)".utf8), "earlier.txt")
            XCTAssertEqual(try run([wlCopy], inputFile: earlier, detached: true).status, 0)
            XCTAssertTrue(try eventually(timeout: 10) { try run([pbctl, "history", "--limit", "1"]).text == "\(2 * round - 1)\tearlier text \(round)\n" },
                          "round \(round): \(stderrText(daemon))")
            let owner = try startSlowOwner(big)
            XCTAssertTrue(eventually(timeout: 30) { bytesWritten(owner) >= 2 << 20 }, "round \(round): the daemon never fetched from the owner: \(stderrText(daemon))")
            // The compositor stopped as the owner dies: it learns of the death only when it runs again.
            XCTAssertEqual(kill(sway, SIGSTOP), 0)
            kill(owner, SIGKILL)
            usleep(300_000)
            XCTAssertEqual(kill(sway, SIGCONT), 0)
            let expected = "\(2 * round)\t[not kept: text/plain;charset=utf-8, its owner went away before sending all of it]\n\(2 * round - 1)\tearlier text \(round)\n"
            XCTAssertTrue(try eventually(timeout: 20) { try run([pbctl, "history", "--limit", "2"]).text == expected },
                          "round \(round): history: \((try? run([pbctl, "history", "--limit", "2"]).text.prefix(300)) ?? "")\n\(stderrText(daemon))")
            XCTAssertTrue(daemon.child.isRunning)
            let listed = try run([wlPaste, "--no-newline"], timeout: 20)
            XCTAssertFalse(listed.status == 0 && content.starts(with: listed.stdout), "round \(round): wl-paste gets a truncated text (\(listed.stdout.count) bytes)")
        }
    }

    /// wl-copy (its writes slowed by strace) and the `cat` it forks for each paste, killed one after the
    /// other mid-fetch, as a session ending kills them: the compositor reports the selection cleared
    /// while `cat` still holds the pipe, then the pipe ends. That is no writer that outlived its
    /// selection but a text cut short: nothing of it is kept, served or recorded as whole.
    func testAnOwnerAndItsWriterKilledMidFetchAreNotKept() throws {
        try requireTool("/usr/bin/strace")
        let daemon = try startForegroundDaemon(environment: [:])
        let (big, content) = try bigText(49_000_000, "big.txt")
        for round in 1...2 {
            let earlier = try write(Data("earlier text \(round)".utf8), "earlier.txt")
            XCTAssertEqual(try run([wlCopy], inputFile: earlier, detached: true).status, 0)
            XCTAssertTrue(try eventually(timeout: 10) { try run([pbctl, "history", "--limit", "1"]).text == "\(2 * round - 1)\tearlier text \(round)\n" },
                          "round \(round): \(stderrText(daemon))")
            let tracer = try startPeer(
                ["/bin/sh", "-c", "exec /usr/bin/strace -f -o /dev/null -e trace=write -e inject=write:delay_enter=100000 '\(wlCopy)' --foreground < '\(big)'"],
                waitFor: nil)
            func children(_ pid: pid_t) -> [pid_t] {
                ((try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { pid_t($0) }
            }
            func command(_ pid: pid_t) -> String { (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "" }
            // The `cat` that serves a paste writes into a pipe; wl-copy may also run one that copies its
            // standard input into a temporary file first, which is not the writer this test kills.
            func writesIntoAPipe(_ pid: pid_t) -> Bool {
                ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/1")) ?? "").hasPrefix("pipe:")
            }
            var owner: pid_t?
            var writer: pid_t?
            // The daemon is fetching: wl-copy's `cat` has written 2 MiB of the 49 MB. (wl-copy first
            // copies its input into a file with a `cat` of its own, which strace slows too where that
            // `cat` writes rather than copying in the kernel: give it time.)
            XCTAssertTrue(eventually(timeout: 120) {
                owner = children(tracer.child.pid).first { command($0).hasPrefix("wl-copy") }
                writer = owner.flatMap { children($0).first { command($0).hasPrefix("cat") && writesIntoAPipe($0) } }
                return writer.map { bytesWritten($0) >= 2 << 20 } ?? false
            }, "round \(round): the daemon never fetched from wl-copy: \(stderrText(daemon))")
            let (ownerPID, writerPID) = (try XCTUnwrap(owner), try XCTUnwrap(writer))
            addTeardownBlock {
                kill(writerPID, SIGKILL)
                kill(ownerPID, SIGKILL)
            }
            XCTAssertEqual(kill(ownerPID, SIGKILL), 0)
            // The compositor has cleared the selection (and told the daemon) while `cat` still writes.
            XCTAssertTrue(try eventually(timeout: 10) { try run([wlPaste, "--list-types"]).status != 0 }, "round \(round): the selection was not cleared")
            XCTAssertEqual(kill(writerPID, SIGKILL), 0)
            let expected = "\(2 * round)\t[not kept: text/plain;charset=utf-8, its owner went away before sending all of it]\n\(2 * round - 1)\tearlier text \(round)\n"
            XCTAssertTrue(try eventually(timeout: 20) { try run([pbctl, "history", "--limit", "2"]).text == expected },
                          "round \(round): history: \((try? run([pbctl, "history", "--limit", "2"]).text.prefix(300)) ?? "")\n\(stderrText(daemon))")
            XCTAssertTrue(daemon.child.isRunning)
            let listed = try run([wlPaste, "--no-newline"], timeout: 20)
            XCTAssertFalse(listed.status == 0 && content.starts(with: listed.stdout), "round \(round): wl-paste gets a truncated text (\(listed.stdout.count) bytes)")
            XCTAssertTrue(tracer.child.wait(timeout: 10))
        }
    }

    /// A large copy by an owner that lives on is kept whole by the daemon: recorded, then offered again
    /// byte for byte when its owner exits (pbctl's owner, then wl-copy's).
    func testALargeCopyByALiveOwnerIsKeptWhole() throws {
        let daemon = try startForegroundDaemon(environment: [:])
        for round in 1...2 {
            // Each round another text: the history keeps one entry for the same content.
            let (big, content) = try bigText(30_000_000 + round, "big\(round).txt")
            let owner = round == 1 ? [pbctl, "copy", "--foreground", big] : ["/bin/sh", "-c", "exec '\(wlCopy)' --foreground < '\(big)'"]
            let served = try startPeer(owner, waitFor: nil)
            XCTAssertTrue(try eventually(timeout: 60) { try run([pbctl, "history", "--limit", "1"]).text.hasPrefix("\(round)\tline 0 of the big text") },
                          "round \(round): not recorded: \((try? run([pbctl, "history", "--limit", "2"]).text.prefix(300)) ?? "")\n\(stderrText(daemon))")
            kill(served.child.pid, SIGTERM)
            XCTAssertTrue(served.child.wait(timeout: 10))
            var pasted = Data()
            XCTAssertTrue(try eventually(timeout: 20) {
                pasted = try run([wlPaste, "--no-newline"], timeout: 30).stdout
                return pasted.count > 1000
            }, "round \(round): nothing offered again: \(stderrText(daemon))")
            XCTAssertTrue(pasted == content, "round \(round): \(pasted.count) of \(content.count) bytes offered again")
        }
    }

    /// The change count in `pbctl info`, `pbctl` processes and no daemon: two copies of the same types
    /// count two changes, and reading it again changes nothing.
    func testTheChangeCountIsSharedByEveryPbctl() throws {
        func count() throws -> Int {
            let info = try JSONSerialization.jsonObject(with: try run([pbctl, "info", "--json"]).stdout) as? [String: Any]
            return try XCTUnwrap(info?["changeCount"] as? Int, "\(String(describing: info))")
        }
        let before = try count()
        XCTAssertEqual(try run([pbctl, "copy"], input: Data("first".utf8), timeout: 20).status, 0)
        XCTAssertEqual(try run([pbctl, "copy"], input: Data("second".utf8), timeout: 20).status, 0)
        XCTAssertEqual(try count(), before + 2)
        XCTAssertEqual(try count(), before + 2, "reading the count changed it")
        XCTAssertEqual(try run([pbctl, "paste"]).text, "second")
        XCTAssertEqual(try count(), before + 2, "a paste changed the count")
    }

    /// With `pbctl daemon` running, every change of another client counts once: three wl-copy, three
    /// changes (read between them, once the daemon has seen each); the daemon offering a killed owner's
    /// content again is no change.
    func testTheDaemonCountsEveryChangeOnce() throws {
        func count() throws -> Int {
            let info = try JSONSerialization.jsonObject(with: try run([pbctl, "info", "--json"]).stdout) as? [String: Any]
            return try XCTUnwrap(info?["changeCount"] as? Int, "\(String(describing: info))")
        }
        let daemon = try startForegroundDaemon(environment: [:])
        let before = try count()
        var last: Spawned?
        for (index, text) in ["text a", "text b", "text c"].enumerated() {
            // The last one in the foreground: the test kills exactly it.
            if index == 2 {
                last = try startPeer([wlCopy, "--foreground", text], waitFor: nil)
            } else {
                XCTAssertEqual(try run([wlCopy, text], detached: true).status, 0)
            }
            // The daemon has seen the change once it is in the history.
            XCTAssertTrue(try eventually(timeout: 10) { try run([pbctl, "history"]).text.hasPrefix("\(index + 1)\t\(text)\n") },
                          stderrText(daemon))
            XCTAssertEqual(try count(), before + index + 1, "after \(text)")
            XCTAssertEqual(try count(), before + index + 1, "after \(text), read again")
        }
        last?.kill()
        XCTAssertTrue(try eventually(timeout: 10) { try run([wlPaste, "--no-newline"]).text == "text c" }, "the daemon did not offer the content again")
        XCTAssertTrue(stderrText(daemon).contains("serving the kept content again"))
        XCTAssertEqual(try count(), before + 3, "the daemon serving kept content again counted as a change")
    }
}

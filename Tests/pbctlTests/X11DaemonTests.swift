import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `pbctl daemon`, the clipboard manager, against real peers under a private Xvfb: exiting GTK 3 and
/// Qt 5 applications hand it their clipboard (SAVE_TARGETS), content of an owner that vanishes is
/// restored, sensitive content is not, and misbehaving owners do not take it down.
final class X11DaemonTests: X11TestCase {
    let xclip = "/usr/bin/xclip"

    // (a) One daemon per display.

    func testSecondDaemonIsRefusedWithThePIDOfTheFirst() throws {
        try requireTool(xclip)
        let first = try startDaemon()
        let second = try run([pbctl, "daemon"], timeout: 10)
        XCTAssertEqual(second.status, 69, second.stderr)
        XCTAssertTrue(second.stderr.contains("pbctl daemon already running on \(display) (pid \(first.child.pid))"),
                      second.stderr)
        XCTAssertTrue(first.child.isRunning, "the refused start must not disturb the running daemon")
    }

    func testForeignManagerIsNamedAndCanBeReplaced() throws {
        try requireTool(xclip)
        try requirePython("gi")
        let other = try startPeer([python, peers + "/gtk_peer.py", "own", "CLIPBOARD_MANAGER"])
        let refused = try run([pbctl, "daemon"], timeout: 10)
        XCTAssertEqual(refused.status, 69)
        XCTAssertTrue(refused.stderr.contains("another clipboard manager owns CLIPBOARD_MANAGER on \(display)"),
                      refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--replace"), refused.stderr)
        let status = try run([pbctl, "daemon", "--status"])
        XCTAssertEqual(status.status, 0)
        XCTAssertTrue(status.text.contains("a clipboard manager (not pbctl)"), status.text)
        try startDaemon(["--replace"])
        try other.waitForLine("lost")
    }

    func testReplaceTakesOverAndTheOldDaemonExitsCleanly() throws {
        try requireTool(xclip)
        let first = try startDaemon()
        let second = try Spawned([pbctl, "daemon", "--replace"], environment: environment)
        spawned.append(second)
        XCTAssertTrue(first.child.wait(timeout: 10), "the replaced daemon did not exit")
        XCTAssertEqual(first.child.status, 0)
        XCTAssertTrue(stderrText(first).contains("another clipboard manager took over"))
        XCTAssertTrue(second.child.isRunning)
        let third = try run([pbctl, "daemon"], timeout: 10)
        XCTAssertTrue(third.stderr.contains("(pid \(second.child.pid))"), third.stderr)
    }

    func testSIGTERMAndSIGINTEndTheDaemonCleanlyAndFreeItsSelections() throws {
        try requireTool(xclip)
        for signal in [SIGTERM, SIGINT] {
            let daemon = try startDaemon()
            XCTAssertEqual(try run([pbctl, "copy"], input: Data("served by the daemon".utf8)).status, 0)
            kill(daemon.child.pid, signal)
            XCTAssertTrue(daemon.child.wait(timeout: 5), "the daemon ignored signal \(signal)")
            XCTAssertEqual(daemon.child.status, 0)
            XCTAssertTrue(stderrText(daemon).contains("stopped by signal \(signal)"))
            XCTAssertFalse(try managerOwned())
            XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "TARGETS"], timeout: 5).status, 1,
                           "CLIPBOARD still owned after the daemon stopped")
        }
    }

    func testDetachReturnsOnceTheDaemonManagesTheClipboard() throws {
        try requireTool(xclip)
        let started = try run([pbctl, "daemon", "--detach"], timeout: 15)
        XCTAssertEqual(started.status, 0, started.stderr)
        XCTAssertTrue(try managerOwned(), "--detach returned before the daemon owned CLIPBOARD_MANAGER")
        let again = try run([pbctl, "daemon", "--detach"], timeout: 15)
        XCTAssertEqual(again.status, 69)
        let pidText = again.stderr.components(separatedBy: "(pid ").last?.components(separatedBy: ")").first ?? ""
        let pid = try XCTUnwrap(pid_t(pidText), again.stderr)
        kill(pid, SIGTERM)
        XCTAssertTrue(try eventually(timeout: 5) { try !managerOwned() })
    }

    /// The X server gone is no success: exit 69, so the user unit's Restart=on-failure starts the daemon
    /// again once a display is back.
    func testDaemonExitsWith69WhenTheXServerGoesAway() throws {
        let server = try XvfbServer()
        defer { server.stop() }
        var env = environment
        env["DISPLAY"] = server.display
        let daemon = try Spawned([pbctl, "daemon"], environment: env)
        spawned.append(daemon)
        XCTAssertTrue(try eventually(timeout: 10) { try managerOwned(display: server.display) }, stderrText(daemon))
        server.stop()
        XCTAssertTrue(daemon.child.wait(timeout: 5), "the daemon outlived its X server")
        XCTAssertEqual(daemon.child.status, 69)
        XCTAssertTrue(stderrText(daemon).contains("closed the connection"))
    }

    // (b) GTK 3 hands its clipboard over on exit.

    func testGTKApplicationThatExitsLeavesItsTextAndHTMLBehind() throws {
        try requireTool(xclip)
        try requirePython("gi")
        try startDaemon()
        let html = try write(Data("<p>from <b>GTK</b></p>".utf8), "g.html")
        let text = try write(Data("from GTK".utf8), "g.txt")
        let peer = try startPeer([python, peers + "/gtk_peer.py", "copy-store", "text/html", html, "UTF8_STRING", text],
                                 waitFor: "stored")
        XCTAssertTrue(peer.child.wait(timeout: 10))
        XCTAssertEqual(peer.child.status, 0)
        XCTAssertEqual(try run([pbctl, "paste"]).text, "from GTK")
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "text/html"]).text, "<p>from <b>GTK</b></p>")
        let targets = try run([xclip, "-o", "-selection", "clipboard", "-t", "TARGETS"]).text
        XCTAssertTrue(targets.contains("SAVE_TARGETS") && targets.contains("text/html"), targets)
    }

    func testLargeGTKContentIsSavedAndServedThroughINCRByteExact() throws {
        // 3 MB: GTK hands it to the daemon with INCR (its chunks are 256 KiB), and the daemon serves it
        // with INCR too (above its 2 MiB threshold).
        try requireTool(xclip)
        try requirePython("gi")
        try startDaemon()
        var html = Data("<p>".utf8)
        for index in 0..<70_000 { html.append(Data("line \(index) <b>of</b> the page &amp; more</p>\n".utf8)) }
        XCTAssertGreaterThan(html.count, 3_000_000)
        let path = try write(html, "big.html")
        let peer = try startPeer([python, peers + "/gtk_peer.py", "copy-store", "text/html", path], waitFor: "stored")
        XCTAssertTrue(peer.child.wait(timeout: 15))
        let out = scratch + "/out.html"
        let paste = try run([xclip, "-o", "-selection", "clipboard", "-t", "text/html"], outputFile: out, timeout: 30)
        XCTAssertEqual(paste.status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), html)
    }

    func testGTKSetTextStoreWithoutATargetListIsSavedToo() throws {
        // gtk_clipboard_set_text + store sends SAVE_TARGETS with property None: the manager asks TARGETS.
        try requireTool(xclip)
        try requirePython("gi")
        try startDaemon()
        let text = try write(Data("Grüße aus GTK".utf8), "t.txt")
        let peer = try startPeer([python, peers + "/gtk_peer.py", "copy-store", "text", text], waitFor: "stored")
        XCTAssertTrue(peer.child.wait(timeout: 10))
        XCTAssertEqual(try run([pbctl, "paste"]).text, "Grüße aus GTK")
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard"]).text, "Grüße aus GTK")
    }

    // (c) Qt 5 likewise (its clipboard asks the manager when the application is destroyed).

    func testQtApplicationThatExitsLeavesItsTextAndHTMLBehind() throws {
        try requireTool(xclip)
        try requirePython("PyQt5.QtWidgets")
        try startDaemon()
        let html = try write(Data("<i>from Qt</i>".utf8), "q.html")
        let text = try write(Data("from Qt".utf8), "q.txt")
        let peer = try startPeer([python, peers + "/qt_peer.py", "copy-exit", "text/html", html, "text", text],
                                 waitFor: "exited")
        XCTAssertTrue(peer.child.wait(timeout: 10))
        XCTAssertEqual(try run([pbctl, "paste"]).text, "from Qt")
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "text/html"]).text, "<i>from Qt</i>")
    }

    // (d) An owner killed without SAVE_TARGETS: the daemon restores what it kept.

    func testXclipOwnerKilledIsRestored() throws {
        try requireTool(xclip)
        try startDaemon()
        let file = try write(Data("kept by the daemon".utf8), "k.txt")
        // -quiet keeps xclip in the foreground, so this test knows (and kills) exactly its own process.
        let owner = try startPeer([xclip, "-quiet", "-i", "-selection", "clipboard", file], waitFor: nil)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "clipboard"]).text == "kept by the daemon" })
        usleep(300_000)  // the daemon reads the new owner right after XFixes tells it
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(owner.child.wait(timeout: 5))
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "clipboard"]).text == "kept by the daemon" },
                      "the vanished owner's text was not restored")
        XCTAssertEqual(try run([pbctl, "paste"]).text, "kept by the daemon")
    }

    func testOwnerPresentWhenTheDaemonStartsIsRestoredToo() throws {
        try requireTool(xclip)
        let file = try write(Data("there before the daemon".utf8), "b.txt")
        let owner = try startPeer([xclip, "-quiet", "-i", "-selection", "clipboard", file], waitFor: nil)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "clipboard"]).text == "there before the daemon" })
        try startDaemon()
        usleep(300_000)
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "clipboard"]).text == "there before the daemon" })
    }

    func testNoDisplayIsAClearError() throws {
        let result = try run([pbctl, "daemon"], environment: ["DISPLAY": ""], timeout: 10)
        XCTAssertEqual(result.status, 69)
        XCTAssertTrue(result.stderr.contains("no X display"), result.stderr)
        let bad = try run([pbctl, "daemon", "--display", ":4242"], timeout: 10)
        XCTAssertEqual(bad.status, 69)
        XCTAssertTrue(bad.stderr.contains(":4242"), bad.stderr)
    }

    func testDeliberateClearIsNotUndone() throws {
        try requireTool(xclip)
        try startDaemon()
        XCTAssertEqual(try run([pbctl, "copy"], input: Data("short-lived".utf8)).status, 0)
        usleep(300_000)
        XCTAssertEqual(try run([pbctl, "clear"]).status, 0)
        usleep(500_000)
        XCTAssertNotEqual(try run([xclip, "-o", "-selection", "clipboard"], timeout: 5).status, 0)
    }

    func testKilledPbctlOwnerIsRestoredButTransientContentIsNot() throws {
        try requireTool(xclip)
        try startDaemon()
        let file = try write(Data("pbctl content".utf8), "p.txt")
        let owner = try startPeer([pbctl, "copy", "--foreground", file], waitFor: nil)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "clipboard"]).text == "pbctl content" })
        usleep(300_000)
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "clipboard"]).text == "pbctl content" })

        let brief = try write(Data("transient content".utf8), "t.txt")
        let transient = try startPeer([pbctl, "copy", "--foreground", "--transient", brief], waitFor: nil)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "clipboard"]).text == "transient content" })
        let targets = try run([xclip, "-o", "-selection", "clipboard", "-t", "TARGETS"]).text
        XCTAssertTrue(targets.contains("org.nspasteboard.TransientType"), targets)
        usleep(300_000)
        kill(transient.child.pid, SIGKILL)
        usleep(700_000)
        let paste = try run([xclip, "-o", "-selection", "clipboard"], timeout: 5)
        XCTAssertNotEqual(paste.status, 0, "transient content was restored: \(paste.text)")
    }

    /// A kept image gets every format a copy of it would: xclip offering only image/jpeg is killed, and
    /// the daemon serves PNG (decoded here by ImageMagick, same size), WebP, BMP and TIFF as well. The
    /// history entry copied back (to the store) offers PNG derived from the JPEG too.
    func testAKeptJPEGIsServedInEveryImageFormat() throws {
        try requireTool(xclip)
        try requireTool("/usr/bin/convert")
        try requireTool("/usr/bin/identify")
        try startDaemon()
        let picture = scratch + "/pic.jpg"
        XCTAssertEqual(try run(["/usr/bin/convert", "-size", "40x30", "gradient:red-blue", picture]).status, 0)
        let owner = try startPeer([xclip, "-quiet", "-i", "-selection", "clipboard", "-t", "image/jpeg", picture], waitFor: nil)
        // The daemon has fetched it once it is in the history.
        XCTAssertTrue(try eventually(timeout: 10) { try run([pbctl, "history"]).text.contains("[image/jpeg 40×30") },
                      "the daemon did not record the JPEG: \((try? run([pbctl, "history"]).text) ?? "")")
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(owner.child.wait(timeout: 5))
        XCTAssertTrue(try eventually(timeout: 10) {
            try run([xclip, "-o", "-selection", "clipboard", "-t", "TARGETS"], timeout: 5).text.contains("image/png")
        }, "the kept JPEG is not offered as PNG")
        let targets = try run([xclip, "-o", "-selection", "clipboard", "-t", "TARGETS"], timeout: 5).text.split(separator: "\n").map(String.init)
        for expected in ["image/jpeg", "image/png", "image/webp", "image/bmp", "image/tiff"] {
            XCTAssertTrue(targets.contains(expected), "\(expected) not offered: \(targets)")
        }
        let png = scratch + "/out.png"
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "image/png"], outputFile: png, timeout: 20).status, 0)
        XCTAssertEqual(try run(["/usr/bin/identify", "-format", "%m %w %h", png]).text, "PNG 40 30")
        let jpeg = scratch + "/out.jpg"
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "image/jpeg"], outputFile: jpeg, timeout: 20).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: jpeg)), try Data(contentsOf: URL(fileURLWithPath: picture)), "the original changed")

        // The entry copied back on the store: PNG derived from the JPEG.
        let id = try XCTUnwrap(try run([pbctl, "history"]).text.split(separator: "\t").first.map(String.init))
        let store = ["PBCTL_BACKEND": "store"]
        let copied = try run([pbctl, "history", "copy", id], environment: store)
        XCTAssertEqual(copied.status, 0, copied.stderr)
        let types = try JSONSerialization.jsonObject(with: try run([pbctl, "types", "--json"], environment: store).stdout) as? [[String: Any]] ?? []
        XCTAssertEqual(types.first?["type"] as? String, "public.jpeg", "\(types)")
        XCTAssertEqual(types.first { $0["type"] as? String == "public.png" }?["derivedFrom"] as? String, "public.jpeg", "\(types)")
        let stored = try run([pbctl, "paste", "--type", "public.png"], environment: store)
        XCTAssertEqual(stored.stdout.prefix(4), Data([0x89, 0x50, 0x4E, 0x47]), stored.stderr)
    }

    // pbctl copy hands its item to the daemon instead of starting an owner process.

    func testPbctlCopyIsServedByTheDaemonItself() throws {
        try requireTool(xclip)
        let daemon = try startDaemon()
        let copy = try run([pbctl, "copy", "--type", "md"], input: Data("# Title\n\n*em*\n".utf8))
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "text/html"]).text,
                       "<h1>Title</h1>\n<p><em>em</em></p>\n")
        XCTAssertEqual(try run([pbctl, "paste", "--type", "md"]).text, "# Title\n\n*em*\n")
        // No background owner: when the daemon stops, the copy goes with it.
        kill(daemon.child.pid, SIGTERM)
        XCTAssertTrue(daemon.child.wait(timeout: 5))
        XCTAssertTrue(stderrText(daemon).contains("serving an item from pbctl copy"))
        XCTAssertNotEqual(try run([xclip, "-o", "-selection", "clipboard"], timeout: 5).status, 0)
    }

    func testPrimaryAndSensitiveCopiesKeepTheirOwnOwner() throws {
        try requireTool(xclip)
        let daemon = try startDaemon()
        XCTAssertEqual(try run([pbctl, "copy", "--primary"], input: Data("primary text".utf8)).status, 0)
        XCTAssertEqual(try run([pbctl, "copy", "--sensitive"], input: Data("hunter2".utf8)).status, 0)
        kill(daemon.child.pid, SIGTERM)
        XCTAssertTrue(daemon.child.wait(timeout: 5))
        XCTAssertFalse(stderrText(daemon).contains("serving an item from pbctl copy"))
        XCTAssertEqual(try run([xclip, "-o", "-selection", "primary"]).text, "primary text")
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard"]).text, "hunter2")
    }

    // (e) Sensitive content is never kept.

    func testSecretMarkedOwnerIsNotRestoredWhenKilled() throws {
        try requireTool(xclip)
        try requirePython("gi")
        try startDaemon()
        let secret = try write(Data("hunter2".utf8), "s.txt")
        let hint = try write(Data("secret".utf8), "hint")
        let owner = try startPeer([python, peers + "/gtk_peer.py", "copy", "UTF8_STRING", secret,
                                   "x-kde-passwordManagerHint", hint])
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard"]).text, "hunter2")
        usleep(300_000)
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(owner.child.wait(timeout: 5))
        usleep(700_000)
        let paste = try run([xclip, "-o", "-selection", "clipboard"], timeout: 5)
        XCTAssertNotEqual(paste.status, 0, "secret content came back: \(paste.text)")
        XCTAssertFalse(paste.text.contains("hunter2"))
    }

    func testSecretMarkedContentIsNotSavedOnExit() throws {
        try requireTool(xclip)
        try requirePython("gi")
        try startDaemon()
        let secret = try write(Data("hunter2".utf8), "s.txt")
        let concealed = try write(Data(), "c")
        let peer = try startPeer([python, peers + "/gtk_peer.py", "copy-store", "UTF8_STRING", secret,
                                  "org.nspasteboard.ConcealedType", concealed], waitFor: "stored")
        XCTAssertTrue(peer.child.wait(timeout: 15))
        let paste = try run([xclip, "-o", "-selection", "clipboard"], timeout: 5)
        XCTAssertNotEqual(paste.status, 0, "concealed content was saved: \(paste.text)")
    }

    // (f) An owner killed mid-fetch does not take the daemon down.

    func testOwnerKilledMidFetchLeavesTheDaemonWorking() throws {
        try requireTool(xclip)
        try requirePython("gi")
        let daemon = try startDaemon()
        let stalled = try startPeer([python, peers + "/gtk_peer.py", "copy-stall", "UTF8_STRING"], waitFor: nil)
        try stalled.waitForLine("asked")  // the daemon is waiting for the content now
        kill(stalled.child.pid, SIGKILL)
        XCTAssertTrue(stalled.child.wait(timeout: 5))
        XCTAssertTrue(daemon.child.isRunning, "the daemon died with the owner it was reading")
        // Still a working manager: it restores the next vanished owner.
        XCTAssertTrue(try managerOwned())
        let file = try write(Data("after the stall".utf8), "a.txt")
        let owner = try startPeer([xclip, "-quiet", "-i", "-selection", "clipboard", file], waitFor: nil)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "clipboard"]).text == "after the stall" })
        usleep(300_000)
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "clipboard"]).text == "after the stall" })
        XCTAssertTrue(daemon.child.isRunning)
    }

    // (g) Fetching never stops serving: fetches and transfers share one event loop.

    /// A step timeout far beyond the fetch's own 8 s deadline: a stalled fetch lasts that long.
    let stallEnvironment = ["PBCTL_X11_TIMEOUT": "30"]

    func testPbctlCopyIsHandedToTheDaemonWhileItWaitsForAStalledOwner() throws {
        try requireTool(xclip)
        try requirePython("gi")
        let daemon = try startDaemon(environment: stallEnvironment)
        let stalled = try startPeer([python, peers + "/gtk_peer.py", "copy-stall", "UTF8_STRING"])
        try stalled.waitForLine("asked")  // the daemon is fetching from it now, and the owner hangs
        // The hand-off gives up after 2 s (the copy then starts its own owner): the daemon must answer
        // it while its fetch waits, and take CLIPBOARD over (dropping the stalled fetch).
        let copy = try run([pbctl, "copy"], input: Data("served while a fetch stalls".utf8), timeout: 10)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        let paste = try run([xclip, "-o", "-selection", "clipboard"], timeout: 5)
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(paste.text, "served while a fetch stalls")
        let log = stderrText(daemon)
        XCTAssertTrue(log.contains("serving an item from pbctl copy"), "the copy was not handed to the daemon: \(log)")
        XCTAssertFalse(log.contains("deadline reached"), "the daemon waited for the stalled fetch: \(log)")
        XCTAssertTrue(stalled.child.isRunning)
    }

    func testPbctlCopyIsHandedToTheDaemonWhileASaveStalls() throws {
        // An exiting GTK application asks the daemon to save (SAVE_TARGETS), then hangs on the content.
        try requireTool(xclip)
        try requirePython("gi")
        let daemon = try startDaemon(environment: stallEnvironment)
        let file = try write(Data("from an exiting application".utf8), "e.txt")
        let exiting = try startPeer([python, peers + "/gtk_peer.py", "copy-store-stall", "UTF8_STRING", file],
                                    waitFor: "asked")
        let copy = try run([pbctl, "copy"], input: Data("copied during the save".utf8), timeout: 10)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        let paste = try run([xclip, "-o", "-selection", "clipboard"], timeout: 5)
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(paste.text, "copied during the save")
        let log = stderrText(daemon)
        XCTAssertTrue(log.contains("serving an item from pbctl copy"), "the copy was not handed to the daemon: \(log)")
        XCTAssertTrue(log.contains("save: dropped, CLIPBOARD has newer content"), log)
        XCTAssertFalse(log.contains("deadline reached"), "the daemon waited for the stalled save: \(log)")
        XCTAssertTrue(exiting.child.isRunning)
    }

    func testDaemonServesItsClipboardWhileAPrimaryFetchStalls() throws {
        try requireTool(xclip)
        try requirePython("gi")
        let daemon = try startDaemon(["--primary"], environment: stallEnvironment)
        XCTAssertEqual(try run([pbctl, "copy"], input: Data("the daemon's own".utf8)).status, 0)
        XCTAssertTrue(stderrText(daemon).contains("serving an item from pbctl copy"))
        let stalled = try startPeer([python, peers + "/gtk_peer.py", "copy-stall", "UTF8_STRING", "PRIMARY"])
        try stalled.waitForLine("asked")
        // Each paste would otherwise wait out the fetch (8 s): 5 s each is ample, and the log proves the
        // fetch was still waiting when they were answered.
        for _ in 0..<3 {
            let paste = try run([xclip, "-o", "-selection", "clipboard"], timeout: 5)
            XCTAssertEqual(paste.status, 0, paste.stderr)
            XCTAssertEqual(paste.text, "the daemon's own")
        }
        let targets = try run([xclip, "-o", "-selection", "clipboard", "-t", "TARGETS"], timeout: 5)
        XCTAssertTrue(targets.text.contains("UTF8_STRING"), targets.text)
        XCTAssertEqual(try run([pbctl, "paste"], timeout: 5).text, "the daemon's own")
        let log = stderrText(daemon)
        XCTAssertFalse(log.contains("deadline reached"), "the pastes were answered only after the fetch: \(log)")
        XCTAssertTrue(stalled.child.isRunning)
        // The stalled fetch ends at its deadline, and the daemon still works.
        XCTAssertTrue(try eventually(timeout: 15) { stderrText(daemon).contains("deadline reached") })
        XCTAssertTrue(daemon.child.isRunning)
    }

    func testOwnerAnsweringAfterTheFetchGaveUpIsNotKilledByABadWindow() throws {
        // xsel exits on any X error. The daemon gives up on it after 50 ms, long before xsel answers
        // 8 MB; xsel's late answer must land in a window that still exists (destroying the fetch's
        // window at once made xsel die with BadWindow, and PRIMARY's content with it).
        let xsel = "/usr/bin/xsel"
        try requireTool(xsel)
        try requireTool(xclip)
        let daemon = try startDaemon(["--primary"], environment: ["PBCTL_X11_TIMEOUT": "0.05"])
        var big = Data(repeating: UInt8(ascii: "a"), count: 8 << 20)
        big.append(Data("end".utf8))
        let path = try write(big, "big.txt")
        // exec: the pid is xsel's own, and -n keeps it in the foreground.
        let owner = try Spawned(["/bin/sh", "-c", "exec \(xsel) -p -i -n < '\(path)'"], environment: environment)
        spawned.append(owner)
        var log = ""
        XCTAssertTrue(try eventually(timeout: 10) {
            log += stderrText(daemon)
            return log.contains("keep PRIMARY:")
        }, "the fetch never gave up: \(log)")
        usleep(1_500_000)  // xsel answers meanwhile
        XCTAssertTrue(owner.child.isRunning, "xsel died: \(stderrText(owner))")
        let out = scratch + "/out.txt"
        let paste = try run([xclip, "-o", "-selection", "primary"], outputFile: out, timeout: 20)
        XCTAssertEqual(paste.status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), big)
    }

    // (h) PRIMARY, opt-in.

    func testPrimaryOwnerKilledIsRestoredWithThePrimaryFlag() throws {
        try requireTool(xclip)
        try startDaemon(["--primary"])
        let file = try write(Data("selected in a terminal".utf8), "p.txt")
        let owner = try startPeer([xclip, "-quiet", "-i", "-selection", "primary", file], waitFor: nil)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "primary"]).text == "selected in a terminal" })
        usleep(300_000)  // the daemon reads the new owner right after XFixes tells it
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(owner.child.wait(timeout: 5))
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "primary"]).text == "selected in a terminal" },
                      "the vanished PRIMARY owner's text was not restored")
        XCTAssertEqual(try run([pbctl, "paste", "--primary"]).text, "selected in a terminal")
        // CLIPBOARD is not touched by PRIMARY's restore.
        XCTAssertNotEqual(try run([xclip, "-o", "-selection", "clipboard"], timeout: 5).status, 0)
    }

    func testDetachedDaemonKeepsPrimaryToo() throws {
        try requireTool(xclip)
        let started = try run([pbctl, "daemon", "--detach", "--primary"], timeout: 15)
        XCTAssertEqual(started.status, 0, started.stderr)
        let status = try run([pbctl, "daemon", "--status"]).text
        let pidText = status.components(separatedBy: "(pid ").last?.components(separatedBy: ")").first ?? ""
        let pid = try XCTUnwrap(pid_t(pidText), status)
        defer {
            kill(pid, SIGTERM)
            _ = try? eventually(timeout: 5) { try !managerOwned() }
        }
        let file = try write(Data("kept by the detached daemon".utf8), "p.txt")
        let owner = try startPeer([xclip, "-quiet", "-i", "-selection", "primary", file], waitFor: nil)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "primary"]).text == "kept by the detached daemon" })
        usleep(300_000)
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(owner.child.wait(timeout: 5))
        XCTAssertTrue(try eventually {
            try run([xclip, "-o", "-selection", "primary"]).text == "kept by the detached daemon"
        })
    }

    func testPrimaryIsLeftAloneWithoutTheFlag() throws {
        try requireTool(xclip)
        try startDaemon()
        let file = try write(Data("not kept".utf8), "p.txt")
        let owner = try startPeer([xclip, "-quiet", "-i", "-selection", "primary", file], waitFor: nil)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "primary"]).text == "not kept" })
        usleep(300_000)
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(owner.child.wait(timeout: 5))
        usleep(700_000)
        XCTAssertNotEqual(try run([xclip, "-o", "-selection", "primary"], timeout: 5).status, 0)
    }

    func testSensitivePrimaryIsNotRestored() throws {
        try requireTool(xclip)
        try startDaemon(["--primary"])
        let secret = try write(Data("hunter2".utf8), "s.txt")
        let owner = try startPeer([pbctl, "copy", "--primary", "--sensitive", "--foreground", secret], waitFor: nil)
        XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "primary"]).text == "hunter2" })
        let targets = try run([xclip, "-o", "-selection", "primary", "-t", "TARGETS"]).text
        XCTAssertTrue(targets.contains("x-kde-passwordManagerHint"), targets)
        usleep(300_000)
        kill(owner.child.pid, SIGKILL)
        XCTAssertTrue(owner.child.wait(timeout: 5))
        usleep(700_000)
        let paste = try run([xclip, "-o", "-selection", "primary"], timeout: 5)
        XCTAssertNotEqual(paste.status, 0, "sensitive PRIMARY content came back: \(paste.text)")
    }

    func testNewPrimaryOwnerReplacesTheKeptTextAndDeliberateClearIsNotUndone() throws {
        try requireTool(xclip)
        try startDaemon(["--primary"])
        for text in ["first selection", "second selection"] {
            let file = try write(Data(text.utf8), "p.txt")
            let owner = try startPeer([xclip, "-quiet", "-i", "-selection", "primary", file], waitFor: nil)
            XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "primary"]).text == text })
            usleep(300_000)
            kill(owner.child.pid, SIGKILL)
            XCTAssertTrue(owner.child.wait(timeout: 5))
            XCTAssertTrue(try eventually { try run([xclip, "-o", "-selection", "primary"]).text == text })
        }
        XCTAssertEqual(try run([pbctl, "clear", "--primary"]).status, 0)
        usleep(500_000)
        XCTAssertNotEqual(try run([xclip, "-o", "-selection", "primary"], timeout: 5).status, 0)
    }
}

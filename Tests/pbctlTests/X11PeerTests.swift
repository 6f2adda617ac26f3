import Foundation
import XCTest

/// pbctl against real X11 peers (xclip, xsel, GTK 3, Qt 5) under a private Xvfb.
final class X11PeerTests: X11TestCase {
    let xclip = "/usr/bin/xclip"
    let xsel = "/usr/bin/xsel"
    let html = "<p>caf\u{e9} <b>bold</b> \u{20ac}</p>"

    func copy(_ data: Data, _ extra: [String] = []) throws {
        let result = try run([pbctl, "copy"] + extra, input: data, timeout: 20)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.timedOut)
    }

    // MARK: pbctl copy → peers paste

    func testCopyTextThenXclipAndXselPaste() throws {
        try requireTool(xclip)
        try requireTool(xsel)
        try copy(Data("h\u{e9}llo w\u{f6}rld".utf8))
        let a = try run([xclip, "-o", "-selection", "clipboard"])
        XCTAssertEqual(a.text, "h\u{e9}llo w\u{f6}rld")
        let b = try run([xsel, "-b", "-o"])
        XCTAssertEqual(b.text, "h\u{e9}llo w\u{f6}rld")
        // STRING is Latin-1, with the type asked for.
        let latin1 = try run([xclip, "-o", "-selection", "clipboard", "-t", "STRING"])
        XCTAssertEqual([UInt8](latin1.stdout), [0x68, 0xE9, 0x6C, 0x6C, 0x6F, 0x20, 0x77, 0xF6, 0x72, 0x6C, 0x64])
        let targets = try run([xclip, "-o", "-selection", "clipboard", "-t", "TARGETS"]).text.split(separator: "\n")
        for expected in ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "UTF8_STRING", "text/plain;charset=utf-8",
                         "text/plain", "TEXT", "STRING"] {
            XCTAssertTrue(targets.contains(Substring(expected)), "TARGETS lacks \(expected): \(targets)")
        }
    }

    /// A target listed is a target served (issue 47): STRING of text outside Latin-1 is Latin-1 with each
    /// character outside it written as GTK 3 writes it, never UTF-8 and never a refusal.
    func testTextOutsideLatin1IsServedAsStringTheWayGTK3ServesIt() throws {
        try requireTool(xclip)
        try copy(Data("\u{20ac}uro caf\u{e9} \u{1F600}".utf8))
        let string = try run([xclip, "-o", "-selection", "clipboard", "-t", "STRING"])
        XCTAssertEqual(string.status, 0, string.stderr)
        XCTAssertEqual([UInt8](string.stdout), [UInt8]("\\u20acuro caf".utf8) + [0xE9] + [UInt8](" \\U0001f600".utf8))
        try copy(Data("\u{20ac}uro".utf8))
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "UTF8_STRING"]).text, "\u{20ac}uro")
        XCTAssertNotEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "image/png"]).status, 0)
    }

    func testCopyHTMLThenGTKPastesHTMLRTFAndText() throws {
        try requirePython("gi")
        try copy(Data(html.utf8), ["--type", "html"])
        let gtk = peers + "/gtk_peer.py"
        let targets = try run([python, gtk, "targets"]).text.split(separator: "\n").map(String.init)
        for expected in ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "text/html", "text/rtf", "text/richtext",
                         "application/rtf", "UTF8_STRING", "STRING", "TEXT", "text/plain"] {
            XCTAssertTrue(targets.contains(expected), "GTK does not see \(expected): \(targets)")
        }
        XCTAssertEqual(try run([python, gtk, "paste", "text/html"]).text, html)
        let rtf = try run([python, gtk, "paste", "text/rtf"])
        XCTAssertEqual(rtf.status, 0, rtf.stderr)
        XCTAssertTrue(rtf.text.hasPrefix("{\\rtf1"), rtf.text)
        XCTAssertTrue(try run([python, gtk, "text"]).text.contains("caf\u{e9} bold \u{20ac}"))
    }

    /// COMPOUND_TEXT both ways with GTK, whose Xlib encodes and decodes it (in a UTF-8 locale, as a
    /// desktop runs): our UTF-8 segments read back, and the ISO 8859 and JIS X 0208 designations Xlib
    /// writes for Greek, the euro sign and Japanese decode to the same text.
    func testCompoundTextBothWaysWithGTK() throws {
        try requirePython("gi")
        try requireTool(xclip)
        let gtk = peers + "/gtk_peer.py"
        let locale = ["LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"]
        let text = "caf\u{e9} \u{3a9}\u{3bc}\u{3ad}\u{3b3}\u{3b1} \u{20ac} \u{65e5}\u{672c}\u{8a9e} ok\n"
        try copy(Data(text.utf8))
        let read = try run([python, gtk, "text-of", "COMPOUND_TEXT"], environment: locale)
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertEqual(read.text, text, "GTK (Xlib) decodes our COMPOUND_TEXT")

        let file = try write(Data(text.utf8), "ctext.txt")
        try startPeer([python, gtk, "copy", "text", file], environment: locale)
        let written = try run([python, gtk, "paste", "COMPOUND_TEXT"], environment: locale)
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertTrue(written.stdout.contains(0x1B), "Xlib wrote escape sequences: \([UInt8](written.stdout))")
        // The same bytes from an owner that offers nothing else, as an Xt or Motif application would.
        let bytes = try write(written.stdout, "ctext.bin")
        _ = try run([xclip, "-i", "-selection", "clipboard", "-t", "COMPOUND_TEXT", bytes], detached: true)
        XCTAssertEqual(try run([pbctl, "paste"]).text, text)
    }

    func testCopyHTMLThenQtPastesHTMLRTFAndText() throws {
        try requirePython("PyQt5.QtWidgets")
        try copy(Data(html.utf8), ["--type", "html"])
        let qt = peers + "/qt_peer.py"
        let formats = try run([python, qt, "formats"]).text.split(separator: "\n").map(String.init)
        for expected in ["text/html", "text/rtf", "text/plain"] {
            XCTAssertTrue(formats.contains(expected), "Qt does not see \(expected): \(formats)")
        }
        XCTAssertEqual(try run([python, qt, "paste", "text/html"]).text, html)
        XCTAssertTrue(try run([python, qt, "paste", "text/rtf"]).text.hasPrefix("{\\rtf1"))
        XCTAssertTrue(try run([python, qt, "text"]).text.contains("caf\u{e9} bold \u{20ac}"))
    }

    func testCopyMarkdownOffersMarkdownTargetsAndLazyConversions() throws {
        try requireTool(xclip)
        try copy(Data("# Title\n\nSome *text*.\n".utf8), ["--type", "md"])
        let targets = try run([xclip, "-o", "-selection", "clipboard", "-t", "TARGETS"]).text
        XCTAssertTrue(targets.contains("text/markdown"))
        XCTAssertTrue(targets.contains("text/x-markdown"))
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "text/markdown"]).text, "# Title\n\nSome *text*.\n")
        XCTAssertTrue(try run([xclip, "-o", "-selection", "clipboard", "-t", "text/html"]).text.contains("<h1>Title</h1>"))
    }

    // MARK: peers copy → pbctl paste / types

    func testXclipCopyThenPbctlPasteAndTypes() throws {
        try requireTool(xclip)
        let file = try write(Data("from xclip \u{e9}".utf8), "in.txt")
        _ = try run([xclip, "-i", "-selection", "clipboard", file], detached: true)
        let types = try run([pbctl, "types", "--json"])
        XCTAssertEqual(types.status, 0, types.stderr)
        XCTAssertTrue(types.text.contains("public.utf8-plain-text"), types.text)
        XCTAssertEqual(try run([pbctl, "paste"]).text, "from xclip \u{e9}")
        // xclip -t: any other target comes back with xclip's type; pbctl reads it anyway.
        let htmlFile = try write(Data(html.utf8), "in.html")
        _ = try run([xclip, "-i", "-selection", "clipboard", "-t", "text/html", htmlFile], detached: true)
        XCTAssertEqual(try run([pbctl, "paste", "--type", "html"]).text, html)
    }

    func testPrimarySelectionIsReadWithPrimary() throws {
        try requireTool(xclip)
        let file = try write(Data("primary text".utf8), "p.txt")
        _ = try run([xclip, "-i", "-selection", "primary", file], detached: true)
        XCTAssertEqual(try run([pbctl, "paste", "--primary"]).text, "primary text")
        XCTAssertTrue(try run([pbctl, "types", "--primary"]).text.contains("public.utf8-plain-text"))
    }

    func testGTKCopyTextHTMLAndImageThenPbctlPaste() throws {
        try requirePython("gi")
        let gtk = peers + "/gtk_peer.py"
        let text = try write(Data("gtk t\u{eb}xt".utf8), "t.txt")
        try startPeer([python, gtk, "copy", "text", text])
        XCTAssertEqual(try run([pbctl, "paste"]).text, "gtk t\u{eb}xt")
        XCTAssertTrue(try run([pbctl, "types"]).text.contains("public.utf8-plain-text"))

        let page = try write(Data(html.utf8), "p.html")
        try startPeer([python, gtk, "copy", "text/html", page])
        XCTAssertTrue(try run([pbctl, "types"]).text.contains("public.html"))
        XCTAssertEqual(try run([pbctl, "paste", "--type", "html"]).text, html)

        try startPeer([python, gtk, "copy-image", "32", "24"])
        let types = try run([pbctl, "types", "--json"]).text
        XCTAssertTrue(types.contains("public.png"), types)
        let png = try run([pbctl, "paste", "--type", "png"])
        XCTAssertEqual(png.status, 0, png.stderr)
        XCTAssertEqual([UInt8](png.stdout.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    func testQtCopyTextHTMLAndImageThenPbctlPaste() throws {
        try requirePython("PyQt5.QtWidgets")
        let qt = peers + "/qt_peer.py"
        let text = try write(Data("qt t\u{eb}xt".utf8), "t.txt")
        let page = try write(Data(html.utf8), "p.html")
        try startPeer([python, qt, "copy", "text", text, "text/html", page])
        let types = try run([pbctl, "types"]).text
        XCTAssertTrue(types.contains("public.html") && types.contains("public.utf8-plain-text"), types)
        XCTAssertEqual(try run([pbctl, "paste"]).text, "qt t\u{eb}xt")
        XCTAssertEqual(try run([pbctl, "paste", "--type", "html"]).text, html)

        try startPeer([python, qt, "copy-image", "32", "24"])
        let png = try run([pbctl, "paste", "--type", "png"])
        XCTAssertEqual(png.status, 0, png.stderr)
        XCTAssertEqual([UInt8](png.stdout.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
    }

    func testWatchWithholdsContentMarkedConcealedByQtOwner() throws {
        try requirePython("PyQt5.QtWidgets")
        let qt = peers + "/qt_peer.py"
        let log = scratch + "/watch.log"
        let script = "cat >> \"$0\"; echo \" [$PBCTL_STATE] $PBCTL_TYPES\" >> \"$0\""
        let watch = try Spawned([pbctl, "watch", "--count", "1", "--", "/bin/sh", "-c", script, log], environment: environment)
        spawned.append(watch)
        usleep(500_000)
        // A password manager's copy: the text plus nspasteboard.org's ConcealedType marker (no KDE hint).
        let secret = try write(Data("hunter2".utf8), "secret.txt")
        let marker = try write(Data(), "marker")
        try startPeer([python, qt, "copy", "text", secret, "org.nspasteboard.ConcealedType", marker])
        XCTAssertTrue(watch.child.wait(timeout: 10))
        let text = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertFalse(text.contains("hunter2"), text)
        XCTAssertTrue(text.hasPrefix(" [sensitive] ") && text.contains("public.utf8-plain-text"), text)
        XCTAssertFalse(text.contains("concealed"), "markers are flags, not types: \(text)")
    }

    // MARK: lifetime

    func testCopyReturnsAtOnceInCommandSubstitutionAndContentOutlivesIt() throws {
        try requireTool(xclip)
        let script = "start=$(date +%s%N); out=$(\"$PBCTL\" copy <<< x); echo done $(( ($(date +%s%N) - start) / 1000000 ))"
        let result = try run(["/bin/bash", "-c", script], environment: ["PBCTL": pbctl], timeout: 10)
        XCTAssertFalse(result.timedOut, "pbctl copy kept the command substitution open")
        XCTAssertTrue(result.text.hasPrefix("done"), result.text + result.stderr)
        let ms = Int(result.text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 99999
        XCTAssertLessThan(ms, 3000)
        // pbctl copy has exited; the background owner still serves.
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard"]).text, "x\n")
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard"]).text, "x\n")
    }

    /// The spawned owner (`__serve-x11`, the fallback when pbctl cannot fork) serves the same way.
    func testSpawnedBackgroundOwnerServesAndExitsWhenReplaced() throws {
        try requireTool(xclip)
        let result = try run([pbctl, "copy", "--type", "md"], input: Data("# spawned\n".utf8),
                             environment: ["PBCTL_X11_SPAWN_OWNER": "1"], timeout: 20)
        XCTAssertEqual(result.status, 0, result.stderr)
        let owners = { try self.run(["/bin/sh", "-c", "pgrep -f '__serve-x11 .*--display \(self.display)$' | wc -l"]).text }
        XCTAssertEqual(try owners().trimmingCharacters(in: .whitespacesAndNewlines), "1")
        XCTAssertEqual(try run([xclip, "-o", "-selection", "clipboard", "-t", "text/html"]).text, "<h1>spawned</h1>\n")
        let file = try write(Data("second".utf8), "s2.txt")
        _ = try run([xclip, "-i", "-selection", "clipboard", file], detached: true)
        XCTAssertTrue(try eventually { try owners().trimmingCharacters(in: .whitespacesAndNewlines) == "0" },
                      "the spawned owner did not exit after losing the selection")
    }

    func testBackgroundOwnerExitsWhenAnotherClientCopies() throws {
        try requireTool(xclip)
        // The background owner is `pbctl copy` itself, forked: found by its unique file argument.
        let first = try write(Data("first".utf8), "first-\(getpid()).txt")
        try copy(Data(), [first])
        let owners = { try self.run(["/bin/sh", "-c", "pgrep -f -- 'copy \(first)$' | wc -l"]).text }
        XCTAssertEqual(try owners().trimmingCharacters(in: .whitespacesAndNewlines), "1")
        let file = try write(Data("second".utf8), "s.txt")
        _ = try run([xclip, "-i", "-selection", "clipboard", file], detached: true)
        XCTAssertTrue(try eventually { try owners().trimmingCharacters(in: .whitespacesAndNewlines) == "0" },
                      "the background owner did not exit after losing the selection")
        XCTAssertEqual(try run([pbctl, "paste"]).text, "second")
    }
}

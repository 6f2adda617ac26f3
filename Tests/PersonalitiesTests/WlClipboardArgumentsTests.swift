import XCTest

@testable import Personalities

/// wl-copy's and wl-paste's command lines (GNU getopt_long, glibc 2.36's messages), and wl-paste's type
/// choice and line-ending rule, as wl-clipboard 2.1.0 has them.
final class WlClipboardArgumentsTests: XCTestCase {
    private func copy(_ arguments: String...) -> WlCopyInvocation {
        guard case .run(let invocation) = WlClipboard.parseCopy(arguments, program: "wl-copy") else {
            XCTFail("expected a run for \(arguments)")
            return WlCopyInvocation()
        }
        return invocation
    }

    private func paste(_ arguments: String...) -> WlPasteInvocation {
        guard case .run(let invocation) = WlClipboard.parsePaste(arguments, program: "wl-paste") else {
            XCTFail("expected a run for \(arguments)")
            return WlPasteInvocation()
        }
        return invocation
    }

    private func copyError(_ message: String) -> ParseOutcome<WlCopyInvocation> {
        .reply(ToolReply(status: 1, standardError: message + WlClipboard.copyUsage(program: "wl-copy")))
    }

    private func pasteError(_ message: String) -> ParseOutcome<WlPasteInvocation> {
        .reply(ToolReply(status: 1, standardError: message + WlClipboard.pasteUsage(program: "wl-paste")))
    }

    func testEveryCopyOption() {
        let invocation = copy("--primary", "--trim-newline", "--paste-once", "--foreground", "--type", "text/plain", "--seat", "seat0")
        XCTAssertTrue(invocation.primary && invocation.trimNewline && invocation.pasteOnce && invocation.foreground)
        XCTAssertEqual(invocation.type, "text/plain")
        XCTAssertEqual(invocation.seat, "seat0")
        XCTAssertNil(invocation.words)
        XCTAssertTrue(copy("-c").clear)
        XCTAssertTrue(copy("--clear").clear)
        let short = copy("-pnof", "-timage/png", "-s", "seat1")
        XCTAssertTrue(short.primary && short.trimNewline && short.pasteOnce && short.foreground)
        XCTAssertEqual(short.type, "image/png")
        XCTAssertEqual(short.seat, "seat1")
        XCTAssertEqual(copy("--type=text/html").type, "text/html")
    }

    func testWordsAreCopiedJoinedBySpacesWhereverTheOptionsAre() {
        let invocation = copy("hello", "-p", "big", "world")
        XCTAssertTrue(invocation.primary)
        XCTAssertEqual(invocation.text, "hello big world")
        XCTAssertEqual(copy("--", "-p", "x").text, "-p x")
        XCTAssertEqual(copy("-").text, "-")
        XCTAssertFalse(copy("--", "-p").primary)
    }

    func testLongOptionPrefixes() {
        XCTAssertTrue(copy("--prim").primary)
        XCTAssertTrue(copy("--fore").foreground)
        XCTAssertEqual(copy("--ty", "x/y").type, "x/y")
        XCTAssertEqual(
            WlClipboard.parseCopy(["--p", "x"], program: "wl-copy"),
            copyError("wl-copy: option '--p' is ambiguous; possibilities: '--primary' '--paste-once'\n"))
    }

    func testCopyUsageErrors() {
        XCTAssertEqual(WlClipboard.parseCopy(["--bogus"], program: "wl-copy"), copyError("wl-copy: unrecognized option '--bogus'\n"))
        XCTAssertEqual(WlClipboard.parseCopy(["--bogus=1"], program: "wl-copy"), copyError("wl-copy: unrecognized option '--bogus=1'\n"))
        XCTAssertEqual(WlClipboard.parseCopy(["-x"], program: "wl-copy"), copyError("wl-copy: invalid option -- 'x'\n"))
        XCTAssertEqual(WlClipboard.parseCopy(["-t"], program: "wl-copy"), copyError("wl-copy: option requires an argument -- 't'\n"))
        XCTAssertEqual(WlClipboard.parseCopy(["--type"], program: "wl-copy"), copyError("wl-copy: option '--type' requires an argument\n"))
        XCTAssertEqual(
            WlClipboard.parseCopy(["--primary=1"], program: "wl-copy"), copyError("wl-copy: option '--primary' doesn't allow an argument\n"))
        XCTAssertEqual(
            WlClipboard.parseCopy(["--prim=1"], program: "wl-copy"), copyError("wl-copy: option '--primary' doesn't allow an argument\n"))
        // The usage names the program as it was called.
        XCTAssertEqual(
            WlClipboard.parseCopy(["-x"], program: "/usr/bin/wl-copy"),
            .reply(ToolReply(status: 1, standardError: "/usr/bin/wl-copy: invalid option -- 'x'\n" + WlClipboard.copyUsage(program: "/usr/bin/wl-copy"))))
    }

    func testHelpAndVersionAnswerInTheOrderGiven() {
        XCTAssertEqual(
            WlClipboard.parseCopy(["-h", "--bogus"], program: "wl-copy"),
            .reply(ToolReply(status: 0, standardOutput: WlClipboard.copyUsage(program: "wl-copy"))))
        XCTAssertEqual(WlClipboard.parseCopy(["--bogus", "-h"], program: "wl-copy"), copyError("wl-copy: unrecognized option '--bogus'\n"))
        XCTAssertEqual(WlClipboard.parseCopy(["-v"], program: "wl-copy"), .reply(ToolReply(status: 0, standardOutput: WlClipboard.version)))
        XCTAssertEqual(WlClipboard.parsePaste(["--version"], program: "wl-paste"), .reply(ToolReply(status: 0, standardOutput: WlClipboard.version)))
        XCTAssertTrue(WlClipboard.version.hasPrefix("wl-clipboard 2.1.0\nCopyright (C) 2019 Sergey Bugaev\n"))
        XCTAssertTrue(WlClipboard.copyUsage(program: "wl-copy").hasPrefix("Usage:\n\twl-copy [options] text to copy\n\twl-copy [options] < file-to-copy\n\n"))
        XCTAssertTrue(WlClipboard.pasteUsage(program: "wl-paste").hasSuffix("for short options too.\n\nSee wl-clipboard(1) for more details.\n"))
    }

    func testEveryPasteOption() {
        let invocation = paste("-n", "-l", "-p", "-t", "text", "-s", "seat0")
        XCTAssertTrue(invocation.noNewline && invocation.listTypes && invocation.primary)
        XCTAssertEqual(invocation.type, "text")
        XCTAssertEqual(invocation.seat, "seat0")
        XCTAssertEqual(paste("--no-newline", "--list-types", "--type", "image/png").type, "image/png")
        XCTAssertTrue(paste("-nl").noNewline)
    }

    func testPasteOperandsAreRefused() {
        XCTAssertEqual(WlClipboard.parsePaste(["foo"], program: "wl-paste"), pasteError("Unexpected argument: foo\n"))
        XCTAssertEqual(WlClipboard.parsePaste(["-n", "foo", "bar"], program: "wl-paste"), pasteError("Unexpected argument: foo\n"))
        XCTAssertEqual(WlClipboard.parsePaste(["--bogus"], program: "wl-paste"), pasteError("wl-paste: unrecognized option '--bogus'\n"))
    }

    func testWatchTakesTheRestAsTheCommand() {
        XCTAssertEqual(paste("--watch", "cliphist", "store").watch, ["cliphist", "store"])
        XCTAssertEqual(paste("-p", "-w", "sh", "-c", "cat > x").watch, ["sh", "-c", "cat > x"])
        let watching = paste("-w", "echo", "--bogus")
        XCTAssertEqual(watching.watch, ["echo", "--bogus"])
        let refused = pasteError("Expected a subcommand instead of an argument after --watch\n")
        XCTAssertEqual(WlClipboard.parsePaste(["-w", "-x"], program: "wl-paste"), refused)
        XCTAssertEqual(WlClipboard.parsePaste(["-wecho"], program: "wl-paste"), refused)
        XCTAssertEqual(WlClipboard.parsePaste(["--watch=echo"], program: "wl-paste"), refused)
        XCTAssertEqual(WlClipboard.parsePaste(["-w"], program: "wl-paste"), pasteError("wl-paste: option requires an argument -- 'w'\n"))
    }

    func testPosixlyCorrectStopsAtTheFirstOperand() {
        guard case .run(let invocation) = WlClipboard.parseCopy(["hello", "-p"], program: "wl-copy", posixlyCorrect: true) else {
            return XCTFail("expected a run")
        }
        XCTAssertFalse(invocation.primary)
        XCTAssertEqual(invocation.text, "hello -p")
    }

    func testTypeChoice() {
        let text = ["text/plain", "text/plain;charset=utf-8", "TEXT", "STRING", "UTF8_STRING"]
        XCTAssertEqual(WlClipboard.chooseType(offered: text, explicit: nil, inferred: nil), "text/plain;charset=utf-8")
        XCTAssertEqual(WlClipboard.chooseType(offered: ["text/html", "text/plain"], explicit: nil, inferred: nil), "text/plain")
        XCTAssertEqual(WlClipboard.chooseType(offered: ["image/png"], explicit: nil, inferred: nil), "image/png")
        XCTAssertEqual(WlClipboard.chooseType(offered: ["image/png", "text/html"], explicit: nil, inferred: nil), "text/html")
        XCTAssertEqual(WlClipboard.chooseType(offered: text, explicit: "text", inferred: nil), "text/plain;charset=utf-8")
        XCTAssertEqual(WlClipboard.chooseType(offered: text, explicit: "TEXT", inferred: nil), "TEXT")
        XCTAssertNil(WlClipboard.chooseType(offered: text, explicit: "text/html", inferred: nil))
        XCTAssertEqual(WlClipboard.chooseType(offered: text, explicit: "tex", inferred: nil), "text/plain")
        XCTAssertEqual(WlClipboard.chooseType(offered: ["image/png"], explicit: "image", inferred: nil), "image/png")
        XCTAssertNil(WlClipboard.chooseType(offered: ["image/png"], explicit: "Image", inferred: nil))
        // Where standard output goes names a type: that, with the text ladder after it when it is text.
        XCTAssertEqual(WlClipboard.chooseType(offered: text, explicit: nil, inferred: "text/html"), "text/plain;charset=utf-8")
        XCTAssertNil(WlClipboard.chooseType(offered: text, explicit: nil, inferred: "image/png"))
        XCTAssertEqual(WlClipboard.chooseType(offered: ["image/png"], explicit: nil, inferred: "image/png"), "image/png")
    }

    func testWhatIsText() {
        for mime in ["text/plain", "TEXT", "STRING", "UTF8_STRING", "application/json", "application/javascript", "application/xml",
            "application/x-yaml", "application/pgp-keys", "text/html"]
        {
            XCTAssertTrue(WlClipboard.isText(mime), mime)
        }
        for mime in ["image/png", "application/octet-stream", "x-special/gnome-copied-files"] {
            XCTAssertFalse(WlClipboard.isText(mime), mime)
        }
    }
}

import XCTest

@testable import Personalities

/// xclip's command line as Xlib's XrmParseCommand reads it (measured against Debian 12's xclip 0.13; the
/// differential run, scripts/compat-differential.py, checks the same vectors against the real tool).
final class XclipArgumentsTests: XCTestCase {
    private func parse(_ arguments: String...) -> XclipInvocation {
        guard case .run(let invocation) = Xclip.parse(arguments, program: "xclip") else {
            XCTFail("expected a run for \(arguments)")
            return XclipInvocation()
        }
        return invocation
    }

    func testDefaultsAreInputOfPrimaryAsUTF8String() {
        let invocation = parse()
        XCTAssertEqual(invocation.direction, .input)
        XCTAssertEqual(invocation.selection, .primary)
        XCTAssertEqual(invocation.effectiveTarget, "UTF8_STRING")
        XCTAssertFalse(invocation.targetIsExplicit)
        XCTAssertEqual(invocation.verbosity, .silent)
        XCTAssertEqual(invocation.loops, 0)
        XCTAssertEqual(invocation.files, [])
    }

    func testEveryOptionByItsFullName() {
        let invocation = parse(
            "-loops", "3", "-display", ":7", "-selection", "clipboard", "-filter", "-out", "-rmlastnl", "-target", "text/html", "file")
        XCTAssertEqual(invocation.loops, 3)
        XCTAssertEqual(invocation.display, ":7")
        XCTAssertEqual(invocation.selection, .clipboard)
        XCTAssertTrue(invocation.filter)
        XCTAssertEqual(invocation.direction, .output)
        XCTAssertTrue(invocation.removeLastNewline)
        XCTAssertEqual(invocation.effectiveTarget, "text/html")
        XCTAssertEqual(invocation.files, ["file"])
        XCTAssertEqual(parse("-in").direction, .input)
        XCTAssertEqual(parse("-quiet").verbosity, .quiet)
        XCTAssertEqual(parse("-verbose").verbosity, .verbose)
        XCTAssertEqual(parse("-silent").verbosity, .silent)
        XCTAssertTrue(parse("-noutf8").noUTF8)
    }

    func testUnambiguousPrefixesAreTheOption() {
        XCTAssertEqual(parse("-o").direction, .output)
        XCTAssertEqual(parse("-ou").direction, .output)
        XCTAssertEqual(parse("-i").direction, .input)
        XCTAssertEqual(parse("-sel", "c").selection, .clipboard)
        XCTAssertEqual(parse("-se", "p").selection, .primary)
        XCTAssertEqual(parse("-selec", "s").selection, .secondary)
        XCTAssertEqual(parse("-t", "image/png").effectiveTarget, "image/png")
        XCTAssertEqual(parse("-l", "1").loops, 1)
        XCTAssertEqual(parse("-d", ":3").display, ":3")
        XCTAssertTrue(parse("-f").filter)
        XCTAssertTrue(parse("-r").removeLastNewline)
        XCTAssertEqual(parse("-q").verbosity, .quiet)
        XCTAssertEqual(parse("-verb").verbosity, .verbose)
        XCTAssertEqual(parse("-si").verbosity, .silent)
        XCTAssertTrue(parse("-n").noUTF8)
    }

    func testAmbiguousPrefixesAndDoubleDashesAreFiles() {
        // -s: -selection and -silent; -v: -version and -verbose; - and "" prefix every option.
        XCTAssertEqual(parse("-s").files, ["-s"])
        XCTAssertEqual(parse("-v").files, ["-v"])
        XCTAssertEqual(parse("-").files, ["-"])
        XCTAssertEqual(parse("--help").files, ["--help"])
        XCTAssertEqual(parse("-selectionx", "c").files, ["-selectionx", "c"])
        XCTAssertEqual(parse("-inx").files, ["-inx"])
    }

    func testAValueIsTheNextArgumentWhateverItLooksLike() {
        let invocation = parse("-sel", "-o")
        XCTAssertEqual(invocation.selectionName, "-o")
        XCTAssertEqual(invocation.selection, .primary)
        XCTAssertEqual(invocation.direction, .input)
    }

    func testAValueMissingAtTheEndLeavesTheOptionAsAFile() {
        XCTAssertEqual(parse("-sel").files, ["-sel"])
        let invocation = parse("-o", "-t")
        XCTAssertEqual(invocation.files, ["-t"])
        XCTAssertEqual(invocation.effectiveTarget, "UTF8_STRING")
    }

    func testTheLastOfASettingWins() {
        XCTAssertEqual(parse("-o", "-i").direction, .input)
        XCTAssertEqual(parse("-i", "-o").direction, .output)
        XCTAssertEqual(parse("-sel", "p", "-sel", "c").selection, .clipboard)
        XCTAssertEqual(parse("-quiet", "-silent").verbosity, .silent)
        XCTAssertEqual(Xclip.parse(["-h", "-version"], program: "xclip"), .reply(ToolReply(status: 0, standardError: Xclip.version)))
        XCTAssertEqual(
            Xclip.parse(["-version", "-h"], program: "xclip"), .reply(ToolReply(status: 0, standardError: Xclip.help(program: "xclip"))))
    }

    func testSelectionsByTheirFirstLetterInAnyCase() {
        XCTAssertEqual(parse("-selection", "CLIPBOARD").selection, .clipboard)
        XCTAssertEqual(parse("-selection", "secondary").selection, .secondary)
        XCTAssertEqual(parse("-selection", "buffer-cut").selection, .cutBuffer)
        XCTAssertEqual(parse("-selection", "xyz").selection, .primary)
        XCTAssertEqual(parse("-selection", "").selection, .primary)
    }

    func testFilterHoldsOnlyWhenSilent() {
        XCTAssertFalse(parse("-f", "-quiet").filter)
        XCTAssertFalse(parse("-verbose", "-f").filter)
        XCTAssertTrue(parse("-quiet", "-silent", "-f").filter)
    }

    func testNoUTF8OverridesTheTarget() {
        let invocation = parse("-noutf8", "-t", "text/html")
        XCTAssertEqual(invocation.effectiveTarget, "STRING")
        XCTAssertTrue(invocation.targetIsExplicit)
    }

    func testLoopsReadAsAtoi() {
        XCTAssertEqual(parse("-l", "abc").loops, 0)
        XCTAssertEqual(parse("-l", " 12x").loops, 12)
        XCTAssertEqual(parse("-l", "-2").loops, -2)
    }

    func testHelpAndVersionGoToStandardErrorWithStatusZero() {
        XCTAssertEqual(
            Xclip.parse(["-help"], program: "/usr/bin/xclip"),
            .reply(ToolReply(status: 0, standardError: Xclip.help(program: "/usr/bin/xclip"))))
        XCTAssertTrue(Xclip.help(program: "xclip").hasPrefix("Usage: xclip [OPTION] [FILE]...\nAccess an X server selection"))
        XCTAssertTrue(Xclip.help(program: "xclip").hasSuffix("      -verbose     running commentary\n\nReport bugs to <astrand@lysator.liu.se>\n"))
        XCTAssertEqual(Xclip.version, "xclip version 0.13\nCopyright (C) 2001-2008 Kim Saunders et al.\nDistributed under the terms of the GNU GPL\n")
        // Help is answered before anything else is looked at.
        XCTAssertEqual(Xclip.parse(["-o", "-sel", "c", "-h"], program: "xclip"), .reply(ToolReply(status: 0, standardError: Xclip.help(program: "xclip"))))
    }

    func testForegroundProgressLines() {
        XCTAssertEqual(Xclip.waitingMessage(loops: 0), "Waiting for selection requests, Control-C to quit\n  Waiting for selection request number 1\n")
        XCTAssertEqual(Xclip.waitingLine(request: 3, loops: 0), "  Waiting for selection request number 3\n")
        XCTAssertEqual(Xclip.waitingMessage(loops: 1), "Waiting for one selection request.\n  Waiting for a selection request.\n")
        XCTAssertEqual(Xclip.waitingMessage(loops: 2), "Waiting for 2 selection requests, Control-C to quit\n  Waiting for selection request 1 of 2.\n")
        XCTAssertEqual(Xclip.waitingLine(request: 2, loops: 2), "  Waiting for selection request 2 of 2.\n")
    }

    func testMessages() {
        XCTAssertEqual(Xclip.targetNotAvailable("UTF8_STRING"), "Error: target STRING not available\n")
        XCTAssertEqual(Xclip.targetNotAvailable("TARGETS"), "Error: target TARGETS not available\n")
        XCTAssertEqual(Xclip.cannotOpenDisplay(nil), "Error: Can't open display: (null)\n")
        XCTAssertEqual(Xclip.fileError(program: "xclip", file: "nope", reason: "No such file or directory"), "xclip: nope: No such file or directory\n")
    }
}

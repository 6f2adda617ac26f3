import XCTest

@testable import Personalities

/// xsel's command line as xsel 1.2.0 reads it (Debian 12's 1.2.0+git9bfc13d).
final class XselArgumentsTests: XCTestCase {
    private func parse(_ arguments: [String], stdin: Bool = false, stdout: Bool = false) -> XselInvocation {
        guard case .run(let invocation) = Xsel.parse(arguments, stdinIsTerminal: stdin, stdoutIsTerminal: stdout) else {
            XCTFail("expected a run for \(arguments)")
            return XselInvocation()
        }
        return invocation
    }

    private let usage = ParseOutcome<XselInvocation>.reply(ToolReply(status: 0, standardOutput: Xsel.usage))

    func testCombinedShortFlagsAreSplit() {
        XCTAssertEqual(Xsel.expand(["-bo", "--clipboard", "-i", "-l", "/dev/null", "-nib"]), ["-b", "-o", "--clipboard", "-i", "-l", "/dev/null", "-n", "-i", "-b"])
        let invocation = parse(["-bo"])
        XCTAssertEqual(invocation.selection, .clipboard)
        XCTAssertTrue(invocation.output)
        XCTAssertFalse(invocation.input)
    }

    func testWithoutModeTheStreamsDecide() {
        // Both terminals: paste.
        var invocation = parse([], stdin: true, stdout: true)
        XCTAssertTrue(invocation.output)
        XCTAssertFalse(invocation.input)
        // A pipe in, a terminal out: copy only.
        invocation = parse([], stdin: false, stdout: true)
        XCTAssertTrue(invocation.input)
        XCTAssertFalse(invocation.output)
        // Neither a terminal: paste the old selection, then copy the input.
        invocation = parse([], stdin: false, stdout: false)
        XCTAssertTrue(invocation.input)
        XCTAssertTrue(invocation.output)
        XCTAssertEqual(invocation.selection, .primary)
    }

    func testModesOverrideTheStreams() {
        var invocation = parse(["-o", "-b"])
        XCTAssertTrue(invocation.output)
        XCTAssertFalse(invocation.input)
        invocation = parse(["-i"], stdin: true, stdout: false)
        XCTAssertTrue(invocation.input)
        XCTAssertFalse(invocation.output)
        invocation = parse(["--input", "--output"])
        XCTAssertTrue(invocation.input)
        XCTAssertTrue(invocation.output)
        invocation = parse(["-a"])
        XCTAssertTrue(invocation.append && invocation.input && !invocation.output)
        invocation = parse(["-f"])
        XCTAssertTrue(invocation.follow && invocation.input)
        invocation = parse(["-z"])
        XCTAssertTrue(invocation.follow && invocation.zeroFlush && invocation.input)
        invocation = parse(["-c"])
        XCTAssertTrue(invocation.clear)
        XCTAssertFalse(invocation.output)
        invocation = parse(["-d"], stdin: true)
        XCTAssertTrue(invocation.delete)
        XCTAssertFalse(invocation.output || invocation.input)
    }

    func testSelectionsAndTheClipboardWins() {
        XCTAssertEqual(parse(["-s"]).selection, .secondary)
        XCTAssertEqual(parse(["--secondary", "--primary"]).selection, .primary)
        XCTAssertEqual(parse(["-b", "-p"]).selection, .clipboard)
        XCTAssertEqual(parse(["-s", "-b"]).selection, .clipboard)
    }

    func testValues() {
        let invocation = parse(["--display", ":4", "-t", "250", "--logfile", "/tmp/log", "-n", "-v", "-v", "-k", "-x"])
        XCTAssertEqual(invocation.display, ":4")
        XCTAssertEqual(invocation.timeoutMilliseconds, 250)
        XCTAssertEqual(invocation.logFile, "/tmp/log")
        XCTAssertTrue(invocation.noDetach && invocation.keep && invocation.exchange)
        XCTAssertEqual(invocation.verbosity, 2)
        XCTAssertEqual(parse(["--selectionTimeout", "-5"]).timeoutMilliseconds, 0)
        XCTAssertEqual(parse(["-t", "abc"]).timeoutMilliseconds, 0)
    }

    func testAnythingElseIsTheUsageOnStandardOutputWithStatusZero() {
        XCTAssertEqual(Xsel.parse(["--bogus"], stdinIsTerminal: true, stdoutIsTerminal: true), usage)
        XCTAssertEqual(Xsel.parse(["file"], stdinIsTerminal: true, stdoutIsTerminal: true), usage)
        XCTAssertEqual(Xsel.parse(["-bq"], stdinIsTerminal: true, stdoutIsTerminal: true), usage)
        XCTAssertEqual(Xsel.parse(["--clip"], stdinIsTerminal: true, stdoutIsTerminal: true), usage)
        XCTAssertEqual(Xsel.parse(["-t"], stdinIsTerminal: true, stdoutIsTerminal: true), usage)
        XCTAssertEqual(Xsel.parse(["--display"], stdinIsTerminal: true, stdoutIsTerminal: true), usage)
        // A value of more than two bytes starting with a dash is split too: -l takes -x, and -y is unknown.
        XCTAssertEqual(Xsel.parse(["-l", "-xy", "-o"], stdinIsTerminal: true, stdoutIsTerminal: true), usage)
        XCTAssertEqual(parse(["-l", "-x"]).logFile, "-x")
        // The first bad argument answers, whatever came before.
        XCTAssertEqual(Xsel.parse(["--version", "-q"], stdinIsTerminal: true, stdoutIsTerminal: true), usage)
    }

    func testHelpAndVersion() {
        XCTAssertEqual(Xsel.parse(["-h"], stdinIsTerminal: true, stdoutIsTerminal: true), usage)
        XCTAssertEqual(
            Xsel.parse(["--version"], stdinIsTerminal: true, stdoutIsTerminal: true),
            .reply(ToolReply(status: 0, standardOutput: "xsel version 1.2.0 by Conrad Parker <conrad@vergenet.net>\n")))
        XCTAssertEqual(
            Xsel.parse(["--help", "--version"], stdinIsTerminal: true, stdoutIsTerminal: true),
            .reply(ToolReply(status: 0, standardOutput: Xsel.version + Xsel.usage)))
        XCTAssertTrue(Xsel.usage.hasPrefix("Usage: xsel [options]\nManipulate the X selection.\n\n"))
        XCTAssertTrue(Xsel.usage.contains("  -z, --zeroflush       Overwrites selection when zero ('\\0') is received\n"))
        XCTAssertTrue(Xsel.usage.hasSuffix("  --version             Output version information and exit\n\nPlease report bugs to <conrad@vergenet.net>.\n"))
    }
}

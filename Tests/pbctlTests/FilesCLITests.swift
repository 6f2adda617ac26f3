import Foundation
import XCTest

/// Files and paths on the built binary: names are bytes end to end, a paste into a folder is checked
/// whole before anything moves, `-o` writes what the shell's `>` would, and pbcopy/pbpaste follow macOS.
final class FilesCLITests: PbctlTestCase {
    /// Runs `script` with `sh`, `$PBCTL` naming the binary (for arguments Swift's Process cannot pass:
    /// bytes that are not UTF-8).
    @discardableResult
    func sh(_ script: String, as user: String? = nil) throws -> PbctlRunner.Result {
        var runner = pbctl!
        runner.environment["PBCTL"] = PbctlRunner.binary
        runner.environment["S"] = scratch
        let arguments = user.map { ["-u", $0, "--", "/bin/sh", "-c", script] } ?? ["-c", script]
        return try runner.run(arguments, executable: user == nil ? "/bin/sh" : "/sbin/runuser")
    }

    func testFileNamesThatAreNotUTF8AreCopiedAndPastedAsTheirBytes() throws {
        try sh(#"printf 'x' > "$S/bad$(printf '\377').txt" && mkdir "$S/dst""#)
        let copy = try sh(#""$PBCTL" copy --files "$S/bad$(printf '\377').txt""#)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(try pbctl.run("paste", "--type", "text/uri-list").text, "file://\(scratch)/bad%FF.txt\r\n")
        XCTAssertEqual(try pbctl.run("paste", "--files").stdout, Data((scratch + "/bad").utf8) + [0xFF] + Data(".txt\n".utf8))
        XCTAssertEqual(try pbctl.run("paste", "--files", "--into", scratch + "/dst").status, 0)
        XCTAssertEqual(try sh(#"cat "$S/dst/bad$(printf '\377').txt""#).text, "x")
        // Its content too, by name.
        XCTAssertEqual(try sh(#""$PBCTL" copy "$S/bad$(printf '\377').txt" && "$PBCTL" paste"#).text, "x")
    }

    func testAFileNameWithALineBreakKeepsTheHistoryOneLinePerEntry() throws {
        let name = scratch + "/two\nlines.txt"
        try Data("x".utf8).write(to: URL(fileURLWithPath: name))
        XCTAssertEqual(try pbctl.run("copy", "--files", name).status, 0)
        let listing = try pbctl.run("history").text
        XCTAssertEqual(listing.split(separator: "\n").count, 1, listing)
        XCTAssertTrue(listing.contains("two␊lines.txt"), listing)
    }

    func testAFolderIsNeverPastedIntoItself() throws {
        let folder = scratch + "/d"
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        try Data(repeating: 1, count: 100_000).write(to: URL(fileURLWithPath: folder + "/data.bin"))
        XCTAssertEqual(try pbctl.run("copy", "--files", folder).status, 0)
        let paste = try pbctl.run("paste", "--files", "--into", folder + "/sub")
        XCTAssertEqual(paste.status, 74)
        XCTAssertTrue(paste.stderr.contains("into itself"), paste.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/sub"), [], "nothing was created")
    }

    func testACutWithOneSourceGoneMovesNothing() throws {
        let (a, b) = (scratch + "/a.txt", scratch + "/b.txt")
        try Data("a".utf8).write(to: URL(fileURLWithPath: a))
        try Data("b".utf8).write(to: URL(fileURLWithPath: b))
        let target = scratch + "/dst"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        XCTAssertEqual(try pbctl.run("copy", "--files", "--cut", a, b).status, 0)
        try FileManager.default.removeItem(atPath: b)
        let paste = try pbctl.run("paste", "--files", "--into", target)
        XCTAssertEqual(paste.status, 66)
        XCTAssertTrue(paste.stderr.contains("b.txt") && paste.stderr.contains("nothing was copied or moved"), paste.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: a), "the other source stays where it was")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target), [])
    }

    func testURIsThatAreNotLocalFilesAreNotPrintedAsPaths() throws {
        let local = scratch + "/here.txt"
        try Data("h".utf8).write(to: URL(fileURLWithPath: local))
        XCTAssertEqual(
            try pbctl.run(["copy", "--type", "text/uri-list"], stdin: Data("http://example.org/a.txt\r\nfile://\(local)\r\n".utf8)).status, 0)
        let paste = try pbctl.run("paste", "--files")
        XCTAssertEqual(paste.status, 0)
        XCTAssertEqual(paste.text, local + "\n")
        XCTAssertTrue(paste.stderr.contains("http://example.org/a.txt: not a local file"), paste.stderr)
        XCTAssertEqual(try pbctl.run(["copy", "--type", "text/uri-list"], stdin: Data("https://example.org/\r\n".utf8)).status, 0)
        XCTAssertEqual(try pbctl.run("paste", "--files").status, 1)
    }

    func testOutputWritesThroughALinkAsTheShellDoes() throws {
        try pbctl.run("copy", stdin: "new content")
        try Data("old".utf8).write(to: URL(fileURLWithPath: scratch + "/real"))
        try FileManager.default.createSymbolicLink(atPath: scratch + "/link", withDestinationPath: "real")
        XCTAssertEqual(try pbctl.run("paste", "-o", scratch + "/link").status, 0)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: scratch + "/link"), "real", "the link stays")
        XCTAssertEqual(try String(contentsOfFile: scratch + "/real", encoding: .utf8), "new content")
        // A dangling link: its target is created, as `>` creates it.
        try FileManager.default.createSymbolicLink(atPath: scratch + "/dangling", withDestinationPath: scratch + "/made")
        XCTAssertEqual(try pbctl.run("paste", "-o", scratch + "/dangling").status, 0)
        XCTAssertEqual(try String(contentsOfFile: scratch + "/made", encoding: .utf8), "new content")
    }

    func testOutputRefusesAReadOnlyFileAsTheShellDoes() throws {
        try XCTSkipUnless(getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/sbin/runuser"), "needs root to run as nobody")
        // Everything of this test belongs to nobody, who cannot write the read-only file.
        let script = #"""
            D=$(mktemp -d) && cd "$D" && printf 'kept' > ro && chmod 444 ro || exit 9
            export PBCTL_STORE="$D/store" PBCTL_HISTORY="$D/history"
            echo hi | "$PBCTL" copy && "$PBCTL" paste -o "$D/ro"; echo "status $?"
            (echo x > "$D/ro") 2>/dev/null; echo "shell $?"
            echo "content $(cat "$D/ro")"; rm -rf "$D"
            """#
        let result = try sh(script, as: "nobody")
        XCTAssertTrue(result.text.contains("status 74"), result.text + result.stderr)
        XCTAssertTrue(result.text.contains("shell 1") || result.text.contains("shell 2"), "the shell refuses it too: " + result.text)
        XCTAssertTrue(result.text.contains("content kept"), result.text)
        XCTAssertTrue(result.stderr.contains("Permission denied") && result.stderr.contains("/ro"), result.stderr)
    }

    func testPbcopyAndPbpasteAsOnMacOS() throws {
        let folder = scratch + "/bin"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["pbcopy", "pbpaste"] { try FileManager.default.createSymbolicLink(atPath: folder + "/" + name, withDestinationPath: PbctlRunner.binary) }
        let noValue = try pbctl.run(["-pboard"], stdin: Data("x".utf8), executable: folder + "/pbcopy")
        XCTAssertEqual(noValue.status, 64)
        XCTAssertTrue(noValue.stderr.contains("-pboard needs a value"), noValue.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/store/board.pasteboard"), "no pasteboard named 'board'")
        // Without text on the pasteboard, pbpaste prints nothing.
        XCTAssertEqual(try pbctl.run(["copy", "--type", "application/octet-stream"], stdin: Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])).status, 0)
        let paste = try pbctl.run([], executable: folder + "/pbpaste")
        XCTAssertEqual(paste.status, 0)
        XCTAssertEqual(paste.stdout, Data())
        XCTAssertEqual(try pbctl.run([], stdin: Data("text".utf8), executable: folder + "/pbcopy").status, 0)
        XCTAssertEqual(try pbctl.run([], executable: folder + "/pbpaste").text, "text")
    }
}

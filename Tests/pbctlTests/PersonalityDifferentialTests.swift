import Foundation
import XCTest

/// pbctl run as xclip, xsel, wl-copy and wl-paste beside the real tools: scripts/compat-differential.py
/// runs every vector of scripts/compat_cases.py (the callers' argument vectors and the tools' edge cases,
/// Neovim, tmux, pass, GTK and Qt among the programs that read the result) against Debian's xclip 0.13,
/// xsel 1.2.0 and wl-clipboard 2.1.0 on a private Xvfb and a headless sway, compares status, output and
/// what other programs then read, runs the "beyond" cases, and every vector again without a display
/// (which must return within 5 s). It fails on any difference not listed as kept (README).
final class PersonalityDifferentialTests: XCTestCase {
    func testEveryVectorAnswersAsTheRealTool() throws {
        let report = try runDifferential([])
        XCTAssertTrue(report.contains(" 0 vectors over 5 s without a display"), report)
    }

    /// Issue 47's vectors alone (a minute, not five): Latin-1 text through each tool and back, STRING of
    /// text outside Latin-1, an image read back with no type, a paste-once copy read twice, an owner that
    /// refuses, the conversions a plain `xclip -o`/`xsel -o` asks (counted by the owner), a `.txt` copy's
    /// text names.
    func testBytesStringImagesPasteOnceAndRefusals() throws {
        let report = try runDifferential(["--only", "Latin-1|STRING of|refus|asks|image copied|paste-once read|.txt copy"])
        XCTAssertTrue(report.contains(" 0 failed; 8 beyond cases (0 failed)"), report)
    }

    private func runDifferential(_ extra: [String]) throws -> String {
        for tool in ["/usr/bin/xclip", "/usr/bin/xsel", "/usr/bin/wl-copy", "/usr/bin/wl-paste", "/usr/bin/Xvfb", "/usr/bin/sway", "/usr/bin/python3"] {
            try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is not installed (make test-deps)")
        }
        try XCTSkipUnless(getuid() == 0, "the headless sway runs as a user of its own, made by root (scripts/headless-sway.sh)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let folder = NSTemporaryDirectory() + "pbctl-differential-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = folder + "/output"
        FileManager.default.createFile(atPath: output, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [root + "/scripts/compat-differential.py", PbctlRunner.binary, "--verbose"] + extra
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try log.close()
        let report = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        XCTAssertEqual(process.terminationStatus, 0, report)
        XCTAssertTrue(report.contains(" 0 failed; "), report)
        return report
    }
}

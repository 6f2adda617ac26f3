import Foundation
import XCTest

/// `pbctl paste` (and `paste --primary`) from the store takes a quick way when every item holds stored
/// text it can send as it is (Backends/FastPaste.swift, FileStore.pasteUTF8Text), and so does
/// `paste --as html|rtf` of one item that offers that format (FileStore.pasteRepresentation); `pbctl
/// paste -v` always takes the full one. Whatever the store holds, both must write the same bytes and end the same
/// way.
final class StoreFastPasteAgreementTests: PbctlTestCase {
    func runner() -> PbctlRunner {
        var runner = PbctlRunner(store: scratch + "/store")
        for name in ["SSH_CONNECTION", "SSH_TTY", "TMUX", "STY", "PBCTL_REMOTE", "DISPLAY", "WAYLAND_DISPLAY"] {
            runner.environment.removeValue(forKey: name)
        }
        runner.environment["PBCTL_BACKEND"] = "store"
        return runner
    }

    func assertAgree(
        _ runner: PbctlRunner, _ what: String, primary: Bool = false, as format: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let quick = try runner.run((primary ? ["paste", "--primary"] : ["paste"]) + format)
        let full = try runner.run((primary ? ["paste", "--primary", "-v"] : ["paste", "-v"]) + format)
        XCTAssertEqual(quick.status, full.status, "\(what): \(quick.stderr) / \(full.stderr)", file: file, line: line)
        XCTAssertEqual(quick.stdout, full.stdout, what, file: file, line: line)
        if quick.status != 0 {
            // The full paste's -v notes aside, the error is the same.
            let message = full.stderr.split(separator: "\n").filter { !$0.hasPrefix("pbctl: item") }.joined(separator: "\n")
            XCTAssertEqual(quick.stderr.trimmingCharacters(in: .newlines), message, what, file: file, line: line)
        }
    }

    func testTheFastPasteWritesWhatTheFullPasteWrites() throws {
        let pbctl = runner()
        let files: [(String, Data)] = [
            ("note", Data("hello world\n".utf8)),
            ("plain.txt", Data("plain text, named so\n".utf8)),
            ("latin1.txt", Data([0x63, 0x61, 0x66, 0xE9, 0x0A])),  // not UTF-8: the full copy keeps it as it is
            ("report.md", Data("# Title\n\nSome *text*.\n".utf8)),
            ("page.html", Data("<p>a <b>page</b></p>".utf8)),
            ("emoji", Data("😀 é\n".utf8)),
            ("no-newline", Data("no newline at the end".utf8)),
        ]
        for (name, content) in files {
            let path = scratch + "/" + name
            try content.write(to: URL(fileURLWithPath: path))
            for arguments in [["copy", path], ["copy", "-v", path]] {
                let copied = try pbctl.run(arguments)
                guard copied.status == 0 else {
                    XCTAssertNotEqual(name, "note", copied.stderr)
                    continue
                }
                try assertAgree(pbctl, "\(arguments.joined(separator: " "))")
            }
        }
        // Typed copies from standard input: text, plain text of no declared encoding, HTML, data.
        for type in ["public.utf8-plain-text", "public.plain-text", "public.html", "public.data", "public.rtf"] {
            let content = type == "public.rtf" ? #"{\rtf1\ansi piped \b text\b0}"# : "piped <i>text</i>\n"
            XCTAssertEqual(try pbctl.run(["copy", "--type", type], stdin: Data(content.utf8)).status, 0, type)
            try assertAgree(pbctl, "copy --type \(type)")
        }
        // Two items, one copy.
        let first = scratch + "/first", second = scratch + "/second.txt"
        try Data("first\n".utf8).write(to: URL(fileURLWithPath: first))
        try Data("second\n".utf8).write(to: URL(fileURLWithPath: second))
        if try pbctl.run(["copy", first, second]).status == 0 { try assertAgree(pbctl, "two items") }
        // An empty clipboard, and a primary selection never written.
        XCTAssertEqual(try pbctl.run(["clear"]).status, 0)
        try assertAgree(pbctl, "cleared")
        try assertAgree(pbctl, "primary never written", primary: true)
        XCTAssertEqual(try pbctl.run(["copy", "--primary"], stdin: Data("primary text\n".utf8)).status, 0)
        try assertAgree(pbctl, "primary", primary: true)
    }

    /// `paste --as html` and `--as rtf`: stored, produced from Markdown (streamed as `convert` streams it),
    /// from HTML or RTF, or not the quick way's to answer (two items, an image, damage): the same bytes,
    /// status and error.
    func testTheFastPasteAsHTMLOrRTFWritesWhatTheFullPasteWrites() throws {
        let pbctl = runner()
        let formats = [["--as", "html"], ["--as=HTML"], ["--as", "rtf"], ["--as", "xhtml"]]
        func agreeOnEveryFormat(_ what: String) throws {
            for format in formats { try assertAgree(pbctl, what + " " + format.joined(separator: " "), as: format) }
        }
        let specPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SpecConformanceTests/Specs/commonmark-0.31.2-spec.txt").path
        let spec = try String(contentsOfFile: specPath, encoding: .utf8)
        var invalid = Data("# Bad \u{FF}\n\n*x*".utf8)
        invalid.append(contentsOf: [0xFF, 0xC3, 0x28, 0x0A])
        let files: [(String, Data)] = [
            ("report.md", Data("# Title\n\nSome *text* <b>raw</b> & [a link](http://x.y \"t\").\n\n| a | b |\n|---|---|\n| 1 | 2 |\n".utf8)),
            ("spec.md", Data(spec.utf8)),
            ("no-newline.md", Data("no newline at the end".utf8)),
            ("invalid.md", invalid),
            ("page.html", Data("<p>a <b>page</b></p>".utf8)),
            ("note", Data("hello world\n".utf8)),
        ]
        for (name, content) in files {
            let path = scratch + "/" + name
            try content.write(to: URL(fileURLWithPath: path))
            guard try pbctl.run(["copy", path]).status == 0 else { continue }
            try agreeOnEveryFormat("copy \(name)")
        }
        for type in ["public.html", "public.rtf", "net.daringfireball.markdown", "public.utf8-plain-text"] {
            let content = type == "public.rtf" ? #"{\rtf1\ansi piped \b text\b0}"# : "piped <i>text</i> *and* more\n"
            XCTAssertEqual(try pbctl.run(["copy", "--type", type], stdin: Data(content.utf8)).status, 0, type)
            try agreeOnEveryFormat("copy --type \(type)")
        }
        let first = scratch + "/first.md", second = scratch + "/second.md"
        try Data("*first*\n".utf8).write(to: URL(fileURLWithPath: first))
        try Data("**second**\n".utf8).write(to: URL(fileURLWithPath: second))
        XCTAssertEqual(try pbctl.run(["copy", first, second]).status, 0)
        try agreeOnEveryFormat("two items")
        // The Markdown source gone from the store: the full paste words the damage.
        XCTAssertEqual(try pbctl.run(["copy", first]).status, 0)
        let package = scratch + "/store/general.pasteboard"
        for name in try FileManager.default.contentsOfDirectory(atPath: package) where name.hasSuffix("-0-0.data") {
            try FileManager.default.removeItem(atPath: package + "/" + name)
        }
        try agreeOnEveryFormat("source missing")
        XCTAssertEqual(try pbctl.run(["clear"]).status, 0)
        try agreeOnEveryFormat("cleared")
    }
}

import Foundation
import XCTest

/// `pbctl convert --from MARKDOWN --to html [FILE]` takes a quick way, before any table is built
/// (pbctl/FastConvert.swift); with `PBCTL_BACKEND` set it always takes the full command. Both must write the
/// same bytes and fail the same way, with the same message and status, whatever the arguments and input.
final class FastConvertAgreementTests: PbctlTestCase {
    func testTheFastConvertAnswersAsTheFullConvert() throws {
        var fast = pbctl!
        fast.environment.removeValue(forKey: "PBCTL_BACKEND")
        var full = pbctl!
        full.environment["PBCTL_BACKEND"] = "store"
        let inputs: [(String, Data)] = [
            ("doc.md", Data("# Title\n\nSome *text* with <b>html</b> & a [link](http://x.org \"t\").\n\n| a | b |\n|---|---|\n| 1 | ~~2~~ |\n".utf8)),
            ("empty.md", Data()),
            ("no-final-line-ending.md", Data("a paragraph without a line ending".utf8)),
            ("bad-utf8.md", Data([0x2A, 0x61, 0xFF, 0x2A, 0x00, 0x0D, 0x0A])),
            ("footnotes.md", Data("a[^1] www.example.com\n\n[^1]: note\n".utf8)),
        ]
        for (name, content) in inputs { try content.write(to: URL(fileURLWithPath: scratch + "/" + name)) }
        var cases: [[String]] = []
        for (name, _) in inputs {
            let path = scratch + "/" + name
            for from in ["gfm", "commonmark", "markdown", "MD", "cm", "github"] {
                cases.append(["convert", "--from", from, "--to", "html", path])
            }
            cases.append(["convert", "-f", "gfm", "-t", "HTML", path])
            cases.append(["convert", "--to=htm", "--from=commonmark", path])
        }
        cases += [
            ["convert", "--from", "gfm", "--to", "html", scratch + "/missing.md"],
            ["convert", "--from", "gfm", "--to", "html", scratch],
            ["convert", "--from", "gfm", "--to", "html", "-"],
            ["convert", "--from", "gfm", "--to", "html"],
            ["convert", "--from", "gfm", "--from", "commonmark", "--to", "html"],
            ["convert", "--from", "gfm", "--to", "html", "-s"],
            ["convert", "--from", "gfm", "--to", "rtf"],
            ["convert", "--from", "nonsense", "--to", "html"],
            ["convert", "--from", "--to", "html"],
            ["convert", "--from", "gfm", "--to", "html", "a.md", "b.md"],
        ]
        let stdin = Data("*from standard input*\n".utf8)
        for arguments in cases {
            let quick = try fast.run(arguments, stdin: stdin)
            let slow = try full.run(arguments, stdin: stdin)
            let label = arguments.joined(separator: " ")
            XCTAssertEqual(quick.status, slow.status, label)
            XCTAssertEqual(quick.stdout, slow.stdout, label)
            XCTAssertEqual(quick.stderr, slow.stderr, label)
        }
    }
}

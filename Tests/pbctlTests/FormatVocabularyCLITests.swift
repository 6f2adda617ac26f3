import Foundation
import XCTest

/// One vocabulary for formats: `paste --as F` gives the bytes `convert --to F` gives for the same
/// input, for every pair of formats, and the format names mean the same in every command.
final class FormatVocabularyCLITests: PbctlTestCase {
    /// A document per source format, each with constructs where the dialects differ (a table,
    /// strikethrough, raw HTML, a task list).
    let documents: [(format: String, bytes: String)] = [
        ("gfm", "# Title\n\n| a | b |\n| - | - |\n| 1 | ~~2~~ |\n\n- [x] done\n- <kbd>K</kbd> *em*\n"),
        ("html", "<h1>Title</h1><table><tr><th>a</th></tr><tr><td>b</td></tr></table><p><del>x</del> <b>bold</b></p>"),
        ("rtf", "{\\rtf1\\ansi{\\fonttbl{\\f0 Helvetica;}}\\f0 Hello {\\b bold} and {\\strike gone}\\par Second\\par}"),
        ("text", "plain *not markdown*\nline two\n\nparagraph <b>two</b>\n"),
    ]
    let targets = ["commonmark", "gfm", "markdown", "md", "html", "rtf", "text", "txt", "plain"]

    /// The format a held type already is: pasting it gives the original bytes, not a re-rendering.
    func heldAsIs(_ source: String, _ target: String) -> Bool {
        let canonical = ["markdown": "gfm", "md": "gfm", "txt": "text", "plain": "text"][target] ?? target
        return canonical == source
    }

    func testPasteAsGivesTheBytesConvertGives() throws {
        for (source, document) in documents {
            XCTAssertEqual(try pbctl.run("copy", "--from", source, stdin: document).status, 0)
            for target in targets {
                let pasted = try pbctl.run("paste", "--as", target)
                XCTAssertEqual(pasted.status, 0, "\(source) → \(target): \(pasted.stderr)")
                if heldAsIs(source, target) {
                    XCTAssertEqual(pasted.text, document, "\(source) pasted as \(target) is the original")
                    continue
                }
                let converted = try pbctl.run(["convert", "--from", source, "--to", target], stdin: Data(document.utf8))
                XCTAssertEqual(converted.status, 0, converted.stderr)
                XCTAssertEqual(pasted.stdout, converted.stdout, "\(source) → \(target): paste --as and convert differ")
            }
        }
    }

    /// The case that was wrong: HTML pasted as CommonMark kept a GFM pipe table and `~~`.
    func testCommonMarkIsNotGFM() throws {
        try pbctl.run("copy", "--type", "public.html", stdin: "<table><tr><th>a</th></tr><tr><td>b</td></tr></table><p><del>x</del></p>")
        let commonmark = try pbctl.run("paste", "--as", "commonmark").text
        XCTAssertFalse(commonmark.contains("| a |"), commonmark)
        XCTAssertFalse(commonmark.contains("~~"), commonmark)
        XCTAssertTrue(commonmark.contains("<del>x</del>"), commonmark)
        let gfm = try pbctl.run("paste", "--as", "gfm").text
        XCTAssertTrue(gfm.contains("| a |") && gfm.contains("~~x~~"), gfm)
        // Markdown copied as GFM and pasted as CommonMark is converted too.
        try pbctl.run("copy", "--from", "markdown", stdin: "| a |\n| - |\n| b |\n")
        XCTAssertTrue(try pbctl.run("paste", "--as", "commonmark").text.contains("<table>"))
    }

    /// The same names everywhere: `--from` on copy and convert, `--as`, `--type`.
    func testFormatNamesMeanTheSameEverywhere() throws {
        for name in ["markdown", "md", "gfm", "commonmark", "cm", "html", "htm", "rtf", "text", "txt", "plain"] {
            let document = name == "rtf" ? "{\\rtf1 x}" : "x"
            XCTAssertEqual(try pbctl.run("copy", "--from", name, stdin: document).status, 0, "copy --from \(name)")
            XCTAssertEqual(try pbctl.run("paste", "--as", name).status, 0, "paste --as \(name)")
            XCTAssertEqual(try pbctl.run(["convert", "--from", "text", "--to", name], stdin: Data("x".utf8)).status, 0, "convert --to \(name)")
        }
        for bad in [["paste", "--as", "docx"], ["convert", "--from", "docx", "--to", "html"], ["convert", "--from", "html", "--to", "docx"]] {
            let result = try pbctl.run(bad, stdin: Data())
            XCTAssertEqual(result.status, 64, bad.joined(separator: " "))
            XCTAssertTrue(result.stderr.contains("commonmark, gfm (markdown, md), html, rtf, text"), result.stderr)
        }
    }
}

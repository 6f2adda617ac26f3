import Markdown
import XCTest

@testable import Representations

/// The randomised never-crash test, extended to the HTML and RTF readers: random bytes, token soups,
/// truncated fixtures and pathological nesting must neither crash nor hang, and every writer must then
/// produce valid output (UTF-8; 7-bit ASCII for RTF).
final class RichTextFuzzTests: XCTestCase {
    typealias RNG = SplitMix64

    static let rtfTokens: [String] = [
        "{", "}", "{\\rtf1", "\\ansi", "\\ansicpg932 ", "\\ansicpg1251 ", "\\mac ", "\\b ", "\\b0 ", "\\i ", "\\strike ", "\\ul ", "\\plain ",
        "\\par ", "\\par\n", "\\\n", "\\line ", "\\tab ", "\\pard ", "\\u233?", "\\u-10179?", "\\u-8704?", "\\u55357 ", "\\uc0", "\\uc2 ",
        "\\'e9", "\\'82", "\\'a0", "\\'", "\\bin3 ", "\\bin99999 ", "{\\*\\unknown ", "{\\*\\listtable", "{\\list", "\\listid1",
        "{\\listlevel\\levelnfc0", "{\\*\\listoverridetable{\\listoverride\\listid1\\ls1}}", "\\ls1", "\\ilvl1 ", "\\ilvl9 ",
        "{\\listtext 1.\\tab}", "{\\pntext \\'b7\\tab}", "{\\*\\pn\\pnlvlblt}", "\\trowd", "\\cellx100", "\\intbl ", "\\cell ",
        "\\row ", "\\nestcell ", "\\itap2 ", "{\\field{\\*\\fldinst HYPERLINK \"http://x\"}{\\fldrslt ", "}}", "{\\pict\\pngblip ",
        "89504e470d0a1a0a", "{\\fonttbl{\\f0\\fmodern\\fcharset128 Courier;}}", "\\f0 ", "\\f7 ", "\\fs48 ", "\\outlinelevel0 ",
        "\\outlinelevel99 ", "{\\stylesheet{\\s1 heading 1;}{\\*\\cs2 del;}}", "\\s1 ", "\\cs2 ", "{\\*\\footnote ", "\\chftn ",
        "\\emdash ", "\\~", "\\-", "\\*", "\\\\", "\\{", "\\}", "text ", "é", "😀", "\u{0}", "\r\n", " ", "\\brdrb ", "\\li720 ",
        "\\upr{", "{\\*\\ud{", "\\v ", "\\super ", "\\-999999999999", "\\abcdefghijklmnopqrstuvwxyzabcdefghijklm",
    ]

    static let htmlTokens: [String] = [
        "<p>", "</p>", "<div>", "</div>", "<b>", "</b>", "<i>", "</i>", "<em>", "<strong>", "<s>", "<code>", "</code>", "<pre>",
        "</pre>", "<br>", "<hr>", "<ul>", "</ul>", "<ol start=\"3\">", "</ol>", "<li>", "</li>", "<table>", "</table>", "<tr>",
        "<td>", "<th>", "</td>", "<td colspan=2>", "<thead>", "<blockquote>", "</blockquote>", "<h1>", "</h1>", "<h7>",
        "<a href=\"http://x/\">", "<a href=x title='t'>", "</a>", "<img src=a.png alt=\"x\">", "<!--", "-->", "<!-->", "<![CDATA[",
        "]]>", "<?php ", "?>", "<!DOCTYPE html>", "<script>", "</script>", "<style>", "</style>", "<textarea>", "<title>",
        "<b style=\"font-weight:normal\">", "<span style=\"font-weight:700\">", "<span style=\"font-style:italic\">", "</span>",
        "<span style=\"font-family:'Courier New'\">", "<p class=MsoListParagraph style='mso-list:l0 level3 lfo1'>",
        "<![if !supportLists]>", "<span style='mso-list:Ignore'>1.", "<![endif]>", "<input type=checkbox checked>",
        "<!--StartFragment-->", "<!--EndFragment-->", "<meta charset='utf-8'>", "&amp;", "&lt;", "&#x1F600;", "&#0;", "&#xD800;",
        "&copy", "&bogus;", "&", "<", ">", "</", "\"", "'", "=", " ", "\n", "\t", "text", "é", "😀", "\u{0}", "*", "_", "`", "[", "]",
        "#", "- ", "1. ", "|", "\\", "<svg>", "<custom-el a=b>", "</custom-el>", "<li aria-level=\"2\">",
    ]

    /// Reads and writes in every format; checks the outputs; returns the time taken.
    @discardableResult
    func exercise(_ input: [UInt8], as format: TextFormat, keepRawHTML: Bool = false, file: StaticString = #filePath, line: UInt = #line) -> Double {
        let start = Date()
        guard let doc = try? Conversion.read(input, from: format, keepRawHTML: keepRawHTML) else { return Date().timeIntervalSince(start) }
        let rtf = Conversion.write(doc, to: .rtf)
        XCTAssertTrue(rtf.allSatisfy { $0 < 0x80 }, "RTF output not 7-bit", file: file, line: line)
        var depth = 0
        var i = 0
        while i < rtf.count {
            if rtf[i] == UInt8(ascii: "\\") { i += 2; continue }
            if rtf[i] == UInt8(ascii: "{") { depth += 1 }
            if rtf[i] == UInt8(ascii: "}") { depth -= 1 }
            XCTAssertGreaterThanOrEqual(depth, 0, file: file, line: line)
            i += 1
        }
        XCTAssertEqual(depth, 0, "unbalanced RTF output", file: file, line: line)
        for f in [TextFormat.gfm, .commonmark, .text, .html] {
            let out = Conversion.write(doc, to: f)
            XCTAssertNotNil(String(validating: out, as: UTF8.self), "invalid UTF-8 in \(f)", file: file, line: line)
        }
        // Our own RTF reads back.
        _ = try? Conversion.read(rtf, from: .rtf)
        return Date().timeIntervalSince(start)
    }

    func testRandomBytesIntoBothReaders() {
        var rng = RNG(state: 7)
        var slowest = 0.0
        for k in 0..<1500 {
            let n = rng.below(300)
            var bytes: [UInt8] = k % 2 == 0 ? Array("{\\rtf1 ".utf8) : []
            for _ in 0..<n { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
            slowest = max(slowest, exercise(bytes, as: .rtf))
            slowest = max(slowest, exercise(bytes, as: .html))
        }
        XCTAssertLessThan(slowest, 1.0)
    }

    func testRTFTokenSoup() {
        var rng = RNG(state: 11)
        var slowest = 0.0
        for _ in 0..<2500 {
            var s = "{\\rtf1"
            for _ in 0..<rng.below(80) { s += Self.rtfTokens[rng.below(Self.rtfTokens.count)] }
            slowest = max(slowest, exercise(Array(s.utf8), as: .rtf))
        }
        XCTAssertLessThan(slowest, 1.0)
    }

    func testHTMLTokenSoup() {
        var rng = RNG(state: 13)
        var slowest = 0.0
        for _ in 0..<2500 {
            var s = ""
            for _ in 0..<rng.below(80) { s += Self.htmlTokens[rng.below(Self.htmlTokens.count)] }
            slowest = max(slowest, exercise(Array(s.utf8), as: .html))
        }
        XCTAssertLessThan(slowest, 1.0)
    }

    func testHTMLTokenSoupKeepingRawHTML() {
        var rng = RNG(state: 19)
        var slowest = 0.0
        for _ in 0..<2500 {
            var s = ""
            for _ in 0..<rng.below(80) { s += Self.htmlTokens[rng.below(Self.htmlTokens.count)] }
            slowest = max(slowest, exercise(Array(s.utf8), as: .html, keepRawHTML: true))
        }
        XCTAssertLessThan(slowest, 1.0)
    }

    func testKeepingRawHTMLOnFixturesAndPathologicalHTML() throws {
        let dir = RichTextTestSupport.fixtures.appendingPathComponent("RichText")
        var rng = RNG(state: 23)
        for name in ["google-docs.html", "word.html", "github.html"] {
            let bytes = try [UInt8](Data(contentsOf: dir.appendingPathComponent(name)))
            let step = max(1, bytes.count / 200)
            for end in stride(from: 0, to: bytes.count, by: step) { exercise(Array(bytes[..<end]), as: .html, keepRawHTML: true) }
            for _ in 0..<100 {
                var b = bytes
                for _ in 0..<1 + rng.below(8) { b[rng.below(b.count)] = UInt8(truncatingIfNeeded: rng.next()) }
                exercise(b, as: .html, keepRawHTML: true)
            }
        }
        let cases: [(String, String)] = [
            ("50k nested divs", String(repeating: "<div>", count: 50_000) + "x"),
            ("50k nested <b>", String(repeating: "<b>", count: 50_000) + "x"),
            ("50k nested unknown", String(repeating: "<x-y>", count: 50_000) + "x"),
            ("20k nested lists", String(repeating: "<ul><li>", count: 20_000) + "x"),
            ("20k nested tables", String(repeating: "<table><tr><td>", count: 20_000) + "x"),
            ("100k unclosed comments", String(repeating: "<!--", count: 100_000)),
            ("50k comments", String(repeating: "<!-- c -->x", count: 50_000)),
            ("50k stray end tags", String(repeating: "</q>\n", count: 50_000)),
            ("20k divs in a row", String(repeating: "<div class=a>x</div>\n", count: 20_000)),
        ]
        for (name, input) in cases {
            let t = exercise(Array(input.utf8), as: .html, keepRawHTML: true)
            XCTAssertLessThan(t, 20.0, "\(name): \(t) s")
        }
    }

    func testMarkdownTokenSoupThroughAllWriters() {
        let tokens = [
            "*", "**", "_", "~~", "`", "```\n", "[", "](", ")", "![", "<sup>", "</sup>", "<sub>", "</sub>", "<br>", "<div>\n", "\n",
            "\n\n", "- ", "1. ", "> ", "| a | b |\n|---|---|\n", "[^1]", "\n[^1]: note\n", "- [x] ", "# ", "---\n", "\\", "&amp;",
            "é", "😀", "text", " ", "    ", "\t", "<http://x.y>", "www.example.com",
        ]
        var rng = RNG(state: 19)
        for _ in 0..<1500 {
            var s = ""
            for _ in 0..<rng.below(40) { s += tokens[rng.below(tokens.count)] }
            exercise(Array(s.utf8), as: .gfm)
        }
    }

    func testTruncatedAndMutatedFixtures() throws {
        let dir = RichTextTestSupport.fixtures.appendingPathComponent("RichText")
        let constructs = try [UInt8](Data(contentsOf: dir.appendingPathComponent("constructs.md")))
        let samples: [([UInt8], TextFormat)] = [
            (try Conversion.convert(constructs, from: .gfm, to: .rtf), .rtf),
            (try Conversion.convert(constructs, from: .gfm, to: .html), .html),
            (try [UInt8](Data(contentsOf: dir.appendingPathComponent("cocoa-style.rtf"))), .rtf),
            (try [UInt8](Data(contentsOf: dir.appendingPathComponent("pandoc-2.17-output.rtf"))), .rtf),
            (try [UInt8](Data(contentsOf: dir.appendingPathComponent("google-docs.html"))), .html),
            (try [UInt8](Data(contentsOf: dir.appendingPathComponent("word.html"))), .html),
            (try [UInt8](Data(contentsOf: dir.appendingPathComponent("github.html"))), .html),
        ]
        var rng = RNG(state: 17)
        for (bytes, format) in samples {
            // Every truncation point (in steps), then random byte flips.
            let step = max(1, bytes.count / 300)
            for end in stride(from: 0, to: bytes.count, by: step) { exercise(Array(bytes[..<end]), as: format) }
            for _ in 0..<200 {
                var b = bytes
                for _ in 0..<1 + rng.below(8) { b[rng.below(b.count)] = UInt8(truncatingIfNeeded: rng.next()) }
                exercise(b, as: format)
            }
        }
    }

    func testPathologicalInputsStayFast() {
        let cases: [(String, [UInt8], TextFormat)] = [
            ("100k open braces", Array("{\\rtf1 ".utf8) + [UInt8](repeating: UInt8(ascii: "{"), count: 100_000) + Array("x".utf8), .rtf),
            ("100k close braces", Array("{\\rtf1 x".utf8) + [UInt8](repeating: UInt8(ascii: "}"), count: 100_000), .rtf),
            ("\\bin beyond the end", Array("{\\rtf1 \\bin2000000000 x}".utf8), .rtf),
            ("50k unicode escapes", Array(("{\\rtf1 " + String(repeating: "\\u-10179?", count: 50_000) + "}").utf8), .rtf),
            ("20k nested lists", Array(("{\\rtf1 " + String(repeating: "\\ls1\\ilvl8 {\\listtext -\\tab}x\\par ", count: 20_000) + "}").utf8), .rtf),
            ("10k table rows", Array(("{\\rtf1 " + String(repeating: "\\trowd\\cellx1 a\\cell\\row ", count: 10_000) + "}").utf8), .rtf),
            ("50k nested divs", Array((String(repeating: "<div>", count: 50_000) + "x").utf8), .html),
            ("50k nested <b>", Array((String(repeating: "<b>", count: 50_000) + "x").utf8), .html),
            ("20k nested lists", Array((String(repeating: "<ul><li>", count: 20_000) + "x").utf8), .html),
            ("20k nested tables", Array((String(repeating: "<table><tr><td>", count: 20_000) + "x").utf8), .html),
            ("100k unclosed comments", Array(String(repeating: "<!--", count: 100_000).utf8), .html),
            ("100k ampersands", Array(String(repeating: "&amp", count: 100_000).utf8), .html),
            ("100k list paragraphs", Array(String(repeating: "<p style='mso-list:l0 level9'>x</p>", count: 20_000).utf8), .html),
        ]
        for (name, input, format) in cases {
            // A blow-up guard, not a benchmark: linear readers take milliseconds in release and well under
            // a second in a debug build; a quadratic one takes minutes on these sizes. The bound leaves room
            // for a debug build on a loaded 2-core CI machine (5 s was exceeded there by load alone).
            let t = exercise(input, as: format)
            XCTAssertLessThan(t, 20.0, "\(name): \(t) s")
        }
    }
}

import XCTest

@testable import Markdown

/// The commonest lines skip the full matching against the open blocks (`BlockParser.continuesTopLevelLeaf`,
/// `isBlankAtTopLevel`). Documents made of the lines that decide block structure (paragraph text, fences at
/// and off the margin, HTML blocks of every type and their ends, blank and whitespace-only lines, tabs,
/// quotes, lists, headings, breaks, tables, definitions) must come out the same with and without them:
/// the HTML straight from the parser, and the document with its source positions.
final class LineShortcutTests: XCTestCase {
    static let lines: [String] = [
        "foo bar", "Foo *x* `c`", "é text", "Zed [x]", "", "", "", "   ", "\t", " \t ", "    code", "     more", "\tcode",
        "```", "```js", "````", "~~~", "   ```", "    ```", "  ~~~~", " ``` x", "<div>", "</div>", "<!-- c", "-->", "a -->",
        "<?x", "?>", "<![CDATA[", "]]>", "<!DOCTYPE html>", "<script>", "</script>", "<pre>", "</pre>", "<custom-tag>",
        "# h", "## h ##", "h", "===", "---", "***", "> q", ">", "- item", "* item", "+ x", "1. one", "2) two", "  - nested",
        "|a|b|", "|-|-|", "a | b", "--- | ---", "[x]: /u", "[x]", "[^1]: note", "text [^1]", "  two spaces", "a\\", "b  ",
        "www.example.com", "x@y.co", "\u{FEFF}bom", "- [ ] task",
    ]

    func render(_ input: [UInt8], _ options: MarkdownOptions, shortcuts: Bool) -> ([UInt8], String) {
        BlockParser.lineShortcuts = shortcuts
        defer { BlockParser.lineShortcuts = true }
        let direct = MarkdownParser.renderHTML(input, options: options)
        let tree = MarkdownParser.parse(input, options: options).debugDump(positions: true)
        return (direct, tree)
    }

    func testTheShortcutsGiveWhatTheFullMatchingGives() {
        var random = SplitMix64(state: 7)
        for round in 0..<3000 {
            let count = 1 + random.below(24)
            var text = ""
            for _ in 0..<count {
                text += Self.lines[random.below(Self.lines.count)]
                text += random.below(10) == 0 ? "\r\n" : "\n"
            }
            if round % 5 == 0 { text.removeLast() }  // no final line ending
            let input = Array(text.utf8)
            for options in [MarkdownOptions.commonmark, .gfm] {
                let fast = render(input, options, shortcuts: true)
                let full = render(input, options, shortcuts: false)
                XCTAssertEqual(String(decoding: fast.0, as: UTF8.self), String(decoding: full.0, as: UTF8.self), "\(text.debugDescription)")
                XCTAssertEqual(fast.1, full.1, "\(text.debugDescription)")
            }
        }
    }
}

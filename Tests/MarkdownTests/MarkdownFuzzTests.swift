import Foundation
import XCTest

@testable import Markdown

/// Randomised robustness: random bytes and random Markdown-like token soup (fixed seeds,
/// thousands of cases) must never crash, hang or produce invalid UTF-8, and the AST must
/// stay well-formed (parent / sibling links consistent).
final class MarkdownFuzzTests: XCTestCase {
    typealias RNG = SplitMix64

    static let tokens: [String] = [
        "*", "**", "_", "__", "~", "~~", "`", "```", "~~~", "[", "]", "(", ")", "![", "<", ">", "</", "/>", "\"", "'",
        "\\", "&", "&amp;", "&#x27;", "&#0;", "&bogus;", "#", "## ", "- ", "+ ", "* ", "1. ", "2) ", "> ", "    ",
        "\t", "\n", "\n\n", "\r\n", "\r", " ", "  \n", "|", "|-|", ":-:", "---", "===", "[^1]", "[^1]: ", "[x]: /u",
        "[ ] ", "[x] ", "www.a.com", "http://x.y/z", "a@b.co", "<div>", "</div>", "<!--", "-->", "<?", "?>",
        "<![CDATA[", "]]>", "<a href=\"", "<script>", "\u{0}", "é", "😀", "\u{FFFD}", "a", "b", "foo", "bar", "1", ".",
        ":", "!", "-", "=", "\u{A0}", "\u{2028}",
    ]

    func checkWellFormed(_ doc: MarkdownDocument, file: StaticString = #filePath, line: UInt = #line) {
        var count = 0
        for ev in doc.events where ev.phase == .enter {
            count += 1
            var prev: MarkdownDocument.NodeID? = nil
            for child in doc.children(of: ev.node) {
                XCTAssertEqual(doc.parent(child), ev.node, file: file, line: line)
                XCTAssertEqual(doc.previousSibling(child), prev, file: file, line: line)
                prev = child
            }
            XCTAssertEqual(doc.lastChild(ev.node), prev, file: file, line: line)
        }
        XCTAssertGreaterThan(count, 0)
    }

    func run(_ input: [UInt8], _ options: MarkdownOptions) {
        let doc = MarkdownParser.parse(input, options: options)
        let html = HTMLWriter.render(doc, options: options)
        XCTAssertNotNil(String(validating: html, as: UTF8.self), "invalid UTF-8 output for \(input)")
        _ = doc.debugDump(positions: true)
        checkWellFormed(doc)
    }

    func testRandomBytes() {
        for seed in UInt64(1)...UInt64(4) {
            var rng = RNG(state: seed)
            for _ in 0..<800 {
                let n = rng.below(200)
                var bytes = [UInt8]()
                bytes.reserveCapacity(n)
                for _ in 0..<n { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
                run(bytes, rng.below(2) == 0 ? .commonmark : .gfm)
            }
        }
    }

    func testTokenSoup() {
        for seed in UInt64(100)...UInt64(104) {
            var rng = RNG(state: seed)
            for _ in 0..<800 {
                let n = rng.below(60)
                var s = ""
                for _ in 0..<n { s += Self.tokens[rng.below(Self.tokens.count)] }
                run(Array(s.utf8), rng.below(3) == 0 ? .commonmark : .gfm)
            }
        }
    }

    func testLongTokenSoup() {
        var rng = RNG(state: 0xC0FFEE)
        for _ in 0..<20 {
            var s = ""
            for _ in 0..<3000 { s += Self.tokens[rng.below(Self.tokens.count)] }
            let start = Date()
            run(Array(s.utf8), .gfm)
            XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        }
    }

    func testTruncatedUTF8() {
        let samples: [[UInt8]] = [
            [0xE2], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0x2A, 0xE2, 0x82, 0x2A], [0x5B, 0xFF, 0x5D, 0x28, 0xFE, 0x29], [0x60, 0x80, 0x60],
        ]
        for s in samples {
            run(s, .gfm)
            run(s + [0x0A] + s, .commonmark)
        }
    }
}

import Foundation
import XCTest

@testable import Markdown

/// The pathological shapes of cmark's test/pathological_tests.py (plus GFM table blow-up,
/// wide tables, unclosed constructs and md4c's extras). Each must finish within a bound that
/// scales with the build it runs in: 5 s (as cmark's runner uses), or 60 times what an ordinary
/// document of the same size takes in this build when that is more (a debug or sanitizer build on a
/// loaded machine). Quadratic work on these inputs is thousands of times an ordinary document's.
/// Each must also produce the expected shape of output. Release builds take milliseconds.
final class MarkdownPathologicalTests: XCTestCase {
    static let bound: TimeInterval = 5

    /// Seconds per byte of an ordinary document (paragraphs, emphasis, links, a list, code) in this build.
    static let ordinarySecondsPerByte: Double = {
        let unit = "Some *text* with a [link](https://example.com) and `code`, **strong** words.\n\n- an item\n- another\n\n"
        let bytes = Array(String(repeating: unit, count: 4000).utf8)
        var best = Double.infinity
        for _ in 0..<3 {
            let start = Date()
            _ = HTMLWriter.renderString(MarkdownParser.parse(bytes, options: .gfm), options: .gfm)
            best = min(best, Date().timeIntervalSince(start))
        }
        return best / Double(bytes.count)
    }()

    static func bound(forBytes count: Int) -> TimeInterval {
        max(bound, 60 * ordinarySecondsPerByte * Double(count))
    }

    func rep(_ s: String, _ n: Int) -> String { String(repeating: s, count: n) }

    /// Each input's GFM HTML is the expected one.
    func assertGFM(_ cases: [(String, String)], file: StaticString = #filePath, line: UInt = #line) {
        for (input, expected) in cases {
            XCTAssertEqual(MarkdownParser.renderHTML(input, options: .gfm), expected, input, file: file, line: line)
        }
    }

    @discardableResult
    func check(
        _ name: String, _ input: String, options: MarkdownOptions = .commonmark, file: StaticString = #filePath,
        line: UInt = #line, _ verify: (String) -> Bool
    ) -> String {
        let bytes = Array(input.utf8)
        let start = Date()
        let html = HTMLWriter.renderString(MarkdownParser.parse(bytes, options: options), options: options)
        let elapsed = Date().timeIntervalSince(start)
        let limit = Self.bound(forBytes: bytes.count)
        XCTAssertLessThan(elapsed, limit, "\(name): \(elapsed) s for \(bytes.count) bytes (limit \(limit) s)", file: file, line: line)
        XCTAssertTrue(verify(html), "\(name): unexpected output \(html.prefix(200))…", file: file, line: line)
        return html
    }

    func testNestedStrongEmph() {
        check("nested strong emph", rep("*a **a ", 32500) + "b" + rep(" a** a*", 32500)) {
            $0.hasPrefix("<p>" + rep("<em>a <strong>a ", 100)) && $0.contains("b" + rep(" a</strong> a</em>", 100))
        }
    }

    func testEmphasisRuns() {
        check("many emph closers with no openers", rep("a_ ", 32500)) { $0 == "<p>" + rep("a_ ", 32499) + "a_</p>\n" }
        check("many emph openers with no closers", rep("_a ", 32500)) { $0 == "<p>" + rep("_a ", 32499) + "_a</p>\n" }
        check("mismatched openers and closers", rep("*a_ ", 25000)) { $0.hasPrefix("<p>*a_ *a_") }
        check("issue #389", rep("*a ", 20000) + rep("_a*_ ", 20000)) {
            $0.hasPrefix("<p>" + rep("<em>a ", 100)) && $0.contains(rep("_a</em>_ ", 100))
        }
        check("openers and closers multiple of 3", "a**b" + rep("c* ", 25000)) { $0.hasPrefix("<p>a**b") }
        check("link openers and emph closers", rep("[ a_", 25000)) { $0.hasPrefix("<p>[ a_[ a_") }
        check("long delimiter runs", rep("*", 50000) + "a" + rep("*", 50000)) { $0.contains("a") }
        check("tildes", rep("~a ", 30000) + rep("a~~ ", 30000), options: .gfm) { $0.hasPrefix("<p>") }
    }

    func testBrackets() {
        check("many link closers with no openers", rep("a]", 32500)) { $0 == "<p>" + rep("a]", 32500) + "</p>\n" }
        check("many link openers with no closers", rep("[a", 32500)) { $0 == "<p>" + rep("[a", 32500) + "</p>\n" }
        check("pattern [ (]( repeated", rep("[ (](", 40000)) { $0.hasPrefix("<p>[ (](") }
        check("pattern ![[]() repeated", rep("![[]()", 160000)) { $0.hasPrefix("<p>![<a href=\"\"></a>![") }
        check("nested brackets", rep("[", 25000) + "a" + rep("]", 25000)) {
            $0 == "<p>" + rep("[", 25000) + "a" + rep("]", 25000) + "</p>\n"
        }
        check("hard link/emph case", "**x [a*b**c*](d)") { $0 == "<p>**x <a href=\"d\">a<em>b**c</em></a></p>\n" }
        check("unclosed links A", rep("[a](<b", 30000)) { $0.hasPrefix("<p>[a](&lt;b") }
        check("unclosed links B", rep("[a](b", 30000)) { $0.hasPrefix("<p>[a](b") }
        check("broken link titles", rep("[a](b \"", 30000)) { $0.hasPrefix("<p>[a](b &quot;") }
        check("]([ newline", rep("]([\n", 30000)) { $0.hasPrefix("<p>]([") }
    }

    func testDeepNesting() {
        check("nested block quotes", rep("> ", 25000) + "a") { $0.hasPrefix(rep("<blockquote>\n", 1000)) }
        check("deeply nested lists", (0..<500).map { rep("  ", $0) + "* a\n" }.joined()) { $0.hasPrefix("<ul>\n<li>a\n<ul>") }
        check("empty lines in deeply nested lists", rep("- ", 30000) + "x" + rep("\n", 10000)) { $0.hasPrefix("<ul>\n<li>") }
        check("empty lines in deeply nested lists in block quote", "> " + rep("- ", 30000) + "x\n" + rep(">\n", 10000)) {
            $0.hasPrefix("<blockquote>\n<ul>")
        }
        check("emph in deep blockquote", rep(">", 100000) + rep("a*", 100000)) { $0.hasPrefix("<blockquote>") }
        check("nested inlines", rep("*", 20000) + "a" + rep("*", 20000)) { $0.contains("a") }
    }

    func testCodeAndHTML() {
        check("backticks", (1..<2500).map { "e" + rep("`", $0) }.joined()) { $0.hasPrefix("<p>e`e``") }
        check("unclosed <!--", "</" + rep("<!--", 100000)) { $0.hasPrefix("<p>&lt;/") }
        check("many html comment openers", "a" + rep("<!--", 50000)) { $0.hasPrefix("<p>a&lt;!--") }
        check("processing instructions", rep("a<?", 100000)) { $0.hasPrefix("<p>a&lt;?") }
        check("CDATA openers", rep("a<![CDATA[", 50000)) { $0.hasPrefix("<p>a&lt;![CDATA[") }
        check("declarations", rep("a<!A", 100000)) { $0.hasPrefix("<p>a&lt;!A") }
        check("unclosed attribute values", rep("<a b=\"", 50000)) { $0.hasPrefix("<p>&lt;a b=&quot;") }
        check("U+0000", "abc\0de\0") { $0 == "<p>abc\u{FFFD}de\u{FFFD}</p>\n" }
    }

    func testReferences() {
        let defs = (0..<25000).map { "[\($0)]: /u\($0)\n" }.joined()
        let uses = (0..<25000).map { "[\($0)] " }.joined()
        check("many reference definitions and uses", defs + "\n" + uses) {
            $0.hasPrefix("<p><a href=\"/u0\">0</a> <a href=\"/u1\">1</a>")
        }
        check("reference label collisions", (0..<25000).map { "[a\($0)]: x\n" }.joined() + "[a0] [a24999]") {
            $0.contains("<a href=\"x\">a24999</a>")
        }
        let fdefs = (0..<10000).map { "[^\($0)]: n\n" }.joined()
        let fuses = (0..<10000).map { "[^\($0)] " }.joined()
        check("many footnotes", fuses + "\n\n" + fdefs, options: .gfm) { $0.contains("id=\"fn-9999\"") }
    }

    func testTables() {
        // Input of size O(n) whose missing cells would give O(n²) output: capped.
        let blowup = check(
            "table cell blow-up", rep("x|", 10000) + "\n" + rep("-|", 10000) + "\n" + rep("x\n", 10000), options: .gfm
        ) { $0.hasPrefix("<table>") }
        XCTAssertLessThan(blowup.utf8.count, 10_000_000)
        check("wide table", rep("|x", 5000) + "|\n" + rep("|-", 5000) + "|\n" + rep("|y", 5000) + "|\n", options: .gfm) {
            $0.hasPrefix("<table>\n<thead>\n<tr>\n<th>x</th>")
        }
        check("many rows", "|a|b|\n|-|-|\n" + rep("|c|d|\n", 30000), options: .gfm) { $0.hasSuffix("</tbody>\n</table>\n") }
        check("md4c huge table", "x\n" + rep("-|", 127) + "\n" + rep("x\n", 20000), options: .gfm) { !$0.isEmpty }
    }

    func testManyBlocks() {
        check("many list items", rep("- a\n", 50000)) { $0.hasPrefix("<ul>\n<li>a</li>") }
        check("thematic break kill", rep("- ", 50000) + "x") { $0.hasPrefix("<ul>") }
        check("many fences", rep("```\n", 30000)) { $0.hasPrefix("<pre><code>") }
        check("many setext headings", rep("a\n=\n", 30000)) { $0.hasPrefix("<h1>a</h1>") }
        check("extended autolinks", rep("www.a.b ", 30000) + rep("x@y.z ", 30000), options: .gfm) {
            $0.hasPrefix("<p><a href=\"http://www.a.b\">")
        }
    }

    /// What a paragraph holds while it waits: a delimiter run in the stack 8 bytes and no mark, an open
    /// bracket 4 bytes and no mark, a matched run or a link's end a 12-byte mark. They bound its memory
    /// (docs/benchmarks.md, peak memory of the adversarial shapes, all under 8× the input).
    func testInlineRecordsStaySmall() {
        XCTAssertEqual(MemoryLayout<InlineMark>.stride, 12)
        XCTAssertEqual(MemoryLayout<Delimiter>.stride, 8)
        XCTAssertEqual(MemoryLayout<Bracket>.stride, 4)
    }

    /// Marks made after the marks that follow them (links' starts at their `]`, delimiter runs as they
    /// leave the stack), in and out of source order, behind openers that keep everything waiting: the
    /// output is cmark-gfm 0.29's.
    func testLateMarksComeOutInSourceOrder() {
        let cases: [(String, String)] = [
            ("*[a](b)[c](d \"t\")*\n\n[r]: /u \"t\"\n", "<p><em><a href=\"b\">a</a><a href=\"d\" title=\"t\">c</a></em></p>\n"),
            ("![[]()![[]()![[]()\n\n[r]: /u \"t\"\n", "<p>![<a href=\"\"></a>![<a href=\"\"></a>![<a href=\"\"></a></p>\n"),
            ("*x *a**a**a* y*\n\n[r]: /u \"t\"\n", "<p><em>x <em>a<strong>a</strong>a</em> y</em></p>\n"),
            ("![a ![b](c) *d*](e) [f]\n\n[r]: /u \"t\"\n", "<p><img src=\"e\" alt=\"a b d\" /> [f]</p>\n"),
            ("[*a[*a[*a]\n\n[r]: /u \"t\"\n", "<p>[*a[*a[*a]</p>\n"),
            ("**x [a*b**c*](d)\n\n[r]: /u \"t\"\n", "<p>**x <a href=\"d\">a<em>b**c</em></a></p>\n"),
            ("*a **a **a b a** a** a*\n\n[r]: /u \"t\"\n", "<p><em>a <strong>a <strong>a b a</strong> a</strong> a</em></p>\n"),
            ("[ a_[ a_[ a_\n\n[r]: /u \"t\"\n", "<p>[ a_[ a_[ a_</p>\n"),
            ("*[r] [r][] [x][r]*\n\n[r]: /u \"t\"\n", "<p><em><a href=\"/u\" title=\"t\">r</a> <a href=\"/u\" title=\"t\">r</a> <a href=\"/u\" title=\"t\">x</a></em></p>\n"),
            ("~a~~b~~c~ ~~d~~\n\n[r]: /u \"t\"\n", "<p><del>a<del>b</del>c</del> <del>d</del></p>\n"),
            ("*a ***b*** c*\n\n[r]: /u \"t\"\n", "<p><em>a <em><strong>b</strong></em> c</em></p>\n"),
            ("[a](<b c> \"t\") *[e](\\(f\\))*\n\n[r]: /u \"t\"\n", "<p><a href=\"b%20c\" title=\"t\">a</a> <em><a href=\"(f)\">e</a></em></p>\n"),
            ("*a_ *a_ *a_ b*\n\n[r]: /u \"t\"\n", "<p>*a_ *a_ <em>a_ b</em></p>\n"),
            ("_a _a _a\n\n[r]: /u \"t\"\n", "<p>_a _a _a</p>\n"),
            ("*a****b****c*\n\n[r]: /u \"t\"\n", "<p><em>a</em><em><strong>b</strong></em><em>c</em></p>\n"),
        ]
        assertGFM(cases)
        // Many of them, and a long paragraph of each behind an opener that never closes.
        let many = "*" + rep("[a](b) *c* ![[]() ", 2000) + "*"
        XCTAssertEqual(
            MarkdownParser.renderHTML(many, options: .gfm),
            "<p>*" + rep("<a href=\"b\">a</a> <em>c</em> ![<a href=\"\"></a> ", 2000) + "*</p>\n")
        XCTAssertEqual(
            MarkdownParser.renderHTML("*" + rep("a**b**", 3000), options: .gfm),
            "<p>*" + rep("a<strong>b</strong>", 3000) + "</p>\n")
    }

    /// Brackets with more brackets open above them than `]` left are dead (text whatever follows), and
    /// the closers inside the one active bracket with no delimiter before it are matched as they come
    /// (`session`): with or without a link made, nested, deactivated by a link inside. The expected HTML
    /// is cmark-gfm 0.29's (and cmark 0.30's).
    /// A bracket with delimiters before it: its `]` is read ahead once, at its first closer, and its closers
    /// are matched as they come, within it when the `]` makes a link or image (inline, full, collapsed
    /// or shortcut reference), as the block's when it makes nothing; a code span, HTML, another bracket
    /// or a footnote label before the `]` leaves them waiting as before. Expected HTML from cmark-gfm 0.29.
    func testClosersInsideABracketWhoseCloseIsReadAhead() {
        let cases: [(String, String)] = [
            ("*[*a*a*a*a*](u) b*\n", "<p><em><a href=\"u\"><em>a</em>a<em>a</em>a*</a> b</em></p>\n"),
            ("*[*a*a*a*a*] b*\n", "<p><em>[<em>a</em>a</em>a<em>a</em>] b*</p>\n"),
            ("*[*a*a*a*a*][r] b*\n\n[r]: /x\n", "<p><em><a href=\"/x\"><em>a</em>a<em>a</em>a*</a> b</em></p>\n"),
            ("*[*a*a*a*a*][] b*\n\n[*a*a*a*a*]: /x\n", "<p><em><a href=\"/x\"><em>a</em>a<em>a</em>a*</a> b</em></p>\n"),
            ("*[*a*a*a*a*] b*\n\n[*a*a*a*a*]: /x\n", "<p><em><a href=\"/x\"><em>a</em>a<em>a</em>a*</a> b</em></p>\n"),
            ("*[*a*a*a*a*][nope] b*\n\n[r]: /x\n", "<p><em>[<em>a</em>a</em>a<em>a</em>][nope] b*</p>\n"),
            ("_[*a*a*a\\]*a*](u) b_\n", "<p><em><a href=\"u\"><em>a</em>a*a]<em>a</em></a> b</em></p>\n"),
            ("*[*a*a`]`*a*](u) b*\n", "<p><em><a href=\"u\"><em>a</em>a<code>]</code><em>a</em></a> b</em></p>\n"),
            ("*[*a*a[*a*](u) b*\n", "<p><em>[<em>a</em>a<a href=\"u\"><em>a</em></a> b</em></p>\n"),
            ("*[*a*a*a*a*\n", "<p><em>[<em>a</em>a</em>a<em>a</em></p>\n"),
            ("*![*a*a*a*a*](u) b*\n", "<p><em><img src=\"u\" alt=\"aaaa*\" /> b</em></p>\n"),
            ("*[*a*a*a*a*] (u) b*\n", "<p><em>[<em>a</em>a</em>a<em>a</em>] (u) b*</p>\n"),
            ("*[*a*a*a*a*](<u v>) b*\n", "<p><em><a href=\"u%20v\"><em>a</em>a<em>a</em>a*</a> b</em></p>\n"),
            ("*[*a*a*a*a*]\n(u) b*\n", "<p><em>[<em>a</em>a</em>a<em>a</em>]\n(u) b*</p>\n"),
        ]
        assertGFM(cases)
    }

    func testDeadBracketsAndClosersMatchedInsideABracket() {
        let cases: [(String, String)] = [
            ("[*a[*a[*a*\n", "<p>[*a[*a[<em>a</em></p>\n"),
            ("*[*a* b](u) c*\n", "<p><em><a href=\"u\"><em>a</em> b</a> c</em></p>\n"),
            ("[*a *b* c](u)\n", "<p><a href=\"u\">*a <em>b</em> c</a></p>\n"),
            ("[*a *b* c] *d*\n", "<p>[*a <em>b</em> c] <em>d</em></p>\n"),
            ("[*a*a*a*a](u)\n", "<p><a href=\"u\"><em>a</em>a<em>a</em>a</a></p>\n"),
            ("![*a* [b](c) *d*](e)\n", "<p><img src=\"e\" alt=\"a b d\" /></p>\n"),
            ("[*a* [b](c) *d*](e)\n", "<p>[<em>a</em> <a href=\"c\">b</a> <em>d</em>](e)</p>\n"),
            ("[*a*[[[]\n", "<p>[<em>a</em>[[[]</p>\n"),
            ("*a [b *c] d*\n", "<p>*a [b <em>c] d</em></p>\n"),
            ("[_a_ *b*\n", "<p>[<em>a</em> <em>b</em></p>\n"),
            ("[a *b [c* d](e) f*\n", "<p>[a <em>b <a href=\"e\">c* d</a> f</em></p>\n"),
            ("[*a **b](u)** c*\n", "<p><a href=\"u\">*a **b</a>** c*</p>\n"),
            ("![*a*a*a*a*]\n", "<p>![<em>a</em>a<em>a</em>a*]</p>\n"),
            ("[**a*](u)*\n", "<p><a href=\"u\">*<em>a</em></a>*</p>\n"),
            ("[*a *b*](u) *c [d *e*] f*\n", "<p><a href=\"u\">*a <em>b</em></a> <em>c [d <em>e</em>] f</em></p>\n"),
        ]
        assertGFM(cases)
        // With delimiters before the bracket: matched ahead while each closer finds an opener after it.
        let speculative: [(String, String)] = [
            ("*[*a* b *c*](u) d*\n", "<p><em><a href=\"u\"><em>a</em> b <em>c</em></a> d</em></p>\n"),
            ("*[*a*a*a](u)*\n", "<p><em><a href=\"u\"><em>a</em>a*a</a></em></p>\n"),
            ("_[*a* *b* c] d_\n", "<p><em>[<em>a</em> <em>b</em> c] d</em></p>\n"),
            ("*a [*b* c* d](u) e*\n", "<p><em>a <a href=\"u\"><em>b</em> c* d</a> e</em></p>\n"),
            ("**[*a* **b**](u)**\n", "<p><strong><a href=\"u\"><em>a</em> <strong>b</strong></a></strong></p>\n"),
            ("*[a *b [c *d*](e) f*](g)*\n", "<p><em>[a <em>b <a href=\"e\">c <em>d</em></a> f</em>](g)</em></p>\n"),
            ("*x [*a* [b* c]] *y*\n", "<p><em>x [<em>a</em> [b</em> c]] <em>y</em></p>\n"),
            ("*[*a*a*a]*\n", "<p><em>[<em>a</em>a</em>a]*</p>\n"),
        ]
        assertGFM(speculative)
        XCTAssertEqual(
            MarkdownParser.renderHTML("[" + rep("*a* ", 3000) + "](u)", options: .gfm),
            "<p><a href=\"u\">" + rep("<em>a</em> ", 3000) + "</a></p>\n")
        XCTAssertEqual(MarkdownParser.renderHTML(rep("[*", 3000), options: .gfm), "<p>" + rep("[<em>[</em>", 1500) + "</p>\n")
    }

    /// Delimiter runs longer than a mark's 16-bit width keep their length in their record, and links,
    /// images and footnote references form from any bracket of a run of `[` (the expected HTML is
    /// cmark-gfm 0.29's).
    func testLongRunsAndBracketRuns() {
        let footnote = """
            <section class="footnotes" data-footnotes>
            <ol>
            <li id="fn-1">
            <p>n <a href="#fnref-1" class="footnote-backref" data-footnote-backref aria-label="Back to content">↩</a></p>
            </li>
            </ol>
            </section>

            """
        let cases: [(String, String)] = [
            (rep("*", 70001) + "a" + rep("*", 70001), "<p><em>" + rep("<strong>", 35000) + "a" + rep("</strong>", 35000) + "</em></p>\n"),
            (rep("_", 65536) + "b" + rep("_", 65537), "<p>" + rep("<strong>", 32768) + "b" + rep("</strong>", 32768) + "_</p>\n"),
            ("[[[a](x)]]", "<p>[[<a href=\"x\">a</a>]]</p>\n"),
            ("[[^1]](x)\n\n[^1]: n\n",
             "<p><a href=\"x\"><sup class=\"footnote-ref\"><a href=\"#fn-1\" id=\"fnref-1\" data-footnote-ref>1</a></sup></a></p>\n" + footnote),
            ("![[[a](x)](y)", "<p>![[<a href=\"x\">a</a>](y)</p>\n"),
            ("[[[a]][b]]\n\n[a]: /a\n[b]: /b\n", "<p>[[<a href=\"/a\">a</a>]<a href=\"/b\">b</a>]</p>\n"),
            ("[[*a [[b](c) d*]]", "<p>[[<em>a [<a href=\"c\">b</a> d</em>]]</p>\n"),
            (rep("[", 70000) + "a](x)" + rep("]", 69999), "<p>" + rep("[", 69999) + "<a href=\"x\">a</a>" + rep("]", 69999) + "</p>\n"),
        ]
        for (input, expected) in cases {
            let html = check("runs", input, options: .gfm) { _ in true }
            XCTAssertEqual(html, expected, String(input.prefix(40)))
        }
    }
}

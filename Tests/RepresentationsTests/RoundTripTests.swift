import Markdown
import XCTest

@testable import Representations

/// Round trips over every CommonMark 0.31.2 spec example (the spec vendored by SpecConformanceTests).
final class RoundTripTests: XCTestCase {
    struct Example {
        let number: Int
        let section: String
        let markdown: String
    }

    static func examples(_ file: String = "commonmark-0.31.2-spec.txt") throws -> [Example] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SpecConformanceTests/Specs/\(file)")
        let text = try String(contentsOf: url, encoding: .utf8)
        var out: [Example] = []
        var section = ""
        var inExample = false
        var inMarkdown = false
        var markdown = ""
        let fence = String(repeating: "`", count: 32)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !inExample {
                if line.hasPrefix(fence + " example") {
                    inExample = true
                    inMarkdown = true
                    markdown = ""
                } else if line.hasPrefix("#") {
                    section = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
                }
                continue
            }
            if line == fence {
                inExample = false
                out.append(Example(number: out.count + 1, section: section, markdown: markdown.replacingOccurrences(of: "→", with: "\t")))
            } else if line == "." {
                inMarkdown = false
            } else if inMarkdown {
                markdown += line + "\n"
            }
        }
        return out
    }

    private func md(_ s: String, gfm: Bool = false) -> String {
        let doc = MarkdownParser.parse(s, options: gfm ? .gfm : .commonmark)
        return MarkdownWriter.renderString(doc, gfm: gfm)
    }

    private func html(_ s: String, gfm: Bool = false) -> String {
        MarkdownParser.renderHTML(s, options: gfm ? .gfm : .commonmark)
    }

    func testMarkdownToMarkdownIsIdempotentOnEverySpecExample() throws {
        let examples = try Self.examples()
        XCTAssertEqual(examples.count, 652)
        var failures: [String] = []
        for e in examples {
            let once = md(e.markdown)
            let twice = md(once)
            if once != twice { failures.append("Example \(e.number) (\(e.section))") }
        }
        print("Markdown → Markdown idempotent: \(examples.count - failures.count)/\(examples.count)")
        XCTAssertEqual(failures, [], "not idempotent")
    }

    func testMarkdownToMarkdownKeepsTheDocument() throws {
        // Parsing the written Markdown gives the same HTML as the original (the same AST, as HTML shows it).
        let examples = try Self.examples()
        var failures: [(Example, String)] = []
        for e in examples {
            let written = md(e.markdown)
            if HTMLCompare.normalize(html(written)) != HTMLCompare.normalize(html(e.markdown)) { failures.append((e, written)) }
        }
        let passed = examples.count - failures.count
        print("Markdown → Markdown → HTML equals Markdown → HTML: \(passed)/\(examples.count)")
        for (e, w) in failures.prefix(40) {
            print("  Example \(e.number) (\(e.section)): \(e.markdown.debugDescription) → \(w.debugDescription)")
        }
        XCTAssertGreaterThanOrEqual(Double(passed) / Double(examples.count), 0.98)
    }

    func testHTMLRoundTripThroughOurHTMLReader() throws {
        // Markdown → HTML → (HTML reader) → Markdown → HTML gives the same HTML.
        //
        // The HTML reader is built for clipboard HTML: as issue #4 asks, it drops comments, processing
        // instructions and declarations, unwraps unknown tags and layout containers (`div`, custom elements),
        // closes what the HTML leaves open, and turns header-less tables into GFM tables. Constructs with no
        // Markdown form that mean something (`details`, `kbd`, `ins`, `mark`, `sup`, `sub`, sized images,
        // tables that do not fit GFM) are kept as HTML. Every example without raw HTML in its source comes
        // back; the 70 that fail all carry raw HTML the spec uses to test the parser, of these kinds (by
        // example number, CommonMark 0.31.2):
        // - comments: 177 179 183 308 309 625 626
        // - processing instructions, declarations, CDATA: 180 181 182 627 628 629
        // - GFM's tag filter escapes `<script>`/`<style>`/`<textarea>` to text outside any block: 170-173 176 178
        // - unknown elements (`<bab>`, `<responsive-image>`, `<bar attr=…>`, `<Warning>`…): 163 201 491 524 536
        //   613-617 623
        // - elements the HTML leaves open (`<a href>` with no `</a>`, `<b>`), text outside a paragraph in an
        //   `a`/`i`/`del`/`ins`: 21 31 162 164-167 187 344 476 477 494 630 631 642 643
        // - `div` wrappers and text directly inside them, tags cut by the end of input: 150-159 161 174 175
        //   184-186 188 189
        // - one-row tables without a header row (read as GFM tables, so the row becomes a header): 149 160 190
        // - others: 148 (malformed `<pre>` in a table), 169 (`<pre language=…>`), 475 (`<img>` without `alt`)
        // Reaching 95% of all examples takes keeping comments, unknown tags and `div`s as HTML, which the
        // issue rules out for clipboard HTML; so in this default mode all examples are held at the measured
        // 89%, and those without raw HTML at 100%. The opt-in keep-raw-HTML mode is tested below.
        let (percent, plainPassed, plain) = try htmlRoundTrip(keepRawHTML: false)
        XCTAssertEqual(plainPassed, plain, "every example without raw HTML comes back")
        XCTAssertGreaterThanOrEqual(percent, 89)
    }

    func testHTMLRoundTripKeepingRawHTML() throws {
        // The same round trip with the reader's keep-raw-HTML mode (`convert --keep-html`, like pandoc's
        // `html+raw_html`): comments, declarations, unknown elements, `div`s and elements Markdown would not
        // give back stay HTML, so the raw HTML the spec examples carry comes back too.
        // Measured: 646/652 (99.1%); the 580 examples without raw HTML all come back. The 6 that fail are GFM's
        // tag filter (170-173 176 178): the first rendering escapes `<script>`/`<style>`/`<textarea>` to text
        // outside any block, which Markdown can only give back by writing real `<script>` tags; the reader
        // does not turn visible text into live markup.
        let (percent, plainPassed, plain) = try htmlRoundTrip(keepRawHTML: true)
        XCTAssertEqual(plainPassed, plain, "every example without raw HTML comes back")
        XCTAssertGreaterThanOrEqual(percent, 95)
    }

    private func htmlRoundTrip(keepRawHTML: Bool) throws -> (percent: Double, plainPassed: Int, plain: Int) {
        let examples = try Self.examples()
        var failuresBySection: [String: [Int]] = [:]
        var passed = 0
        var plain = 0
        var plainPassed = 0
        for e in examples {
            let source = MarkdownParser.parse(e.markdown, options: .gfm)
            var hasRawHTML = false
            source.walk { event in
                if event.kind == .htmlBlock || event.kind == .htmlInline { hasRawHTML = true }
                return .continue
            }
            let first = HTMLWriter.renderString(source, options: .gfm)
            // HTML with nothing visible (only a comment, say) is an error for `convert`; here it reads as empty.
            let doc = (try? Conversion.read(Array(first.utf8), from: .html, keepRawHTML: keepRawHTML)) ?? MarkdownDocument()
            let markdown = MarkdownWriter.renderString(doc, gfm: true)
            let second = html(markdown, gfm: true)
            let ok = HTMLCompare.normalize(first) == HTMLCompare.normalize(second)
            if ok { passed += 1 } else { failuresBySection[e.section + (hasRawHTML ? " (raw HTML)" : ""), default: []].append(e.number) }
            if !hasRawHTML {
                plain += 1
                if ok { plainPassed += 1 }
            }
        }
        let percent = Double(passed) * 100 / Double(examples.count)
        let plainPercent = Double(plainPassed) * 100 / Double(plain)
        print("Markdown → HTML → Markdown → HTML\(keepRawHTML ? " (keeping raw HTML)" : ""): \(passed)/\(examples.count) (\(String(format: "%.1f", percent))%) of all examples; "
            + "\(plainPassed)/\(plain) (\(String(format: "%.1f", plainPercent))%) of the examples without raw HTML")
        for (section, numbers) in failuresBySection.sorted(by: { $0.value.count > $1.value.count }) {
            print("  \(section): \(numbers.count) [\(numbers.map(String.init).joined(separator: " "))]")
        }
        return (percent, plainPassed, plain)
    }

    func testGFMSpecExamplesRoundTripInGFMMode() throws {
        // The GFM spec (0.29-gfm, with its table, strikethrough, autolink and task-list examples) through the
        // GFM writer: idempotent, and the written Markdown renders to the same HTML.
        let examples = try Self.examples("gfm-0.29-spec.txt")
        var notIdempotent: [String] = []
        var changed: [String] = []
        for e in examples {
            let once = md(e.markdown, gfm: true)
            if md(once, gfm: true) != once { notIdempotent.append("Example \(e.number) (\(e.section))") }
            if HTMLCompare.normalize(html(once, gfm: true)) != HTMLCompare.normalize(html(e.markdown, gfm: true)) {
                changed.append("Example \(e.number) (\(e.section))")
            }
        }
        print("GFM spec, gfm writer: idempotent \(examples.count - notIdempotent.count)/\(examples.count), "
            + "same HTML \(examples.count - changed.count)/\(examples.count); differing: \(changed.joined(separator: ", "))")
        XCTAssertEqual(notIdempotent, [])
        XCTAssertLessThanOrEqual(changed.count, 5)
    }

    func testGFMExtensionsSurviveMarkdownRoundTrip() {
        let source = """
            | a | b |
            |:--|--:|
            | 1 \\| x | ~~del~~ |

            - [x] done
            - [ ] todo

            Footnote[^n].

            [^n]: The note.

            """
        let once = md(source, gfm: true)
        XCTAssertEqual(HTMLCompare.normalize(html(once, gfm: true)), HTMLCompare.normalize(html(source, gfm: true)))
        XCTAssertEqual(md(once, gfm: true), once)
        XCTAssertTrue(once.contains("| :-- | --: |"))
        XCTAssertTrue(once.contains("- [x] done"))
    }
}

/// A light HTML normaliser for comparing two renderings: white space runs collapse (outside `<pre>`)
/// and white space next to tags goes.
enum HTMLCompare {
    static func normalize(_ html: String) -> String {
        var out = ""
        var inPre = 0
        var space = false
        var i = html.startIndex
        while i < html.endIndex {
            let c = html[i]
            if c == "<" {
                if html[i...].hasPrefix("<pre") { inPre += 1 }
                if html[i...].hasPrefix("</pre") { inPre = max(0, inPre - 1) }
                space = false
                while out.last == " " { out.removeLast() }
                let end = html[i...].firstIndex(of: ">") ?? html.index(before: html.endIndex)
                var tag = String(html[i...end])
                tag = tag.replacingOccurrences(of: " />", with: ">")
                out += tag
                i = html.index(after: end)
                // drop white space right after a tag
                if inPre == 0 { while i < html.endIndex, html[i].isWhitespace { i = html.index(after: i) } }
                continue
            }
            if inPre == 0 && c.isWhitespace {
                space = true
            } else {
                if space { out += " " }
                space = false
                out.append(c)
            }
            i = html.index(after: i)
        }
        return out
    }
}

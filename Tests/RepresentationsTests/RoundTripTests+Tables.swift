import Markdown
import Foundation
import XCTest

@testable import Representations

/// Generated HTML documents with tables beside raw HTML (HTML blocks before and after a table, tables in
/// raw `<div>`s, list items, quotes and other tables' cells, tables kept as HTML, captions of every shape),
/// read in both modes and written as Markdown: the Markdown must read back as the document it was written
/// from (no table turned into a code block or swallowed by an HTML block), and every caption's text must be
/// in it.
struct TableDocumentGenerator {
    var random: SplitMix64
    /// The word each generated caption carries (`capN`), to find it in the outputs.
    var captionWords: [String] = []
    private var counter = 0

    init(seed: UInt64) { random = SplitMix64(state: seed) }

    private mutating func pick<T>(_ choices: [T]) -> T { choices[random.below(choices.count)] }
    private mutating func chance(_ percent: Int) -> Bool { random.below(100) < percent }
    private mutating func word() -> String {
        counter += 1
        return pick(["alpha", "beta", "gamma", "delta", "omega"]) + String(counter)
    }

    /// White space between two pieces of markup: none, a line break, a blank line, or indentation (which a
    /// Markdown reader would take for an indented code block if it reached the output as it is).
    private mutating func gap() -> String {
        pick(["", "", "\n", "\n\n", "\n    ", "\n        ", "\n\t", " ", "\n  \n    "])
    }

    mutating func document() -> String {
        captionWords = []
        var out = ""
        for _ in 0..<(1 + random.below(5)) { out += gap() + block(depth: 0) }
        return out + pick(["", "\n"])
    }

    /// A caption element of one of the shapes clipboard HTML gives (text wrapped in inline or block markup,
    /// line breaks, character references, several blocks).
    mutating func caption() -> String {
        counter += 1
        let w = "cap\(counter)"
        captionWords.append(w)
        let inner = pick([
            w, "<b>\(w)</b>", "<p>\(w)</p>", "<span><a href=\"u\">\(w)</a></span>", "<div>\(w)</div>",
            "Table<br>\(w) &amp; more", "<div><p>\(w)</p></div>", "<em>x</em> \(w) <div>more</div>", "<p>one</p><p>\(w)</p>",
            "\n  <strong>\(w)</strong>\n", "<h4>\(w)</h4>", "<p><font face=\"Courier New\">\(w)</font></p>", "<pre>\(w)</pre>",
            "<ul><li>\(w)</li></ul>", "<blockquote>\(w)</blockquote>", "<center>\(w)</center>", "<div>Table</div><div>\(w)</div>",
            "<section><p>\(w)</p></section>", "<dl><dt>\(w)</dt></dl>", "<details><summary>\(w)</summary>x</details>",
            "<span style=\"font-weight:bold\">\(w)</span>", "<kbd>\(w)</kbd>", "<!-- c --><div>\(w)</div>", "&lt;\(w)&gt;",
            "<table><tr><td>\(w)</td></tr></table>", "<p>a<br>\(w)</p>", "<x-label>\(w)</x-label>",
        ])
        let open = pick(["<caption>", "<caption>", "<caption align=\"bottom\">", "<caption class=\"c\">"])
        return open + inner + "</caption>"
    }

    mutating func table(depth: Int) -> String {
        let caption = chance(60) ? caption() : ""
        let captionFirst = chance(85)
        let columns = 1 + random.below(3)
        func cells(_ g: inout TableDocumentGenerator, _ tag: String) -> String {
            (0..<columns).map { _ in "<\(tag)>\(g.word())</\(tag)>" }.joined()
        }
        var rows: [String] = []
        let kind = random.below(4)
        switch kind {
        case 0:  // header row in <thead>: a GFM table in keep-raw mode too
            rows.append("<thead>" + gap() + "<tr>" + cells(&self, "th") + "</tr>" + gap() + "</thead>")
            rows.append("<tbody><tr>" + cells(&self, "td") + "</tr></tbody>")
        case 1:  // header cells without <thead>
            rows.append("<tr>" + cells(&self, "th") + "</tr>")
            rows.append("<tr>" + cells(&self, "td") + "</tr>")
        case 2:  // a span: kept as HTML
            rows.append("<tr><th colspan=\"\(columns + 1)\">\(word())</th></tr>")
            rows.append("<tr>" + cells(&self, "td") + "<td>x</td></tr>")
        default:  // block content in a cell: kept as HTML
            rows.append("<tr>" + cells(&self, "th") + "</tr>")
            var inner = depth < 2 && chance(50) ? table(depth: depth + 1) : "<ul><li>\(word())</li></ul>"
            if chance(30) { inner = "<div>" + inner + "</div>" }
            rows.append("<tr><td>" + inner + "</td>" + String(repeating: "<td>y</td>", count: columns - 1) + "</tr>")
        }
        var body = rows.map { gap() + $0 }.joined()
        if !caption.isEmpty { body = captionFirst ? gap() + caption + body : body + gap() + caption }
        return pick(["<table>", "<table class=\"t\">", "<table border=\"1\">"]) + body + gap() + "</table>"
    }

    /// Raw HTML: what keeps HTML in the output (a `<details>`, a table kept as HTML, keyboard keys, a
    /// sized image) or in keep-raw mode only (`div`s, comments, unknown elements, layout containers).
    mutating func rawHTML(depth: Int) -> String {
        switch random.below(10) {
        case 0: return "<div class=\"note\">\(word())</div>"
        case 1: return "<!-- \(word()) -->"
        case 2: return "<x-note>\(word())</x-note>"
        case 3: return "<details><summary>\(word())</summary>" + gap() + (depth < 3 ? block(depth: depth + 1) : word()) + gap() + "</details>"
        case 4: return "<p><kbd>Ctrl</kbd>+<kbd>\(word())</kbd></p>"
        case 5: return "<img src=\"i.png\" alt=\"\(word())\" width=\"10\">"
        case 6: return "<center>\(word())</center>"
        case 7: return "<form><p>\(word())</p></form>"
        case 8: return "<span class=\"s\">\(word())</span>"
        default: return "<table><tr><td rowspan=\"2\">\(word())</td><td>1</td></tr><tr><td>2</td></tr></table>"
        }
    }

    /// A container holding tables and raw HTML side by side.
    mutating func container(depth: Int) -> String {
        func content(_ g: inout TableDocumentGenerator) -> String {
            var s = ""
            for _ in 0..<(1 + g.random.below(3)) { s += g.gap() + g.block(depth: depth + 1) }
            return s + g.gap()
        }
        switch random.below(9) {
        case 0, 1:
            let tag = pick(["ul", "ol", "ol start=\"9\""])
            let close = tag.hasPrefix("ol") ? "ol" : "ul"
            var items = ""
            for _ in 0..<(1 + random.below(3)) {
                items += gap() + "<li>" + (chance(40) ? word() + gap() : "") + content(&self) + (chance(30) ? "" : "</li>")
            }
            return "<\(tag)>" + items + gap() + "</\(close)>"
        case 2: return "<blockquote>" + content(&self) + "</blockquote>"
        case 3: return "<div class=\"wrap\">" + content(&self) + "</div>"
        case 4: return "<div>" + content(&self) + "</div>"
        case 5: return "<ul><li>\(word())<ol start=\"10\"><li>" + content(&self) + "</li></ol></li></ul>"
        case 6:
            let open = pick(["section", "figure", "center", "form", "article", "aside"])
            return "<\(open)>" + content(&self) + (open == "figure" && chance(50) ? "<figcaption>\(word())</figcaption>" : "") + "</\(open)>"
        case 7: return "<table><tr><td>" + content(&self) + "</td><td>z</td></tr></table>"
        default: return "<dl><dt>\(word())</dt><dd>" + content(&self) + "</dd></dl>"
        }
    }

    mutating func block(depth: Int) -> String {
        let r = random.below(depth >= 3 ? 6 : 10)
        switch r {
        case 0, 1, 2: return table(depth: depth)
        case 3, 4: return rawHTML(depth: depth)
        case 5: return pick(["<p>\(word())</p>", word(), "<h3>\(word())</h3>", "<pre>\(word())\n    x</pre>", "<hr>"])
        default: return container(depth: depth)
        }
    }
}

extension RoundTripTests {
    struct TableRoundTripFailure: CustomStringConvertible {
        var html: String
        var keepRaw: Bool
        var markdown: String
        var problem: String
        var expected = ""
        var reread = ""
        /// Where the two renderings part: some of what comes before, then each one's continuation.
        var difference: String {
            let e = Array(expected.utf8), r = Array(reread.utf8)
            var k = 0
            while k < e.count, k < r.count, e[k] == r[k] { k += 1 }
            let from = max(0, k - 40)
            func part(_ a: [UInt8]) -> String { String(decoding: a[min(k, a.count)..<min(a.count, k + 60)], as: UTF8.self) }
            return String(decoding: e[from..<k], as: UTF8.self) + " ⟨expected⟩ " + part(e) + " ⟨reread⟩ " + part(r)
        }
        var description: String {
            "\(problem) (\(keepRaw ? "--keep-html" : "default")):\n  HTML: \(html.debugDescription)\n  Markdown: \(markdown.debugDescription)"
                + (expected.isEmpty ? "" : "\n  differs at: \(difference.debugDescription)")
        }
    }

    /// Reads `html`, writes it as Markdown and checks that the Markdown reads back as the document (as its
    /// HTML shows it; the empty comments the writer puts where Markdown needs a block to end render
    /// nothing) and holds every word of `captions`.
    static func checkTableRoundTrip(_ html: String, keepRaw: Bool, captions: [String], cmark: String? = nil) -> TableRoundTripFailure? {
        guard let document = try? Conversion.read(Array(html.utf8), from: .html, keepRawHTML: keepRaw) else { return nil }
        let markdown = MarkdownWriter.renderString(document, gfm: true)
        func failure(_ problem: String) -> TableRoundTripFailure {
            TableRoundTripFailure(html: html, keepRaw: keepRaw, markdown: markdown, problem: problem)
        }
        let expected = DocumentFixtureTests.withoutListStyles(HTMLWriter.renderString(document, options: .gfm))
        let reread = MarkdownParser.renderHTML(markdown, options: .gfm)
        func normalized(_ s: String) -> String { HTMLCompare.normalize(s.replacingOccurrences(of: "<!-- -->\n", with: "")) }
        func cmarkReads() -> String? {
            guard let cmark else { return nil }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("pbctl-roundtrip-\(getpid()).md")
            try? Data(markdown.utf8).write(to: file)
            let args = ["--unsafe", "-e", "table", "-e", "strikethrough", "-e", "autolink", "-e", "tagfilter", "-e", "tasklist", file.path]
            return RichTextTestSupport.run(cmark, args)?.output
        }
        if normalized(reread) != normalized(expected) {
            let codeBlocks = reread.components(separatedBy: "<pre><code").count - expected.components(separatedBy: "<pre><code").count
            // Where cmark-gfm reads the Markdown as written, the Markdown is right and pbctl's parser is not.
            let cmarkAgrees = cmarkReads().map { normalized($0) == normalized(expected) } ?? false
            var f = failure(
                codeBlocks > 0 ? "a code block appeared" : cmarkAgrees ? "pbctl's parser (not cmark-gfm) reads it as another document"
                    : "reads back as another document")
            f.expected = normalized(expected)
            f.reread = normalized(reread)
            return f
        }
        if let output = cmarkReads(), normalized(output) != normalized(expected) {
            return failure("cmark-gfm reads it as another document")
        }
        for word in captions where !markdown.contains(word) { return failure("caption \(word) lost") }
        return nil
    }

    /// Runs `count` generated documents from `seed`, both modes; returns the failures.
    static func tableRoundTrips(count: Int, seed: UInt64, cmark: String? = nil) -> (documents: Int, failures: [TableRoundTripFailure]) {
        var generator = TableDocumentGenerator(seed: seed)
        var failures: [TableRoundTripFailure] = []
        for _ in 0..<count {
            let html = generator.document()
            for keepRaw in [false, true] {
                if let f = checkTableRoundTrip(html, keepRaw: keepRaw, captions: generator.captionWords, cmark: cmark) { failures.append(f) }
            }
        }
        return (count, failures)
    }

    /// A deterministic sample of the generated documents (the one-off run of many more is in
    /// `PBCTL_TABLE_ROUND_TRIPS`: `PBCTL_TABLE_ROUND_TRIPS=20000 swift test --filter testGeneratedTables`,
    /// which also asks cmark-gfm when it is installed).
    func testGeneratedTablesBesideRawHTMLReadBack() {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["PBCTL_TABLE_ROUND_TRIPS"].flatMap { Int($0) } ?? 400
        let seed = environment["PBCTL_TABLE_ROUND_TRIPS_SEED"].flatMap { UInt64($0) } ?? 20_250_601
        let cmark = count > 400 ? RichTextTestSupport.which("cmark-gfm") : nil
        let (documents, failures) = Self.tableRoundTrips(count: count, seed: seed, cmark: cmark)
        var kinds: [String: Int] = [:]
        for f in failures { kinds[f.problem.hasPrefix("caption") ? "caption lost" : f.problem, default: 0] += 1 }
        print("Generated tables beside raw HTML: \(documents) documents × 2 modes, \(failures.count) failures \(kinds)")
        for f in failures.sorted(by: { $0.html.utf8.count < $1.html.utf8.count }).prefix(30) { print(f) }
        XCTAssertEqual(failures.count, 0)
    }
}

extension RoundTripTests {
    /// A GFM table (a header row in `<thead>`, so that keep-raw mode converts it too).
    static let gfmTable = "<table><thead><tr><th>h1</th><th>h2</th></tr></thead><tbody><tr><td>c1</td><td>c2</td></tr></tbody></table>"
    /// A table that does not fit GFM (a span): kept as HTML.
    static let spanTable = "<table><tr><th colspan=\"2\">wide</th></tr><tr><td>s1</td><td>s2</td></tr></table>"

    /// Tables beside raw HTML, one shape each: every one must read back in both modes, as pbctl and
    /// cmark-gfm read Markdown. The shapes the random documents found, made minimal.
    static let tableBesideRawHTMLShapes: [(name: String, html: String)] = [
        ("table after a div in a tight list item", "<ul><li><div>x</div>\(gfmTable)</li><li>y</li></ul>"),
        ("table inside a details in a list item", "<ul><li><details><summary>s</summary>\(gfmTable)</details></li></ul>"),
        ("table after a table kept as HTML in a list item", "<ul><li>\(spanTable)\(gfmTable)</li></ul>"),
        ("div after a table in a list item", "<ul><li>\(gfmTable)<div>y</div></li><li>z</li></ul>"),
        ("caption below a table in a tight list item",
            "<ul><li><table><caption align=\"bottom\">below</caption><tr><th>a</th></tr><tr><td>1</td></tr></table></li><li>y</li></ul>"),
        ("two tables in a tight list item", "<ul><li>\(gfmTable)\(gfmTable)</li><li>y</li></ul>"),
        ("table after text in a tight list item", "<ul><li>text\(gfmTable)</li><li>y</li></ul>"),
        ("header-only table followed by a paragraph in a list item",
            "<ul><li><table><tr><th>a</th></tr></table><p>x</p></li><li>y</li></ul>"),
        ("header-only table ending an item before another item", "<ul><li><table><tr><th>a</th></tr></table></li><li>y</li></ul>"),
        ("table kept whole after text in a list item, indented source with a blank line",
            "<ul><li>text <table border=\"1\">\n  \n    <tr><td>a</td></tr>\n</table></li></ul>"),
        ("indented element after a pre block", "<pre>a\n    b</pre>\n\t<x-note>n</x-note>\n\(gfmTable)"),
        ("comment, then inline HTML on the next line, then a table", "<!-- c --><x-note>a</x-note>\n<span>b</span>\n\(gfmTable)"),
        ("unknown element alone before a table", "<x-note>n</x-note>\n\(gfmTable)"),
        ("table in a quote after another quote in a list item",
            "<ul><li><blockquote>\(gfmTable)</blockquote><blockquote><p>q</p></blockquote></li><li>y</li></ul>"),
        ("table in a div in a list item, indented source", "<ol><li>\n    <div>\n        \(gfmTable)\n    </div>\n</li><li>y</li></ol>"),
        ("sized image before a table in a list item", "<ul><li><img src=\"i.png\" alt=\"i\" width=\"10\">\(gfmTable)</li></ul>"),
        ("sized image alone", "<p><img src=\"i.png\" alt=\"i\" width=\"10\"></p>\(gfmTable)"),
        ("table after an inner list in a tight item", "<ul><li>a<ul><li>b</li></ul>\(gfmTable)</li><li>y</li></ul>"),
        ("text after an inner list in a tight item", "<ul><li>a<ul><li>b</li></ul>text</li><li>y</li></ul>"),
        ("table in a list item in a table cell", "<table><tr><td><ul><li>\(gfmTable)</li></ul></td><td>z</td></tr></table>"),
        ("table between raw divs in a section", "<section><div class=\"a\">x</div>\(gfmTable)<div class=\"b\">y</div></section>"),
        ("paragraph of a one-item list", "<ul><li>a<ol><li><p>b</p></li></ol></li></ul>\(gfmTable)"),
        ("thematic break and paragraph in a one-item list", "<ol><li><hr><p>b</p></li></ol>\(gfmTable)"),
    ]

    func testTablesBesideRawHTMLReadBack() {
        let cmark = RichTextTestSupport.which("cmark-gfm")
        var failed: [String] = []
        for (name, html) in Self.tableBesideRawHTMLShapes {
            for keepRaw in [false, true] {
                if let f = Self.checkTableRoundTrip(html, keepRaw: keepRaw, captions: [], cmark: cmark) {
                    failed.append("\(name): \(f)")
                }
            }
        }
        for f in failed { print(f) }
        XCTAssertEqual(failed.count, 0, "of \(Self.tableBesideRawHTMLShapes.count * 2)")
    }

    /// Captions in every markup that may hold them, on a GFM table and on one kept as HTML, in both modes:
    /// the caption's text is in the Markdown, and a table kept as HTML keeps its `<caption>` element.
    func testCaptionsInMarkupReachTheMarkdown() {
        let wrapped = [
            "<b>W</b>", "<p>W</p>", "<span><a href=\"u\">W</a></span>", "<div>W</div>", "Table<br>W &amp; more",
            "<div><p>W</p></div>", "<em>x</em> <div>W</div>", "<p>one</p><p>W</p>", "\n  <strong>W</strong>\n", "<h4>W</h4>",
            "<p><font face=\"Courier New\">W</font></p>", "<pre>W</pre>", "<ul><li>W</li></ul>", "<blockquote>W</blockquote>",
            "<center>W</center>", "<section><p>W</p></section>", "<dl><dt>W</dt></dl>", "<details><summary>W</summary>x</details>",
            "<!-- c --><div>W</div>", "<table><tr><td>W</td></tr></table>", "<x-label>W</x-label>", "<figure><figcaption>W</figcaption></figure>",
        ]
        let around = ["X", "<div>X</div>", "<figure>X</figure>", "<section>X</section>", "<center>X</center>", "<form>X</form>",
            "<ul><li>X</li></ul>", "<blockquote>X</blockquote>", "<table><tr><td>X</td><td>z</td></tr></table>"]
        let bodies = [
            "<thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody>", "<tr><th>a</th></tr><tr><td>1</td></tr>",
            "<tr><th colspan=\"2\">a</th></tr><tr><td>1</td><td>2</td></tr>",
        ]
        var lost: [String] = []
        var count = 0
        for (k, inner) in wrapped.enumerated() {
            for outer in around {
                for body in bodies {
                    let word = "caption\(k)word"
                    let table = "<table><caption>\(inner.replacingOccurrences(of: "W", with: word))</caption>\(body)</table>"
                    let html = outer.replacingOccurrences(of: "X", with: table)
                    for keepRaw in [false, true] {
                        count += 1
                        guard let doc = try? Conversion.read(Array(html.utf8), from: .html, keepRawHTML: keepRaw) else {
                            lost.append("unreadable: \(html)")
                            continue
                        }
                        let markdown = MarkdownWriter.renderString(doc, gfm: true)
                        let keptAsHTML = body.contains("colspan") || outer.hasPrefix("<table")
                        if !markdown.contains(word) || (keptAsHTML && !markdown.contains("<caption")) {
                            lost.append("\(keepRaw ? "--keep-html" : "default"): \(html.debugDescription) → \(markdown.debugDescription)")
                        }
                        if let f = Self.checkTableRoundTrip(html, keepRaw: keepRaw, captions: [word]) { lost.append(f.description) }
                    }
                }
            }
        }
        for l in lost.prefix(20) { print(l) }
        XCTAssertEqual(lost.count, 0, "of \(count)")
    }
}

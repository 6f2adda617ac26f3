import Foundation
import Markdown
import XCTest

@testable import Representations

/// One fixture per construct the RTF and HTML readers handle (`Fixtures/Documents/NAME.rtf|html`, each with
/// its expected `NAME.md` and `NAME.txt`): list numbering in every style and start (list table, Word 95
/// `\pn`, typed markers, HTML `type`/`start`/CSS, Word HTML), tables (cell alignment, malformed rows, spans,
/// `<tfoot>`, multi-paragraph cells, nested tables with images, RTF tables nested three deep and a skipped
/// `\itap` level, spaces around cell text), lists in a row (another `\ls`; Word 95 `\pn` properties that
/// last across `\par`), captions (HTML `<caption>`,
/// `<figcaption>`, an RTF caption paragraph; every shape of HTML caption: not first, in `<tbody>`, at the
/// bottom, `<figcaption>` before or after, `summary`, with inline and block content, on tables kept as HTML;
/// captions inside inline and block markup, tables inside other markup), tables beside raw HTML (in list
/// items, after `<details>`, in a tight list), footnotes, fields, pictures, code pages and `\u`, skipped
/// destinations (headers, footers, bookmarks, document info), LibreOffice's headings in its outline list (made
/// by `soffice --headless --convert-to rtf` from the `.fodt` beside it).
///
/// Every Markdown output must read back as the same document: parsed again by pbctl's own reader it
/// renders the HTML the reader's document renders (lists compared without their letter or roman style,
/// which Markdown cannot write).
final class DocumentFixtureTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Documents")

    struct Fixture {
        var name: String
        var format: TextFormat
        var input: [UInt8]
        var markdown: String
        var text: String
    }

    static func fixtures() throws -> [Fixture] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        return try names.sorted().compactMap { name -> Fixture? in
            let format: TextFormat
            if name.hasSuffix(".rtf") { format = .rtf } else if name.hasSuffix(".html") { format = .html } else { return nil }
            let base = folder.appendingPathComponent(String(name.prefix { $0 != "." }))
            return Fixture(
                name: name, format: format, input: Array(try Data(contentsOf: folder.appendingPathComponent(name))),
                markdown: try String(contentsOf: base.appendingPathExtension("md"), encoding: .utf8),
                text: try String(contentsOf: base.appendingPathExtension("txt"), encoding: .utf8))
        }
    }

    func testEveryConstructHasAFixture() throws {
        let names = Set(try Self.fixtures().map(\.name))
        for expected in [
            "rtf-list-table-styles.rtf", "rtf-pn-legacy-lists.rtf", "rtf-typed-markers.rtf", "rtf-table-alignment.rtf",
            "rtf-malformed-table.rtf", "rtf-footnote-field.rtf", "rtf-codepage-unicode.rtf", "rtf-skipped-destinations.rtf",
            "rtf-caption.rtf", "rtf-picture.rtf", "rtf-nested-table.rtf", "rtf-deep-nested-table.rtf", "rtf-pn-persisting-lists.rtf",
            "rtf-adjacent-lists.rtf", "rtf-table-cell-spaces.rtf", "rtf-libreoffice-headings.rtf", "html-table-caption.html", "html-list-numbering.html",
            "html-complex-tables.html", "html-nested-table-image.html", "html-word-lists.html", "html-table-caption-shapes.html",
            "html-table-caption-markup.html", "html-tables-beside-raw-html.html",
        ] {
            XCTAssertTrue(names.contains(expected), "missing fixture \(expected)")
        }
    }

    func testMarkdownAndPlainTextAreAsExpected() throws {
        for fixture in try Self.fixtures() {
            let markdown = String(decoding: try Conversion.convert(fixture.input, from: fixture.format, to: .gfm), as: UTF8.self)
            XCTAssertEqual(markdown, fixture.markdown, "\(fixture.name): Markdown")
            let text = String(decoding: try Conversion.convert(fixture.input, from: fixture.format, to: .text), as: UTF8.self)
            XCTAssertEqual(text, fixture.text, "\(fixture.name): plain text")
        }
    }

    func testEveryMarkdownOutputReadsBackAsTheSameDocument() throws {
        for fixture in try Self.fixtures() {
            let document = try Conversion.read(fixture.input, from: fixture.format)
            let markdown = MarkdownWriter.render(document, gfm: true)
            let reread = MarkdownParser.parse(markdown, options: .gfm)
            let expected = Self.withoutListStyles(String(decoding: HTMLWriter.render(document, options: .gfm), as: UTF8.self))
            // The empty comments the writer puts where a list may not interrupt a paragraph render nothing.
            let actual = String(decoding: HTMLWriter.render(reread, options: .gfm), as: UTF8.self)
                .replacingOccurrences(of: "<!-- -->\n", with: "")
            XCTAssertEqual(HTMLCompare.normalize(actual), HTMLCompare.normalize(expected), "\(fixture.name) does not read back")
            // Never a table turned into a code block.
            XCTAssertFalse(actual.contains("&lt;tr") || actual.contains("&lt;table"), "\(fixture.name): a table became text")
        }
    }

    /// Every caption of the caption fixture is in every output: Markdown and plain text (above), HTML, and
    /// RTF (read back as text), each once.
    func testTableCaptionsReachEveryOutput() throws {
        let fixture = try XCTUnwrap(try Self.fixtures().first { $0.name == "html-table-caption-shapes.html" })
        let html = String(decoding: try Conversion.convert(fixture.input, from: .html, to: .html), as: UTF8.self)
        let rtf = try Conversion.convert(fixture.input, from: .html, to: .rtf)
        let rtfText = String(decoding: try Conversion.convert(rtf, from: .rtf, to: .text), as: UTF8.self)
        for caption in ["Cities, caption after the header row", "Table 2: a caption shown below", "Table 3: below by CSS",
            "Figure 4: caption before the table", "Figure 5: caption after the table", "Table 6: opening hours by weekday",
            "Table 7: with", "Table 8: a heading in the caption", "Table 9: a caption inside tbody",
            "Table 10: spans do not fit a pipe table", "Figure 11: a table kept as HTML", "Table 12: summary of a table kept as HTML"]
        {
            for (name, output) in [("Markdown", fixture.markdown), ("text", fixture.text), ("HTML", html), ("RTF", rtfText)] {
                XCTAssertEqual(output.components(separatedBy: caption).count, 2, "\(caption) once in the \(name) output")
            }
        }
    }

    /// Every HTML fixture read in either mode (default and keeping raw HTML) gives Markdown that reads back as
    /// the document, by pbctl's reader and by cmark-gfm's when it is installed; no table becomes a code block.
    func testEveryHTMLFixtureReadsBackInBothModesAndInCmarkGFM() throws {
        let cmark = RichTextTestSupport.which("cmark-gfm")
        for fixture in try Self.fixtures() where fixture.format == .html {
            for keepRaw in [false, true] {
                let html = String(decoding: fixture.input, as: UTF8.self)
                if let failure = RoundTripTests.checkTableRoundTrip(html, keepRaw: keepRaw, captions: [], cmark: cmark) {
                    XCTFail("\(fixture.name): \(failure.problem) (\(keepRaw ? "--keep-html" : "default"))\n\(failure.markdown)")
                }
            }
        }
    }

    /// Every caption of the caption-markup fixture (captions in inline and block markup, tables in other
    /// markup) is in the Markdown in both modes and in the plain text, once each; the table kept as HTML keeps
    /// its `<caption>`.
    func testCaptionsInsideMarkupAreKept() throws {
        let fixture = try XCTUnwrap(try Self.fixtures().first { $0.name == "html-table-caption-markup.html" })
        let raw = String(decoding: try Conversion.convert(fixture.input, from: .html, to: .gfm, options: ConversionOptions(keepRawHTML: true)), as: UTF8.self)
        let captions = ["Table 1: bold caption", "Table 2: a paragraph in the caption", "Table 3: a link in a span",
            "Table 4: caption in nested divs", "Table 5: a line", "break & an entity", "Table 6: monospace caption",
            "Table 7: preformatted caption", "Table 8: a list in the caption", "Table 9: a quote in the caption",
            "Table 10: a details in the caption", "Table 11: a table in the caption", "Table 12: inner table of a cell", "Table 13: "]
        for caption in captions {
            for (name, output) in [("Markdown", fixture.markdown), ("Markdown keeping raw HTML", raw), ("text", fixture.text)] {
                let text = name == "text" ? output : output.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "\\&", with: "&")
                XCTAssertEqual(text.components(separatedBy: caption).count, 2, "\(caption) once in the \(name) output")
            }
        }
        XCTAssertTrue(fixture.markdown.contains("<caption>Table 13: <em>kept as HTML</em>, caption in a div</caption>"))
        XCTAssertTrue(fixture.markdown.contains("<caption>Table 12: inner table of a cell</caption>") || fixture.markdown.contains("<caption><b>Table 12"))
    }

    /// Letter and roman numbering survives RTF written by pbctl and read again (what LibreOffice reads).
    func testListStylesSurviveRTF() throws {
        for fixture in try Self.fixtures() where fixture.name.contains("list") || fixture.name.contains("markers") {
            let rtf = try Conversion.convert(fixture.input, from: fixture.format, to: .rtf)
            let text = String(decoding: try Conversion.convert(rtf, from: .rtf, to: .text), as: UTF8.self)
            XCTAssertEqual(text, fixture.text, "\(fixture.name): through RTF")
        }
    }

    static func withoutListStyles(_ html: String) -> String {
        var out = html
        for type in ["a", "A", "i", "I", "1"] { out = out.replacingOccurrences(of: " type=\"\(type)\"", with: "") }
        return out
    }

    func testListStyleMarkersAndValues() {
        XCTAssertEqual(MarkdownListStyle.lowerAlpha.marker(28), "ab")
        XCTAssertEqual(MarkdownListStyle.upperRoman.marker(1994), "MCMXCIV")
        XCTAssertEqual(MarkdownListStyle.lowerRoman.value(of: "xiv"), 14)
        XCTAssertEqual(MarkdownListStyle.lowerAlpha.value(of: "c"), 3)
        XCTAssertNil(MarkdownListStyle.lowerRoman.value(of: "abc"))
        XCTAssertEqual(RTFBlockBuilder.markerStyle("i."), .lowerRoman)
        XCTAssertEqual(RTFBlockBuilder.markerStyle("c)"), .lowerAlpha)
        XCTAssertEqual(RTFBlockBuilder.markerStyle("IV."), .upperRoman)
        XCTAssertEqual(RTFBlockBuilder.markerStyle("12."), .decimal)
        XCTAssertEqual(RTFBlockBuilder.markerValue("i.", .lowerRoman), 1)
        XCTAssertEqual(RTFBlockBuilder.markerValue("i.", .lowerAlpha), 9)
    }
}

import Markdown
import XCTest

@testable import Representations

final class HTMLReaderTests: XCTestCase {
    private func markdown(_ html: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        markdown(bytes: Array(html.utf8), file: file, line: line)
    }
    private func markdown(bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            return MarkdownWriter.renderString(try Conversion.read(bytes, from: .html))
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return ""
        }
    }
    private func fixture(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: RichTextTestSupport.fixtures.appendingPathComponent("RichText/\(name)")))
    }

    func testGoogleDocsWrapperIsNotBoldAndSpansCarryTheFormatting() throws {
        XCTAssertEqual(markdown(bytes: try fixture("google-docs.html")), """
            # Meeting notes

            Plain, **bold**, *italic*, ~~gone~~, `code()` and [a link](https://www.example.com/).

            - First
              - Nested
            - Second

            """)
    }

    func testWordListParagraphsBecomeNestedLists() throws {
        XCTAssertEqual(markdown(bytes: try fixture("word.html")), """
            Intro with **bold** and *italic* text.

            - Apples
              - Green
            - Pears

            1. One
            2. Two

            """)
    }

    func testGitHubRenderedMarkdown() throws {
        XCTAssertEqual(markdown(bytes: try fixture("github.html")), """
            ## Install

            Run `make install` then read the [docs](https://example.com/docs).

            ```shell
            $ make test
            echo done
            ```

            - [x] Done
            - [ ] Todo

            | Key | Value |
            | :-- | --: |
            | a | 1 |

            """)
    }

    func testFirefoxUTF16WithBOMAndChromiumMeta() {
        let html = "<meta http-equiv=\"content-type\" content=\"text/html; charset=utf-8\"><p>Grüße <b>日本</b> 😀</p>"
        var le: [UInt8] = [0xFF, 0xFE]
        for u in html.utf16 { le += [UInt8(u & 0xFF), UInt8(u >> 8)] }
        XCTAssertEqual(markdown(bytes: le), "Grüße **日本** 😀\n")
        var be: [UInt8] = [0xFE, 0xFF]
        for u in html.utf16 { be += [UInt8(u >> 8), UInt8(u & 0xFF)] }
        XCTAssertEqual(markdown(bytes: be), "Grüße **日本** 😀\n")
        var noBOM: [UInt8] = []
        for u in html.utf16 { noBOM += [UInt8(u & 0xFF), UInt8(u >> 8)] }
        XCTAssertEqual(markdown(bytes: noBOM), "Grüße **日本** 😀\n", "UTF-16LE detected by its NUL bytes")
        XCTAssertEqual(markdown("<meta charset='utf-8'><a href=\"https://x.example/\">x.example</a>"), "[x.example](https://x.example/)\n")
        XCTAssertEqual(markdown(bytes: [0xEF, 0xBB, 0xBF] + Array("<p>bom</p>".utf8)), "bom\n")
        XCTAssertEqual(markdown(bytes: Array("<meta charset=windows-1252><p>caf".utf8) + [0xE9, 0x20, 0x93, 0x71, 0x94]), "café “q”\n")
    }

    /// NUL bytes are no evidence of UTF-16: UTF-8 HTML holding some was read as UTF-16 (garbled, its last
    /// byte lost). They become U+FFFD; NUL bytes that end the input (a terminator, padding) go.
    /// UTF-16 without a BOM is still read when it says so in UTF-16, or has UTF-16's pattern throughout.
    func testNULBytesAreNoEvidenceOfUTF16() {
        XCTAssertEqual(markdown(bytes: Array("<p>a\0b\0c\0d\0e</p>".utf8)), "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\n")
        XCTAssertEqual(markdown(bytes: Array("<p>\0a\0b\0c\0d</p>".utf8)), "\u{FFFD}a\u{FFFD}b\u{FFFD}c\u{FFFD}d\n")
        XCTAssertEqual(markdown(bytes: Array("<b>x</b>\0".utf8)), "**x**\n")
        XCTAssertEqual(markdown(bytes: Array("<p>hi</p>\0\0\0".utf8)), "hi\n")
        func utf16(_ s: String, littleEndian: Bool = true) -> [UInt8] {
            s.utf16.flatMap { littleEndian ? [UInt8($0 & 0xFF), UInt8($0 >> 8)] : [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        }
        XCTAssertEqual(markdown(bytes: utf16("<meta charset=\"utf-16\"><p>日本語の本文です。とても長い段落</p>")), "日本語の本文です。とても長い段落\n", "declared")
        XCTAssertEqual(markdown(bytes: utf16("<p>中文内容很多的段落</p>")), "中文内容很多的段落\n", "by its pattern")
        XCTAssertEqual(markdown(bytes: utf16("<p>big endian</p>", littleEndian: false)), "big endian\n")
        XCTAssertEqual(markdown(bytes: utf16("<p>terminated</p>") + [0, 0]), "terminated\n")
        XCTAssertEqual(markdown(bytes: [0xFF, 0xFE] + utf16("<p>ab</p>") + [0x78]), "ab\n\n\u{FFFD}\n", "half a code unit is shown, not dropped")
        XCTAssertNil(HTMLReader.utf16ByteOrder(Array("<p>a\0b</p>\0".utf8)))
        XCTAssertEqual(HTMLReader.utf16ByteOrder(utf16("<p>x</p>") + [0]), true, "a terminating NUL byte after UTF-16")
    }

    func testFragmentMarkersAndCFHTMLHeader() {
        let cf = """
            Version:0.9
            StartHTML:0000000105
            EndHTML:0000000199
            StartFragment:0000000141
            EndFragment:0000000163
            <html><body>
            <!--StartFragment--><p>only <i>this</i></p><!--EndFragment-->
            </body>
            </html>
            """
        XCTAssertEqual(markdown(cf), "only *this*\n")
        XCTAssertEqual(markdown("<p>outside</p><!--StartFragment-->inside<!--EndFragment-->"), "inside\n")
    }

    /// Qt writes a heading's text in a bold span: that weight is the heading's, not emphasis. Tags still are.
    func testCSSBoldInAHeadingIsTheHeadingsWeight() {
        XCTAssertEqual(markdown("<h1><span style=\" font-size:xx-large; font-weight:600;\">Team Notes</span></h1>"), "# Team Notes\n")
        XCTAssertEqual(markdown("<h2>A <span style=\"font-weight:bold\">b</span> <b>c</b> <strong>d</strong></h2>"), "## A b **c** **d**\n")
        XCTAssertEqual(markdown("<h3>x</h3><p><span style=\"font-weight:700\">bold</span></p>"), "### x\n\n**bold**\n", "outside headings CSS bold is bold")
    }

    /// Windows CF_HTML: the header, then `html`; the fragment's offsets are where `start` and `end` are found
    /// in it (the header's own length counted, as the offsets are from the header's first byte).
    private func cfHTML(_ html: String, start: String, end: String) -> [UInt8] {
        let template = "Version:0.9\r\nStartHTML:%010d\r\nEndHTML:%010d\r\nStartFragment:%010d\r\nEndFragment:%010d\r\n"
        let header = String(format: template, 0, 0, 0, 0).utf8.count
        let body = Array(html.utf8)
        func offset(_ s: String) -> Int { header + String(decoding: body, as: UTF8.self).range(of: s)!.lowerBound.utf16Offset(in: html) }
        let (fragmentStart, fragmentEnd) = (offset(start), offset(end))
        return Array(String(format: template, header, header + body.count, fragmentStart, fragmentEnd).utf8) + body
    }

    /// The selection is read inside the elements open where it starts, as browsers paste CF_HTML: Qt puts
    /// `<!--StartFragment-->` inside the first block, and a selection may start inside a list item or a cell.
    func testFragmentKeepsTheElementsOpenAtItsStart() {
        let qt = """
            <!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.0//EN" "http://www.w3.org/TR/REC-html40/strict.dtd">
            <html><head><meta name="qrichtext" content="1" /><meta charset="utf-8" /><style type="text/css">
            p, li { white-space: pre-wrap; }
            </style></head><body style=" font-family:'Noto Sans'; font-size:10pt; font-weight:400; font-style:normal;">
            <h1 style=" margin-top:18px; margin-bottom:12px; margin-left:0px; margin-right:0px; -qt-block-indent:0; text-indent:0px;"><!--StartFragment--><span style=" font-size:xx-large; font-weight:600;">Team Notes</span></h1>
            <p style=" margin-top:12px; margin-bottom:12px; margin-left:0px; margin-right:0px; -qt-block-indent:0; text-indent:0px;">Agenda for <span style=" font-weight:600;">Monday</span></p>
            <ul style="margin-top: 0px; margin-bottom: 0px; margin-left: 0px; margin-right: 0px; -qt-list-indent: 1;"><li style=" margin-top:12px; margin-bottom:0px; margin-left:0px; margin-right:0px; -qt-block-indent:0; text-indent:0px;">First item</li>
            <li style=" margin-top:0px; margin-bottom:12px; margin-left:0px; margin-right:0px; -qt-block-indent:0; text-indent:0px;">Second item<!--EndFragment--></li></ul></body></html>
            """
        XCTAssertEqual(markdown(qt), "# Team Notes\n\nAgenda for **Monday**\n\n- First item\n- Second item\n")
        // Inside a list item: the item keeps its bullet (or number); what came before the marker is not pasted.
        XCTAssertEqual(markdown("<ul><li>zero</li><li><!--StartFragment-->Item one</li><li>Item two<!--EndFragment--></li></ul>"),
            "- Item one\n- Item two\n")
        XCTAssertEqual(markdown("<ol><li><p>Intro</p><ol><li><!--StartFragment-->deep</li></ol></li><li>next<!--EndFragment--></li></ol>"),
            "1. 1. deep\n2. next\n")
        // Inside a table cell: still a table.
        XCTAssertEqual(markdown("<table><tr><td><!--StartFragment-->A</td><td>B</td></tr><tr><td>C</td><td>D<!--EndFragment--></td></tr></table>"),
            "| A | B |\n| --- | --- |\n| C | D |\n")
        // Inline formatting open at the marker holds; elements closed before it are gone.
        XCTAssertEqual(markdown("<p>gone</p><p><b>bo<!--StartFragment-->ld</b> text<!--EndFragment--> after</p>"), "**ld** text\n")
        // Windows CF_HTML (header offsets and markers), a selection starting inside a list item.
        let windows = """
            <html><body><ul><li>before</li><li><!--StartFragment-->Item one</li><li>Item <i>two</i><!--EndFragment--></li></ul></body></html>
            """
        XCTAssertEqual(markdown(bytes: cfHTML(windows, start: "Item one", end: "<!--EndFragment-->")), "- Item one\n- Item *two*\n")
        // The header's offsets alone, no markers: the same.
        let offsets = "<html><body><ul><li>before</li><li>Item one</li><li>Item two</li></ul><p>after</p></body></html>"
        XCTAssertEqual(markdown(bytes: cfHTML(offsets, start: "Item one", end: "</li></ul>")), "- Item one\n- Item two\n")
        XCTAssertEqual(markdown(bytes: cfHTML("<table><tr><td>x</td><td>A</td></tr><tr><td>C</td><td>D</td></tr></table>", start: "A</td>", end: "</table>")),
            "| A |  |\n| --- | --- |\n| C | D |\n")
        // Kept raw HTML: the open elements' start tags as written, nothing from before the marker.
        let raw = MarkdownWriter.renderString(try! Conversion.read(Array(
            "<div class=\"note\"><p>gone</p><p><!--StartFragment-->kept<!--EndFragment--></p></div>".utf8), from: .html,
            keepRawHTML: true))
        XCTAssertTrue(raw.contains("<div class=\"note\">") && raw.contains("kept") && !raw.contains("gone"), raw)
    }

    /// Keep-raw mode: HTML kept whole is one Markdown HTML block, which a blank line would end (the rest,
    /// indented, read as a code block: Sphinx's index tables did so). Blank lines between tags go; in `<pre>`
    /// the line break before one is `&#10;`; a block that holds blank lines itself (`<pre>`, `<!--`, `<?`,
    /// `<![CDATA[`) keeps them.
    func testKeptHTMLHasNoBlankLineThatEndsItsBlock() throws {
        let html = """
            <h2>E</h2>
            <table style="width: 100%" class="indextable genindextable"><tr>
              <td style="width: 33%; vertical-align: top;"><ul>
                  <li>
                environment variable

                  <ul>
                    <li><a href="cmds/bind.html#index-1">EDITOR</a></li>
                  </ul></li>
              </ul></td>
              <td><pre>one

            two</pre></td>
            </tr></table>
            <div class="footer">
                Created using <a href="https://www.sphinx-doc.org/">Sphinx</a>.

            </div>
            <pre class="x">keep

            this</pre>
            """
        let markdown = MarkdownWriter.renderString(try Conversion.read(Array(html.utf8), from: .html, keepRawHTML: true))
        let back = HTMLWriter.renderString(MarkdownParser.parse(markdown, options: .gfm), options: .gfm)
        XCTAssertFalse(back.contains("<pre><code>"), "nothing became a code block:\n\(markdown)")
        XCTAssertTrue(back.contains("environment variable\n      <ul>"), back)
        XCTAssertTrue(back.contains("<td><pre>one&#10;\ntwo</pre></td>"), back)
        XCTAssertTrue(back.contains("Created using <a href=\"https://www.sphinx-doc.org/\">Sphinx</a>."), back)
        XCTAssertTrue(back.contains("<pre class=\"x\">keep\n\nthis</pre>"), "a <pre> block keeps its blank line")
    }

    func testScriptsStylesCommentsDroppedUnknownTagsUnwrapped() {
        XCTAssertEqual(markdown("<style>p{color:red}</style><script>alert('<p>x</p>')</script><!-- note --><p>a <custom-tag>b</custom-tag> <span>c</span></p>"), "a b c\n")
        XCTAssertEqual(markdown("<div><section><p>deep</p></section></div><foo>bar</foo>"), "deep\n\nbar\n")
        XCTAssertThrowsError(try Conversion.read(Array("<style>x</style><!-- only -->".utf8), from: .html)) { error in
            XCTAssertNotNil(error as? RepresentationError)
        }
    }

    func testWhiteSpaceAsABrowserRendersIt() {
        XCTAssertEqual(markdown("<p>  many   spaces\n and\tlines  </p>"), "many spaces and lines\n")
        XCTAssertEqual(markdown("<p>a <b> b </b> c</p>"), "a **b** c\n")
        XCTAssertEqual(markdown("<p>line<br>next<br></p>"), "line\\\nnext\n")
        XCTAssertEqual(markdown("<pre>\n  keep\n    this</pre>"), "```\n  keep\n    this\n```\n")
        XCTAssertEqual(markdown("<p>x<code>  a  b </code>y</p>"), "x`   a  b  `y\n", "padded: the code is \"  a  b \"")
    }

    func testStructure() {
        XCTAssertEqual(markdown("<h3>T</h3><blockquote><p>q</p><blockquote>qq</blockquote></blockquote><hr><ol start=\"4\"><li>four<li>five</ol>"),
            "### T\n\n> q\n>\n> > qq\n\n***\n\n4. four\n5. five\n")
        XCTAssertEqual(markdown("<ul><li><p>loose</p></li><li><p>items</p></li></ul>"), "- loose\n\n- items\n")
        XCTAssertEqual(markdown("<p><img src=\"a.png\" alt=\"Alt text\" title=\"T\"> <a href=\"/x\" title=\"Tip\">t</a></p>"), "![Alt text](a.png \"T\") [t](/x \"Tip\")\n")
        XCTAssertEqual(markdown("<p><em>a <a href=\"u\">b</a></em> <strong><em>c</em></strong> <s>d</s> x<sup>2</sup></p>"), "*a [b](u)* ***c*** ~~d~~ x<sup>2</sup>\n")
        XCTAssertEqual(markdown("<p>*not* [a] `code` &lt;tag&gt; # 1. AT&amp;T</p>"), "\\*not\\* \\[a\\] \\`code\\` \\<tag> # 1. AT&T\n")
        XCTAssertEqual(markdown("<p>2024. A year</p>"), "2024\\. A year\n")
    }

    func testMonospaceParagraphsBecomeCodeBlocks() {
        // LibreOffice and word processors mark code by font only; consecutive such paragraphs are one block.
        XCTAssertEqual(markdown("<p><font face=\"Courier New, monospace\">let x<br/>y</font></p><p><font face=\"Liberation Mono\">z</font></p><p>text</p>"),
            "```\nlet x\ny\nz\n```\n\ntext\n")
        XCTAssertEqual(markdown("<p><span style=\"font-family:'Courier New';white-space:pre-wrap\">  indented()</span></p>"), "```\n  indented()\n```\n")
        XCTAssertEqual(markdown("<p><code>only code</code></p>"), "`only code`\n", "a <code> element stays a code span")
        XCTAssertEqual(markdown("<table><tr><td><b>H</b></td></tr><tr><td>v</td></tr></table>"), "| H |\n| --- |\n| v |\n", "bold header cells")
    }

    func testTablesThatDoNotFitStayHTML() {
        let md = markdown("<table><tr><td colspan=\"2\">wide</td></tr><tr><td>a</td><td>b</td></tr></table>")
        XCTAssertTrue(md.hasPrefix("<table>"), md)
        XCTAssertTrue(md.contains("colspan=\"2\""))
        XCTAssertEqual(markdown("<table><tr><td>x</td><td>y</td></tr><tr><td>1</td><td>2</td></tr></table>"), "| x | y |\n| --- | --- |\n| 1 | 2 |\n")
        let blocks = markdown("<table><tr><th>h</th></tr><tr><td><ul><li>list</li></ul></td></tr></table>")
        XCTAssertTrue(blocks.hasPrefix("<table>"), "block content in a cell: HTML")
    }

    func testConstructsWithoutAMarkdownFormStayHTML() {
        // Inline elements that mean something but have no Markdown syntax are kept as inline HTML.
        XCTAssertEqual(markdown("<p>Press <kbd>Ctrl</kbd>+<kbd>C</kbd>, <ins>added</ins> and <mark>hot</mark>.</p>"),
            "Press <kbd>Ctrl</kbd>+<kbd>C</kbd>, <ins>added</ins> and <mark>hot</mark>.\n")
        // Underline has no Markdown form: kept as raw HTML, as pandoc `-f html -t gfm` and our RTF reader do;
        // inside links it is the link's presentation (Google Docs wraps link text in an underlined span).
        XCTAssertEqual(markdown("<p><u>underline</u> and <span style=\"text-decoration:underline\">css</span></p>"),
                       "<u>underline</u> and <u>css</u>\n")
        XCTAssertEqual(markdown("<p><a href=\"https://x.example\"><span style=\"text-decoration:underline\">link</span></a></p>"),
                       "[link](https://x.example)\n")
        // A sized image keeps its size; an unsized one is Markdown.
        let images = markdown("<p><img src=\"logo.png\" alt=\"Logo\" width=\"120\"> <img src=\"a.png\" alt=\"A\"></p>")
        XCTAssertTrue(images.hasPrefix("<img src=\"logo.png\" alt=\"Logo\" width=\"120\">"), images)
        XCTAssertEqual(MarkdownParser.renderHTML(images, options: .gfm),
            "<p><img src=\"logo.png\" alt=\"Logo\" width=\"120\"> <img src=\"a.png\" alt=\"A\" /></p>\n")
        // A disclosure widget wraps its converted content.
        let details = markdown("<details><summary>More <b>info</b></summary><p>Hidden <em>text</em>.</p></details><p>after</p>")
        XCTAssertEqual(details, "<details>\n<summary>More info</summary>\n\nHidden *text*.\n\n</details>\n\nafter\n")
        let html = MarkdownParser.renderHTML(details, options: .gfm)
        XCTAssertTrue(html.contains("<details>\n<summary>More info</summary>\n<p>Hidden <em>text</em>.</p>\n</details>"), html)
    }

    func testMalformedHTML() {
        XCTAssertEqual(markdown("<p>unclosed <b>bold <i>both</p><p>next"), "unclosed **bold *both***\n\nnext\n")
        XCTAssertEqual(markdown("<ul><li>a<li>b</ul></ul></div>"), "- a\n- b\n")
        XCTAssertEqual(markdown("a < b and c<d"), "a < b and c\n", "a tag cut by the end of input is dropped, as HTML5 says")
        XCTAssertEqual(markdown("<p title=\"x > y\" class=a>attr</p><a href=x>y"), "attr\n\n[y](x)\n")
        XCTAssertEqual(markdown("&amp;&lt;&#233;&#x1F600;&copy &bogus; &#0;"), "&<é😀© &bogus; \u{FFFD}\n")
    }

    private func keeping(_ html: String) -> String {
        MarkdownWriter.renderString((try? Conversion.read(Array(html.utf8), from: .html, keepRawHTML: true)) ?? MarkdownDocument())
    }

    func testKeepRawHTMLModeKeepsWhatMarkdownCannotRepresent() {
        let inline = "<p>a <x-tag k=v>b</x-tag> <!-- c --> <i>d</i> <em>e</em> <a href=u>f</a> <a name=n>g</a></p>"
        XCTAssertEqual(keeping(inline), "a <x-tag k=v>b</x-tag> <!-- c --> <i>d</i> *e* [f](u) <a name=n>g</a>\n")
        XCTAssertEqual(markdown(inline), "a b  *d* *e* [f](u) g\n", "the default (clipboard) mode drops and unwraps")
        XCTAssertEqual(keeping("<div class=x><p>one</p></div>"), "<div class=x>\n\none\n\n</div>\n")
        XCTAssertEqual(markdown("<div class=x><p>one</p></div>"), "one\n")
        XCTAssertEqual(keeping("<div>loose <b>text</b></div>"), "<div>loose <b>text</b></div>\n")
        XCTAssertEqual(keeping("<pre class=x><code>y</code></pre>"), "<pre class=x><code>y</code></pre>\n")
        XCTAssertEqual(keeping("<table><tr><td>a</td></tr></table>"), "<table><tr><td>a</td></tr></table>\n")
        XCTAssertEqual(keeping("<?php echo 1 ?><p>x</p>"), "<?php echo 1 ?>\n\nx\n")
        XCTAssertEqual(keeping("<p>x<![CDATA[ y ]]></p>"), "x<![CDATA[ y ]]>\n")
        XCTAssertEqual(keeping("<script>var a = \"<b>\";</script><p>x</p>"), "<script>var a = \"<b>\";</script>\n\nx\n")
        XCTAssertEqual(keeping("<p>a</span>b</p>"), "a</span>b\n", "a stray end tag is kept")
        // Paragraphs, headings and links Markdown has stay Markdown (attributes of blocks dropped, as pandoc).
        XCTAssertEqual(keeping("<h1 id=t>T</h1><p style='color:red'>x <b style='font-weight:700'>y</b></p>"), "# T\n\nx **y**\n")
        // A document's head is not content.
        XCTAssertEqual(keeping("<!DOCTYPE html><html><head><title>T</title><style>p{}</style></head><body><p>x <!-- y --></p></body></html>"), "x <!-- y -->\n")
    }

    func testWhiteSpaceCollapsesTheSameFromAStringAndFromTheTreesBytes() {
        let cases: [(String, String)] = [
            ("", ""), ("a b", "a b"), ("a  b", "a b"), (" \n\ta\r\n\u{0C}b ", " a b "), ("\u{A0} \u{A0}", "\u{A0} \u{A0}"),
            ("caf\u{E9}\n\n", "caf\u{E9} "), ("   ", " "),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(HTMLConverter.collapse(input), expected, input.debugDescription)
            let bytes = Array(input.utf8)
            XCTAssertEqual(bytes.withUnsafeBufferPointer { HTMLConverter.collapse($0) }, expected, input.debugDescription)
        }
    }
}

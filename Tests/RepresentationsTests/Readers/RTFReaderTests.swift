import Markdown
import XCTest

@testable import Representations

final class RTFReaderTests: XCTestCase {
    private func markdown(_ rtf: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            return MarkdownWriter.renderString(try Conversion.read(Array(rtf.utf8), from: .rtf))
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return ""
        }
    }
    private func markdown(bytes: [UInt8]) throws -> String {
        MarkdownWriter.renderString(try Conversion.read(bytes, from: .rtf))
    }
    /// RTF with `\'hh` bytes written as Swift bytes.
    private func rtf(_ prefix: String, _ bytes: [UInt8], _ suffix: String = "}") -> [UInt8] {
        var out = Array(prefix.utf8)
        for b in bytes { out += Array("\\'".utf8) + Array(String(b, radix: 16).utf8) }
        return out + Array(suffix.utf8)
    }

    func testCocoaSample() throws {
        let bytes = try [UInt8](Data(contentsOf: RichTextTestSupport.samples.appendingPathComponent("cocoa-style.rtf")))
        XCTAssertEqual(try markdown(bytes: bytes), """
            # Heading by size

            Plain — text with **bold** and [a link](https://example.com/) and `code`

            - item one
            - item two 😀

            """)
    }

    func testPandocSample() throws {
        let bytes = try [UInt8](Data(contentsOf: RichTextTestSupport.samples.appendingPathComponent("pandoc-2.17-output.rtf")))
        XCTAssertEqual(try markdown(bytes: bytes), """
            # Title

            Some *em* and **strong** and `code` and ~~del~~ and [link](https://example.com) — “quotes” 😀

            - one
            - two

            1. a
            2. b

            > quote

            ```
            code block {x}
            ```

            | a | b |
            | --- | --- |
            | 1 | 2 |

            """)
    }

    func testCodePages() throws {
        XCTAssertEqual(try markdown(bytes: rtf("{\\rtf1\\ansi\\ansicpg1251 ", [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2])), "Привет\n")
        XCTAssertEqual(try markdown(bytes: rtf("{\\rtf1\\ansi\\ansicpg1250 ", [0x9E, 0x9A])), "žš\n")
        XCTAssertEqual(try markdown(bytes: rtf("{\\rtf1\\ansi\\ansicpg1253 ", [0xE1, 0xE2])), "αβ\n")
        XCTAssertEqual(try markdown(bytes: rtf("{\\rtf1\\ansi ", [0x93, 0x80, 0x94])), "“€”\n")
        XCTAssertEqual(try markdown(bytes: rtf("{\\rtf1\\mac ", [0x8E, 0x87])), "éá\n")
        // Double-byte pages: pairs decode together, by \ansicpg or by the font's \fcharset.
        XCTAssertEqual(try markdown(bytes: rtf("{\\rtf1\\ansi\\ansicpg932 ", [0x82, 0xA0, 0x82, 0xA2])), "あい\n")
        XCTAssertEqual(try markdown(bytes: rtf("{\\rtf1\\ansi\\ansicpg936 ", [0xC4, 0xE3, 0xBA, 0xC3])), "你好\n")
        XCTAssertEqual(try markdown(bytes: rtf("{\\rtf1\\ansi\\ansicpg949 ", [0xC7, 0xD1, 0xB1, 0xDB])), "한글\n")
        XCTAssertEqual(try markdown(bytes: rtf("{\\rtf1\\ansi\\ansicpg950 ", [0xA4, 0xA4, 0xA4, 0xE5])), "中文\n")
        XCTAssertEqual(try markdown(bytes: rtf("{\\rtf1\\ansi{\\fonttbl{\\f0\\fcharset0 Arial;}{\\f1\\fcharset128 MS Mincho;}}\\f0 a\\f1 ", [0x93, 0xFA, 0x96, 0x7B])), "a日本\n")
        // A trail byte written as a literal character (0x7B is "{", so it must be escaped; "@" is 0x40).
        XCTAssertEqual(markdown("{\\rtf1\\ansi\\ansicpg932 \\'83@}"), "ァ\n")
    }

    func testUnicodeEscapes() {
        XCTAssertEqual(markdown("{\\rtf1 caf\\u233?}"), "café\n")
        XCTAssertEqual(markdown("{\\rtf1 \\u-29739?\\u-30106?}"), "\u{8BD5}\u{8A66}\n", "negative values are code units above 32767")
        XCTAssertEqual(markdown("{\\rtf1 \\u-10179?\\u-8704?}"), "😀\n", "surrogate pair, negative")
        XCTAssertEqual(markdown("{\\rtf1 \\uc0\\u55357 \\u56832 !}"), "😀!\n", "surrogate pair, positive, \\uc0")
        XCTAssertEqual(markdown("{\\rtf1 \\u8364\\'80 x}"), "€ x\n", "a \\'hh fallback counts as one character")
        XCTAssertEqual(markdown("{\\rtf1 {\\uc3 {\\uc1\\u233 xyz}\\u233 abcd}}"), "éyzéd\n", "\\uc is group-scoped")
        XCTAssertEqual(markdown("{\\rtf1\\uc2 \\u8364 ab c}"), "€ c\n")
        XCTAssertEqual(markdown("{\\rtf1 a\\u55357?b}"), "a\u{FFFD}b\n", "a lone high surrogate")
    }

    func testDestinationsAndBinaryData() throws {
        XCTAssertEqual(markdown("{\\rtf1 {\\*\\unknowndestination secret {nested}}visible}"), "visible\n")
        XCTAssertEqual(markdown("{\\rtf1 {\\info{\\title Title}{\\author Me}}{\\header head}body}"), "body\n")
        var bytes = Array("{\\rtf1 a{\\*\\blob\\bin6 ".utf8) + [0x7D, 0x7B, 0x5C, 0x00, 0xFF, 0x7D] + Array("}b}".utf8)
        XCTAssertEqual(try markdown(bytes: bytes), "ab\n", "\\bin data is not tokenized")
        bytes = Array("{\\rtf1 x}\0\0garbage{\\b".utf8)
        XCTAssertEqual(try markdown(bytes: bytes), "x\n", "text after the closing brace is ignored")
        XCTAssertEqual(markdown("{\\rtf1 a\\~b\\_c\\-d\\emdash\\endash\\lquote\\rquote}"), "a\u{A0}b\u{2011}c\u{AD}d—–‘’\n")
        XCTAssertEqual(markdown("{\\rtf1 {\\v hidden}shown}"), "shown\n")
    }

    func testMalformedInputIsRecovered() throws {
        XCTAssertEqual(markdown("{\\rtf1 {\\b bold"), "**bold**\n", "missing closing braces")
        XCTAssertEqual(markdown("{\\rtf1 one}}}} "), "one\n")
        XCTAssertEqual(markdown("{\\rtf1 Hello\\pa"), "Hello\n", "truncated in a control word")
        XCTAssertThrowsError(try Conversion.read(Array("{\\rtf1 {\\field{\\*\\fldinst{HYPERLINK \"http://x".utf8), from: .rtf),
            "truncated inside a field instruction: nothing to show")
        XCTAssertEqual(markdown("{\\rtf1 a\\'4"), "a4\n", "a cut \\'hh")
        XCTAssertThrowsError(try Conversion.read(Array("plain text".utf8), from: .rtf)) { error in
            XCTAssertTrue((error as? RepresentationError)?.reason.contains("not RTF") == true)
        }
        XCTAssertThrowsError(try Conversion.read([], from: .rtf))
        XCTAssertThrowsError(try Conversion.read(Array("{\\rtf1{\\fonttbl{\\f0 Arial;}}}".utf8), from: .rtf))
    }

    func testParagraphsAndBreaks() {
        XCTAssertEqual(markdown("{\\rtf1 one\\par two\\line three\\par}"), "one\n\ntwo\\\nthree\n")
        XCTAssertEqual(markdown("{\\rtf1 one\\\ntwo\\\n}"), "one\n\ntwo\n", "Cocoa's backslash-newline paragraphs")
        XCTAssertEqual(markdown("{\\rtf1 a\r\nb}"), "ab\n", "raw line breaks are not text")
    }

    func testCharacterFormatting() {
        XCTAssertEqual(markdown("{\\rtf1 {\\b bold} {\\i it} {\\strike gone} {\\ul under} \\b on\\b0  off}"), "**bold** *it* ~~gone~~ <u>under</u> **on** off\n")
        XCTAssertEqual(markdown("{\\rtf1 {\\b bold {\\i both} bold}}"), "**bold *both* bold**\n")
        XCTAssertEqual(markdown("{\\rtf1 \\b a\\plain  b}"), "**a** b\n", "\\plain resets")
        XCTAssertEqual(markdown("{\\rtf1{\\fonttbl{\\f0\\fswiss Helvetica;}{\\f1\\fmodern Courier;}}\\f0 x {\\f1 y()} z}"), "x `y()` z\n")
        XCTAssertEqual(markdown("{\\rtf1{\\fonttbl{\\f0 Arial;}{\\f1 Consolas;}}\\f0 x {\\f1 y} z}"), "x `y` z\n", "monospace by family name")
        XCTAssertEqual(markdown("{\\rtf1 H{\\sub 2}O x{\\super 2}}"), "H<sub>2</sub>O x<sup>2</sup>\n")
        XCTAssertEqual(markdown("{\\rtf1 a {\\caps test} of {\\caps\\b Stra\\u223?e} \\caps x\\caps0 y}"), "a TEST of **STRASSE** Xy\n", "\\caps shows capitals")
        XCTAssertEqual(markdown("{\\rtf1 \\caps a\\plain  b}"), "A b\n", "\\plain ends \\caps")
        XCTAssertEqual(markdown("{\\rtf1 non\\~breaking, opt\\-ional, non\\_breaking}"), "non\u{00A0}breaking, opt\u{00AD}ional, non\u{2011}breaking\n",
            "no-break space, soft hyphen and no-break hyphen kept")
    }

    func testHeadings() {
        XCTAssertEqual(markdown("{\\rtf1 \\pard\\outlinelevel0\\b\\fs36 Title\\par\\pard\\plain\\outlinelevel2 Sub\\par\\pard body\\par}"), "# Title\n\n### Sub\n\nbody\n")
        // No outline levels: bold and larger than the body text.
        XCTAssertEqual(markdown("{\\rtf1 \\pard\\b\\fs40 Big\\par\\pard\\b\\fs30 Medium\\par\\pard\\b0\\fs24 body text that is long enough\\par more body\\par}"),
            "# Big\n\n## Medium\n\nbody text that is long enough\n\nmore body\n")
        XCTAssertEqual(markdown("{\\rtf1{\\stylesheet{\\s0 Normal;}{\\s1 heading 1;}}\\pard\\s1 Styled\\par}"), "# Styled\n", "by style name")
    }

    /// LibreOffice puts each heading in its outline list: `\\ls` with an empty `\\listtext` (only a tab), on a level
    /// that numbers nothing. The outline level wins over such a list; a list that shows a label stays a list.
    func testHeadingsInAListWithoutLabelsAreHeadings() {
        let table = """
            {\\*\\listtable{\\list{\\listlevel\\levelnfc255{\\leveltext \\'01\\'00;}}{\\listlevel\\levelnfc255{\\leveltext \\'01\\'01;}}\\listid1}
            {\\list{\\listlevel\\levelnfc23{\\leveltext \\'01\\u8226 ?;}}\\listid2}
            {\\list{\\listlevel\\levelnfc0{\\leveltext \\'02\\'00.;}}\\listid3}
            {\\list{\\listlevel\\levelnfc23}\\listid4}
            {\\list{\\listlevel\\levelnfc0{\\leveltext \\'00;}}\\listid5}}
            {\\*\\listoverridetable{\\listoverride\\listid1\\ls1}{\\listoverride\\listid2\\ls2}{\\listoverride\\listid3\\ls3}
            {\\listoverride\\listid4\\ls4}{\\listoverride\\listid5\\ls5}}
            """
        let styles = "{\\stylesheet{\\s0 Normal;}{\\s1\\outlinelevel0\\b\\fs32 Heading 1;}{\\s2\\b Heading 2;}}"
        // LibreOffice's shape: direct `\\outlinelevel`, an empty `\\listtext`.
        XCTAssertEqual(markdown("""
            {\\rtf1\(styles)\(table)
            \\pard\\plain\\s1\\ilvl0\\outlinelevel0\\b\\fs32{\\listtext\\pard\\plain \\tab}\\ls1 Quarterly Report\\par
            \\pard\\plain Body.\\par
            \\pard\\plain\\s2\\ilvl1\\outlinelevel1\\b{\\listtext\\pard\\plain \\tab}\\ls1 Details\\par
            \\pard\\plain{\\listtext \\u8226\\'95\\tab}\\ls2\\ilvl0 A bullet\\par
            \\pard\\plain{\\listtext 1.\\tab}\\ls3\\ilvl0 A number\\par}
            """), "# Quarterly Report\n\nBody.\n\n## Details\n\n- A bullet\n\n1. A number\n")
        // The style alone says heading (its `\\outlinelevel`, or its name); no `\\listtext`: the level's label decides.
        XCTAssertEqual(markdown("{\\rtf1\(styles)\(table)\\pard\\plain\\s1\\ls1\\ilvl0 By style\\par\\pard\\plain\\s2\\ls1\\ilvl1 By name\\par}"),
            "# By style\n\n## By name\n")
        XCTAssertEqual(markdown("{\\rtf1\(styles)\(table)\\pard\\plain\\s1\\ls4 Bullet level, no label\\par\\pard\\plain\\s1\\ls5 Empty label\\par}"),
            "# Bullet level, no label\n\n# Empty label\n")
        // A level that shows a label keeps its heading a list item, as before.
        XCTAssertEqual(markdown("{\\rtf1\(styles)\(table)\\pard\\plain\\s1\\ls3\\ilvl0 Numbered\\par\\pard\\plain\\s1\\ls2\\ilvl0 Bulleted\\par}"),
            "1. Numbered\n\n- Bulleted\n")
    }

    /// "Unicode" in a font's name is no "code": LibreOffice's headings in "Liberation Sans Unicode MS" were code spans.
    func testUnicodeFontsAreNotMonospace() {
        XCTAssertEqual(markdown("{\\rtf1{\\fonttbl{\\f0 Times;}{\\f1\\fnil Liberation Sans Unicode MS;}{\\f2 Arial Unicode MS;}{\\f3 Source Code Pro;}}"
            + "\\pard\\f1 One \\f2 two \\f3 three\\par}"), "One two `three`\n")
        XCTAssertFalse(HTMLConverter.isMonospaceFamily("'Arial Unicode MS', sans-serif"))
        XCTAssertTrue(HTMLConverter.isMonospaceFamily("'Fira Code', monospace"))
    }

    func testHyperlinks() {
        XCTAssertEqual(markdown("{\\rtf1 see {\\field{\\*\\fldinst{HYPERLINK \"https://a.example/?q=1\"}}{\\fldrslt{\\ul here}}}.}"), "see [here](https://a.example/?q=1).\n")
        XCTAssertEqual(markdown("{\\rtf1 {\\field\\flddirty{\\*\\fldinst{ HYPERLINK  \\\\l \"sec\" \\\\o \"tip\" }}{\\fldrslt go}}}"), "[go](#sec)\n")
        XCTAssertEqual(markdown("{\\rtf1 {\\field{\\*\\fldinst{ PAGE }}{\\fldrslt 3}}}"), "3\n", "other fields show their result")
        XCTAssertEqual(RTFParser.hyperlinkTarget("HYPERLINK http://bare.example"), "http://bare.example")
    }

    func testListsFromTheListTable() {
        let rtf = """
            {\\rtf1{\\*\\listtable{\\list\\listtemplateid1{\\listlevel\\levelnfc0\\levelstartat3{\\leveltext\\'02\\'00.;}{\\levelnumbers\\'01;}}{\\listlevel\\levelnfc23{\\leveltext\\'01\\u8226 ?;}{\\levelnumbers;}}\\listid7}}
            {\\*\\listoverridetable{\\listoverride\\listid7\\listoverridecount0\\ls1}}
            \\pard\\ls1\\ilvl0{\\listtext 3.\\tab}three\\par
            \\pard\\ls1\\ilvl1{\\listtext \\'95\\tab}nested\\par
            \\pard\\ls1\\ilvl0{\\listtext 4.\\tab}four\\par
            \\pard\\ls1\\ilvl0 continued\\par
            \\pard after\\par}
            """
        XCTAssertEqual(markdown(rtf), "3. three\n\n   - nested\n\n4. four\n\n   continued\n\nafter\n")
    }

    func testLegacyAndTextMarkerLists() {
        let legacy = "{\\rtf1 {\\pntext\\f1\\'B7\\tab}{\\*\\pn\\pnlvlblt\\pnf1{\\pntxtb\\'B7}}\\fi-360\\li720 one\\par{\\pntext 2.\\tab}{\\*\\pn\\pnlvlbody\\pndec}two\\par\\pard x\\par}"
        XCTAssertEqual(markdown(legacy), "- one\n\n2. two\n\nx\n")
        XCTAssertEqual(markdown("{\\rtf1 \\pard\\li360\\fi-360 \\bullet\\tab a\\par\\pard\\li360\\fi-360 \\bullet\\tab b\\par}"), "- a\n- b\n")
        XCTAssertEqual(markdown("{\\rtf1 \\pard \\u9745?\\tab done\\par}").contains("done"), true)
        XCTAssertEqual(markdown("{\\rtf1 \\pard -\\tab\\tab minus\\par}"), "\\-\t\tminus\n", "a row of tab-separated columns is not a list item")
    }

    func testTables() {
        let rtf = """
            {\\rtf1 \\trowd\\trhdr\\cellx1000\\cellx2000\\pard\\intbl {\\b A}\\cell\\pard\\intbl B\\cell\\row
            \\trowd\\cellx1000\\cellx2000\\pard\\intbl 1\\cell\\pard\\intbl two\\par lines\\cell\\row
            \\pard after\\par}
            """
        // A cell of two paragraphs has no pipe-table form: one clean HTML table.
        XCTAssertEqual(
            markdown(rtf), "<table><tr><th>A</th><th>B</th></tr>\n<tr><td>1</td><td><p>two</p><p>lines</p></td></tr>\n</table>\n\nafter\n")
        XCTAssertEqual(
            markdown("{\\rtf1 \\trowd\\cellx1000\\pard\\intbl {\\b A}\\cell\\row\\trowd\\cellx1000\\pard\\intbl 1\\line 2\\cell\\row}"),
            "| A |\n| --- |\n| 1<br>2 |\n", "a line break stays in a pipe cell")
        XCTAssertEqual(markdown("{\\rtf1 x\\cell y\\cell\\row}"), "| x | y |\n| --- | --- |\n", "cells before any \\trowd")
    }

    func testPictures() throws {
        // 1×1 PNG.
        let png: [UInt8] = [
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0,
            0x90, 0x77, 0x53, 0xDE,
        ]
        let hex = png.map { String(format: "%02x", $0) }.joined()
        let md = markdown("{\\rtf1 see {\\*\\shppict{\\pict\\pngblip\\picw1\\pich1 \(hex)}}{\\nonshppict{\\pict\\wmetafile8 0102}} it}")
        XCTAssertEqual(md, "see ![](data:image/png;base64,\(Base64.encode(png))) it\n")
        let bin = Array("{\\rtf1 {\\pict\\pngblip\\bin\(png.count) ".utf8) + png + Array("}}".utf8)
        XCTAssertEqual(try markdown(bytes: bin), "![](data:image/png;base64,\(Base64.encode(png)))\n", "\\bin picture data")
        XCTAssertEqual(markdown("{\\rtf1 a{\\pict\\wmetafile8 0102}b}"), "ab\n", "unsupported formats are dropped")
    }

    func testFootnotes() {
        XCTAssertEqual(markdown("{\\rtf1 Text{\\super\\chftn}{\\*\\footnote\\pard\\plain{\\super\\chftn} The note.}\\par}"), "Text[^1]\n\n[^1]: The note.\n")
    }

    func testOurRTFReadsBack() throws {
        let source = try [UInt8](Data(contentsOf: RichTextTestSupport.fixtures.appendingPathComponent("RichText/constructs.md")))
        let rtf = try Conversion.convert(source, from: .gfm, to: .rtf)
        let back = MarkdownWriter.renderString(try Conversion.read(rtf, from: .rtf))
        for expected in [
            "# Heading One\n", "### Heading Three\n", "*emphasis*", "**strong text**", "~~struck out~~", "`inline code`",
            "[link to example](https://example.com/path?q=1)", "joins this line,\\\nand a hard break", "日本語のテキスト", "😀🚀",
            "> A quoted paragraph.", "```\nlet greeting = \"Hello\"\n    print(greeting) // indented {braces}\n```",
            "1. First ordered\n2. Second ordered\n   - Nested bullet A\n   - Nested bullet B\n     1. Deep ordered one\n     2. Deep ordered two\n3. Third ordered",
            "5. Five\n6. Six", "- [x] Done task\n- [ ] Open task", "***", "| Name | Value | Note |", "| beta | 22 | second |",
            "![](data:image/png;base64,", "missing picture.",
        ] {
            XCTAssertTrue(back.contains(expected), "missing \(expected.debugDescription) in\n\(back)")
        }
    }

    func testKeywordHashLiterals() {
        XCTAssertEqual(RTFTokenizer.binKey, RTFTokenizer.hash("bin".utf8))
        XCTAssertEqual(RTFParser.rtfKey, RTFTokenizer.hash("rtf".utf8))
        XCTAssertEqual(RTFParser.udKey, RTFTokenizer.hash("ud".utf8))
    }

    func testUnderlineIsKeptAsRawHTMLLikePandoc() {
        // pandoc 2.17 `-f rtf -t gfm` gives "a <u>under</u> b **<u>both</u>** c" for this input.
        XCTAssertEqual(markdown("{\\rtf1\\ansi a {\\ul under} b {\\ul\\b both} c\\par}"), "a <u>under</u> b **<u>both</u>** c\n")
        XCTAssertEqual(markdown("{\\rtf1 x \\uldb double\\ulnone  y\\par}"), "x <u>double</u> y\n", "underline variants, ended by \\ulnone")
        // Links are underlined by presentation: no <u> inside them.
        XCTAssertEqual(markdown("{\\rtf1 see {\\field{\\*\\fldinst HYPERLINK \"http://x.example/\"}{\\fldrslt {\\ul link}}}\\par}"), "see [link](http://x.example/)\n")
        // What we write parses back as inline HTML inside the strong emphasis.
        let doc = MarkdownParser.parse(Array("**<u>both</u>**".utf8), options: .gfm)
        XCTAssertEqual(HTMLWriter.renderString(doc, options: .gfm), "<p><strong><u>both</u></strong></p>\n")
    }

    func testNestedTablesKeepAllTheirText() {
        // Word's form: nested cells end with \nestcell, nested rows with {\*\nesttableprops … \nestrow}.
        let rtf = """
            {\\rtf1\\ansi
            \\trowd\\cellx2000\\cellx4000
            \\pard\\intbl outer a\\cell
            \\pard\\intbl\\itap2 inner 1\\nestcell inner 2\\nestcell{\\*\\nesttableprops\\trowd\\cellx1000\\cellx2000\\nestrow}{\\nonesttables\\par}
            \\pard\\intbl\\itap2 inner 3\\nestcell inner 4\\nestcell{\\*\\nesttableprops\\trowd\\cellx1000\\cellx2000\\nestrow}{\\nonesttables\\par}
            \\pard\\intbl\\itap1\\cell\\row
            \\trowd\\cellx2000\\cellx4000\\pard\\intbl outer c\\cell outer d\\cell\\row
            \\pard after\\par}
            """
        XCTAssertEqual(
            markdown(rtf),
            "<table><tr><th>outer a</th><th><table><tr><td>inner 1</td><td>inner 2</td></tr>\n<tr><td>inner 3</td><td>inner 4</td></tr>\n</table></th></tr>\n"
                + "<tr><td>outer c</td><td>outer d</td></tr>\n</table>\n\nafter\n")
    }

    func testIndentedParagraphsAreBlockQuotes() {
        // LibreOffice writes <blockquote> as paragraphs with a left indent (\li, in twips) and nothing else.
        let rtf = "{\\rtf1 \\pard before\\par\\pard\\li567 quoted\\par\\pard\\li567 second\\par\\pard\\li1134 deeper\\par\\pard after\\par}"
        XCTAssertEqual(markdown(rtf), "before\n\n> quoted\n>\n> second\n>\n> > deeper\n\nafter\n")
        XCTAssertEqual(markdown("{\\rtf1 \\pard\\li100 slightly indented\\par}"), "slightly indented\n", "a small indent is not a quote")
        XCTAssertEqual(markdown("{\\rtf1 \\pard before\\par\\pard\\li720\\fi-720 Hanging, as in a bibliography\\par}"),
            "before\n\nHanging, as in a bibliography\n", "a hanging indent is not a quote")
        XCTAssertEqual(markdown("{\\rtf1 \\pard before\\par\\pard\\li720\\fi360 first line further in\\par}"),
            "before\n\n> first line further in\n")
    }

    /// LibreOffice's own RTF for HTML block quotes and a nested table.
    func testLibreOfficeBlockQuotesAndNestedTables() throws {
        guard let soffice = RichTextTestSupport.which("soffice") else { throw XCTSkip("soffice not installed") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rtf-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let html = dir.appendingPathComponent("quotes.html")
        try Data("""
            <html><body><p>Before the quote.</p>
            <blockquote><p>Quoted paragraph one.</p><p>Quoted paragraph two.</p></blockquote>
            <p>Between.</p>
            <blockquote><p>Outer.</p><blockquote><p>Inner.</p></blockquote></blockquote>
            <p>After the quote.</p>
            <table border="1"><tr><td>outer a</td><td><table border="1"><tr><td>inner 1</td><td>inner 2</td></tr>
            <tr><td>inner 3</td><td>inner 4</td></tr></table></td></tr><tr><td>outer c</td><td>outer d</td></tr></table>
            <p>End.</p></body></html>
            """.utf8).write(to: html)
        let result = RichTextTestSupport.run(soffice, [
            "-env:UserInstallation=file://\(dir.appendingPathComponent("profile").path)", "--headless",
            "--infilter=HTML (StarWriter)", "--convert-to", "rtf", "--outdir", dir.path, html.path,
        ], timeout: 180)
        XCTAssertEqual(result?.status, 0)
        let rtf = try [UInt8](Data(contentsOf: dir.appendingPathComponent("quotes.rtf")))
        let md = try markdown(bytes: rtf)
        for expected in [
            "Before the quote.\n\n> Quoted paragraph one.\n>\n> Quoted paragraph two.\n\nBetween.\n",
            "> Outer.\n>\n> > Inner.\n\nAfter the quote.\n", "End.\n",
        ] {
            XCTAssertTrue(md.contains(expected), "missing \(expected.debugDescription) in\n\(md)")
        }
        // The nested table is flattened into its outer cell, but no text is lost.
        for text in ["outer a", "inner 1", "inner 2", "inner 3", "inner 4", "outer c", "outer d"] {
            XCTAssertTrue(md.contains(text), "lost \(text) in\n\(md)")
        }
    }

    /// Links over plain and monospace runs are written without InlineAssembler: same result as with it.
    func testLinksOverCodeAndAdjacentLinks() {
        let rtf = """
            {\\rtf1{\\fonttbl{\\f0 Arial;}{\\f1\\fmodern Courier;}}\\f0 see {\\field{\\*\\fldinst HYPERLINK "http://u.example/"}{\\fldrslt {\\ul\\f1 code} {\\ul text}}} \
            and {\\field{\\*\\fldinst HYPERLINK "http://u.example/"}{\\fldrslt a}}{\\field{\\*\\fldinst HYPERLINK "http://u.example/"}{\\fldrslt b}}\\line x\\par}
            """
        XCTAssertEqual(markdown(rtf), "see [`code` text](http://u.example/) and [ab](http://u.example/)\\\nx\n")
        XCTAssertEqual(markdown("{\\rtf1 {\\field{\\*\\fldinst HYPERLINK \"http://u.example/\"}{\\fldrslt {\\b bold} link}}\\par}"),
            "[**bold** link](http://u.example/)\n", "styled link text still goes through InlineAssembler")
    }

    /// The tokenizer scans text eight bytes at a time: stops and non-ASCII bytes at every offset of a word.
    func testTextRunsAtEveryOffset() throws {
        for k in 0..<20 {
            for m in [0, 1, 7, 8, 9, 17] {
                let a = String(repeating: "a", count: k)
                let z = String(repeating: "z", count: m)
                XCTAssertEqual(markdown("{\\rtf1 \(a){\\b y}\(z)\\par}"), "\(a)**y**\(z)\n")
                XCTAssertEqual(markdown("{\\rtf1 q\(a)\\line \(z)x}"), "q\(a)\\\n\(z)x\n")
                let bytes = Array("{\\rtf1\\ansi \(a)".utf8) + [0xE9] + Array("\(z)\r\n\(z)}".utf8)
                XCTAssertEqual(try markdown(bytes: bytes), "\(a)é\(z)\(z)\n", "raw cp1252 byte after \(k) bytes")
            }
        }
    }
}

import Markdown
import XCTest

@testable import Representations

final class PlainTextWriterTests: XCTestCase {
    private func text(_ markdown: String) -> String {
        PlainTextWriter.renderString(MarkdownParser.parse(markdown, options: .gfm))
    }

    func testWhatPasteAsPlainTextGives() {
        XCTAssertEqual(text("# Title\n\nSome *em* and **strong** and `code`.\nSoft break.\n\nNext paragraph."),
            "Title\n\nSome em and strong and code. Soft break.\n\nNext paragraph.\n")
    }

    func testAByteOrderMarkBeforeTheFirstLineIsNoText() throws {
        let markdown: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("# ![pic](a.png)\n".utf8)
        XCTAssertEqual(String(decoding: try Conversion.convert(markdown, from: .gfm, to: .text), as: UTF8.self), "pic\n")
    }

    func testLinksShowTheirURLOnlyWhenItDiffers() {
        XCTAssertEqual(text("[docs](https://example.com/docs) and <https://example.com> and [me](mailto:me@example.com)"),
            "docs <https://example.com/docs> and https://example.com and me <mailto:me@example.com>\n")
        XCTAssertEqual(text("<me@example.com>"), "me@example.com\n")
    }

    func testListsKeepMarkersAndNestByIndentation() {
        XCTAssertEqual(text("- a\n- b\n  1. one\n  2. two\n- [x] done\n- [ ] todo\n"),
            "• a\n• b\n  1. one\n  2. two\n• ☑ done\n• ☐ todo\n")
        XCTAssertEqual(text("3. three\n\n4. four\n"), "3. three\n\n4. four\n")
    }

    func testCodeBlocksQuotesAndBreaks() {
        XCTAssertEqual(text("```\n  indented\n\n  kept\n```\n\n> quoted\n\n***\n\nline\\\nbreak"),
            "  indented\n\n  kept\n\n    quoted\n\n———\n\nline\nbreak\n")
    }

    func testTablesAsAlignedColumns() {
        XCTAssertEqual(text("| Name | Qty |\n|:--|--:|\n| apple | 1 |\n| kiwi | 100 |\n| 日本 | 2 |\n"),
            "Name   Qty\napple    1\nkiwi   100\n日本     2\n")
    }

    func testImagesFootnotesAndHTML() {
        XCTAssertEqual(text("![a cat](cat.png) <b>x</b>\n\n<div>block</div>\n\nNote[^1].\n\n[^1]: The note.\n"),
            "a cat x\n\nblock\n\nNote[1].\n\n[1] The note.\n")
    }

    func testImagesSideBySideStayApart() {
        // As a browser shows two pictures, not one word "LogoW3C".
        XCTAssertEqual(text("![GNOME Logo](g.png)![W3C logo](w.png) [![C](c.png)](/c)[![D](d.png)](/d)x![E](e.png)"),
            "GNOME Logo W3C logo C </c> D </d>xE\n")
        XCTAssertEqual(text("| a |\n| --- |\n| ![B](b.png)![C](c.png) |\n"), "a\nB C\n")
        // The same in raw HTML (tables that have no pipe-table form).
        XCTAssertEqual(HTMLText.strip("<td><a href=x><img alt=\"A logo\"></a><img src=b alt='B logo'>x<img alt=C></td>"), "A logo B logoxC")
    }

    func testPlainTextInputKeepsLinesAndEscapesMarkup() throws {
        let md = try Conversion.convert(Array("Line one\nline two\n\n*not markup* <b>\n\n\n".utf8), from: .text, to: .gfm)
        XCTAssertEqual(String(decoding: md, as: UTF8.self), "Line one\\\nline two\n\n\\*not markup\\* \\<b>\n")
    }
}

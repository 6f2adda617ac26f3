import Markdown
import XCTest

@testable import Representations

/// The line engine the Markdown and plain-text writers share.
final class LineWriterTests: XCTestCase {
    func testWriteLinesPutsThePrefixOnEveryLine() {
        var lw = LineWriter()
        lw.prefix = Array("> ".utf8)
        lw.writeLines(Array("a\nb\n\nc".utf8)[...])
        XCTAssertEqual(String(decoding: lw.finish(), as: UTF8.self), "> a\n> b\n> \n> c\n")
    }

    func testWriteLinesContinuesTheCurrentLineAndEndsWithTheLastLF() {
        var lw = LineWriter()
        lw.prefix = Array("    ".utf8)
        lw.write("x")
        lw.writeLines(Array("y\nz\n".utf8)[...])
        lw.write("w")
        XCTAssertEqual(String(decoding: lw.finish(), as: UTF8.self), "    xy\n    z\n    w\n")
    }

    func testMarkdownAndPlainTextWritersIndentEveryLineOfACodeBlockInAQuote() {
        let doc = MarkdownParser.parse(Array("> ```\n> one\n>\n> two\n> ```\n".utf8), options: .gfm)
        XCTAssertEqual(MarkdownWriter.renderString(doc), "> ```\n> one\n> \n> two\n> ```\n")
        XCTAssertEqual(PlainTextWriter.renderString(doc), "    one\n    \n    two\n")
    }
}

import Foundation
import XCTest

/// Producers and negotiation over X11 (issue 6): what desktop apps copy pastes as clean Markdown, and a
/// Markdown copy reaches each consumer in its best form.
final class X11NegotiationTests: X11TestCase {
    let page = "<meta charset='utf-8'><h2>Release notes</h2><p>Some <b>bold</b> and <i>italic</i> text, "
        + "a <a href=\"https://example.org/r\">link</a>.</p><ul><li>first</li><li>second</li></ul>"
    let notes = "# Notes\n\nSome *emphasis* and a [link](https://example.org).\n\n- one\n- two\n"

    func assertCleanMarkdown(_ markdown: String, file: StaticString = #filePath, line: UInt = #line) {
        for expected in ["## Release notes", "**bold**", "[link](https://example.org/r)", "- first", "- second"] {
            XCTAssertTrue(markdown.contains(expected), "\(expected) missing in:\n\(markdown)", file: file, line: line)
        }
        XCTAssertTrue(markdown.contains("*italic*") || markdown.contains("_italic_"), markdown, file: file, line: line)
        XCTAssertFalse(markdown.contains("<"), "markup left in:\n\(markdown)", file: file, line: line)
    }

    func testHTMLFromQtPastesAsCleanMarkdown() throws {
        try requirePython("PyQt5.QtWidgets")
        let text = try write(Data("Release notes".utf8), "t.txt")
        let html = try write(Data(page.utf8), "p.html")
        try startPeer([python, peers + "/qt_peer.py", "copy", "text", text, "text/html", html])
        let result = try run([pbctl, "paste", "--as", "markdown", "-v"])
        XCTAssertEqual(result.status, 0, result.stderr)
        assertCleanMarkdown(result.text)
        XCTAssertTrue(result.stderr.contains("read public.html") && result.stderr.contains("converted to"), result.stderr)
    }

    func testHTMLFromGTKPastesAsCleanMarkdown() throws {
        try requirePython("gi")
        let html = try write(Data(page.utf8), "p.html")
        try startPeer([python, peers + "/gtk_peer.py", "copy", "text/html", html])
        let result = try run([pbctl, "paste", "--as", "markdown"])
        XCTAssertEqual(result.status, 0, result.stderr)
        assertCleanMarkdown(result.text)
        let plain = try run([pbctl, "paste", "--plain"]).text
        XCTAssertTrue(plain.contains("bold") && !plain.contains("<b>"), plain)
    }

    func testMarkdownCopyReachesEachConsumerInItsBestForm() throws {
        try requireTool("/usr/bin/xclip")
        let copy = try run([pbctl, "copy", "--type", "markdown"], input: Data(notes.utf8), timeout: 20)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        // A Markdown consumer gets the source byte for byte; a rich-text one gets RTF; plain text is rendered.
        XCTAssertEqual(try run([pbctl, "paste", "--accept", "text/markdown,text/rtf"]).text, notes)
        XCTAssertEqual(try run(["/usr/bin/xclip", "-o", "-selection", "clipboard", "-t", "text/markdown"]).text, notes)
        let rtf = try run(["/usr/bin/xclip", "-o", "-selection", "clipboard", "-t", "text/rtf"]).text
        XCTAssertTrue(rtf.hasPrefix("{\\rtf1") && rtf.contains("Notes"), rtf)
        let html = try run(["/usr/bin/xclip", "-o", "-selection", "clipboard", "-t", "text/html"]).text
        XCTAssertTrue(html.contains("<h1>Notes</h1>"), html)
        let plain = try run([pbctl, "paste", "--plain"]).text
        XCTAssertFalse(plain.contains("*") || plain.contains("#") || plain.contains("]("), plain)
        XCTAssertTrue(plain.contains("emphasis"), plain)
    }
}

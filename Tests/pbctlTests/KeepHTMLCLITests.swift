import Foundation
import XCTest

/// `--keep-html`: HTML read into Markdown keeps what Markdown cannot represent as raw HTML.
final class KeepHTMLCLITests: PbctlTestCase {
    let page = """
        <p>Intro with <em>emphasis</em>.</p>
        <!-- a note for editors -->
        <div class=x>
        <p>Inside the div.</p>
        </div>

        """

    func testConvertKeepsCommentsAndDivsOnlyWithTheFlag() throws {
        let kept = try pbctl.run("convert", "--from", "html", "--to", "markdown", "--keep-html", stdin: page)
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertTrue(kept.text.contains("<!-- a note for editors -->"), kept.text)
        XCTAssertTrue(kept.text.contains("<div class=x>"), kept.text)
        XCTAssertTrue(kept.text.contains("</div>"), kept.text)
        XCTAssertTrue(kept.text.contains("Intro with *emphasis*."), kept.text)
        XCTAssertTrue(kept.text.contains("Inside the div."), kept.text)
        // The Markdown renders back to the same elements.
        try kept.text.write(toFile: scratch + "/kept.md", atomically: true, encoding: .utf8)
        let html = try pbctl.run("convert", "--from", "gfm", "--to", "html", scratch + "/kept.md").text
        XCTAssertTrue(html.contains("<!-- a note for editors -->"), html)
        XCTAssertTrue(html.contains("<div class=x>"), html)
        XCTAssertTrue(html.contains("<p>Inside the div.</p>"), html)

        let clean = try pbctl.run("convert", "--from", "html", "--to", "markdown", stdin: page)
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertFalse(clean.text.contains("<!--"), clean.text)
        XCTAssertFalse(clean.text.contains("<div"), clean.text)
        XCTAssertFalse(clean.text.contains("</div>"), clean.text)
        XCTAssertTrue(clean.text.contains("Inside the div."), clean.text)
    }

    func testPasteAsMarkdownAcceptsKeepHTML() throws {
        XCTAssertEqual(try pbctl.run("copy", "--type", "public.html", stdin: page).status, 0)
        let kept = try pbctl.run("paste", "--as", "markdown", "--keep-html")
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertTrue(kept.text.contains("<!-- a note for editors -->"), kept.text)
        XCTAssertTrue(kept.text.contains("<div class=x>"), kept.text)
        let clean = try pbctl.run("paste", "--as", "markdown")
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertFalse(clean.text.contains("<!--"), clean.text)
        XCTAssertFalse(clean.text.contains("<div"), clean.text)
        XCTAssertTrue(clean.text.contains("Inside the div."), clean.text)
    }
}

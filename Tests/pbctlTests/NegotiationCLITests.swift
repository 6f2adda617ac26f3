import Foundation
import XCTest

/// One copy offers every honest representation; each paste gets the best one (no display).
final class NegotiationCLITests: PbctlTestCase {
    let notes = """
        # Weekly notes

        Some *emphasis*, **strong** text and a [link](https://example.org).

        - first
        - second

        """

    func copyNotes() throws {
        try notes.write(toFile: scratch + "/notes.md", atomically: true, encoding: .utf8)
        XCTAssertEqual(try pbctl.run("copy", scratch + "/notes.md").status, 0)
    }

    func testMarkdownCopyOffersFourRepresentations() throws {
        try copyNotes()
        let listing = try JSONSerialization.jsonObject(with: try pbctl.run("types", "--json").stdout) as? [[String: Any]]
        XCTAssertEqual(
            listing?.map { $0["type"] as? String },
            ["net.daringfireball.markdown", "public.html", "public.rtf", "public.utf8-plain-text"])
        XCTAssertNil(listing?[0]["derivedFrom"] as? String)
        XCTAssertEqual(listing?[1]["derivedFrom"] as? String, "net.daringfireball.markdown")
    }

    func testMarkdownConsumerGetsTheSourceByteExact() throws {
        try copyNotes()
        let result = try pbctl.run("paste", "--accept", "net.daringfireball.markdown,public.rtf")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.text, notes)
        // Even when the consumer prefers RTF, the original wins when it is accepted.
        XCTAssertEqual(try pbctl.run("paste", "--accept", "text/rtf,text/markdown").text, notes)
        // The default plain text of a Markdown copy is the source itself.
        XCTAssertEqual(try pbctl.run("paste").text, notes)
    }

    func testRichConsumerGetsRTF() throws {
        try copyNotes()
        let result = try pbctl.run("paste", "--accept", "public.rtf,public.html", "-v")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.text.hasPrefix("{\\rtf1"), result.text)
        XCTAssertTrue(result.text.contains("Weekly notes"))
        XCTAssertTrue(result.stderr.contains("public.rtf"), result.stderr)
        XCTAssertTrue(result.stderr.contains("derived from net.daringfireball.markdown"), result.stderr)
        XCTAssertTrue(result.text.utf8.allSatisfy { $0 < 0x80 }, "RTF is 7-bit")
    }

    func testPlainHasNoMarkup() throws {
        try copyNotes()
        let plain = try pbctl.run("paste", "--plain").text
        for markup in ["#", "*", "[", "](", "<"] where markup != "<" {
            XCTAssertFalse(plain.contains(markup), "\(markup) in \(plain)")
        }
        XCTAssertTrue(plain.contains("Weekly notes"))
        XCTAssertTrue(plain.contains("emphasis"))
        XCTAssertTrue(plain.contains("https://example.org"))
        XCTAssertEqual(try pbctl.run("paste", "--as", "text").text, plain)
    }

    func testAsHTMLRenders() throws {
        try copyNotes()
        let html = try pbctl.run("paste", "--as", "html").text
        XCTAssertTrue(html.contains("<h1>Weekly notes</h1>"), html)
        XCTAssertTrue(html.contains("<a href=\"https://example.org\">link</a>"), html)
        XCTAssertTrue(html.contains("<li>first</li>"), html)
    }

    func testRenderedPlainTextChoice() throws {
        try notes.write(toFile: scratch + "/notes.md", atomically: true, encoding: .utf8)
        XCTAssertEqual(try pbctl.run("copy", "--plain-text=rendered", scratch + "/notes.md").status, 0)
        let text = try pbctl.run("paste", "--type", "public.utf8-plain-text").text
        XCTAssertFalse(text.contains("**"), text)
        XCTAssertTrue(text.contains("strong"))
        XCTAssertEqual(try pbctl.run("copy", "--plain-text=fancy", stdin: "x").status, 64)
    }

    func testHTMLPastesAsCleanMarkdownAndText() throws {
        let html = "<meta charset='utf-8'><h2>Title</h2><p>A <b>bold</b> and <i>italic</i> "
            + "<a href=\"https://example.org/x\">link</a>.</p><ul><li>one</li><li>two</li></ul>"
        XCTAssertEqual(try pbctl.run("copy", "--type", "public.html", stdin: html).status, 0)
        let types = try pbctl.run("types").text
        XCTAssertTrue(types.hasPrefix("public.html"), types)
        XCTAssertFalse(types.contains("markdown"), "Markdown is reached by conversion, not offered")
        let markdown = try pbctl.run("paste", "--as", "markdown")
        XCTAssertEqual(markdown.status, 0, markdown.stderr)
        XCTAssertTrue(markdown.text.contains("## Title"), markdown.text)
        XCTAssertTrue(markdown.text.contains("**bold**"), markdown.text)
        XCTAssertTrue(markdown.text.contains("[link](https://example.org/x)"), markdown.text)
        XCTAssertTrue(markdown.text.contains("- one"), markdown.text)
        XCTAssertFalse(markdown.text.contains("<"), markdown.text)
        let plain = try pbctl.run("paste", "--plain").text
        for tag in ["<b>", "<p>", "<a ", "<h2", "<li", "<meta"] { XCTAssertFalse(plain.contains(tag), plain) }
        XCTAssertTrue(plain.contains("bold"), plain)
        XCTAssertTrue(plain.contains("link <https://example.org/x>"), plain)
        let accepted = try pbctl.run("paste", "--accept", "text/markdown", "-v")
        XCTAssertEqual(accepted.text, markdown.text)
        XCTAssertTrue(
            accepted.stderr.contains("read public.html (the original), converted to net.daringfireball.markdown here"), accepted.stderr)
        XCTAssertFalse(accepted.stderr.contains("markdown (the original)"), "a conversion is never called the original: \(accepted.stderr)")
    }

    func testPlainTextCopyOffersOnlyPlainText() throws {
        _ = try pbctl.run("copy", stdin: "just *text*\n")
        XCTAssertEqual(try pbctl.run("types").text.split(separator: "\n").count, 1)
        XCTAssertEqual(try pbctl.run("paste", "--plain").text, "just *text*\n", "plain text is pasted as it was")
    }

    func testNothingAcceptedIsExitOne() throws {
        let png = try XCTUnwrap(Data(base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGP4z8AAQQxwFgBB0gX7h/C5SAAAAABJRU5ErkJggg=="))
        XCTAssertEqual(try pbctl.run(["copy", "--type", "png"], stdin: png).status, 0)
        let result = try pbctl.run("paste", "--accept", "text/markdown")
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("public.png"), result.stderr)
        XCTAssertEqual(try pbctl.run("paste", "--as", "markdown").status, 1)
        XCTAssertEqual(try pbctl.run("paste", "--type", "png", "--plain").status, 64)
    }

    func testSensitiveContentNeverReachesDiskAndExpires() throws {
        let secret = "correct-horse-\(UUID().uuidString)"
        XCTAssertEqual(try pbctl.run("copy", "--sensitive", "--clear-after", "2", stdin: secret).status, 0)
        XCTAssertEqual(try pbctl.run("paste").text, secret)
        let info = try JSONSerialization.jsonObject(with: try pbctl.run("info", "--json").stdout) as? [String: Any]
        XCTAssertEqual((info?["items"] as? [[String: Any]])?.first?["sensitive"] as? Bool, true)
        for directory in [pbctl.store, NSTemporaryDirectory(), ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"]]
            .compactMap({ $0 })
        {
            XCTAssertFalse(try treeContains(directory, Data(secret.utf8)), "secret found under \(directory)")
        }
        // Gone after its lifetime, and the pasteboard is clear.
        Thread.sleep(forTimeInterval: 3.5)
        XCTAssertEqual(try pbctl.run("paste").status, 1)
    }

    func testReplacingSensitiveContentEndsItsHolder() throws {
        XCTAssertEqual(try pbctl.run("copy", "--sensitive", stdin: "s3cret").status, 0)
        XCTAssertEqual(try pbctl.run("copy", stdin: "public").status, 0)
        XCTAssertEqual(try pbctl.run("paste").text, "public")
        let sockets = try FileManager.default.contentsOfDirectory(atPath: pbctl.store + "/general.pasteboard")
            .filter { $0.hasSuffix(".sock") }
        XCTAssertEqual(sockets, [])
        XCTAssertEqual(try pbctl.run("copy", "--sensitive", stdin: "again").status, 0)
        XCTAssertEqual(try pbctl.run("clear").status, 0)
        XCTAssertEqual(try pbctl.run("paste").status, 1)
    }

    /// Whether any regular file below `directory` contains `needle` (unreadable files are skipped).
    func treeContains(_ directory: String, _ needle: Data) throws -> Bool {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return false }
        while let relative = enumerator.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                (attributes[.size] as? NSNumber)?.intValue ?? 0 < 50_000_000,
                let data = try? Data(contentsOf: URL(fileURLWithPath: path))
            else { continue }
            if data.range(of: needle) != nil { return true }
        }
        return false
    }
}

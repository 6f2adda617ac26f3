import Foundation
import Markdown
import XCTest

@testable import Representations

final class TextBundleTests: XCTestCase {
    /// A red and a blue 2×2 PNG, small enough to read in a failure message.
    static let png1 = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==")!
    static let png2 = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAD0lEQVR4nGNgYPgPRmAKABf2A/1+6zfzAAAAAElFTkSuQmCC")!

    static let markdown = """
        # Trip

        ![first](img/a.png) and ![second *one*](<img/my b.png> "B")

        `![not an image](img/c.png)`

        ![ref][r] and again ![](img/a.png) and ![](https://example.com/x.png)

        [r]: img/a.png

        """

    func load(_ path: String) -> (path: String, data: Data)? {
        switch path {
        case "img/a.png": return ("/docs/img/a.png", Self.png1)
        case "img/my b.png": return ("/docs/img/my b.png", Self.png2)
        default: return nil
        }
    }

    func testImageReferencesAreFoundByTheParserAndLocated() {
        let references = MarkdownImageReferences.references(in: Array(Self.markdown.utf8))
        XCTAssertEqual(
            references.map(\.destination), ["img/a.png", "img/my b.png", "img/a.png", "img/a.png", "https://example.com/x.png"])
        XCTAssertTrue(references.allSatisfy { $0.sourceRange != nil })
        let bytes = Array(Self.markdown.utf8)
        for reference in references {
            XCTAssertEqual(String(decoding: bytes[reference.sourceRange!], as: UTF8.self), reference.destination)
        }
        // The reference-style image's destination is in its definition.
        XCTAssertEqual(references[2].sourceRange, Self.markdown.utf8.count - "img/a.png\n".utf8.count..<Self.markdown.utf8.count - 1)
    }

    /// A byte order mark before the first line is no part of it: a reference's range still counts it.
    func testImageReferencesAfterAByteOrderMark() {
        let markdown: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("# ![pic](a.png)\n".utf8)
        XCTAssertEqual(MarkdownImageReferences.references(in: markdown).first?.sourceRange, 12..<17, "the destination's bytes")
    }

    func testImagesInsideContainersTabsAndTablesAreLocated() {
        let markdown = """
            > quote ![a](img/a.png)
            >\t![t](img/a.png)

            - item
            \t![b](img/a.png)

            1. x

               ![c](<img/a.png>)

            | col | img |
            | --- | --- |
            | é\tx | ![d](img/a.png) |

            \u{00E9}\u{00E9} ![e]( img/a.png )
            """
        let bytes = Array(markdown.utf8)
        let references = MarkdownImageReferences.references(in: bytes)
        XCTAssertEqual(references.count, 6)
        for reference in references {
            guard let range = reference.sourceRange else { return XCTFail("not located: \(reference)") }
            XCTAssertEqual(String(decoding: bytes[range], as: UTF8.self), "img/a.png")
        }
        // Six distinct places, every one rewritten.
        XCTAssertEqual(Set(references.compactMap(\.sourceRange?.lowerBound)).count, 6)
        let rewritten = String(
            decoding: MarkdownImageReferences.rewrite(bytes, references: references, replacements: ["img/a.png": "assets/a.png"]),
            as: UTF8.self)
        XCTAssertFalse(rewritten.contains("img/a.png"), rewritten)
        XCTAssertEqual(rewritten.components(separatedBy: "assets/a.png").count - 1, 6)
    }

    func testRandomMarkdownNeverCrashesTheRewriter() {
        let pieces = ["![", "](", ")", "[", "]", ":", " ", "\n", "\t", "<", ">", "img/a.png", "\"", "`", "> ", "- ", "|", "\\", "é", "&amp;"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let bytes = Array(text.utf8)
            let references = MarkdownImageReferences.references(in: bytes)
            let out = MarkdownImageReferences.rewrite(bytes, references: references, replacements: ["img/a.png": "assets/a.png"])
            for reference in references {
                if let range = reference.sourceRange {
                    XCTAssertTrue(range.lowerBound >= 0 && range.upperBound <= bytes.count)
                }
            }
            XCTAssertGreaterThanOrEqual(out.count, 0)
        }
    }

    func testBuildingRewritesLocalImagesToAssetsAndEmbedsThemForHTML() throws {
        let result = try XCTUnwrap(
            TextBundleBuilder.build(
                markdown: Data(Self.markdown.utf8), creatorIdentifier: "org.pbctl.pbctl",
                sourceURL: "file:///docs/trip.md", load: load))
        let text = String(decoding: result.bundle.text, as: UTF8.self)
        XCTAssertEqual(
            text,
            """
            # Trip

            ![first](assets/a.png) and ![second *one*](<assets/my%20b.png> "B")

            `![not an image](img/c.png)`

            ![ref][r] and again ![](assets/a.png) and ![](https://example.com/x.png)

            [r]: assets/a.png

            """)
        XCTAssertEqual(result.bundle.assets, ["a.png": Self.png1, "my b.png": Self.png2])
        XCTAssertEqual(result.bundle.version, 2)
        XCTAssertEqual(result.bundle.type, "net.daringfireball.markdown")
        XCTAssertTrue(result.bundle.isTransient)
        XCTAssertEqual(result.bundle.creatorIdentifier, "org.pbctl.pbctl")
        XCTAssertEqual(result.bundle.sourceURL, "file:///docs/trip.md")
        XCTAssertEqual(result.resolvedPaths["img/my b.png"], "/docs/img/my b.png")
        XCTAssertTrue(result.skipped.isEmpty)

        let html = String(decoding: Conversion.write(MarkdownParser.parse(result.embeddedMarkdown, options: .gfm), to: .html), as: UTF8.self)
        XCTAssertTrue(html.contains("<img src=\"data:image/png;base64,\(Self.png1.base64EncodedString())\" alt=\"first\""), html)
        XCTAssertTrue(html.contains("data:image/png;base64,\(Self.png2.base64EncodedString())"), html)
        XCTAssertTrue(html.contains("https://example.com/x.png"))
        XCTAssertTrue(html.contains("<code>![not an image](img/c.png)</code>"))

        let rtf = String(decoding: Conversion.write(MarkdownParser.parse(result.embeddedMarkdown, options: .gfm), to: .rtf), as: UTF8.self)
        XCTAssertEqual(rtf.components(separatedBy: "{\\pict").count - 1, 4, "four local image uses embedded")
        XCTAssertTrue(rtf.contains("\\pngblip"))
    }

    func testNoLocalImagesMeansNoBundle() {
        XCTAssertNil(
            TextBundleBuilder.build(
                markdown: Data("# x\n![](https://e.com/a.png)\n".utf8), creatorIdentifier: "x", sourceURL: nil, load: load))
        let missing = TextBundleBuilder.build(
            markdown: Data("![](gone.png) ![](img/a.png)\n".utf8), creatorIdentifier: "x", sourceURL: nil, load: load)
        XCTAssertEqual(missing?.skipped.map(\.destination), ["gone.png"])
        XCTAssertEqual(missing?.bundle.assets.count, 1)
    }

    func testAssetNamesAreUniqueAndSafe() {
        XCTAssertEqual(TextBundleBuilder.uniqueName(for: "/a/x.png", taken: []), "x.png")
        XCTAssertEqual(TextBundleBuilder.uniqueName(for: "/b/x.png", taken: ["x.png", "x-2.png"]), "x-3.png")
        XCTAssertEqual(TextBundleBuilder.uniqueName(for: "/b/.hidden", taken: []), "image.hidden")
        XCTAssertEqual(TextBundleBuilder.uniqueName(for: "/b/..", taken: []), "image..")
    }

    func testFilesRoundTripAndKeepApplicationKeys() throws {
        let info = """
            {"version": 2, "type": "net.daringfireball.markdown", "transient": false,
             "creatorIdentifier": "net.shinyfrog.bear",
             "net.shinyfrog.bear": {"tags": ["travel", "2024"], "pinned": true, "rank": 1.5, "note": null}}
            """
        let files: [String: Data] = [
            "info.json": Data(info.utf8), "text.md": Data("![](assets/a.png)\n".utf8), "assets/": Data(),
            "assets/a.png": Self.png1, "assets/sub/b.png": Self.png2,
        ]
        let bundle = try TextBundle(files: files)
        XCTAssertEqual(bundle.creatorIdentifier, "net.shinyfrog.bear")
        XCTAssertEqual(bundle.assets.keys.sorted(), ["a.png", "sub/b.png"])
        let written = try bundle.files()
        XCTAssertEqual(written.map(\.path), ["info.json", "text.md", "assets/", "assets/sub/", "assets/a.png", "assets/sub/b.png"])
        let json = try JSONSerialization.jsonObject(with: written[0].data) as? [String: Any]
        let app = json?["net.shinyfrog.bear"] as? [String: Any]
        XCTAssertEqual(app?["tags"] as? [String], ["travel", "2024"])
        XCTAssertEqual(app?["pinned"] as? Bool, true)
        XCTAssertEqual(app?["rank"] as? Double, 1.5)
        XCTAssertTrue(app?["note"] is NSNull)
        XCTAssertEqual(json?["version"] as? Int, 2)
        XCTAssertTrue(String(decoding: written[0].data, as: UTF8.self).contains("\"version\" : 2"))
        let again = try TextBundle(files: Dictionary(uniqueKeysWithValues: written.map { ($0.path, $0.data) }))
        XCTAssertEqual(again, bundle)
        XCTAssertTrue(String(decoding: bundle.textWithEmbeddedImages(), as: UTF8.self).hasPrefix("![](data:image/png;base64,"))
    }

    func testBadBundlesAreRefusedWithReasons() {
        let cases: [([String: Data], String)] = [
            (["text.md": Data()], "no info.json"),
            (["info.json": Data("{".utf8), "text.md": Data()], "not valid JSON"),
            (["info.json": Data("[2]".utf8), "text.md": Data()], "JSON object"),
            (["info.json": Data("{\"type\":\"x\"}".utf8), "text.md": Data()], "no version"),
            (["info.json": Data("{\"version\":7}".utf8), "text.md": Data()], "version 7"),
            (["info.json": Data("{\"version\":2}".utf8)], "no text"),
        ]
        for (files, expected) in cases {
            XCTAssertThrowsError(try TextBundle(files: files)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
        // A version-1 bundle and a non-Markdown text file are read.
        XCTAssertEqual(try TextBundle(files: ["info.json": Data("{\"version\":1}".utf8), "text.txt": Data("x".utf8)]).textFileName, "text.txt")
    }

    func testFilePathsOfDestinations() {
        XCTAssertEqual(MarkdownImageReferences.filePath("img/a%20b.png"), "img/a b.png")
        XCTAssertEqual(MarkdownImageReferences.filePath("file:///tmp/x.png"), "/tmp/x.png")
        XCTAssertEqual(MarkdownImageReferences.filePath("file://localhost/tmp/x.png"), "/tmp/x.png")
        XCTAssertNil(MarkdownImageReferences.filePath("file://server/x.png"))
        XCTAssertNil(MarkdownImageReferences.filePath("https://e.com/x.png"))
        XCTAssertNil(MarkdownImageReferences.filePath("data:image/png;base64,AAAA"))
        XCTAssertNil(MarkdownImageReferences.filePath("//cdn/x.png"))
        XCTAssertEqual(MarkdownImageReferences.filePath("C:/x.png"), nil)
        XCTAssertEqual(MarkdownImageReferences.filePath("a.png?v=2#top"), "a.png")
    }

    func testImageMIMETypes() {
        XCTAssertEqual(ImageData.mimeType(Self.png1), "image/png")
        XCTAssertEqual(ImageData.mimeType(Data([0xFF, 0xD8, 0xFF, 0xE0])), "image/jpeg")
        XCTAssertEqual(ImageData.mimeType(Data("GIF89a".utf8)), "image/gif")
        XCTAssertEqual(ImageData.mimeType(Data("<?xml?><svg></svg>".utf8)), "image/svg+xml")
        XCTAssertEqual(ImageData.mimeType(Data([1, 2, 3])), "application/octet-stream")
    }
}

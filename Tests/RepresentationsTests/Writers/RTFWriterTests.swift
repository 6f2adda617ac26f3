import Markdown
import XCTest

@testable import Representations

final class RTFWriterTests: XCTestCase {
    func testOutputIsSevenBitASCIIWithUnicodeEscapes() {
        let rtf = RTFWriter.render(RichTextTestSupport.sampleDocument())
        XCTAssertTrue(rtf.allSatisfy { $0 < 0x80 })
        let s = String(decoding: rtf, as: UTF8.self)
        XCTAssertTrue(s.hasPrefix("{\\rtf1\\ansi\\ansicpg1252\\deff0\\uc1"))
        XCTAssertTrue(s.contains("\\u233\\'e9"), "é with a cp1252 fallback")
        XCTAssertTrue(s.contains("\\u26085\\'3f\\u26412\\'3f\\u-30050\\'3f"), "日本語 (語 is above 32767, so negative)")
        XCTAssertTrue(s.contains("\\u-10179\\'3f\\u-8704\\'3f"), "😀 as a surrogate pair")
        XCTAssertTrue(s.contains("back\\\\slash"))
        try? rtf.write(to: "/tmp/rt-sample.rtf")
    }

    func testStructure() {
        let s = RTFWriter.renderString(RichTextTestSupport.sampleDocument())
        XCTAssertTrue(s.contains("\\outlinelevel0\\b\\f0\\fs36 Title h"))
        XCTAssertTrue(s.contains("{\\field{\\*\\fldinst{HYPERLINK \"https://example.com/a?b=1\"}}{\\fldrslt{\\cf1 a link}}}"))
        XCTAssertTrue(s.contains("{\\*\\listtable"))
        XCTAssertTrue(s.contains("\\ls1\\ilvl1"))
        XCTAssertTrue(s.contains("{\\listtext\\pard\\plain\\f0\\fs24 3.\\tab}three"))
        XCTAssertTrue(s.contains("\\levelstartat3"))
        XCTAssertTrue(s.contains("\\u9745\\'3f"))
        XCTAssertTrue(s.contains("\\trowd") && s.contains("\\trhdr") && s.contains("\\cell") && s.contains("\\row"))
        XCTAssertTrue(s.contains("{\\f1 code \\{x\\}}"))
        XCTAssertTrue(s.contains("\\f1\\fs20 let x = 1\\line\n    indented \\{\\}\\par"))
        XCTAssertTrue(s.contains("{\\*\\footnote"))
        XCTAssertEqual(s.filter { $0 == "{" }.count - s.components(separatedBy: "\\{").count + 1,
            s.filter { $0 == "}" }.count - s.components(separatedBy: "\\}").count + 1, "balanced groups")
    }
}

extension RTFWriterTests {
    /// Each heading's runs are in its level's character style and restate its look (bold, the level's size):
    /// Writer's paste keeps them when it resets the paragraph style's look. Read back, still headings.
    func testHeadingsCarryTheirLookOnTheirRuns() throws {
        let md = "# One\n\ntext\n\n### Three *em*\n\n## Two [link](https://example.com/)\n"
        let rtf = String(decoding: try Conversion.convert(Array(md.utf8), from: .gfm, to: .rtf), as: UTF8.self)
        for level in 1...6 {
            let size = RTFWriter.headingSizes[level - 1]
            XCTAssertTrue(rtf.contains("{\\*\\cs\(10 + level)\\additive\\b\\f0\\fs\(size)\\sbasedon10\\slink\(level) Heading \(level) Char;}"), rtf)
        }
        XCTAssertTrue(rtf.contains("\\pard\\plain\\s1\\cs11\\ql\\keepn\\sb240\\sa120\\outlinelevel0\\b\\f0\\fs36 One\\par"), rtf)
        XCTAssertTrue(rtf.contains("\\s3\\cs13\\ql\\keepn\\sb240\\sa120\\outlinelevel2\\b\\f0\\fs28 Three {\\i em}\\par"), rtf)
        XCTAssertTrue(rtf.contains("\\s2\\cs12\\ql"), rtf)
        XCTAssertTrue(rtf.contains("\\pard\\plain\\ql\\sa120\\f0\\fs24 text\\par"), "the body has no character style")
        XCTAssertEqual(String(decoding: try Conversion.convert(Array(rtf.utf8), from: .rtf, to: .gfm), as: UTF8.self), md)
    }

    func testRawSuperscriptHTMLStaysBalanced() throws {
        let rtf = String(decoding: try Conversion.convert(Array("x<sup>2 and </sub> y\n\nz</sup>".utf8), from: .gfm, to: .rtf), as: UTF8.self)
        XCTAssertTrue(rtf.contains("x{\\super 2 and } y\\par"), rtf)
        XCTAssertTrue(rtf.contains("\\fs24 z\\par"))
    }

    func testInlineHTMLFormattingBecomesRTFFormatting() throws {
        // What the RTF reader (and pandoc) write for underline comes back as underline, not as nothing.
        let md = "a <u>under</u> <ins>ins</ins> H<sub>2</sub>O <del>gone</del> <kbd>Ctrl</kbd> <mark>hi</mark> <span>x</span>\n"
        let rtf = String(decoding: try Conversion.convert(Array(md.utf8), from: .gfm, to: .rtf), as: UTF8.self)
        for expected in ["{\\ul under}", "{\\ul ins}", "H{\\sub 2}O", "{\\strike gone}", "{\\f1 Ctrl}", "{\\highlight4 hi}", " x"] {
            XCTAssertTrue(rtf.contains(expected), "\(expected) in \(rtf)")
        }
        XCTAssertEqual(rtf.filter { $0 == "{" }.count, rtf.filter { $0 == "}" }.count)
        // Tags whose names merely start like a known one are not mistaken for it.
        let list = String(decoding: try Conversion.convert(Array("a <ul-x>b</ul-x> <strong-ish>c\n".utf8), from: .gfm, to: .rtf), as: UTF8.self)
        XCTAssertFalse(list.contains("\\ul ") || list.contains("{\\b c"), list)
    }

    func testImagesEmbedOnlyWithBytes() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 2, 0, 0, 0, 3, 8, 2, 0, 0, 0]
        let md = "![alt text](pic.png) ![data](data:image/png;base64,\(Base64.encode(png)))"
        var rtf = String(decoding: try Conversion.convert(Array(md.utf8), from: .gfm, to: .rtf), as: UTF8.self)
        XCTAssertTrue(rtf.contains("{alt text}"), "no bytes: the alt text")
        XCTAssertTrue(rtf.contains("{\\pict\\pngblip\\picw2\\pich3\\picwgoal30\\pichgoal45\n89504e47"))
        rtf = String(decoding: try Conversion.convert(Array(md.utf8), from: .gfm, to: .rtf,
            options: ConversionOptions(imageLoader: { $0 == "pic.png" ? png : nil })), as: UTF8.self)
        XCTAssertEqual(rtf.components(separatedBy: "\\pngblip").count, 3, "the loader supplies the file's bytes")
    }
}

extension Array where Element == UInt8 {
    func write(to path: String) throws { try Data(self).write(to: URL(fileURLWithPath: path)) }
}

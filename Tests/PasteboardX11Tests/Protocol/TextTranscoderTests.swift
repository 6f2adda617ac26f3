import Foundation
import Pasteboard
import XCTest

@testable import PasteboardX11

final class TextTranscoderTests: XCTestCase {
    func run(_ mode: TextTranscoder.Mode, _ chunks: [[UInt8]]) -> [UInt8] {
        var t = TextTranscoder(mode: mode)
        var out = Data()
        for c in chunks { out.append(t.feed(Data(c))) }
        out.append(t.finish())
        return [UInt8](out)
    }

    func testStringIsLatin1() {
        XCTAssertEqual(run(.latin1, [[0x63, 0x61, 0x66, 0xE9]]), Array("café".utf8))
        XCTAssertEqual(TextTranscoder.mode(target: "STRING", replyType: "STRING"), .latin1)
    }

    func testUTF8TargetsPassThrough() {
        XCTAssertEqual(TextTranscoder.mode(target: "UTF8_STRING", replyType: "whatever"), .passthrough)
        XCTAssertEqual(TextTranscoder.mode(target: "text/plain;charset=utf-8", replyType: nil), .passthrough)
    }

    func testTextPlainIsUTF8WhenValidElseLatin1() {
        XCTAssertEqual(run(.utf8OrLatin1, [Array("ä".utf8)]), Array("ä".utf8))
        XCTAssertEqual(run(.utf8OrLatin1, [[0xE4]]), Array("ä".utf8))
    }

    func testHTMLWithUTF16BOMIsDecodedAndTrailingNULDropped() {
        let le: [UInt8] = [0xFF, 0xFE, 0x3C, 0, 0x62, 0, 0x3E, 0, 0xE9, 0, 0, 0]
        XCTAssertEqual(run(.html, [Array(le.prefix(3)), Array(le.dropFirst(3))]), Array("<b>é".utf8))
        let be: [UInt8] = [0xFE, 0xFF, 0, 0x3C, 0, 0x62]
        XCTAssertEqual(run(.html, [be]), Array("<b".utf8))
    }

    func testHTMLInUTF8LosesOnlyOneTrailingNULAcrossChunks() {
        XCTAssertEqual(run(.html, [Array("<p>a".utf8), [0]]), Array("<p>a".utf8))
        XCTAssertEqual(run(.html, [Array("<p>".utf8) + [0], Array("b".utf8)]), Array("<p>".utf8) + [0] + Array("b".utf8))
    }

    func testTextAndCompoundTextAreDecodedByTheReplyType() {
        XCTAssertEqual(TextTranscoder.mode(target: "TEXT", replyType: "COMPOUND_TEXT"), .compoundText)
        XCTAssertEqual(TextTranscoder.mode(target: "TEXT", replyType: "STRING"), .latin1)
        XCTAssertEqual(TextTranscoder.mode(target: "TEXT", replyType: "UTF8_STRING"), .passthrough)
        XCTAssertEqual(TextTranscoder.mode(target: "TEXT", replyType: "TEXT"), .utf8OrLatin1)
        XCTAssertEqual(TextTranscoder.mode(target: "COMPOUND_TEXT", replyType: "COMPOUND_TEXT"), .compoundText)
        XCTAssertEqual(TextTranscoder.mode(target: "COMPOUND_TEXT", replyType: nil), .compoundText)
        // Greek in ISO 8859-7 (GR), split across two chunks in the middle of the escape sequence.
        XCTAssertEqual(run(.compoundText, [[0x61, 0x1B, 0x2D], [0x46, 0xD9, 0x00]]), Array("aΩ".utf8))
    }

    func testLatin1EncodingRefusesCharactersOutsideLatin1() {
        XCTAssertEqual(TextTranscoder.utf8ToLatin1(Data("café".utf8)), Data([0x63, 0x61, 0x66, 0xE9]))
        XCTAssertNil(TextTranscoder.utf8ToLatin1(Data("€".utf8)))
    }
}

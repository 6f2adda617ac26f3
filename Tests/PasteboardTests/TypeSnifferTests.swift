import Foundation
import XCTest

@testable import Pasteboard

final class TypeSnifferTests: XCTestCase {
    func sniff(_ bytes: [UInt8]) -> TypeIdentifier { TypeSniffer.sniff(Data(bytes)) }
    func sniff(_ text: String) -> TypeIdentifier { TypeSniffer.sniff(Data(text.utf8)) }

    func testSignatures() {
        XCTAssertEqual(sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]), .png)
        XCTAssertEqual(sniff([0xFF, 0xD8, 0xFF, 0xE0]), .jpeg)
        XCTAssertEqual(sniff("GIF89a..."), .gif)
        XCTAssertEqual(sniff("%PDF-1.7\n"), .pdf)
        XCTAssertEqual(sniff("{\\rtf1\\ansi hello}"), .rtf)
        XCTAssertEqual(sniff("\u{FEFF}  {\\rtf1}"), .rtf)
    }

    func testHTMLDocumentsAndFragments() {
        XCTAssertEqual(sniff("<!DOCTYPE html><html><body>x</body></html>"), .html)
        XCTAssertEqual(sniff("<meta charset='utf-8'><b>x</b>"), .html)
        XCTAssertEqual(sniff("\n<p>para</p>"), .html)
        XCTAssertEqual(sniff("<ul><li>a</li></ul>"), .html)
        XCTAssertEqual(sniff("<3 you"), .utf8PlainText)
        XCTAssertEqual(sniff("<foo@example.com>"), .utf8PlainText)
    }

    func testTextAndData() {
        XCTAssertEqual(sniff("héllo\n"), .utf8PlainText)
        XCTAssertEqual(sniff(""), .utf8PlainText)
        XCTAssertEqual(sniff([0xFF, 0xFE, 0x68, 0x00]), .data, "not UTF-8: see testOnlyUTF8IsText")
        XCTAssertEqual(sniff([0x00, 0x01, 0xC3]), .data)
        XCTAssertEqual(sniff([0xE9, 0x74, 0xE9]), .data)
    }

    /// A copy pastes back byte for byte: bytes that are not valid UTF-8 are not text, even with a UTF-16
    /// byte order mark (stored as UTF-16 text, they were pasted as UTF-8 without the mark, a last odd byte
    /// lost). The sniff from the head and streaming validation agrees.
    func testOnlyUTF8IsText() {
        for bytes: [UInt8] in [[0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00], [0xFF, 0xFE, 0x41], [0xFE, 0xFF, 0x00, 0x68],
            [0xFF, 0xFE, 0x3C, 0x00, 0x70, 0x00, 0x3E, 0x00], [0xFF, 0xFE]]
        {
            XCTAssertEqual(sniff(bytes), .data, "\(bytes)")
            XCTAssertEqual(TypeSniffer.sniff(head: Data(bytes), isValidUTF8: false), .data, "\(bytes)")
        }
        XCTAssertEqual(sniff(Array("<p>x</p>".utf8) + [0xFF]), .data, "HTML that is not UTF-8")
        XCTAssertEqual(sniff([0xEF, 0xBB, 0xBF] + Array("<p>x</p>".utf8)), .html, "UTF-8 with its mark is text")
        XCTAssertEqual(sniff("h\u{0}i"), .utf8PlainText, "NUL is valid UTF-8")
    }

    func testFirstInvalidUTF8Offset() {
        XCTAssertNil(TypeSniffer.firstInvalidUTF8Offset(Data("aé😀".utf8)))
        XCTAssertEqual(TypeSniffer.firstInvalidUTF8Offset(Data([0x61, 0x62, 0xFF])), 2)
        XCTAssertEqual(TypeSniffer.firstInvalidUTF8Offset(Data([0x61, 0xC3])), 1)
        XCTAssertEqual(TypeSniffer.firstInvalidUTF8Offset(Data([0xC0, 0x80])), 0, "overlong")
        XCTAssertEqual(TypeSniffer.firstInvalidUTF8Offset(Data([0xED, 0xA0, 0x80])), 0, "surrogate")
    }

    /// The ASCII fast path (32, then 8 bytes a step) stops exactly where a bad or multi-byte sequence
    /// starts, wherever that falls in a step, and agrees with the standard library's validation.
    func testEveryPositionInTheASCIIStepsIsChecked() {
        for length in [1, 7, 8, 9, 31, 32, 33, 40, 64, 65, 100] {
            for position in 0..<length {
                var bad = [UInt8](repeating: 0x61, count: length)
                bad[position] = 0xFF
                XCTAssertEqual(TypeSniffer.firstInvalidUTF8Offset(Data(bad)), position, "0xFF at \(position) of \(length)")
                var good = [UInt8](repeating: 0x61, count: length + 1)
                good[position] = 0xC3
                good[position + 1] = 0xA9
                XCTAssertNil(TypeSniffer.firstInvalidUTF8Offset(Data(good)), "é at \(position) of \(length + 1)")
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let bytes = (0..<Int.random(in: 0...80, using: &generator)).map { _ in
                Bool.random(using: &generator) ? UInt8.random(in: 0x20...0x7E, using: &generator) : UInt8.random(in: 0...255, using: &generator)
            }
            let valid = String(validating: bytes, as: UTF8.self) != nil
            XCTAssertEqual(TypeSniffer.firstInvalidUTF8Offset(Data(bytes)) == nil, valid, "\(bytes)")
        }
    }
}

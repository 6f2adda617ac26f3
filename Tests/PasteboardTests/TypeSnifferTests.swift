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
        XCTAssertEqual(sniff([0xFF, 0xFE, 0x68, 0x00]), .utf16PlainText)
        XCTAssertEqual(sniff([0x00, 0x01, 0xC3]), .data)
        XCTAssertEqual(sniff([0xE9, 0x74, 0xE9]), .data)
    }

    func testFirstInvalidUTF8Offset() {
        XCTAssertNil(TypeSniffer.firstInvalidUTF8Offset(Data("aé😀".utf8)))
        XCTAssertEqual(TypeSniffer.firstInvalidUTF8Offset(Data([0x61, 0x62, 0xFF])), 2)
        XCTAssertEqual(TypeSniffer.firstInvalidUTF8Offset(Data([0x61, 0xC3])), 1)
        XCTAssertEqual(TypeSniffer.firstInvalidUTF8Offset(Data([0xC0, 0x80])), 0, "overlong")
        XCTAssertEqual(TypeSniffer.firstInvalidUTF8Offset(Data([0xED, 0xA0, 0x80])), 0, "surrogate")
    }
}

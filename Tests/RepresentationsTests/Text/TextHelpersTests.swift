import ReaderSupport
import XCTest

@testable import Representations

/// The shared text helpers of `Sources/Representations/Text`.
final class TextHelpersTests: XCTestCase {
    func testUTF8AppendMatchesTheStandardLibraryAtEveryLengthBoundary() {
        let values: [UInt32] = [0, 0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF,
            0x10000, 0x1F600, 0x10FFFF]
        for v in values {
            let scalar = Unicode.Scalar(v)!
            var out: [UInt8] = [0x2A]
            UTF8.append(scalar, to: &out)
            XCTAssertEqual(out, [0x2A] + Array(String(Character(scalar)).utf8), "U+\(String(v, radix: 16))")
        }
    }

    func testCodePagesDecodeToUTF8() {
        // Windows-1252's 0x80 is €, 0x9F is Ÿ; Shift-JIS 0x82 0xA0 is あ and 0x82 0x20 no pair (U+FFFD, then the
        // space); a lone lead byte at the end is left over for the caller.
        let cases: [(Int, [UInt8], String, Int)] = [
            (1252, [0x41, 0x80, 0x9F, 0xE9], "A\u{20AC}\u{178}\u{E9}", 0),
            (932, [0x82, 0xA0, 0x41, 0x82, 0x20, 0x82], "\u{3042}A\u{FFFD} ", 1),
            (1251, [0xC0, 0xFF], "\u{410}\u{44F}", 0),
        ]
        for (page, bytes, expected, leftover) in cases {
            var out: [UInt8] = [0x2A]
            XCTAssertEqual(CodePage.forNumber(page).decode(bytes[...], into: &out), leftover, "code page \(page)")
            XCTAssertEqual(String(decoding: out, as: UTF8.self), "*" + expected, "code page \(page)")
        }
    }

    func testBlankTextIsSpacesTabsLineBreaksAndNoBreakSpacesOnly() {
        let blank: [[UInt8]] = [[], Array(" \t\r\n".utf8), Array("\u{A0} \u{A0}".utf8)]
        let notBlank: [[UInt8]] = [Array("a".utf8), [0xC2], [0xC2, 0xA9], Array(" \u{2003}".utf8), [0x0B], [0xA0]]
        for bytes in blank {
            XCTAssertTrue(BlankText.isBlank(bytes), "\(bytes)")
            XCTAssertTrue(BlankText.isBlank(bytes[...]), "\(bytes)")
        }
        for bytes in notBlank { XCTAssertFalse(BlankText.isBlank(bytes), "\(bytes)") }
        XCTAssertTrue(" \u{A0}\n".isBlank)
        XCTAssertFalse(" \u{2003}".isBlank)
    }

    func testRTFRunsAreBlankByTheirBytesInTheTextBuffer() {
        let text = Array("x \u{A0}y".utf8)  // x, space, U+00A0 (2 bytes), y
        func run(_ kind: RTFRun.Kind, _ start: Int, _ count: Int) -> RTFRun {
            RTFRun(kind: kind, style: RTFRunStyle(), size: 24, link: -1, start: start, count: count)
        }
        XCTAssertTrue(RTFText.isBlank(text, run(.text, 1, 3)))
        XCTAssertFalse(RTFText.isBlank(text, run(.text, 0, 2)))
        XCTAssertFalse(RTFText.isBlank(text, run(.text, 1, 2)))  // ends inside U+00A0
        XCTAssertTrue(RTFText.isBlank(text, run(.lineBreak, 0, 0)))
        XCTAssertFalse(RTFText.isBlank(text, run(.image, 0, 0)))
    }
}

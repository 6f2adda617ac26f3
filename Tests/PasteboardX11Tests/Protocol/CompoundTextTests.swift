import Foundation
import XCTest

@testable import PasteboardX11

/// COMPOUND_TEXT after the X Consortium's "Compound Text Encoding" 1.1, with the sequences Xlib writes.
final class CompoundTextTests: XCTestCase {
    func decode(_ bytes: [UInt8]) -> String {
        String(decoding: CompoundText.decode(Data(bytes)), as: UTF8.self)
    }

    func escape(_ text: String) -> [UInt8] { [0x1B] + Array(text.utf8) }

    func testLatin1IsCompoundTextAsItIs() {
        XCTAssertEqual(decode([0x63, 0x61, 0x66, 0xE9, 0x09, 0x0A]), "café\t\n")
        XCTAssertEqual(decode(Array("plain".utf8) + [0]), "plain", "a C string's NUL is dropped")
    }

    /// The bytes GTK 3 (Xlib, C.UTF-8 locale) offered as COMPOUND_TEXT for "café Ωμέγα € 日本語 ok".
    func testWhatGTKWritesForGreekEuroAndJapanese() {
        var bytes: [UInt8] = Array("caf".utf8) + [0xE9, 0x20]
        bytes += escape("-F") + [0xD9, 0xEC, 0xDD, 0xE3, 0xE1, 0x20]
        bytes += escape("-b") + [0xA4, 0x20]
        bytes += escape("$(B") + Array("F|K\\8l".utf8) + escape("(B") + Array(" ok\n".utf8)
        XCTAssertEqual(decode(bytes), "café Ωμέγα € 日本語 ok\n")
    }

    func testOtherDesignations() {
        XCTAssertEqual(decode(escape("-B") + [0xA3, 0xB9]), "Łš", "ISO 8859-2")
        XCTAssertEqual(decode(escape("-L") + [0xB4, 0xEF]), "Дя", "ISO 8859-5")
        XCTAssertEqual(decode(escape("$(A") + [0x30, 0x21]), "啊", "GB 2312 in GL")
        XCTAssertEqual(decode(escape("$)C") + [0xB0, 0xA1]), "가", "KS C 5601 in GR")
        XCTAssertEqual(decode(escape(")I") + [0xB1]), "ｱ", "JIS X 0201 katakana in GR")
        XCTAssertEqual(decode(escape("(J") + [0x5C, 0x7E]), "¥‾", "JIS X 0201 Roman")
        XCTAssertEqual(decode(escape("%G") + Array("→ ✓".utf8) + escape("%@") + [0xE9]), "→ ✓é",
                       "a UTF-8 segment, then back to Latin-1")
        XCTAssertEqual(decode([0x9B, 0x31, 0x5D] + Array("rtl".utf8) + [0x9B, 0x5D]), "rtl", "direction sequences")
    }

    func testExtendedSegments() {
        let utf8 = Array("utf-8".utf8) + [0x02] + Array("ŵ".utf8)
        XCTAssertEqual(decode(escape("%/1") + [0x80, 0x80 + UInt8(utf8.count)] + utf8 + Array("!".utf8)), "ŵ!")
        let latin2 = Array("iso8859-2".utf8) + [0x02, 0xA3]
        XCTAssertEqual(decode(escape("%/1") + [0x80, 0x80 + UInt8(latin2.count)] + latin2), "Ł")
        let big5 = Array("big5-0".utf8) + [0x02, 0xA4, 0x40]
        XCTAssertEqual(decode(escape("%/2") + [0x80, 0x80 + UInt8(big5.count)] + big5 + Array("x".utf8)), "\u{FFFD}x",
                       "a set we do not know is one replacement character, and the text after it survives")
    }

    func testMalformedInputNeverFailsNorLosesWhatFollows() {
        XCTAssertEqual(decode([0x1B]), "\u{FFFD}")
        XCTAssertEqual(decode(escape("$(") ), "\u{FFFD}")
        XCTAssertEqual(decode(escape("$(B") + [0x30]), "\u{FFFD}", "half a double-byte character")
        XCTAssertEqual(decode(escape("-Z") + [0xC1] + Array("ok".utf8)), "\u{FFFD}ok", "an unknown 96-set")
        XCTAssertEqual(decode(escape("%G") + Array("ü".utf8)), "ü", "an unterminated UTF-8 segment")
        XCTAssertEqual(decode(escape("%/1") + [0x80]), "\u{FFFD}")
        XCTAssertEqual(decode(escape("%/1") + [0x80, 0xFF] + Array("name".utf8)), "\u{FFFD}", "a length past the end")
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<64, using: &random)).map { _ -> UInt8 in
                // Escape sequences and their bytes often, so that most paths are taken.
                [0x1B, 0x24, 0x28, 0x29, 0x2D, 0x25, 0x2F, 0x47, 0x40, 0x42, 0x9B, 0x00].randomElement(using: &random)!
                    &+ (Bool.random(using: &random) ? 0 : UInt8.random(in: 0...255, using: &random))
            }
            XCTAssertNotNil(String(validating: CompoundText.decode(Data(bytes)), as: UTF8.self))
        }
    }

    func testEncodingIsLosslessAndLatin1StaysAsItIs() {
        XCTAssertEqual(CompoundText.encode(Data("café".utf8)), Data([0x63, 0x61, 0x66, 0xE9]))
        for text in ["", "a", "Ωμέγα", "€ café 日本語\n", "mixed é → ü ✓ end", "\u{9B}csi", "emoji 👍🏽 ok", "tab\tnl\n"] {
            XCTAssertEqual(decode([UInt8](CompoundText.encode(Data(text.utf8)))), text)
        }
        XCTAssertEqual(decode([UInt8](CompoundText.encode(Data("a\u{1B}b".utf8)))), "ab",
                       "ESC cannot be carried; it is left out")
    }
}

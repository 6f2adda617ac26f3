import XCTest

@testable import Markdown

/// The byte-level helpers of `Sources/Markdown/Scanners.swift`.
final class ScannersTests: XCTestCase {
    func testMarkdownReferenceScalarsOutOfRangeBecomeReplacementCharacters() {
        for v: UInt32 in [0, 0xD800, 0xDFFF, 0x110000, 0xFFFF_FFFF] {
            var out: [UInt8] = []
            MD.appendScalar(v, to: &out)
            XCTAssertEqual(out, [0xEF, 0xBF, 0xBD], "\(v)")
        }
        var out: [UInt8] = []
        MD.appendScalar(0x1F600, to: &out)
        XCTAssertEqual(out, Array("\u{1F600}".utf8))
    }

    /// The word-at-a-time searches (SWAR) find the same byte a byte-by-byte scan finds, at every offset
    /// and length, whatever sits before or after the byte sought (a borrow never reports a byte early).
    func testWordAtATimeSearchesFindTheFirstByteAByteScanFinds() {
        var random = SplitMix64(state: 41)
        // With the bytes one bit away from those sought (0x20, 0x24, 0x27, 0x3A, 0x3F…), which the
        // masked tests of `"`/`&` and `<`/`>` must not report.
        let alphabet: [UInt8] = [
            0x00, 0x0A, 0x20, 0x21, 0x22, 0x23, 0x24, 0x26, 0x27, 0x2D, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x40, 0x41, 0x5B, 0x5C,
            0x5D, 0x61, 0x66, 0x7E, 0x80, 0xA2, 0xBC, 0xFF,
        ]
        for round in 0..<4000 {
            let count = random.below(40)
            let sparse = round % 2 == 0
            let bytes = (0..<count).map { _ in sparse && random.below(8) != 0 ? 0x61 : alphabet[random.below(alphabet.count)] }
            bytes.withUnsafeBufferPointer { b in
                guard let base = b.baseAddress else { return }
                for start in 0...count {
                    func naive(_ set: Set<UInt8>) -> Int { (start..<count).first { set.contains(b[$0]) } ?? count }
                    XCTAssertEqual(SWAR.next(in: base, from: start, to: count, escapingLineEndings: false), naive([0x22, 0x26, 0x3C, 0x3E]), "\(bytes) from \(start)")
                    XCTAssertEqual(SWAR.next(in: base, from: start, to: count, escapingLineEndings: true), naive([0x22, 0x26, 0x3C, 0x3E, 0x0A]), "\(bytes) from \(start)")
                    XCTAssertEqual(SWAR.nextInText(in: base, from: start, to: count), naive([0x0A, 0x5C, 0x26, 0x3C, 0x3E, 0x22]), "\(bytes) from \(start)")
                    for byte: UInt8 in [0x00, 0x40, 0x3C, 0x80, 0xFF] {
                        XCTAssertEqual(SWAR.first(byte, in: base, from: start, to: count), naive([byte]), "\(bytes) from \(start)")
                    }
                    for (a, b, c) in [(UInt8(0x0A), UInt8(0x5C), UInt8(0x5C)), (0x40, 0x26, 0x26), (0x0A, 0x5C, 0x26), (0x00, 0x80, 0xFF)] {
                        XCTAssertEqual(SWAR.first(of: a, b, c, in: base, from: start, to: count), naive([a, b, c]), "\(bytes) from \(start)")
                    }
                    // The ends of HTML comments, processing instructions and CDATA (`-->`, `?>`, `]]>`).
                    for end in start...count where round < 250 {
                        func naiveFind(_ pattern: [UInt8]) -> Int? {
                            guard end - start >= pattern.count else { return nil }
                            return (start...(end - pattern.count)).first { i in pattern.indices.allSatisfy { b[i + $0] == pattern[$0] } }
                                .map { $0 + pattern.count }
                        }
                        XCTAssertEqual(MD.find(b, start, end, 0x2D, 0x2D, 0x3E), naiveFind([0x2D, 0x2D, 0x3E]), "\(bytes) \(start)..<\(end)")
                        XCTAssertEqual(MD.find(b, start, end, 0x5D, 0x5D, 0x3E), naiveFind([0x5D, 0x5D, 0x3E]), "\(bytes) \(start)..<\(end)")
                        XCTAssertEqual(MD.find(b, start, end, 0x3F, 0x3E), naiveFind([0x3F, 0x3E]), "\(bytes) \(start)..<\(end)")
                        XCTAssertEqual(MD.htmlBlockEnd(4, b, start, end), naiveFind([0x3E]) != nil, "\(bytes) \(start)..<\(end)")
                    }
                }
            }
        }
    }

    /// The line scanner finds the line's end (LF or CR) and whether a NUL or invalid UTF-8 comes before it as a
    /// byte-by-byte scan does, at every offset, whatever control characters, tabs and multi-byte characters
    /// (valid, cut short, overlong, surrogates) sit around them.
    func testTheLineScannerFindsWhatAByteScanFinds() {
        var random = SplitMix64(state: 43)
        let pieces: [[UInt8]] = [
            [0x61], [0x61], [0x61], [0x20], [0x09], [0x0B], [0x0C], [0x0D], [0x0E], [0x0A], [0x00], [0x01], [0x7F], [0xC3, 0xA9],
            [0xE4, 0xB8, 0xAD], [0xF0, 0x9F, 0x98, 0x80], [0xC3], [0xE4, 0xB8], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0x80], [0xFF],
        ]
        func naive(_ b: [UInt8], _ i: Int) -> (Int, Bool) {
            var j = i
            var dirty = false
            while j < b.count, b[j] != 0x0A, b[j] != 0x0D {
                if b[j] == 0 { dirty = true }
                if b[j] >= 0x80 {
                    // One scalar's bytes, as its lead byte says, valid per the standard library (Table 3-7).
                    let n = b[j] >= 0xF0 ? 4 : b[j] >= 0xE0 ? 3 : 2
                    let length = j + n <= b.count && String(validating: b[j..<(j + n)], as: UTF8.self) != nil ? n : 0
                    if length == 0 { dirty = true; j += 1 } else { j += length }
                    continue
                }
                j += 1
            }
            return (min(j, b.count), dirty)
        }
        for _ in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<random.below(30) { bytes += pieces[random.below(pieces.count)] }
            bytes.withUnsafeBufferPointer { b in
                guard b.baseAddress != nil else { return }
                for start in 0..<bytes.count {
                    let found = BlockParser.scanLine(b, start)
                    let expected = naive(bytes, start)
                    XCTAssertEqual(found.0, expected.0, "\(bytes) from \(start)")
                    XCTAssertEqual(found.1, expected.1, "\(bytes) from \(start)")
                }
            }
        }
    }
}

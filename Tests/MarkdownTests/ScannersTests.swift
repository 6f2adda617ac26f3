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
}

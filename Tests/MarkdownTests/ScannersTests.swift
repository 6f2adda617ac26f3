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
}

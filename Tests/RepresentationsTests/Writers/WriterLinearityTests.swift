import Foundation
import Markdown
import XCTest

@testable import Representations

/// Shapes that once made a reader or writer quadratic, at a size where quadratic work takes minutes in a
/// debug build and linear work well under the bound. Every reader → writer pair at 1 MB is checked on the
/// release binary by scripts/pathological-pairs.py (run by scripts/release-smoke.sh).
final class WriterLinearityTests: XCTestCase {
    static let bound: TimeInterval = 10

    func convert(_ name: String, _ input: String, from: TextFormat, to writers: [TextFormat] = [.html, .rtf, .gfm, .commonmark, .text],
                 file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = Array(input.utf8)
        for writer in writers {
            let start = Date()
            _ = try Conversion.convert(bytes, from: from, to: writer)
            let elapsed = Date().timeIntervalSince(start)
            XCTAssertLessThan(elapsed, Self.bound, "\(name) → \(writer): \(elapsed) s for \(bytes.count) bytes", file: file, line: line)
        }
    }

    /// The RTF writer kept its container counts with an array observer that copied the stack on every
    /// push: 64,000 nested block quotes took 25 s.
    func testDeeplyNestedBlockQuotesToRTF() throws {
        try convert("nested quotes", String(repeating: ">", count: 64_000) + " x\n", from: .gfm, to: [.rtf])
        try convert("nested quotes with paragraphs", String(repeating: "> x\n>", count: 20_000), from: .gfm, to: [.rtf])
        let rtf = try Conversion.convert(Array((String(repeating: ">", count: 3) + " deep\n").utf8), from: .gfm, to: .rtf)
        XCTAssertTrue(String(decoding: rtf, as: UTF8.self).contains("\\li2160"), "three levels of quote indent")
    }

    /// Plain text numbered footnotes with a linear search per reference.
    func testManyFootnotesToText() throws {
        var rtf = "{\\rtf1 "
        for _ in 0..<20_000 { rtf += "x{\\footnote y}" }
        try convert("footnotes", rtf + "}", from: .rtf, to: [.text])
    }

    /// Nested `<details>` re-emitted every inner block at each level.
    func testNestedDetails() throws {
        try convert("nested details", String(repeating: "<details><summary>s</summary>", count: 5_000) + "x", from: .html)
    }

    /// Every text run carries its open inline elements: unbounded nesting copied them per element.
    func testDeeplyNestedInlineElements() throws {
        try convert("nested inline", String(repeating: "<b><i><s>", count: 20_000) + "x", from: .html)
        let text = try Conversion.convert(Array((String(repeating: "<b><i>", count: 50) + "deep").utf8), from: .html, to: .text)
        XCTAssertEqual(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "deep")
    }
}

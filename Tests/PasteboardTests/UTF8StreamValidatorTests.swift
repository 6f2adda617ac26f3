import Foundation
import XCTest

@testable import Pasteboard

/// The streaming validator agrees with the whole-buffer one on every split of every sample.
final class UTF8StreamValidatorTests: XCTestCase {
    func validate(_ bytes: [UInt8], chunks sizes: [Int]) -> Int? {
        var validator = UTF8StreamValidator()
        var offset = 0
        var index = 0
        while offset < bytes.count {
            let size = max(1, sizes[index % sizes.count])
            let end = min(bytes.count, offset + size)
            bytes[offset..<end].withUnsafeBytes { validator.feed($0) }
            offset = end
            index += 1
        }
        return validator.finish()
    }

    func testEverySplitAgreesWithTheWholeBufferCheck() {
        var samples: [[UInt8]] = [
            Array("plain ascii".utf8), Array("naïve café — 日本語 🎉 done".utf8),
            [0xE2, 0x82], [0xF0, 0x9F, 0x8E], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            Array("ok ".utf8) + [0xFF] + Array(" tail".utf8), Array("é".utf8) + [0x80, 0x41], [0xE0, 0x9F, 0x80],
            Array("end in the middle ".utf8) + [0xF0, 0x9F],
        ]
        // Random bytes, biased toward UTF-8-looking ones.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let length = Int.random(in: 0...24, using: &generator)
            samples.append((0..<length).map { _ in
                [UInt8.random(in: 0x20...0x7E, using: &generator), UInt8.random(in: 0x80...0xBF, using: &generator),
                 UInt8.random(in: 0xC0...0xF7, using: &generator)][Int.random(in: 0...2, using: &generator)]
            })
        }
        for sample in samples {
            let expected = sample.withUnsafeBytes { TypeSniffer.firstInvalidUTF8Offset(in: $0) }
            for sizes in [[1], [2], [3], [1, 2], [2, 3, 1], [5], [7, 1], [sample.count + 1]] {
                XCTAssertEqual(validate(sample, chunks: sizes), expected, "\(sample) in chunks of \(sizes)")
            }
        }
    }
}

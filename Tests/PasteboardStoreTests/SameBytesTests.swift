import Foundation
import XCTest

@testable import PasteboardStore

/// How the history tells that a large representation is a file it keeps: bytes compared, from files a
/// window at a time or from memory, every byte counting, a file that ends early never equal.
final class SameBytesTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "pbctl-same-bytes-tests-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Bytes no multiple of the window.
    func pattern(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
    }

    func file(_ data: Data, _ name: String) throws -> Int32 {
        let path = root + "/" + name
        try data.write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        return fd
    }

    func testEveryByteCountsFromFilesAndMemory() throws {
        let data = pattern(3 * SameBytes.windowSize + 12345)
        let original = try file(data, "original")
        defer { close(original) }
        XCTAssertTrue(SameBytes.equal(.file(original), .memory(data), count: data.count))
        XCTAssertTrue(SameBytes.equal(.memory(data), .memory(Data(data)), count: data.count))
        let copy = try file(data, "copy")
        defer { close(copy) }
        XCTAssertTrue(SameBytes.equal(.file(original), .file(copy), count: data.count))
        for offset in [0, 1, SameBytes.windowSize - 1, SameBytes.windowSize, data.count / 2, data.count - 12345, data.count - 1] {
            var changed = data
            changed[offset] ^= 0x01
            let other = try file(changed, "changed-\(offset)")
            defer { close(other) }
            XCTAssertFalse(SameBytes.equal(.file(original), .file(other), count: data.count), "byte \(offset) changed")
            XCTAssertFalse(SameBytes.equal(.memory(changed), .file(original), count: data.count), "byte \(offset) changed")
            XCTAssertFalse(SameBytes.equal(.memory(changed), .memory(data), count: data.count), "byte \(offset) changed")
        }
        // A file shorter than the count (cut short since): not known to be equal.
        let short = try file(data.prefix(data.count - 1), "short")
        defer { close(short) }
        XCTAssertFalse(SameBytes.equal(.file(original), .file(short), count: data.count))
        XCTAssertFalse(SameBytes.equal(.memory(data.prefix(10)), .file(original), count: data.count))
        XCTAssertTrue(SameBytes.equal(.file(short), .file(original), count: 0))
    }
}

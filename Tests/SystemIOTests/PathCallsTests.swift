import Foundation
import Pasteboard
import XCTest

@testable import SystemIO

/// Paths are bytes: a name that is not UTF-8 reaches the system as it was, and the folder walk lists,
/// copies and removes it like any other; the monotonic clock never goes back.
final class PathCallsTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "pbctl-systemio-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: root) }

    func testEveryByteStringRoundTripsThroughAPathString() {
        let samples: [[UInt8]] = [
            Array("plain.txt".utf8), [0x62, 0x61, 0x64, 0xFF], [0xC3], [0xF4, 0x8F, 0xBC, 0x80], Array("é€𝄞".utf8) + [0x80, 0xC0, 0xAF],
            (0...255).filter { $0 != 0 && $0 != 0x2F }.map(UInt8.init),
        ]
        for bytes in samples {
            let string = PathBytes.string(bytes)
            XCTAssertEqual(string.pathBytes, bytes, "\(bytes)")
        }
        XCTAssertEqual(PathBytes.string(Array("plain".utf8)), "plain", "valid UTF-8 stays as it is")
        XCTAssertEqual(PathBytes.string([0x61, 0xFF]).shownPath, "a\\xFF")
    }

    func testANameThatIsNotUTF8IsCreatedListedCopiedAndRemoved() throws {
        let name = PathBytes.string([0x6E, 0xE9, 0x2E, 0x74, 0x78, 0x74])  // "né.txt" in Latin-1
        let fd = PathCalls.open(root + "/" + name, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(write(fd, "x", 1), 1)
        close(fd)
        XCTAssertEqual(FileTree.entries(path: root), [name])
        try FileTree.copyTree(root, to: root + "-copy")
        defer { FileTree.removeTree(root + "-copy") }
        XCTAssertEqual(FileTree.entries(path: root + "-copy"), [name])
        XCTAssertEqual(try FileTree.size(root + "-copy").entries, 2)
        FileTree.remove(root + "-copy/" + name)
        XCTAssertEqual(FileTree.entries(path: root + "-copy"), [])
    }

    func testRenameNeverReplaces() throws {
        try Data("a".utf8).write(to: URL(fileURLWithPath: root + "/a"))
        try Data("b".utf8).write(to: URL(fileURLWithPath: root + "/b"))
        XCTAssertFalse(FileTree.renameNoReplace(root + "/a", root + "/b"))
        XCTAssertEqual(errno, EEXIST)
        XCTAssertTrue(FileTree.renameNoReplace(root + "/a", root + "/c"))
        XCTAssertEqual(try String(contentsOfFile: root + "/b", encoding: .utf8), "b")
    }

    func testTheMonotonicClockNeverGoesBack() {
        var last = MonotonicClock.nanoseconds()
        for _ in 0..<1000 {
            let now = MonotonicClock.nanoseconds()
            XCTAssertGreaterThanOrEqual(now, last)
            last = now
        }
    }
}

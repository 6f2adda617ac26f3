#if canImport(Glibc)
import Glibc
#endif
import XCTest

@testable import SystemIO

final class FileTreeTests: XCTestCase {
    func testContainsEntryOffersEveryNameButTheDotEntries() throws {
        let folder = NSTemporaryDirectory() + "pbctl-filetree-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        XCTAssertEqual(mkdir(folder, 0o700), 0)
        defer { FileTree.removeTree(folder) }
        XCTAssertFalse(FileTree.containsEntry(path: folder) { _ in true }, "an empty folder offers nothing (not . or ..)")
        for name in ["a.plist", ".hidden.plist", "b.txt"] {
            XCTAssertEqual(close(open(folder + "/" + name, O_CREAT | O_WRONLY, 0o600)), 0)
        }
        var seen: [String] = []
        XCTAssertFalse(FileTree.containsEntry(path: folder) { seen.append(String(decoding: $0, as: UTF8.self)); return false })
        XCTAssertEqual(seen.sorted(), FileTree.entries(path: folder))
        XCTAssertTrue(FileTree.containsEntry(path: folder) { String(decoding: $0, as: UTF8.self) == "b.txt" })
        XCTAssertFalse(FileTree.containsEntry(path: folder + "/missing") { _ in true })
        XCTAssertFalse(FileTree.containsEntry(path: folder + "/b.txt") { _ in true }, "a file is not a folder")
    }
}

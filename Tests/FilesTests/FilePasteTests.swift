import Foundation
import Pasteboard
import SystemIO
import XCTest

@testable import Files

/// Files as a class: every source and destination checked before anything is copied or moved, then
/// all or nothing; names are bytes.
final class FilePasteTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "pbctl-files-tests-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/d/inner", withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: root + "/d/a.txt"))
        try Data("b".utf8).write(to: URL(fileURLWithPath: root + "/d/inner/b.txt"))
        try FileManager.default.createDirectory(atPath: root + "/to", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func listing(_ path: String) -> [String] {
        (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []).sorted()
    }

    func testAFolderIsNeverPutIntoItself() throws {
        for target in [root + "/d", root + "/d/inner", root + "/d/inner/"] {
            XCTAssertThrowsError(try FilePaste.plan([(root + "/d", false)], into: target)) { error in
                XCTAssertEqual((error as? PasteboardError)?.code, .refused)
                XCTAssertTrue("\(error)".contains("into itself"), "\(error)")
            }
        }
        // Through a symbolic link to a folder inside it, too.
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/d/inner")
        XCTAssertThrowsError(try FilePaste.plan([(root + "/d", true)], into: root + "/link"))
        XCTAssertEqual(listing(root + "/d"), ["a.txt", "inner", "inner/b.txt"], "nothing was touched")
    }

    func testAMissingSourceStopsEverythingBeforeAnyMove() throws {
        XCTAssertThrowsError(try FilePaste.plan([(root + "/d/a.txt", true), (root + "/gone.txt", true)], into: root + "/to")) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .noInput)
            XCTAssertTrue("\(error)".contains("gone.txt"), "\(error)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/d/a.txt"))
        XCTAssertEqual(listing(root + "/to"), [])
    }

    func testExistingDestinationsAndClashingNamesAreRefused() throws {
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/to/a.txt"))
        XCTAssertThrowsError(try FilePaste.plan([(root + "/d/a.txt", false)], into: root + "/to"))
        try FileManager.default.createDirectory(atPath: root + "/e", withIntermediateDirectories: true)
        try Data("e".utf8).write(to: URL(fileURLWithPath: root + "/e/b.txt"))
        XCTAssertThrowsError(try FilePaste.plan([(root + "/d/inner/b.txt", false), (root + "/e/b.txt", false)], into: root + "/to"))
    }

    func testCopiesAndMovesEverything() throws {
        let paste = try FilePaste.plan([(root + "/d", false)], into: root + "/to")
        var reported: [FilePaste.Step] = []
        try paste.execute { reported.append($0) }
        XCTAssertEqual(reported.map(\.destination), [root + "/to/d"])
        XCTAssertEqual(listing(root + "/to"), ["d", "d/a.txt", "d/inner", "d/inner/b.txt"])
        let move = try FilePaste.plan([(root + "/d/a.txt", true)], into: root + "/to/d/inner")
        try move.execute()
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/d/a.txt"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/to/d/inner/a.txt"))
    }

    func testAFailureHalfWayUndoesEverything() throws {
        try XCTSkipIf(getuid() == 0, "root reads files whatever their mode")
        // The second source cannot be read: the first copy and the first move are taken back.
        try Data("secret".utf8).write(to: URL(fileURLWithPath: root + "/unreadable.txt"))
        chmod(root + "/unreadable.txt", 0)
        let paste = try FilePaste.plan([(root + "/d/a.txt", true), (root + "/unreadable.txt", false)], into: root + "/to")
        XCTAssertThrowsError(try paste.execute()) { error in
            XCTAssertTrue("\(error)".contains("nothing was copied or moved"), "\(error)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/d/a.txt"), "the move was taken back")
        XCTAssertEqual(listing(root + "/to"), [])
    }

    func testNamesThatAreNotUTF8AreCopiedAsTheirBytes() throws {
        let bytes: [UInt8] = Array((root + "/bad").utf8) + [0xFF] + Array(".txt".utf8)
        let fd = bytes.withUnsafeBufferPointer { buffer -> Int32 in
            var cString = buffer.map { CChar(bitPattern: $0) }
            cString.append(0)
            return open(cString, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        let path = PathBytes.string(bytes)
        XCTAssertEqual(path.pathBytes, bytes)
        XCTAssertEqual(path.shownPath, root + "/bad\\xFF.txt")
        let list = FileList(paths: [path])
        XCTAssertEqual(list.uris, ["file://" + FileList.fileURI(root).dropFirst(7) + "/bad%FF.txt"])
        XCTAssertEqual(FileList.localPath(list.uris[0])?.pathBytes, bytes)
        try FilePaste.plan([(path, false)], into: root + "/to").execute()
        XCTAssertEqual(FileTree.entries(path: root + "/to").map(\.pathBytes), [[UInt8]("bad".utf8) + [0xFF] + [UInt8](".txt".utf8)])
    }

    func testNotEnoughSpaceIsFoundBeforeCopying() throws {
        try XCTSkipUnless(getuid() == 0, "mounting a small tmpfs needs root")
        let small = root + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        guard Process.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", small]) == 0 else { throw XCTSkip("cannot mount a tmpfs") }
        defer { _ = Process.run("/bin/umount", [small]) }
        try Data(repeating: 1, count: 600 << 10).write(to: URL(fileURLWithPath: root + "/d/big.bin"))
        XCTAssertThrowsError(try FilePaste.plan([(root + "/d", false)], into: small)) { error in
            XCTAssertTrue("\(error)".contains("not enough space"), "\(error)")
        }
        XCTAssertEqual(listing(small), [])
    }
}

extension Process {
    static func run(_ path: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

import Foundation
import XCTest

/// Issue 46 through the CLI: the documented filters, what `clear --all` leaves on disk, a damaged
/// database's way out.
final class HistoryStorageCLITests: PbctlTestCase {
    var history: String { pbctl.environment["PBCTL_HISTORY"]! }

    func ids(_ arguments: String...) throws -> [String] {
        let result = try pbctl.run(["history"] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.text.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
    }

    /// `pbctl history --type image --since 7d` as the README and the manual show it; `files` too, and
    /// copy --type's own names.
    func testTheDocumentedTypeShorthandsFilter() throws {
        let png = try XCTUnwrap(Data(base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGP4z8AAQQxwFgBB0gX7h/C5SAAAAABJRU5ErkJggg=="))
        let image = scratch + "/shot.png"
        try png.write(to: URL(fileURLWithPath: image))
        XCTAssertEqual(try pbctl.run("copy", stdin: "plain words").status, 0)
        XCTAssertEqual(try pbctl.run("copy", image).status, 0)
        XCTAssertEqual(try pbctl.run("copy", "--files", image).status, 0)
        XCTAssertEqual(try pbctl.run("copy", "--type", "html", stdin: "<p>hi</p>").status, 0)
        XCTAssertEqual(try ids("--type", "image", "--since", "7d"), ["2"])
        XCTAssertEqual(try ids("--type", "image"), ["2"])
        XCTAssertEqual(try ids("--type", "files"), ["3"])
        XCTAssertEqual(try ids("--type", "text"), ["4", "3", "1"], "text: copy --type's name for plain text (a file list has its paths as text)")
        XCTAssertTrue(try ids("--type", "html").contains("4"))
        XCTAssertEqual(try ids("--type", "image,files"), ["3", "2"])
        XCTAssertEqual(try pbctl.run("history", "--type", "no-such-kind").status, 64)
    }

    /// A large copy's file left by a recorder killed before its commit, and a thumbnail: `clear --all`
    /// leaves no copied byte under the history's folder but the (emptied) database.
    func testClearAllLeavesNoFileAndTheNextOpenSweepsLeftovers() throws {
        let big = scratch + "/big.bin"
        try Data(repeating: 0x42, count: 4 << 20).write(to: URL(fileURLWithPath: big))
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data", big]).status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: history + "/blobs").count, 1)
        // What a recorder killed between linking its file and committing leaves: a file named by nothing.
        let orphan = history + "/blobs/" + String(repeating: "ab", count: 32)
        try Data(repeating: 0x43, count: 4 << 20).write(to: URL(fileURLWithPath: orphan))
        XCTAssertEqual(try pbctl.run("history").status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: orphan), "the next open sweeps it")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: history + "/blobs").count, 1, "the entry's file stays")
        XCTAssertEqual(try pbctl.run(["history", "paste", "1"]).stdout.count, 4 << 20)
        try Data(repeating: 0x44, count: 4 << 20).write(to: URL(fileURLWithPath: orphan))
        try FileManager.default.createDirectory(atPath: history + "/thumbnails", withIntermediateDirectories: true)
        try Data("png".utf8).write(to: URL(fileURLWithPath: history + "/thumbnails/1-" + String(repeating: "cd", count: 32) + ".png"))
        XCTAssertEqual(try pbctl.run("history", "pin", "1").status, 0)
        let cleared = try pbctl.run("history", "clear", "--all")
        XCTAssertEqual(cleared.status, 0, cleared.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: history + "/blobs"), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: history + "/thumbnails"), [])
        XCTAssertEqual(try pbctl.run("history").text, "")
    }

    /// A damaged history.db: the error names the way out; `history repair` moves it aside (its path
    /// said), starts a fresh history and keeps what can be read; copies are recorded again.
    func testADamagedHistoryIsRepaired() throws {
        for n in 1...120 { XCTAssertEqual(try pbctl.run("copy", stdin: "entry \(n) " + String(repeating: "x", count: 700)).status, 0) }
        XCTAssertEqual(try Process.run(URL(fileURLWithPath: "/usr/bin/sqlite3"), arguments: [history + "/history.db", "PRAGMA wal_checkpoint(TRUNCATE)"]).waitAndStatus(), 0)
        let path = history + "/history.db"
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        for page in (size / 4096 / 3)..<(size / 4096 / 3 + 4) {
            try handle.seek(toOffset: UInt64(page * 4096))
            handle.write(Data(repeating: 0x5A, count: 4096))
        }
        try handle.close()
        let listed = try pbctl.run("history")
        XCTAssertEqual(listed.status, 74)
        XCTAssertTrue(listed.stderr.contains("pbctl history repair"), listed.stderr)
        let copy = try pbctl.run("copy", stdin: "while damaged")
        XCTAssertEqual(copy.status, 0)
        let repaired = try pbctl.run("history", "repair")
        XCTAssertEqual(repaired.status, 0, repaired.stderr)
        let moved = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: history).first { $0.hasPrefix("history.db.damaged-") && !$0.contains("-wal") && !$0.contains("-shm") })
        XCTAssertTrue(repaired.stderr.contains(moved), repaired.stderr)
        XCTAssertTrue(repaired.stderr.contains("a fresh history holds the "), repaired.stderr)
        let lines = try pbctl.run("history").text.split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 60, "what the damaged pages did not hold is kept")
        XCTAssertEqual(try pbctl.run("history", "repair").stderr, "pbctl history repair: the history is sound\n")
        let after = try pbctl.run("copy", stdin: "after the repair")
        XCTAssertEqual(after.stderr, "")
        XCTAssertEqual(try pbctl.run("history", "--limit", "1").text.split(separator: "\t").last, "after the repair\n")
        // Damaged again, and cleared whole: nothing of it stays.
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        for name in ["history.db-wal", "history.db-shm"] { try? FileManager.default.removeItem(atPath: history + "/" + name) }
        XCTAssertEqual(try pbctl.run("history", "clear").status, 74)
        let cleared = try pbctl.run("history", "clear", "--all")
        XCTAssertEqual(cleared.status, 0, cleared.stderr)
        XCTAssertTrue(cleared.stderr.contains("removed whole"), cleared.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertEqual(try pbctl.run("history").text, "")
    }
}

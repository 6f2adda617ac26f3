import Foundation
import XCTest

/// A store copy killed (SIGKILL) at each step of recording a large representation, on the built binary:
/// the store's link of its spool, the history's link of the store's file into `blobs/` (a new unique
/// name, nothing hashed), the syncs, the log's writes, the rename of the store's metadata. For content
/// copied before, the first link is the store's link of the history's own file (compared before
/// anything was copied) into the pasteboard. strace stops
/// the copy at the Nth call of each (`-e inject=CALL:signal=KILL:when=N`), so every point is reached
/// on any machine, whatever its speed. After each kill the history lists, every entry pastes back the
/// bytes of a copy, the database names exactly the files of `blobs/`, the same content copied again
/// moves its entry up (one file), and at the end `history repair` has nothing to do.
final class HistoryCrashTests: PbctlTestCase {
    func testACopyKilledAtEveryStepOfItsRecordLeavesAConsistentHistory() throws {
        try killAtEachStep([
            ("linkat", 1), ("linkat", 2), ("fsync", 1), ("fsync", 2), ("fsync", 3), ("fdatasync", 1), ("fdatasync", 2),
            ("renameat", 1), ("unlinkat", 1), ("pwrite64", 1), ("pwrite64", 3), ("openat", 12),
        ], killedAtLeast: 12)
    }

    /// The store on a tmpfs and the history on disk (as users run it): the history copies the store's
    /// file into an unnamed file of its own (in the kernel, before its write lock), syncs it, then names
    /// it; killed at each of those steps, and at the store's own.
    func testACopyToAStoreOnAnotherFileSystemKilledAtEveryStepLeavesAConsistentHistory() throws {
        let tmpfs = "/dev/shm/pbctl-crash-\(getpid())-\(UUID().uuidString)"
        var here = stat(), there = stat()
        guard (try? FileManager.default.createDirectory(atPath: tmpfs, withIntermediateDirectories: false)) != nil else {
            throw XCTSkip("no /dev/shm to put the store on")
        }
        addTeardownBlock { try? FileManager.default.removeItem(atPath: tmpfs) }
        try XCTSkipUnless(stat(scratch, &here) == 0 && stat(tmpfs, &there) == 0 && here.st_dev != there.st_dev,
                          "/dev/shm is on the scratch folder's file system")
        pbctl.environment["PBCTL_STORE"] = tmpfs + "/store"
        try killAtEachStep([
            ("copy_file_range", 1), ("copy_file_range", 3), ("fsync", 1), ("fsync", 2), ("linkat", 1), ("linkat", 2),
            ("fdatasync", 1), ("renameat", 1),
        ], killedAtLeast: 8)
    }

    /// Copies killed by strace at the Nth call of each of `points`, new content and content copied
    /// before, each followed by the invariants' check and a whole copy of the same content.
    private func killAtEachStep(_ points: [(String, Int)], killedAtLeast: Int) throws {
        let strace = "/usr/bin/strace"
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: strace), "strace is not installed")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "sqlite3 is not installed")
        let history = scratch + "/store-history"
        var contents: [Data] = []
        func content(_ seed: UInt64) -> Data {
            var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
            var data = Data(count: 1 << 20)  // over the history's inline limit: a file of `blobs/`
            data.withUnsafeMutableBytes { raw in
                for i in raw.bindMemory(to: UInt64.self).indices {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    raw.bindMemory(to: UInt64.self)[i] = state
                }
            }
            return data
        }
        func sqlite(_ sql: String) throws -> String {
            try pbctl.run([history + "/history.db", sql], executable: "/usr/bin/sqlite3").text
        }
        // The invariants, after each kill (`history` opens the database, sweeping what a dead recorder left).
        func check(_ point: String) throws {
            let listing = try pbctl.run("history")
            XCTAssertEqual(listing.status, 0, "\(point): \(listing.stderr)")
            let ids = listing.text.split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
            for id in ids {
                let pasted = try pbctl.run(["history", "paste", id, "--type", "public.data"])
                XCTAssertEqual(pasted.status, 0, "\(point): entry \(id): \(pasted.stderr)")
                XCTAssertTrue(contents.contains(pasted.stdout), "\(point): entry \(id) pastes bytes no copy had")
            }
            XCTAssertEqual(Set(ids).count, ids.count, "\(point): an entry listed twice")
            XCTAssertEqual(try sqlite("PRAGMA integrity_check"), "ok\n", point)
            let named = Set(try sqlite("SELECT hash FROM blob WHERE refs > 0").split(separator: "\n").map(String.init))
            let stored = Set((try? FileManager.default.contentsOfDirectory(atPath: history + "/blobs")) ?? [])
            XCTAssertEqual(stored, named, "\(point): the files of `blobs/` and the database disagree")
            for name in stored { XCTAssertEqual(name.utf8.count, 64, "\(point): \(name) is not a file's name") }
            XCTAssertEqual(
                try sqlite("SELECT count(*) FROM blob b WHERE refs != (SELECT count(*) FROM representation r WHERE r.blob = b.hash)"), "0\n",
                "\(point): a file's count is not the number of representations naming it")
            // One file per content: no two files of the history hold the same bytes.
            var seen: [Data] = []
            for name in stored {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: history + "/blobs/" + name))
                XCTAssertFalse(seen.contains(bytes), "\(point): two files hold the same bytes")
                seen.append(bytes)
            }
        }

        let input = scratch + "/input.bin"
        contents.append(content(1))
        try contents[0].write(to: URL(fileURLWithPath: input))
        XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data", input]).status, 0)
        // strace may be refused (no ptrace in this sandbox): then nothing here can be checked.
        let probe = try pbctl.run(["-o", "/dev/null", PbctlRunner.binary, "--version"], executable: strace)
        try XCTSkipUnless(probe.status == 0, "strace cannot trace here: \(probe.stderr)")

        var killed = 0
        for (index, (call, when)) in points.enumerated() {
            for again in [false, true] {
                // New content, or an earlier copy's again (its entry moves up, its file found by size and bytes).
                let data = again ? contents[index % contents.count] : content(UInt64(100 + index))
                if !again { contents.append(data) }
                try data.write(to: URL(fileURLWithPath: input))
                let point = "\(call) #\(when)\(again ? ", content copied before" : "")"
                let result = try pbctl.run(
                    ["-o", "/dev/null", "-e", "inject=\(call):signal=KILL:when=\(when)", PbctlRunner.binary, "copy", "--type", "public.data", input],
                    executable: strace)
                if result.status == SIGKILL { killed += 1 }
                try check(point)
                // The same content copied again, whole: recorded, once.
                XCTAssertEqual(try pbctl.run(["copy", "--type", "public.data", input]).status, 0, point)
                let newest = try pbctl.run(["history", "--limit", "1"]).text.split(separator: "\t").first.map(String.init) ?? ""
                XCTAssertEqual(try pbctl.run(["history", "paste", newest, "--type", "public.data"]).stdout, data, point)
                try check(point + ", then copied whole")
            }
        }
        XCTAssertGreaterThanOrEqual(killed, killedAtLeast, "the copies were not killed where they should have been")
        let repair = try pbctl.run("history", "repair")
        XCTAssertEqual(repair.status, 0, repair.stderr)
        XCTAssertEqual((repair.text + repair.stderr).trimmingCharacters(in: .whitespacesAndNewlines), "pbctl history repair: the history is sound",
            "nothing to repair and no file to sweep")
    }
}

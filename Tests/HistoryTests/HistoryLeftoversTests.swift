import Foundation
import Pasteboard
import Synchronization
import XCTest

@testable import History
@testable import PasteboardStore

/// What the history leaves on disk and what it reads back (issue 46): files a recorder killed between
/// naming and committing left behind go at the next open and at `clear`, never while a recorder's
/// transaction is still open; thumbnails are named by entry and content and go with their entries; a
/// type name the reader refuses is never recorded and loses only its representation; a damaged
/// database is moved aside and what can be read of it copied into a fresh history.
final class HistoryLeftoversTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "pbctl-history-leftovers-\(getpid())-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func history(at path: String? = nil) throws -> History {
        try History(
            root: path ?? root, producer: { _, data, _ in data },
            describe: { item in String(decoding: (try? item.representations.first?.data()) ?? Data(), as: UTF8.self) })
    }

    func plain(_ text: String) -> Item { Item(representations: [Representation(type: .utf8PlainText, data: Data(text.utf8))]) }

    func big(_ seed: UInt8, count: Int = 300_000) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) ^ seed }) }

    /// The name of the file entry `id` keeps its large representation in.
    func fileName(_ history: History, _ id: Int) throws -> String {
        try XCTUnwrap(try history.withDatabase(create: false) {
            try $0.connection.text("SELECT blob FROM representation WHERE entry = ? AND blob IS NOT NULL", [.int(id)])
        })
    }

    /// What `blobs/` holds.
    func blobFiles(_ path: String? = nil) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: (path ?? root) + "/blobs")) ?? []).sorted()
    }

    /// Does what a recorder killed after linking its file and before its commit leaves: the file named
    /// in `blobs/`, the transaction rolled back, nothing cleaned up after (no `discard`).
    func recordAndDie(_ history: History, _ item: Item) throws {
        struct Killed: Error {}
        try history.withDatabase(create: true) { database in
            let prepared = try history.prepare(item, skipped: [], preview: "killed")
            var staged = try history.stageBlobs(prepared.kept, database)
            XCTAssertThrowsError(try database.connection.transaction(write: true) {
                _ = try history.insert(prepared, staged: &staged, time: Date(), application: nil, selection: "clipboard", pinned: false, database)
                try staged.syncFolder(database)
                throw Killed()
            })
            for blob in staged.blobs { if case .unnamed(let fd) = blob.source { close(fd) } }
        }
    }

    func testAFileNamedByARecordThatNeverCommittedGoesAtTheNextOpenAndAtClear() throws {
        let history = try history()
        var kept = plain("kept")
        kept.set(Representation(type: .png, data: big(1)))
        XCTAssertEqual(try history.record(kept, preview: "kept", application: nil), .recorded(1))
        let keptName = try fileName(history, 1)
        XCTAssertEqual(blobFiles(), [keptName])
        try recordAndDie(history, Item(representations: [Representation(type: .data, data: big(2))]))
        XCTAssertEqual(blobFiles().count, 2, "the dead recorder's file is there, named by nothing")
        XCTAssertEqual(try history.entries().entries.map(\.id), [1])
        // Another process (or this one restarted) opens the history: swept.
        let restarted = try self.history()
        XCTAssertEqual(try restarted.entries().entries.map(\.id), [1])
        XCTAssertEqual(blobFiles(), [keptName], "the orphan is gone, the entry's file stays")
        XCTAssertEqual(try restarted.item(1).representation(for: .png)?.data(), big(1))
        // A history already open does not sweep at open: clear does, and --all leaves no file.
        try recordAndDie(restarted, Item(representations: [Representation(type: .data, data: big(3))]))
        XCTAssertEqual(blobFiles().count, 2)
        try restarted.clear()
        XCTAssertEqual(blobFiles(), [], "clear removes every file nothing names (entry 1 was not pinned)")
        XCTAssertEqual(try restarted.record(kept, preview: "kept", application: nil), .recorded(2))
        try restarted.pin([2])
        try recordAndDie(restarted, Item(representations: [Representation(type: .data, data: big(4))]))
        try restarted.clear()
        XCTAssertEqual(blobFiles(), [try fileName(restarted, 2)], "the pinned entry's file stays, the orphan goes")
        try recordAndDie(restarted, Item(representations: [Representation(type: .data, data: big(5))]))
        try restarted.clear(includingPinned: true)
        XCTAssertEqual(blobFiles(), [])
    }

    /// A recorder dies with its file named while a long-lived process (a daemon) has the history open:
    /// its next record that names a file sweeps first.
    func testARecordThatNamesAFileSweepsWhatADeadRecorderLeft() throws {
        let daemon = try history()
        XCTAssertEqual(try daemon.record(plain("first"), preview: "first", application: nil), .recorded(1))
        let other = try history()
        try recordAndDie(other, Item(representations: [Representation(type: .data, data: big(6))]))
        XCTAssertEqual(blobFiles().count, 1)
        XCTAssertEqual(try daemon.record(Item(representations: [Representation(type: .data, data: big(7))]), preview: "b", application: nil), .recorded(2))
        XCTAssertEqual(blobFiles(), [try fileName(daemon, 2)])
    }

    /// A sweep never takes the file of a recorder whose transaction is still open: it waits for the
    /// write lock, and by then the file is named.
    func testASweepWaitsForARecorderThatIsNamingAFile() throws {
        let recorder = try history()
        XCTAssertEqual(try recorder.record(plain("first"), preview: "first", application: nil), .recorded(1))
        let data = big(8)
        let started = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let listed = Mutex<[Int]>([])
        try recorder.withDatabase(create: true) { database in
            let prepared = try recorder.prepare(Item(representations: [Representation(type: .data, data: data)]), skipped: [], preview: "big")
            var staged = try recorder.stageBlobs(prepared.kept, database)
            defer { staged.discard() }
            try database.connection.transaction(write: true) {
                _ = try recorder.insert(prepared, staged: &staged, time: Date(), application: nil, selection: "clipboard", pinned: false, database)
                try staged.syncFolder(database)
                XCTAssertEqual(blobFiles(), staged.blobs.map(\.hash), "linked, not committed")
                // Another process opens now: the stamp says a file is being named, so it sweeps, under
                // the write lock this transaction holds.
                let path = root
                Thread.detachNewThread {
                    started.signal()
                    let opener = try? History(root: path)
                    let ids = (try? opener?.entries().entries.map(\.id)) ?? []
                    listed.withLock { $0 = ids }
                    done.signal()
                }
                started.wait()
                usleep(300_000)  // the other opener reaches the lock (if it has not, the check below still holds)
            }
            staged.committed()
        }
        done.wait()
        XCTAssertEqual(listed.withLock { $0 }, [2, 1])
        XCTAssertEqual(blobFiles(), [try fileName(recorder, 2)], "the committed entry's file was not swept")
        XCTAssertEqual(try recorder.item(2).representation(for: .data)?.data(), data)
    }

    func testThumbnailsAreNamedByEntryAndContentAndGoWithTheirEntries() throws {
        let history = try history()
        let small = Data("a small picture".utf8), large = big(9)
        var first = plain("one")
        first.set(Representation(type: .png, data: small))
        XCTAssertEqual(try history.record(first, preview: "one", application: nil), .recorded(1))
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .png, data: large)]), preview: "two", application: nil), .recorded(2))
        var made = 0
        let one = try XCTUnwrap(history.thumbnail(of: 1, type: .png) { made += 1; return Data("thumb of ".utf8) + $0.prefix(8) })
        XCTAssertEqual(one, root + "/thumbnails/1-\(try OpenSSLSHA256.hex(small)).png")
        XCTAssertEqual(history.thumbnail(of: 1, type: .png) { _ in made += 1; return Data("again".utf8) }, one, "made once")
        XCTAssertEqual(made, 1)
        let two = try XCTUnwrap(history.thumbnail(of: 2, type: .png) { $0.prefix(16) })
        XCTAssertEqual(two, root + "/thumbnails/2-\(try fileName(history, 2)).png")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: two)), large.prefix(16))
        XCTAssertNil(history.thumbnail(of: 1, type: .jpeg) { $0 }, "no such representation")
        try history.delete([1])
        XCTAssertFalse(FileManager.default.fileExists(atPath: one), "delete removes the entry's thumbnail")
        XCTAssertTrue(FileManager.default.fileExists(atPath: two))
        // A history started again numbers from 1: entry 1 is another picture, and shows its own.
        try history.clear(includingPinned: true)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/thumbnails"), [], "clear --all removes every thumbnail")
        for name in ["history.db", "history.db-wal", "history.db-shm"] { try? FileManager.default.removeItem(atPath: root + "/" + name) }
        let again = try self.history()
        XCTAssertEqual(try again.record(Item(representations: [Representation(type: .png, data: Data("another picture".utf8))]), preview: "x", application: nil), .recorded(1))
        let shown = try XCTUnwrap(again.thumbnail(of: 1, type: .png) { $0 })
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: shown)), Data("another picture".utf8))
        // A second history's entry 1 is its own picture too.
        let otherRoot = root + "-second"
        defer { try? FileManager.default.removeItem(atPath: otherRoot) }
        let second = try self.history(at: otherRoot)
        XCTAssertEqual(try second.record(Item(representations: [Representation(type: .png, data: small)]), preview: "y", application: nil), .recorded(1))
        let secondShown = try XCTUnwrap(second.thumbnail(of: 1, type: .png) { $0 })
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: secondShown)), small)
    }

    /// Thumbnails of entries the bounds dropped go at the daily sweep (the stamp's access time says
    /// when the last one was), even in a history with no large file.
    func testThumbnailsOfDroppedEntriesGoAtTheDailySweep() throws {
        var limits = History.Limits()
        limits.maxEntries = 1
        let history = try History(root: root, limits: limits, describe: { _ in "" })
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .png, data: Data("one".utf8))]), preview: "1", application: nil), .recorded(1))
        let one = try XCTUnwrap(history.thumbnail(of: 1, type: .png) { $0 })
        _ = try self.history().entries()  // the first opener with thumbnails and no stamp sweeps, and stamps
        XCTAssertTrue(FileManager.default.fileExists(atPath: one))
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .png, data: Data("two".utf8))]), preview: "2", application: nil), .recorded(2))
        XCTAssertEqual(try history.entries().entries.map(\.id), [2], "entry 1 dropped by the bounds")
        _ = try XCTUnwrap(history.thumbnail(of: 2, type: .png) { $0 })
        _ = try self.history().entries()
        XCTAssertTrue(FileManager.default.fileExists(atPath: one), "swept at most daily")
        var times = [timespec(tv_sec: time(nil) - 2 * 86400, tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)]
        XCTAssertEqual(utimensat(AT_FDCWD, root + "/" + HistoryDatabase.stampName, &times, 0), 0)
        _ = try self.history().entries()
        XCTAssertFalse(FileManager.default.fileExists(atPath: one), "a day later: swept")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/thumbnails").count, 1, "entry 2's stays")
    }

    /// A name the reader would refuse (`x y` from a hostile remote) is never recorded: the rest of the
    /// item is. One recorded by an older pbctl loses its representation alone when read.
    func testATypeNameTheReaderRefusesLosesOnlyItsRepresentation() throws {
        let history = try history()
        var item = plain("valid text")
        item.set(Representation(type: TypeIdentifier("x y"), data: Data("hostile".utf8)))
        item.set(Representation(type: TypeIdentifier("public.html"), data: Data("<p>ok</p>".utf8), derivedFrom: TypeIdentifier("a/b")))
        XCTAssertEqual(try history.record(item, preview: "valid text", application: "pbctl ssh: host"), .recorded(1))
        var (entries, problems) = try history.entries()
        XCTAssertEqual(entries.first?.types.map(\.type), [.utf8PlainText])
        XCTAssertEqual(problems, [])
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: TypeIdentifier("x y"), data: Data("z".utf8))]), preview: "z", application: nil),
                       .notRecorded("the item is empty"))
        // An entry recorded before the rule: its bad representation is left out, the text listed and pasted.
        var two = plain("text of two")
        two.set(Representation(type: .rtf, data: Data("{\\rtf1 two}".utf8)))
        XCTAssertEqual(try history.record(two, preview: "two", application: nil), .recorded(2))
        try history.withDatabase(create: false) { database in
            try database.connection.run("UPDATE representation SET type = 'x y' WHERE entry = 2 AND type = 'public.rtf'")
        }
        (entries, problems) = try history.entries()
        XCTAssertEqual(entries.map(\.id), [2, 1])
        XCTAssertEqual(entries.first?.types.map(\.type), [.utf8PlainText])
        XCTAssertEqual(problems, [], "nothing to say at every listing")
        XCTAssertEqual(try history.item(2).representations.map(\.type), [.utf8PlainText])
        XCTAssertEqual(try history.item(2).representation(for: .utf8PlainText)?.data(), Data("text of two".utf8))
    }

    /// Fills a history, folds its log into the database file and returns the file's size.
    func filledHistory(entries: Int) throws -> (History, Int) {
        let history = try history()
        for n in 1...entries {
            _ = try history.record(plain("entry \(n) " + String(repeating: "\(n % 10)", count: 600)), preview: "entry \(n)", application: "app")
        }
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .data, data: big(10))]), preview: "big", application: nil),
                       .recorded(entries + 1))
        try history.pin([3])
        try history.checkpoint()
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: root + "/history.db")[.size] as? Int)
        return (history, size)
    }

    func testADamagedDatabaseIsMovedAsideAndWhatCanBeReadKept() throws {
        let (history, size) = try filledHistory(entries: 300)
        XCTAssertNil(try history.damage())
        let bigName = try fileName(history, 301)
        // Pages in the middle overwritten with garbage.
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: root + "/history.db"))
        let pages = size / 4096
        for page in (pages / 3)..<(pages / 3 + 6) {
            try handle.seek(toOffset: UInt64(page * 4096))
            handle.write(Data(repeating: 0xDE, count: 4096))
        }
        try handle.close()
        let damaged = try self.history()
        XCTAssertThrowsError(try damaged.entries()) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .corrupt)
            XCTAssertTrue("\(error)".contains("pbctl history repair"), "the way out is named: \(error)")
        }
        XCTAssertNotNil(try damaged.damage())
        let repair = try damaged.repair(now: Date(timeIntervalSince1970: 1_800_000_000))
        XCTAssertNotNil(repair.damage)
        XCTAssertEqual(repair.movedTo, root + "/history.db.damaged-20270115T080000Z")
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/history.db.damaged-20270115T080000Z"))
        XCTAssertLessThanOrEqual(repair.copied + repair.lost, 301)
        XCTAssertGreaterThan(repair.copied, 250, "what the damaged pages did not hold is kept")
        XCTAssertGreaterThan(repair.lost, 0, "six damaged pages held some entries")
        XCTAssertNil(try damaged.damage())
        let (entries, problems) = try damaged.entries()
        XCTAssertEqual(entries.count, repair.copied)
        XCTAssertEqual(problems, [])
        XCTAssertTrue(entries.contains { $0.id == 301 }, "numbers and content kept")
        XCTAssertEqual(try damaged.item(301).representation(for: .data)?.data(), big(10))
        XCTAssertEqual(entries.map(\.id), entries.map(\.id).sorted(by: >), "and their order")
        XCTAssertEqual(blobFiles(), [bigName], "the file is linked into the fresh history under its name; the moved-aside folder is gone")
        XCTAssertEqual(try fileName(damaged, 301), bigName)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/history.db.damaged-20270115T080000Z.blobs"))
        if let three = entries.first(where: { $0.id == 3 }), three.application == "app" { XCTAssertTrue(three.pinned, "its record was read: pinned still") }
        for entry in entries where entry.id <= 300 {
            XCTAssertEqual(try damaged.item(entry.id).representation(for: .utf8PlainText)?.data(),
                           Data(("entry \(entry.id) " + String(repeating: "\(entry.id % 10)", count: 600)).utf8))
        }
        // New entries go on after the old numbers; search works on the copied text.
        XCTAssertEqual(try damaged.record(plain("after the repair"), preview: "after", application: nil), .recorded(302))
        XCTAssertEqual(try damaged.search(.substring("after the repair"), History.Query()).0.map(\.id), [302])
        // A sound history: nothing moved.
        let again = try damaged.repair()
        XCTAssertNil(again.damage)
        XCTAssertNil(again.movedTo)
    }

    func testATruncatedDatabaseIsRepairedAndClearAllRemovesADamagedOne() throws {
        let (_, size) = try filledHistory(entries: 200)
        XCTAssertEqual(truncate(root + "/history.db", off_t(size / 2)), 0)
        let damaged = try history()
        XCTAssertNotNil(try damaged.damage())
        let repair = try damaged.repair()
        XCTAssertNotNil(repair.movedTo)
        let entries = try damaged.entries().entries
        XCTAssertEqual(entries.count, repair.copied)
        XCTAssertGreaterThan(repair.copied, 50, "the first half of the file is read")
        XCTAssertLessThanOrEqual(repair.copied + repair.lost, 201)
        for entry in entries where entry.id <= 200 {
            XCTAssertEqual(try damaged.item(entry.id).representation(for: .utf8PlainText)?.data(),
                           Data(("entry \(entry.id) " + String(repeating: "\(entry.id % 10)", count: 600)).utf8))
        }
        // Damaged again: clear --all removes it whole (nothing of it was to be kept) and says why.
        try damaged.checkpoint()
        let current = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: root + "/history.db")[.size] as? Int)
        XCTAssertEqual(truncate(root + "/history.db", off_t(current / 2)), 0)
        let clearing = try history()
        XCTAssertThrowsError(try clearing.clear())
        XCTAssertNotNil(try clearing.clear(includingPinned: true))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/history.db"))
        XCTAssertEqual(blobFiles(), [])
        XCTAssertEqual(try clearing.entries().entries, [])
        XCTAssertEqual(try clearing.record(plain("fresh"), preview: "fresh", application: nil), .recorded(1))
    }
}

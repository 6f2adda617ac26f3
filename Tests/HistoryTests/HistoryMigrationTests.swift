import Foundation
import Pasteboard
import XCTest

@testable import History
@testable import PasteboardStore

/// A history of the earlier format (one package per entry, a JSON index and its journal), written by
/// that format's own code (``FormatOneHistory``, the class as it was), opened by the current one: every
/// entry moves into the database with its number, time, application, preview, what it skipped and its
/// bytes; the next number goes on from the old; the pause stays; the old files go; what cannot be read
/// is reported and left where it was. Whatever happened to the old index first.
final class HistoryMigrationTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "pbctl-migration-tests-\(getpid())-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func plain(_ text: String) -> Item { Item(representations: [Representation(type: .utf8PlainText, data: Data(text.utf8))]) }

    func markdown(_ text: String) -> Item {
        var item = Item(representations: [Representation(type: .markdown, data: Data(text.utf8))])
        item.set(Representation(type: .html, derivedFrom: .markdown) { Data("<p>\(text)</p>".utf8) })
        item.set(Representation(type: .utf8PlainText, data: Data(text.utf8), derivedFrom: .markdown))
        return item
    }

    let describe: (Item) -> String = { item in String(decoding: (try? item.representations.first?.data()) ?? Data(), as: UTF8.self) }

    func old(maxSize: Int = 64 << 20) throws -> FormatOneHistory {
        var limits = FormatOneHistory.Limits()
        limits.maxRepresentationSize = maxSize
        return try FormatOneHistory(root: root, limits: limits, producer: { _, data, _ in data }, describe: describe)
    }

    func new() throws -> History {
        try History(root: root, producer: { _, data, _ in data }, describe: describe)
    }

    let big = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })

    /// Writes the old format's usual history: text, Markdown with promised HTML, 200 KB of data, one
    /// over the size limit, a move, a deletion.
    func writeOldHistory() throws -> [FormatOneHistory.Entry] {
        let history = try old(maxSize: 250_000)
        XCTAssertEqual(try history.record(plain("first"), preview: "first", application: "term", now: Date(timeIntervalSince1970: 1000)), .recorded(1))
        XCTAssertEqual(try history.record(markdown("# notes"), preview: "# notes", application: "editor", now: Date(timeIntervalSince1970: 2000)), .recorded(2))
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .data, data: big)]), preview: "[data]", application: nil, now: Date(timeIntervalSince1970: 3000)), .recorded(3))
        let huge = Data(repeating: 9, count: 300_000)
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .png, data: huge)]), preview: "[png]", application: nil, now: Date(timeIntervalSince1970: 4000)), .recorded(4))
        XCTAssertEqual(try history.record(plain("deleted"), preview: "deleted", application: nil, now: Date(timeIntervalSince1970: 5000)), .recorded(5))
        XCTAssertEqual(try history.record(plain("first"), preview: "first", application: "term", now: Date(timeIntervalSince1970: 6000)), .moved(1))
        try history.delete([5])
        return try history.entries().entries
    }

    func assertMigrated(_ expected: [FormatOneHistory.Entry], _ history: History, file: StaticString = #filePath, line: UInt = #line) throws {
        let (entries, problems) = try history.entries()
        XCTAssertEqual(problems, [], file: file, line: line)
        XCTAssertEqual(entries.map(\.id), expected.map(\.id), file: file, line: line)
        XCTAssertEqual(entries.map(\.preview), expected.map(\.preview), file: file, line: line)
        XCTAssertEqual(entries.map(\.time), expected.map(\.time), file: file, line: line)
        XCTAssertEqual(entries.map(\.application), expected.map(\.application), file: file, line: line)
        XCTAssertEqual(entries.map { $0.types.map(\.type) }, expected.map { $0.types.map(\.type) }, file: file, line: line)
        XCTAssertEqual(entries.map { $0.skipped.map(\.type) }, expected.map { $0.skipped.map(\.type) }, file: file, line: line)
        XCTAssertEqual(try history.item(3).representation(for: .data)?.data(), big, file: file, line: line)
        XCTAssertEqual(try history.item(2).representation(for: .html)?.data(), Data("# notes".utf8), "produced from its source", file: file, line: line)
    }

    func testAnOldHistoryIsMigratedWhole() throws {
        let expected = try writeOldHistory()
        XCTAssertEqual(expected.map(\.id), [1, 4, 3, 2])
        try old().pause(until: nil)
        let history = try new()
        try assertMigrated(expected, history)
        XCTAssertEqual(try history.pausedUntil(), .distantFuture, "the pause stays")
        try history.resume()
        XCTAssertEqual(try history.record(plain("next"), preview: "next", application: nil), .recorded(6), "numbers go on after the old ones (5 was deleted)")
        XCTAssertEqual(try history.record(plain("first"), preview: "first", application: nil), .moved(1), "duplicates are still found")
        let left = try FileManager.default.contentsOfDirectory(atPath: root).sorted()
        XCTAssertEqual(Set(left), ["blobs", "blobs.stamp", "history.db", "history.db-shm", "history.db-wal", "lock"], "the old files are gone: \(left)")
        let files = try FileManager.default.contentsOfDirectory(atPath: root + "/blobs")
        XCTAssertEqual(files.count, 1, "one file for the large representation")
        XCTAssertTrue(HistoryDatabase.isBlobName(files.first ?? ""))
        // The old format's digests stay what they were.
        XCTAssertEqual(try history.entry(2).digest, ContentDigest.string(ContentDigest.key(expected.first { $0.id == 2 }!.digest)))
    }

    func testMigrationWhateverHappenedToTheOldIndex() throws {
        let damages: [(String, () throws -> Void)] = [
            ("a damaged index", { try Data("{not json".utf8).write(to: URL(fileURLWithPath: self.root + "/index.json")) }),
            ("an index with a bad number", { try Data(#"{"format":1,"nextID":-5,"entries":[]}"#.utf8).write(to: URL(fileURLWithPath: self.root + "/index.json")) }),
            ("no index at all", {
                try? FileManager.default.removeItem(atPath: self.root + "/index.json")
                try? FileManager.default.removeItem(atPath: self.root + "/index.log")
            }),
            ("a journal line cut short", {
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: self.root + "/index.log"))
                handle.seekToEndOfFile()
                handle.write(Data(#"{"entry":{"id":9,"#.utf8))
                handle.closeFile()
            }),
            ("an entry without its own record and no index", {
                try FileManager.default.removeItem(atPath: self.root + "/e1.pasteboard/Entry.json")
                try? FileManager.default.removeItem(atPath: self.root + "/index.json")
                try? FileManager.default.removeItem(atPath: self.root + "/index.log")
            }),
        ]
        for (what, damage) in damages {
            try? FileManager.default.removeItem(atPath: root)
            var expected = try writeOldHistory()
            // Make sure the journal exists for the cut-line case.
            _ = try old().record(plain("journalled"), preview: "journalled", application: nil, now: Date(timeIntervalSince1970: 7000))
            expected = try old().entries().entries
            try damage()
            let history = try new()
            let (entries, problems) = try history.entries()
            XCTAssertEqual(problems, [], what)
            XCTAssertEqual(Set(entries.map(\.id)), Set(expected.map(\.id)), what)
            XCTAssertEqual(try history.item(3).representation(for: .data)?.data(), big, what)
            XCTAssertEqual(try history.entry(1).preview, "first", what)
            XCTAssertEqual(try history.record(plain("new"), preview: "new", application: nil), .recorded(7), what)
        }
    }

    /// A package that cannot be read is reported once and left where it was; everything else moves.
    func testADamagedPackageIsReportedAndLeftInPlace() throws {
        _ = try writeOldHistory()
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: root + "/e3.pasteboard/Info.json"))
        try FileManager.default.removeItem(atPath: root + "/e3.pasteboard/Entry.json")
        try? FileManager.default.removeItem(atPath: root + "/index.json")
        try? FileManager.default.removeItem(atPath: root + "/index.log")
        let history = try new()
        let (entries, problems) = try history.entries()
        // Without the index, an entry is where its own record puts it: the move of entry 1 was the
        // index's to know (as the old format read it).
        XCTAssertEqual(entries.map(\.id), [4, 2, 1])
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems.first?.contains("e3.pasteboard") ?? false, "\(problems)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/e3.pasteboard"), "left in place")
        XCTAssertEqual(try history.entries().problems, [], "reported once")
        XCTAssertEqual(try history.record(plain("next"), preview: "next", application: nil), .recorded(5), "numbers go on after every package's, the damaged one's too")
    }

    /// A migration that did not finish leaves nothing half: an empty database is made again, and old
    /// files left after the commit are removed by the next process.
    func testAnInterruptedMigrationIsDoneAgain() throws {
        let expected = try writeOldHistory()
        // A process died after creating the file, before its transaction committed.
        FileManager.default.createFile(atPath: root + "/history.db", contents: Data(), attributes: [.posixPermissions: 0o600])
        let history = try new()
        try assertMigrated(expected, history)
        // A process died after the commit, before removing every old package.
        try FileManager.default.createDirectory(atPath: root + "/e2.pasteboard", withIntermediateDirectories: false)
        try history.withDatabase(create: false) { try $0.connection.run("UPDATE counters SET legacy = 1") }
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/e2.pasteboard"))
        try assertMigrated(expected, try new())
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/e2.pasteboard"))
    }

    /// Readers migrate too (the first use may be a listing), and one process at a time does it.
    func testConcurrentFirstUsesMigrateOnce() throws {
        let expected = try writeOldHistory()
        let group = DispatchGroup()
        let results = ResultBox()
        let root = self.root
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                do {
                    let history = try History(root: root, producer: { _, data, _ in data })
                    let ids = try history.entries().entries.map(\.id)
                    results.add(ids)
                } catch {
                    results.add([-1])
                }
            }
        }
        group.wait()
        XCTAssertEqual(results.all, Array(repeating: expected.map(\.id), count: 4))
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var all: [[Int]] = []
    func add(_ ids: [Int]) { lock.withLock { all.append(ids) } }
}

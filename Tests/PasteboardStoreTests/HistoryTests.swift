import Foundation
import Pasteboard
import XCTest

@testable import PasteboardStore

/// The history as a class: size limits skip (and list) what they skip without breaking what they keep;
/// the index is a cache rebuilt from the entries (previews, digests, order); an ID is never given
/// again while its package exists.
final class HistoryTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "pbctl-history-tests-\(getpid())-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// A Markdown copy as `pbctl copy` makes it: the source, its plain text (the same bytes), and HTML
    /// and RTF promised from it.
    func markdown(_ text: String) -> Item {
        var item = Item(representations: [Representation(type: .markdown, data: Data(text.utf8))])
        item.set(Representation(type: .html, derivedFrom: .markdown) { Data("<p>\(text)</p>".utf8) })
        item.set(Representation(type: .rtf, derivedFrom: .markdown) { Data("{\\rtf1 \(text)}".utf8) })
        item.set(Representation(type: .utf8PlainText, data: Data(text.utf8), derivedFrom: .markdown))
        return item
    }

    func plain(_ text: String) -> Item { Item(representations: [Representation(type: .utf8PlainText, data: Data(text.utf8))]) }

    func history(maxSize: Int = 64 << 20) throws -> History {
        var limits = History.Limits()
        limits.maxRepresentationSize = maxSize
        return try History(
            root: root, limits: limits, producer: { _, data, _ in data },
            describe: { item in String(decoding: (try? item.representations.first?.data()) ?? Data(), as: UTF8.self) })
    }

    func testAnOverLimitMarkdownCopyIsListedAsSkippedWithNothingToPaste() throws {
        let history = try history(maxSize: 10)
        XCTAssertEqual(try history.record(markdown("# A long title here"), preview: "# A long title here", application: nil), .recorded(1))
        let entry = try history.entry(1)
        XCTAssertFalse(entry.keepsContent)
        XCTAssertEqual(entry.types, [], "a derived type whose source was skipped must not be kept: it could not be produced")
        XCTAssertEqual(entry.skipped.map(\.type), [.markdown, .html, .rtf, .utf8PlainText])
        XCTAssertEqual(entry.skipped.first?.size, 19)
        XCTAssertThrowsError(try history.pasteableEntry(1)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .empty)
            XCTAssertTrue("\(error)".contains("history.max-entry-size"), "\(error)")
        }
    }

    func testWhatFitsIsKeptBesideWhatIsSkipped() throws {
        let history = try history(maxSize: 10)
        var item = plain("short")
        item.set(Representation(type: .html, data: Data("<p>far too long for the limit</p>".utf8)))
        XCTAssertEqual(try history.record(item, preview: "short", application: nil), .recorded(1))
        let entry = try history.entry(1)
        XCTAssertEqual(entry.types.map(\.type), [.utf8PlainText])
        XCTAssertEqual(entry.skipped.map(\.type), [.html])
        XCTAssertEqual(try history.item(1).representation(for: .utf8PlainText)?.data(), Data("short".utf8))
        XCTAssertNoThrow(try history.pasteableEntry(1))
    }

    func testTwoDifferentOverLimitItemsAreTwoEntries() throws {
        let history = try history(maxSize: 10)
        XCTAssertEqual(try history.record(markdown("# First long document"), preview: "# First", application: nil), .recorded(1))
        XCTAssertEqual(try history.record(markdown("# Second long document"), preview: "# Second", application: nil), .recorded(2))
        XCTAssertEqual(try history.entries().entries.map(\.preview), ["# Second", "# First"])
    }

    func testSkippedTargetsARecorderReportsAreListed() throws {
        let history = try history()
        let skipped = [History.Entry.Kind(type: .png, size: 100 << 20, derivedFrom: nil)]
        XCTAssertEqual(try history.record(plain("caption"), preview: "caption", application: nil, skipped: skipped), .recorded(1))
        XCTAssertEqual(try history.entry(1).skipped, skipped)
    }

    /// The index: its snapshot and its journal, whichever exist.
    func indexFiles() -> [(String, Data)] {
        ["index.json", "index.log"].compactMap { name in
            (try? Data(contentsOf: URL(fileURLWithPath: root + "/" + name))).map { (name, $0) }
        }
    }

    func removeIndex() {
        for name in ["index.json", "index.log"] { try? FileManager.default.removeItem(atPath: root + "/" + name) }
    }

    /// A record appends one line to the journal; the whole index is written again only now and then.
    func testRecordsAppendToAJournalAndFoldItIn() throws {
        let history = try history()
        for n in 1...3 { XCTAssertEqual(try history.record(plain("entry \(n)"), preview: "\(n)", application: nil), .recorded(n)) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/index.json"), "no snapshot yet")
        let journal = try String(contentsOfFile: root + "/index.log", encoding: .utf8)
        XCTAssertEqual(journal.split(separator: "\n").count, 3)
        XCTAssertEqual(try history.entries().entries.map(\.id), [3, 2, 1])
        XCTAssertEqual(try history.record(plain("entry 1"), preview: "1", application: nil), .moved(1))
        XCTAssertEqual(try history.entries().entries.map(\.id), [1, 3, 2])
        // A line cut short by a crash is skipped; the package it named is read back.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: root + "/index.log"))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"entry":{"id":9,"#.utf8))
        handle.closeFile()
        XCTAssertEqual(try history.entries().entries.map(\.id), [1, 3, 2])
        XCTAssertEqual(try history.record(plain("entry 4"), preview: "4", application: nil), .recorded(4))
        // Past the journal's bound the snapshot is written and the journal starts again.
        for n in 5...80 { _ = try history.record(plain("entry \(n)"), preview: "\(n)", application: nil) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/index.json"))
        let lines = ((try? String(contentsOfFile: root + "/index.log", encoding: .utf8)) ?? "").split(separator: "\n").count
        XCTAssertLessThanOrEqual(lines, 80, "at most as many lines as entries (or 64)")
        XCTAssertEqual(try history.entries().entries.count, 80)
        XCTAssertEqual(try history.entries().entries.first?.id, 80)
        // A deleted newest entry's ID is not given again.
        try history.delete([80])
        XCTAssertEqual(try history.record(plain("entry 81"), preview: "81", application: nil), .recorded(81))
    }

    func testAMissingIndexIsRebuiltWithPreviewsAndIDsAreNotReused() throws {
        let history = try history()
        XCTAssertEqual(try history.record(plain("one"), preview: "one", application: "a"), .recorded(1))
        XCTAssertEqual(try history.record(plain("two"), preview: "two", application: "b"), .recorded(2))
        removeIndex()
        let (entries, problems) = try history.entries()
        XCTAssertEqual(problems, [])
        XCTAssertEqual(entries.map(\.id), [2, 1])
        XCTAssertEqual(entries.map(\.preview), ["two", "one"])
        XCTAssertEqual(entries.map(\.application), ["b", "a"])
        // The next copy gets a new ID: entry 1 is not overwritten.
        XCTAssertEqual(try history.record(plain("three"), preview: "three", application: nil), .recorded(3))
        XCTAssertEqual(try history.item(1).representation(for: .utf8PlainText)?.data(), Data("one".utf8))
        // Duplicates are still found after the rebuild.
        removeIndex()
        XCTAssertEqual(try history.record(plain("one"), preview: "one", application: nil), .moved(1))
        XCTAssertEqual(try history.entries().entries.map(\.id), [1, 3, 2])
    }

    func testADamagedIndexIsRebuiltFromTheEntries() throws {
        let history = try history()
        for (n, text) in ["alpha", "beta", "gamma"].enumerated() {
            XCTAssertEqual(try history.record(plain(text), preview: text, application: nil, now: Date(timeIntervalSince1970: Double(1000 + n))), .recorded(n + 1))
        }
        for damage in [Data("{not json".utf8), Data(#"{"format":1,"nextID":-5,"entries":[]}"#.utf8), Data()] {
            try damage.write(to: URL(fileURLWithPath: root + "/index.json"))
            let entries = try history.entries().entries
            XCTAssertEqual(entries.map(\.preview), ["gamma", "beta", "alpha"], "after \(String(decoding: damage, as: UTF8.self))")
        }
        XCTAssertEqual(try history.record(plain("beta"), preview: "beta", application: nil, now: Date(timeIntervalSince1970: 2000)), .moved(2))
        XCTAssertEqual(try history.entries().entries.map(\.preview), ["beta", "gamma", "alpha"])
    }

    func testAPackageTheIndexDoesNotListIsFoundAndItsIDNotGivenAgain() throws {
        let history = try history()
        XCTAssertEqual(try history.record(plain("one"), preview: "one", application: nil), .recorded(1))
        let stale = indexFiles()
        XCTAssertEqual(try history.record(plain("two"), preview: "two", application: nil), .recorded(2))
        // A crash after entry 2's package was written and before the index named it.
        removeIndex()
        for (name, data) in stale { try data.write(to: URL(fileURLWithPath: root + "/" + name)) }
        XCTAssertEqual(try history.entries().entries.map(\.preview), ["two", "one"])
        XCTAssertEqual(try history.record(plain("three"), preview: "three", application: nil), .recorded(3))
        XCTAssertEqual(try history.item(2).representation(for: .utf8PlainText)?.data(), Data("two".utf8))
    }

    func testAnEntryWithoutItsOwnRecordIsDescribedAgain() throws {
        let history = try history()
        XCTAssertEqual(try history.record(plain("kept text"), preview: "kept text", application: nil), .recorded(1))
        try FileManager.default.removeItem(atPath: root + "/e1.pasteboard/Entry.json")
        removeIndex()
        XCTAssertEqual(try history.entries().entries.map(\.preview), ["kept text"])
        XCTAssertEqual(try history.record(plain("kept text"), preview: "kept text", application: nil), .moved(1))
    }

    func testDamagedRecordsAreRefusedNotTrusted() throws {
        let history = try history()
        XCTAssertEqual(try history.record(plain("one"), preview: "one", application: nil), .recorded(1))
        removeIndex()
        try Data(#"{"id":1,"time":"2026-01-01T00:00:00Z","selection":"clipboard","types":[],"skipped":[],"preview":"x","digest":"d","bytes":-4}"#.utf8)
            .write(to: URL(fileURLWithPath: root + "/e1.pasteboard/Entry.json"))
        // The record is refused (a negative size); the entry is described from its package instead.
        XCTAssertEqual(try history.entries().entries.map(\.bytes), [3])
    }

    func testSearchMatchesTextAndPreviews() throws {
        let history = try history(maxSize: 10)
        XCTAssertEqual(try history.record(plain("needle"), preview: "needle", application: nil), .recorded(1))
        XCTAssertEqual(try history.record(markdown("# a long needle title"), preview: "# a long needle title", application: nil), .recorded(2))
        XCTAssertEqual(try history.record(plain("hay"), preview: "hay", application: nil), .recorded(3))
        let text: (Item) -> String? = { try? $0.representations.first.map { String(decoding: try $0.data(), as: UTF8.self) } }
        XCTAssertEqual(try history.search(text: text) { $0.contains("needle") }.map(\.id), [2, 1])
        XCTAssertEqual(try history.search(limit: 1, text: text) { $0.contains("needle") }.map(\.id), [2])
    }
}

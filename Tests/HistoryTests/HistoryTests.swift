import Foundation
import Pasteboard
import XCTest

@testable import History
@testable import PasteboardStore

/// The history as a class: size limits skip (and list) what they skip without breaking what they keep;
/// bounds, age and pins; large representations stored once as files; numbers never given twice;
/// search narrowed by the index and confirmed on the text; every number read back range-checked.
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

    func testATypeFilterTakesTheRecordedTypesConformingToIt() throws {
        let history = try history()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        _ = try history.record(plain("text"), preview: "text", application: nil, now: Date(timeIntervalSince1970: 1))
        _ = try history.record(
            Item(representations: [Representation(type: .png, data: png)]), preview: "picture", application: nil, now: Date(timeIntervalSince1970: 2))
        _ = try history.record(
            Item(representations: [Representation(type: .html, data: Data("<b>x</b>".utf8))]), preview: "html", application: nil,
            now: Date(timeIntervalSince1970: 3))
        func ids(_ types: [TypeIdentifier]) throws -> [Int] {
            var query = History.Query()
            query.conforming = History.TypeFilter(types, registry: .standard)
            return try history.entries(query).entries.map(\.id)
        }
        XCTAssertEqual(try ids([.image]), [2])
        XCTAssertEqual(try ids([.text]), [3, 1])
        XCTAssertEqual(try ids([.image, .utf8PlainText]), [2, 1])
        var query = History.Query()
        query.conforming = History.TypeFilter([.image], registry: .standard)
        XCTAssertEqual(try history.search(.substring("pict"), query).entries.map(\.id), [2])  // its preview, having no text
        query.conforming = History.TypeFilter([.html], registry: .standard)
        XCTAssertEqual(try history.search(.substring("html"), query).entries.map(\.id), [3])  // its preview is its text here
    }

    func history(maxSize: Int = 64 << 20, configure: (inout History.Limits) -> Void = { _ in }) throws -> History {
        var limits = History.Limits()
        limits.maxRepresentationSize = maxSize
        configure(&limits)
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

    /// A promised representation is kept as a record and produced from its source on paste.
    func testPromisedRepresentationsAreProducedFromTheirSource() throws {
        let history = try history()
        XCTAssertEqual(try history.record(markdown("*hi*"), preview: "*hi*", application: "editor"), .recorded(1))
        let entry = try history.entry(1)
        XCTAssertEqual(entry.types.map(\.type), [.markdown, .html, .rtf, .utf8PlainText])
        XCTAssertEqual(entry.types.map(\.size), [4, nil, nil, 4])
        XCTAssertEqual(entry.application, "editor")
        let item = try history.item(1)
        XCTAssertEqual(try item.representation(for: .html)?.data(), Data("*hi*".utf8), "produced by the producer from its source")
        let sink = DataSink()
        try history.backend.read(.rtf, item: 0, from: History.pasteboard(for: 1), into: sink)
        XCTAssertEqual(sink.data, Data("*hi*".utf8))
        XCTAssertThrowsError(try history.backend.read(.png, item: 0, from: History.pasteboard(for: 1))) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .typeNotOffered)
        }
        XCTAssertThrowsError(try history.backend.read(.png, item: 0, from: History.pasteboard(for: 9))) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .empty)
        }
    }

    /// Numbers are never given again, whatever was deleted; the same content moves its entry up.
    func testNumbersAreNeverGivenAgainAndDuplicatesMoveUp() throws {
        let history = try history()
        for n in 1...3 {
            XCTAssertEqual(try history.record(plain("entry \(n)"), preview: "\(n)", application: nil, now: Date(timeIntervalSince1970: Double(n))), .recorded(n))
        }
        XCTAssertEqual(try history.entries().entries.map(\.id), [3, 2, 1])
        XCTAssertEqual(try history.record(plain("entry 1"), preview: "1", application: "again", now: Date(timeIntervalSince1970: 10)), .moved(1))
        XCTAssertEqual(try history.entries().entries.map(\.id), [1, 3, 2])
        XCTAssertEqual(try history.entry(1).application, "again")
        XCTAssertEqual(try history.delete([1, 9]), [9])
        XCTAssertEqual(try history.record(plain("entry 4"), preview: "4", application: nil, now: Date(timeIntervalSince1970: 11)), .recorded(4))
        try history.clear()
        XCTAssertEqual(try history.record(plain("entry 5"), preview: "5", application: nil), .recorded(5), "numbers go on after clear")
        // Another process's view: the same numbers.
        XCTAssertEqual(try self.history().entries().entries.map(\.id), [5])
        // Same bytes as another type are other content.
        var html = Item()
        html.set(Representation(type: .html, data: Data("entry 5".utf8)))
        XCTAssertEqual(try history.record(html, preview: "5", application: nil), .recorded(6))
    }

    func testBoundsDropTheOldestUnpinnedAndNeverThePinned() throws {
        let history = try history { $0.maxEntries = 3 }
        for n in 1...3 { _ = try history.record(plain("entry \(n)"), preview: "\(n)", application: nil, now: Date(timeIntervalSince1970: Double(n))) }
        XCTAssertEqual(try history.pin([1]), [])
        for n in 4...6 { _ = try history.record(plain("entry \(n)"), preview: "\(n)", application: nil, now: Date(timeIntervalSince1970: Double(n))) }
        XCTAssertEqual(try history.entries().entries.map(\.id), [6, 5, 4, 1], "three unpinned, and the pinned one")
        XCTAssertEqual(try history.entry(1).pinned, true)
        XCTAssertEqual(try history.totals().entries, 4)
        // Unpinned, it counts again: the oldest goes.
        XCTAssertEqual(try history.pin([1, 42], false), [42])
        XCTAssertEqual(try history.entries().entries.map(\.id), [6, 5, 4])
        // Bytes too, never the entry just recorded.
        history.limits.maxBytes = 10
        XCTAssertEqual(try history.record(plain("a text longer than ten bytes"), preview: "long", application: nil, now: Date(timeIntervalSince1970: 7)), .recorded(7))
        XCTAssertEqual(try history.entries().entries.map(\.id), [7])
        // Clear keeps the pinned unless asked.
        history.limits.maxBytes = 1 << 30
        _ = try history.record(plain("pin me"), preview: "pin", application: nil, now: Date(timeIntervalSince1970: 8))
        try history.pin([8])
        try history.clear()
        XCTAssertEqual(try history.entries().entries.map(\.id), [8])
        XCTAssertEqual(try history.entries(History.Query(pinnedOnly: true)).entries.map(\.id), [8])
        try history.clear(includingPinned: true)
        XCTAssertEqual(try history.entries().entries.map(\.id), [])
        XCTAssertEqual(try history.totals().entries, 0)
    }

    func testAgeLimitDropsOldEntriesButNotPinnedOnes() throws {
        let history = try history { $0.maxAge = 3600 }
        // Listings leave out what is past the age at the time they run: the entries are dated from now.
        let now = Date()
        _ = try history.record(plain("old"), preview: "old", application: nil, now: now.addingTimeInterval(-7200))
        _ = try history.record(plain("old pinned"), preview: "old pinned", application: nil, now: now.addingTimeInterval(-7100))
        try history.pin([2])
        _ = try history.record(plain("recent"), preview: "recent", application: nil, now: now.addingTimeInterval(-60))
        _ = try history.record(plain("now"), preview: "now", application: nil, now: now)
        XCTAssertEqual(try history.entries().entries.map(\.preview), ["now", "recent", "old pinned"])
        // Past the age with no record after it: never listed nor read, and expire() removes it.
        history.limits.maxAge = 30
        XCTAssertEqual(try history.entries().entries.map(\.preview), ["now", "old pinned"])
        XCTAssertThrowsError(try history.item(3))
        XCTAssertEqual(try history.nextExpiry().map { Int($0.timeIntervalSince(now).rounded()) }, -30, "recent passed it 30 s ago")
        XCTAssertTrue(try history.expire())
        XCTAssertEqual(try history.totals().entries, 2, "recent went; now and the pinned entry stay")
        XCTAssertEqual(try history.nextExpiry().map { Int($0.timeIntervalSince(now).rounded()) }, 30, "now passes it in 30 s")
        XCTAssertFalse(try history.expire())
    }

    /// A representation from 128 KiB on is a file, stored once for every entry holding it (found by its
    /// size, then compared byte for byte: nothing is hashed), removed with the last of them. Its name is
    /// unique (32 hexadecimal digits), not its SHA-256.
    func testLargeRepresentationsAreFilesStoredOnce() throws {
        let history = try history()
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var first = plain("caption one")
        first.set(Representation(type: .png, data: big))
        var second = plain("caption two")
        second.set(Representation(type: .png, data: big))
        XCTAssertEqual(try history.record(first, preview: "one", application: nil), .recorded(1))
        XCTAssertEqual(try history.record(second, preview: "two", application: nil), .recorded(2))
        let blobs = root + "/blobs"
        let files = try FileManager.default.contentsOfDirectory(atPath: blobs)
        XCTAssertEqual(files.count, 1)
        XCTAssertTrue(HistoryDatabase.isBlobName(files.first ?? ""))
        XCTAssertNotEqual(files.first, try OpenSSLSHA256.hex(big), "a unique name, not a hash")
        XCTAssertEqual(try history.item(2).representation(for: .png)?.data(), big)
        let sink = DataSink()
        try history.backend.read(.png, item: 0, from: History.pasteboard(for: 1), into: sink)
        XCTAssertEqual(sink.data, big)
        try history.delete([1])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: blobs).count, 1, "entry 2 still holds it")
        try history.delete([2])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: blobs), [])
        // Large content is confirmed to the byte: one byte changed in the middle, where the cheap digest
        // does not look, is new content (a file of the same size, compared, and another file).
        var changed = big
        changed[150_000] ^= 1
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .data, data: big)]), preview: "a", application: nil), .recorded(3))
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: blobs).first)
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .data, data: changed)]), preview: "b", application: nil), .recorded(4))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: blobs).count, 2)
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .data, data: big)]), preview: "a", application: nil), .moved(3))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: blobs).count, 2)
        // A file of the wrong size where the name says: refused, named.
        try Data("short".utf8).write(to: URL(fileURLWithPath: blobs + "/" + name))
        XCTAssertThrowsError(try history.item(3)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .corrupt)
            XCTAssertTrue("\(error)".contains(name), "\(error)")
        }
        // The same bytes recorded again cannot be compared with a damaged file: a new entry with a file of
        // its own, whole; the damaged entry stays refused, and so does one whose file is gone.
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .data, data: big)]), preview: "a", application: nil), .recorded(5))
        XCTAssertEqual(try history.item(5).representation(for: .data)?.data(), big)
        XCTAssertThrowsError(try history.item(3))
        try FileManager.default.removeItem(atPath: blobs + "/" + name)
        XCTAssertThrowsError(try history.item(3)) { error in XCTAssertTrue("\(error)".contains("missing"), "\(error)") }
        var third = plain("caption three")
        third.set(Representation(type: .data, data: big))
        XCTAssertEqual(try history.record(third, preview: "three", application: nil), .recorded(6))
        XCTAssertEqual(try history.item(6).representation(for: .data)?.data(), big)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: blobs).count, 2, "entries 5 and 6 share a file")
    }

    /// The store's file is linked, not written again, and synced before the entry names it.
    func testAdoptedStoreFilesAreLinked() throws {
        let history = try history()
        let big = Data(repeating: 0x5A, count: 200_000)
        let path = root + "-store-file"
        try big.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        history.adopt(path, holding: big)
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .data, data: big)]), preview: "z", application: nil), .recorded(1))
        var store = stat(), blob = stat()
        XCTAssertEqual(stat(path, &store), 0)
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: root + "/blobs").first)
        XCTAssertEqual(stat(root + "/blobs/" + name, &blob), 0)
        XCTAssertEqual(store.st_ino, blob.st_ino, "a hard link")
    }

    /// A file of an earlier history, named by the SHA-256 of its bytes, is still the one the same bytes
    /// are found in (by size and bytes, whatever the name), and one item holding the same large bytes
    /// under two types stores one file.
    func testFilesNamedByTheirHashAreFoundAndTwinsShareAFile() throws {
        let history = try history()
        let big = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .data, data: big)]), preview: "a", application: nil), .recorded(1))
        let blobs = root + "/blobs"
        let unique = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: blobs).first)
        // As an earlier pbctl named it.
        let hash = try OpenSSLSHA256.hex(big)
        try FileManager.default.moveItem(atPath: blobs + "/" + unique, toPath: blobs + "/" + hash)
        let connection = try SQLiteConnection(path: root + "/history.db", create: false)
        try connection.run("UPDATE blob SET hash = ? WHERE hash = ?", [.text(hash), .text(unique)])
        try connection.run("UPDATE representation SET blob = ? WHERE blob = ?", [.text(hash), .text(unique)])
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .data, data: big)]), preview: "a", application: nil), .moved(1))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: blobs), [hash])
        XCTAssertEqual(try history.item(1).representation(for: .data)?.data(), big)
        var twins = Item(representations: [Representation(type: .png, data: big)])
        twins.set(Representation(type: .tiff, data: Data(big)))
        XCTAssertEqual(try history.record(twins, preview: "b", application: nil), .recorded(2))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: blobs), [hash])
        XCTAssertEqual(try connection.integer("SELECT refs FROM blob WHERE hash = ?", [.text(hash)]), 3)
        XCTAssertEqual(try history.item(2).representation(for: .tiff)?.data(), big)
        XCTAssertEqual(try history.repair(), History.Repair(), "nothing to repair, nothing to sweep")
    }

    /// Two recorders of the same new bytes at once: the second to take the lock finds the file the first
    /// committed meanwhile (its new name checked again inside its transaction), so one file, one entry.
    func testANameStagedWhileAnotherRecorderStoresTheSameBytesIsReplacedByTheirs() throws {
        let first = try history()
        XCTAssertEqual(try first.record(plain("something"), preview: "s", application: nil), .recorded(1))
        let second = try History(root: root)
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 29) })
        let item = Item(representations: [Representation(type: .data, data: big)])
        let prepared = try first.prepare(item, skipped: [], preview: "big")
        var staged = try first.withDatabase(create: true) { try first.stageBlobs(prepared.kept, $0) }
        defer { staged.discard() }
        XCTAssertEqual(staged.blobs.map(\.fresh), [true])
        XCTAssertEqual(try second.record(item, preview: "big", application: nil), .recorded(2))
        let theirs = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: root + "/blobs").first)
        XCTAssertNotEqual(staged.blobs.first?.hash, theirs)
        try first.withDatabase(create: true) { database in
            try database.connection.transaction(write: true) { try first.confirmNames(&staged, database) }
        }
        XCTAssertEqual(staged.blobs.map(\.hash), [theirs])
        XCTAssertEqual(try first.record(item, preview: "big", application: nil), .moved(2))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/blobs"), [theirs])
    }

    func testSearchIsNarrowedByTheIndexAndConfirmedOnTheText() throws {
        let history = try history(maxSize: 20)
        XCTAssertEqual(try history.record(plain("needle in HAYSTACK"), preview: "needle", application: "a"), .recorded(1))
        XCTAssertEqual(try history.record(markdown("# a long needle title"), preview: "# a long needle title", application: "b"), .recorded(2))
        XCTAssertEqual(try history.record(plain("hay"), preview: "hay", application: "a"), .recorded(3))
        // Longer than the index holds: found by reading it whole.
        let long = String(repeating: "filler ", count: 20_000) + "far-away-word"
        history.limits.maxRepresentationSize = 1 << 20
        XCTAssertEqual(try history.record(plain(long), preview: "filler", application: "a"), .recorded(4))
        func ids(_ matcher: History.Matcher, _ query: History.Query = History.Query()) throws -> [Int] {
            try history.search(matcher, query).entries.map(\.id)
        }
        XCTAssertEqual(try ids(.substring("needle")), [2, 1], "the preview of what was not kept counts")
        XCTAssertEqual(try ids(.substring("haystack")), [1], "case-insensitive")
        XCTAssertEqual(try ids(.substring("Ha")), [3, 1], "one or two characters: every text read")
        XCTAssertEqual(try ids(.substring("FAR-AWAY-word")), [4])
        XCTAssertEqual(try ids(.substring("nothing like it")), [])
        XCTAssertEqual(try ids(.substring("needle"), History.Query(limit: 1)), [2])
        XCTAssertEqual(try ids(.substring("needle"), History.Query(application: "a")), [1])
        // A matcher whose literal narrows, confirmed by its own test (a regular expression's).
        let exact = History.Matcher(literals: ["hay"]) { String(decoding: $0, as: UTF8.self) == "hay" }
        XCTAssertEqual(try ids(exact), [3])
        XCTAssertEqual(try ids(History.Matcher(literals: []) { String(decoding: $0, as: UTF8.self).hasSuffix("word") }), [4])
        // Deleted entries leave the index.
        try history.delete([1])
        XCTAssertEqual(try ids(.substring("haystack")), [])
        XCTAssertEqual(History.trigramQuery(["ab\"cd"]), #""ab""" AND "b""c" AND """cd""#)
        XCTAssertNil(History.trigramQuery(["ab"]))
    }

    func testFiltersByTypeSourceTimeAndPin() throws {
        let history = try history()
        _ = try history.record(plain("one"), preview: "one", application: "firefox", now: Date(timeIntervalSince1970: 100))
        _ = try history.record(markdown("two"), preview: "two", application: "editor", now: Date(timeIntervalSince1970: 200))
        _ = try history.record(Item(representations: [Representation(type: .png, data: Data([1, 2, 3]))]), preview: "[png]", application: "firefox", now: Date(timeIntervalSince1970: 300))
        func ids(_ query: History.Query) throws -> [Int] { try history.entries(query).entries.map(\.id) }
        XCTAssertEqual(try ids(History.Query(types: [.png])), [3])
        XCTAssertEqual(try ids(History.Query(types: [.utf8PlainText])), [2, 1])
        XCTAssertEqual(try ids(History.Query(types: [.html])), [2], "a type produced on paste counts")
        XCTAssertEqual(try ids(History.Query(application: "firefox")), [3, 1])
        XCTAssertEqual(try ids(History.Query(since: Date(timeIntervalSince1970: 150))), [3, 2])
        XCTAssertEqual(try ids(History.Query(limit: 1, application: "firefox")), [3])
        XCTAssertEqual(Set(try history.recordedTypes()), [.utf8PlainText, .markdown, .html, .rtf, .png])
    }

    func testRulesAndMarkersKeepContentOut() throws {
        let history = try history()
        history.rules = History.Rules(ignore: { item in item.representation(for: .png) != nil ? "no pictures" : nil })
        XCTAssertEqual(try history.record(Item(representations: [Representation(type: .png, data: Data([1]))]), preview: "p", application: nil), .notRecorded("no pictures"))
        var secret = plain("hunter2")
        secret.metadata.flags = .sensitive
        if case .notRecorded = try history.record(secret, preview: "x", application: nil) {} else { XCTFail("a sensitive item was recorded") }
        try history.pause(until: nil)
        XCTAssertEqual(try history.record(plain("paused"), preview: "p", application: nil), .notRecorded("recording is paused"))
        XCTAssertEqual(try history.pausedUntil(), .distantFuture)
        try history.resume()
        try history.pause(until: Date(timeIntervalSince1970: 2000))
        XCTAssertNil(try history.pausedUntil(now: Date(timeIntervalSince1970: 2001)))
        XCTAssertEqual(try history.record(plain("after"), preview: "a", application: nil, now: Date(timeIntervalSince1970: 2001)), .recorded(1))
        XCTAssertEqual(try history.entries().entries.count, 1)
        let database = try Data(contentsOf: URL(fileURLWithPath: root + "/history.db"))
        XCTAssertNil(database.range(of: Data("hunter2".utf8)), "a secret reached the database")
    }

    /// The folder 0700, the files 0600; a symbolic link where the database should be is refused; a
    /// reader of a history that does not exist creates nothing.
    func testPrivateFilesNoLinksAndReadersCreateNothing() throws {
        let reader = try history()
        XCTAssertEqual(try reader.entries().entries.count, 0)
        XCTAssertNil(try reader.pausedUntil())
        XCTAssertFalse(FileManager.default.fileExists(atPath: root), "a reader created the history")
        let history = try history()
        var item = plain("x")
        item.set(Representation(type: .data, data: Data(repeating: 1, count: 200_000)))
        _ = try history.record(item, preview: "x", application: nil)
        func mode(_ path: String) -> mode_t {
            var st = stat()
            lstat(path, &st)
            return st.st_mode & 0o777
        }
        XCTAssertEqual(mode(root), 0o700)
        XCTAssertEqual(mode(root + "/blobs"), 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: root) where name != "blobs" {
            XCTAssertEqual(mode(root + "/" + name), 0o600, name)
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: root + "/blobs") { XCTAssertEqual(mode(root + "/blobs/" + name), 0o600) }
        let other = root + "-other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: other) }
        try FileManager.default.moveItem(atPath: root + "/history.db", toPath: other + "/history.db")
        try FileManager.default.createSymbolicLink(atPath: root + "/history.db", withDestinationPath: other + "/history.db")
        XCTAssertThrowsError(try self.history().entries()) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .refused, "\(error)")
        }
    }

    /// Numbers and names read from the database are range-checked: a damaged record is reported and
    /// left out, never trusted.
    func testNumbersFromTheDatabaseAreRangeChecked() throws {
        let history = try history()
        for n in 1...4 { _ = try history.record(plain("entry \(n)"), preview: "\(n)", application: nil, now: Date(timeIntervalSince1970: Double(n))) }
        try history.withDatabase(create: false) { database in
            try database.connection.run("UPDATE entry SET time = 9223372036854775807 WHERE id = 1")
            try database.connection.run("UPDATE entry SET bytes = -4 WHERE id = 2")
            try database.connection.run("UPDATE representation SET type = 'bad type with spaces\nand a line' WHERE entry = 3")
            try database.connection.run("UPDATE representation SET size = 1000 WHERE entry = 4")
        }
        let (entries, problems) = try history.entries()
        XCTAssertEqual(entries.map(\.id), [4])
        XCTAssertEqual(problems.count, 3, "\(problems)")
        XCTAssertTrue(problems.allSatisfy { $0.contains("history.db") }, "\(problems)")
        XCTAssertThrowsError(try history.item(4)) { error in XCTAssertEqual((error as? PasteboardError)?.code, .corrupt) }
        // A file that is not a database.
        try Data("not a database, not at all".utf8).write(to: URL(fileURLWithPath: root + "/history.db"))
        try? FileManager.default.removeItem(atPath: root + "/history.db-wal")
        try? FileManager.default.removeItem(atPath: root + "/history.db-shm")
        XCTAssertThrowsError(try self.history().entries()) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .corrupt, "\(error)")
        }
    }

    func testExportAndImportRoundTripByteForByte() throws {
        let history = try history()
        _ = try history.record(markdown("# notes"), preview: "# notes", application: "editor", now: Date(timeIntervalSince1970: 1_700_000_000.25))
        _ = try history.record(plain("plain"), preview: "plain", application: nil, now: Date(timeIntervalSince1970: 1_700_000_100))
        var big = Item(representations: [Representation(type: .png, data: Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) }))])
        big.set(Representation(type: .html, data: Data("<img>".utf8)))
        _ = try history.record(big, preview: "[png]", application: "viewer", now: Date(timeIntervalSince1970: 1_700_000_200))
        try history.pin([2])
        func export(_ history: History) throws -> [UInt8] {
            var out: [UInt8] = []
            try history.export { record, _ in out += HistoryExchange.line(record) }
            return out
        }
        let first = try export(history)
        let lines = String(decoding: first, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(String(lines[0]), ##"{"time":"2023-11-14T22:13:20.250Z","source":"editor","representations":{"net.daringfireball.markdown":"IyBub3Rlcw==","public.utf8-plain-text":"IyBub3Rlcw=="}}"##)
        XCTAssertTrue(lines[1].contains(#""pinned":true"#))
        // Into an empty history.
        root += "-copy"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let copy = try self.history()
        var records: [History.ImportedEntry] = []
        try first.withUnsafeBytes { raw in
            var start = 0
            for (index, byte) in raw.enumerated() where byte == 0x0A {
                let record = try HistoryExchange.parse(UnsafeRawBufferPointer(rebasing: raw[start..<index]))
                var item = Item(metadata: ItemMetadata(sourceApplication: record.source))
                for representation in record.representations { item.set(Representation(type: TypeIdentifier(representation.type), data: representation.data)) }
                records.append(History.ImportedEntry(item: item, time: record.time, pinned: record.pinned, preview: "p"))
                start = index + 1
            }
        }
        XCTAssertEqual(try copy.importEntries(records).added, 3)
        XCTAssertEqual(try export(copy), first, "export → import → export gives the same bytes")
        XCTAssertEqual(try copy.importEntries(records).present, 3, "importing again adds nothing")
        XCTAssertEqual(try copy.entries().entries.count, 3)
    }

    /// A line of the exchange format is read field by field; what does not read says why.
    func testExchangeLinesAreChecked() throws {
        func parse(_ line: String) -> Result<HistoryExchange.Record, HistoryExchange.LineError> {
            var bytes = Array(line.utf8)
            return Result { try bytes.withUnsafeMutableBytes { try HistoryExchange.parse(UnsafeRawBufferPointer($0)) } }
                .mapError { $0 as! HistoryExchange.LineError }
        }
        let good = parse(#"{"time":"2026-01-02T03:04:05.5+01:00","source":"x","pinned":true,"representations":{"text/plain":"aGk=","image/png":""}}"#)
        let record = try good.get()
        XCTAssertEqual(History.milliseconds(record.time), 1_767_319_445_500)
        XCTAssertEqual(record.source, "x")
        XCTAssertTrue(record.pinned)
        XCTAssertEqual(record.representations.map(\.type), ["text/plain", "image/png"])
        XCTAssertEqual(record.representations.first?.data, Data("hi".utf8))
        XCTAssertEqual(HistoryExchange.timeString(1_767_319_445_500), "2026-01-02T02:04:05.500Z")
        XCTAssertEqual(HistoryExchange.timeString(1_767_319_445_000), "2026-01-02T02:04:05Z")
        XCTAssertEqual(HistoryExchange.timeString(-1), "1969-12-31T23:59:59.999Z")
        let bad: [(String, String)] = [
            ("", "not JSON"), ("[1]", "not a JSON object"), (#"{"representations":{"a":"aGk="}}"#, "no \"time\""),
            (#"{"time":"yesterday","representations":{"a":"aGk="}}"#, "RFC 3339"),
            (#"{"time":"10000-01-01T00:00:00Z","representations":{"a":"aGk="}}"#, "RFC 3339"),
            (#"{"time":"2026-01-01T00:00:00Z"}"#, "no \"representations\""),
            (#"{"time":"2026-01-01T00:00:00Z","representations":{}}"#, "no representation"),
            (#"{"time":"2026-01-01T00:00:00Z","representations":{"a":"not base64!"}}"#, "not base64"),
            (#"{"time":"2026-01-01T00:00:00Z","representations":{"a":"aGk=","a":"aGk="}}"#, "twice"),
            (#"{"time":"2026-01-01T00:00:00Z","representations":{"bad\ntype":"aGk="}}"#, "control character"),
            (#"{"time":"2026-01-01T00:00:00Z","source":"a\u001b[31m","representations":{"a":"aGk="}}"#, "control character"),
            (#"{"time":"2026-01-01T00:00:00Z","pinned":"yes","representations":{"a":"aGk="}}"#, "pinned"),
            (#"{"time":"2026-01-01T00:00:00Z","representations":{"a":{"b":{"c":1}}}}"#, "not JSON"),
        ]
        for (line, why) in bad {
            guard case .failure(let error) = parse(line) else { XCTFail("accepted: \(line)"); continue }
            XCTAssertTrue(error.message.contains(why), "\(line): \(error.message)")
        }
    }

    /// A transaction that grows the write-ahead log past `SQLiteConnection.largeLog` (here an import of 6 MB
    /// of text kept inline) leaves it emptied: a later command, the log's first reader, has nothing to
    /// read back. A small record leaves the log as it is (no checkpoint on every copy).
    func testALargeCommitLeavesNoLargeLogForTheNextProcess() throws {
        let history = try history()
        let text = String(repeating: "0123456789abcdef", count: 6_000)  // 96 KB, under the inline limit
        let entries = (0..<64).map { n in
            History.ImportedEntry(item: plain("\(n) " + text), time: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)), pinned: false, preview: "\(n)")
        }
        XCTAssertEqual(try history.importEntries(entries).added, 64)
        func logSize() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: root + "/history.db-wal"))?[.size] as? NSNumber)?.intValue ?? 0
        }
        XCTAssertLessThanOrEqual(logSize(), SQLiteConnection.largeLog, "the log left after a 6 MB commit")
        XCTAssertEqual(try history.record(plain("small"), preview: "small", application: nil), .recorded(65))
        XCTAssertGreaterThan(logSize(), 0, "a small record is only appended to the log")
        XCTAssertEqual(try history.entries().entries.count, 65)
    }
}

import CopyPaste
import Foundation
import Pasteboard
import History
import XCTest

/// The commit step every copy takes (`pbctl copy`, `history copy`, the personalities, `pbctl ssh`):
/// written, then recorded where no daemon records it, the history's problems handed back.
final class CopyCommitTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "/copy-commit-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private func history() throws -> History { try History(root: folder + "/history") }

    private func text(_ string: String, flags: ItemFlags = []) -> Item {
        var metadata = ItemMetadata(sourceApplication: "tests")
        metadata.flags = flags
        return Item(representations: [Representation(type: .utf8PlainText, data: Data(string.utf8))], metadata: metadata)
    }

    /// A backend a clipboard manager watches (a display's clipboard), over the in-memory one.
    private final class WatchedPasteboard: PasteboardBackend, @unchecked Sendable {
        let board = InMemoryPasteboard()
        var info: BackendInfo { BackendInfo(name: "watched") }
        var changesReachDaemons: Bool { true }
        func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int {
            try board.write(items, to: pasteboard, options: options)
        }
        func items(in pasteboard: PasteboardName) throws -> [ItemSummary] { try board.items(in: pasteboard) }
        func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data {
            try board.read(type, item: index, from: pasteboard)
        }
        func clear(_ pasteboard: PasteboardName) throws { try board.clear(pasteboard) }
        func changeCount(of pasteboard: PasteboardName) throws -> Int { try board.changeCount(of: pasteboard) }
    }

    func testACopyNobodyWatchesIsWrittenAndRecorded() throws {
        let board = InMemoryPasteboard()
        let history = try history()
        let problems = try CopyCommit.commit(
            [text("hello")], to: board, pasteboard: .general, options: CopyOptions(), registry: .standard, history: { history })
        XCTAssertTrue(problems.isEmpty, "\(problems)")
        XCTAssertEqual(try board.read(.utf8PlainText, item: 0, from: .general), Data("hello".utf8))
        XCTAssertEqual(try history.entries().entries.map(\.preview), ["hello"])
    }

    func testAHistoryThatCannotBeOpenedIsReturnedOnceAndTheCopyStands() throws {
        let board = InMemoryPasteboard()
        var opened = 0
        let problems = try CopyCommit.commit(
            [text("one"), text("two")], to: board, pasteboard: .general, options: CopyOptions(), registry: .standard,
            history: {
                opened += 1
                throw PasteboardError(.io, "the history's folder is not writable")
            })
        XCTAssertEqual(problems.map(\.message), ["copied, but not recorded in the history: the history's folder is not writable"])
        XCTAssertEqual(opened, 1)
        XCTAssertEqual(try board.items(in: .general).count, 2)
    }

    func testAnItemTheHistoryCannotRecordIsReturnedNotDropped() throws {
        // A history whose root is a file: opening is lazy, recording fails.
        let root = folder + "/not-a-folder"
        try Data("x".utf8).write(to: URL(fileURLWithPath: root))
        let history = try History(root: root)
        let problems = try CopyCommit.commit(
            [text("kept on the clipboard")], to: InMemoryPasteboard(), pasteboard: .general, options: CopyOptions(), registry: .standard,
            history: { history })
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems[0].message.hasPrefix("copied, but not recorded in the history: "), problems[0].message)
    }

    func testNothingIsRecordedWhereADaemonRecords() throws {
        let board = WatchedPasteboard()
        let problems = try CopyCommit.commit(
            [text("seen by the daemon")], to: board, pasteboard: .general, options: CopyOptions(), registry: .standard,
            history: {
                XCTFail("the history is not opened where a daemon records")
                return nil
            })
        XCTAssertTrue(problems.isEmpty)
        XCTAssertEqual(try board.read(.utf8PlainText, item: 0, from: .general), Data("seen by the daemon".utf8))
    }

    func testOnlyTheGeneralPasteboardIsRecorded() throws {
        let history = try history()
        let problems = try CopyCommit.commit(
            [text("scratch")], to: InMemoryPasteboard(), pasteboard: .primary, options: CopyOptions(), registry: .standard,
            history: { history })
        XCTAssertTrue(problems.isEmpty)
        XCTAssertEqual(try history.entries().entries.count, 0)
    }

    func testSensitiveAndVanishingContentIsNeverRecordedNorTheHistoryOpened() throws {
        var notes: [String] = []
        for (item, options) in [
            (text("hunter2", flags: .sensitive), CopyOptions()), (text("once"), { var once = CopyOptions(); once.pasteOnce = true; return once }()),
            (text("fleeting", flags: .transient), CopyOptions()),
        ] {
            let commit = CopyCommit(registry: .standard) {
                XCTFail("the history is not opened for content it never records")
                return nil
            }
            commit.note = { notes.append($0) }
            let board = InMemoryPasteboard()
            XCTAssertTrue(try commit.commit([item], to: board, pasteboard: .general, options: options).isEmpty)
            XCTAssertEqual(try board.items(in: .general).count, 1)
        }
        XCTAssertEqual(notes.count, 3, "\(notes)")
    }

    func testTheApplicationFallsBackToTheCommitsName() throws {
        let history = try history()
        let commit = CopyCommit(registry: .standard) { history }
        commit.application = "pbctl ssh: laptop"
        let item = Item(representations: [Representation(type: .utf8PlainText, data: Data("from afar".utf8))], metadata: ItemMetadata())
        XCTAssertTrue(try commit.commit([item], to: InMemoryPasteboard(), pasteboard: .general, options: CopyOptions()).isEmpty)
        XCTAssertEqual(try history.entries().entries.map(\.application), ["pbctl ssh: laptop"])
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import XCTest
import Pasteboard
import History
import PasteboardStore
@testable import ClipboardManager

/// The daemon composed over test doubles: a keeper on the in-memory pasteboard, peers that remember
/// what they hear, a history in a folder of its own.
final class ClipboardManagerTests: XCTestCase {
    var folder = ""

    override func setUp() { folder = temporaryFolder() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func history() throws -> History { try History(root: folder + "/history") }

    /// Runs the daemon on a thread until `body` is done, then stops it: its outcome.
    func runDaemon(
        _ keeper: MemoryKeeper, _ configuration: ClipboardDaemon.Configuration, _ body: () throws -> Void
    ) throws -> ClipboardKeeperRunner.Outcome {
        let readied = Mutex(false)
        let outcome = Mutex<ClipboardKeeperRunner.Outcome?>(nil)
        let configuration = UncheckedBox(configuration)
        let thread = Thread {
            let result = ClipboardDaemon.run(
                keeper, reopen: { nil }, configuration: configuration.value, ready: { readied.withLock { $0 = true } }, say: { _ in })
            outcome.withLock { $0 = result }
        }
        thread.start()
        XCTAssertTrue(eventually { readied.withLock { $0 } || outcome.withLock { $0 } != nil }, "the daemon never became ready")
        defer { keeper.stop() }
        try body()
        keeper.stop()
        XCTAssertTrue(eventually { outcome.withLock { $0 } != nil }, "the daemon did not stop")
        return try XCTUnwrap(outcome.withLock { $0 })
    }

    func testAnItemAPeerDeliversIsServedRecordedWithItsOriginAndSentToTheOtherPeersOnly() throws {
        let history = try history()
        let keeper = MemoryKeeper()
        let phone = RecordingPeer(id: "phone")
        let laptop = RecordingPeer(id: "laptop")
        var configuration = ClipboardDaemon.Configuration()
        configuration.history = history
        configuration.peers = [phone, laptop]
        let outcome = try runDaemon(keeper, configuration) {
            phone.receive("from the phone")
            XCTAssertTrue(eventually { laptop.heardTexts == ["from the phone"] })
            XCTAssertEqual(keeper.text, "from the phone")
            keeper.applicationCopied(Item.text("typed here"))
            XCTAssertTrue(eventually { laptop.heardTexts.count == 2 && phone.heardTexts == ["typed here"] })
        }
        guard case .replaced = outcome else { return XCTFail("\(outcome)") }
        // The phone was never told its own item; the laptop heard each content once, with its origin.
        XCTAssertEqual(phone.heardTexts, ["typed here"])
        XCTAssertEqual(laptop.heardTexts, ["from the phone", "typed here"])
        XCTAssertEqual(laptop.heard.withLock { $0.map(\.origin) }, [phone.origin, nil])
        XCTAssertTrue(phone.stopped.withLock { $0 } && laptop.stopped.withLock { $0 })
        // Each recorded once, the device's under its label.
        XCTAssertTrue(eventually { ((try? history.entries().entries.count) ?? 0) >= 2 })
        let entries = try history.entries().entries
        XCTAssertEqual(entries.map(\.preview).count, 2)
        XCTAssertEqual(entries.map(\.application), ["editor", "Test: phone"])
    }

    func testTheNewestHistoryEntryIsServedWhenTheClipboardIsEmptyAtStart() throws {
        let history = try history()
        try history.record(Item.text("yesterday"), preview: "yesterday", application: "editor")
        let keeper = MemoryKeeper()
        var configuration = ClipboardDaemon.Configuration()
        configuration.history = history
        let outcome = try runDaemon(keeper, configuration) {
            XCTAssertEqual(keeper.text, "yesterday")
        }
        guard case .replaced = outcome else { return XCTFail("\(outcome)") }
        // Served, not recorded again.
        XCTAssertEqual(try history.entries().entries.count, 1)
    }

    func testWhatTheKeeperRecordedItselfOnlyReachesThePeers() {
        let peer = RecordingPeer(id: "phone")
        ClipboardDaemon.tell([peer], KeptContent(item: Item.text("stored"), application: nil, selection: "clipboard", skipped: [], recorded: true))
        XCTAssertEqual(peer.heardTexts, ["stored"])
    }

    func testAPeerIsNotToldWhatCameFromIt() {
        let phone = RecordingPeer(id: "phone")
        let laptop = RecordingPeer(id: "laptop")
        let fromPhone = KeptContent(item: Item.text("a"), application: nil, selection: "clipboard", skipped: [], origin: phone.origin)
        ClipboardDaemon.tell([phone, laptop], fromPhone)
        XCTAssertEqual(phone.heardTexts, [])
        XCTAssertEqual(laptop.heardTexts, ["a"])
        let remote = ItemOrigin(.remote(host: "build-host"), label: "pbctl ssh: build-host")
        ClipboardDaemon.tell([phone, laptop], KeptContent(item: Item.text("b"), application: nil, selection: "clipboard", skipped: [], origin: remote))
        XCTAssertEqual(phone.heardTexts, ["b"])
        XCTAssertEqual(laptop.heardTexts, ["a", "b"])
    }

    func testKDEConnectIsNotSentWhatAnyDeviceSentButIsSentTheRest() {
        var configuration = ClipboardDaemon.Configuration()
        var choice = KDEConnectPeer.Choice(environment: ["XDG_STATE_HOME": folder])
        choice.name = "my laptop!"
        choice.discovery = false
        choice.bindAddress = KDEConnectPeer.bindAddress("127.0.0.1")
        configuration.addKDEConnect(choice)
        guard let peer = configuration.peers.first as? KDEConnectPeer, configuration.peers.count == 1 else {
            return XCTFail("\(configuration.peers)")
        }
        XCTAssertEqual(peer.settings.name, KDEConnectPeer.filteredName("my laptop!"))
        XCTAssertFalse(peer.settings.discovery)
        XCTAssertEqual(peer.settings.bindAddress, KDEConnectPeer.bindAddress("127.0.0.1"))
        XCTAssertEqual(peer.settings.folder, folder + "/pbctl/kdeconnect")
        XCTAssertFalse(peer.accepts(origin: ItemOrigin(.device(id: "any"), label: "KDE Connect: phone")))
        XCTAssertTrue(peer.accepts(origin: ItemOrigin(.remote(host: "h"), label: "pbctl ssh: h")))
    }

    func testADaemonWithNothingToKeepButNoPeerRefusesToStart() throws {
        final class StoreLike: ClipboardKeeping, @unchecked Sendable {
            let inner = MemoryKeeper()
            var info: BackendInfo { inner.info }
            func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int { try inner.write(items, to: pasteboard, options: options) }
            func items(in pasteboard: PasteboardName) throws -> [ItemSummary] { try inner.items(in: pasteboard) }
            func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data { try inner.read(type, item: index, from: pasteboard) }
            func clear(_ pasteboard: PasteboardName) throws { try inner.clear(pasteboard) }
            func changeCount(of pasteboard: PasteboardName) throws -> Int { try inner.changeCount(of: pasteboard) }
            func runningKeeper() throws -> String? { nil }
            func keep(_ options: KeepOptions, ready: () -> Void) throws -> KeepEnd { try inner.keep(options, ready: ready) }
            var stopDescriptor: Int32 { inner.stopDescriptor }
            var keptPlace: String { "the store" }
            var keepsOnlyForPeers: Bool { true }
        }
        let keeper = StoreLike()
        let outcome = ClipboardDaemon.run(keeper, reopen: { nil }, configuration: ClipboardDaemon.Configuration(), ready: {}, say: { _ in })
        guard case .failed(let error) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(error.code, .unavailable)
        XCTAssertEqual(keeper.inner.runs.withLock { $0 }, 0)
    }
}

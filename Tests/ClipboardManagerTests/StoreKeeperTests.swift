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

/// The store as the daemon's keeper (`FileStore+Keeping`): what a peer delivers is written and handed
/// over once, with its origin.
final class StoreKeeperTests: XCTestCase {
    func testWhatAPeerDeliversToTheStoreReachesTheOtherPeersOnceAndNeverItsOwn() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try FileStore(root: folder + "/store")
        let phone = RecordingPeer(id: "phone")
        let laptop = RecordingPeer(id: "laptop")
        var configuration = ClipboardDaemon.Configuration()
        configuration.peers = [phone, laptop]
        let readied = Mutex(false)
        let outcome = Mutex<ClipboardKeeperRunner.Outcome?>(nil)
        let box = UncheckedBox(configuration)
        let thread = Thread {
            let result = ClipboardDaemon.run(store, reopen: { nil }, configuration: box.value, ready: { readied.withLock { $0 = true } }, say: { _ in })
            outcome.withLock { $0 = result }
        }
        thread.start()
        XCTAssertTrue(eventually { readied.withLock { $0 } })
        phone.receive("from the phone")
        XCTAssertTrue(eventually { laptop.heardTexts == ["from the phone"] })
        // A local copy after it, so the store's own write has surely been seen by now.
        _ = try store.write([Item.text("copied here")], to: .general, options: CopyOptions())
        XCTAssertTrue(eventually { laptop.heardTexts.count == 2 && phone.heardTexts.count == 1 })
        _ = shutdown(store.stopDescriptor, Int32(SHUT_RDWR))
        XCTAssertTrue(eventually { outcome.withLock { $0 } != nil })
        XCTAssertEqual(String(decoding: try store.read(.utf8PlainText, item: 0, from: .general), as: UTF8.self), "copied here")
        XCTAssertEqual(laptop.heardTexts, ["from the phone", "copied here"])
        XCTAssertEqual(laptop.heard.withLock { $0.map(\.origin) }, [phone.origin, nil])
        XCTAssertEqual(phone.heardTexts, ["copied here"])
    }
}

import Foundation
import Pasteboard
import Synchronization
import XCTest

@testable import PasteboardStore

/// The store's watch (what `pbctl daemon --kdeconnect` runs without a display): each write and clear
/// is seen, with its types, and a copy to the store still records itself (nobody else sees it).
final class FileStoreWatchingTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "pbctl-store-watch-\(getpid())-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func testWritesAndClearsAreSeenWithTheirTypes() throws {
        let store = try FileStore(root: root)
        XCTAssertFalse(store.changesReachDaemons, "a copy to the store records itself")
        XCTAssertNotNil(store.watching)
        let seen = Mutex<[PasteboardChange]>([])
        let done = DispatchSemaphore(value: 0)
        let watcher = store
        Thread.detachNewThread {
            try? watcher.watch(.general) { change in
                let count = seen.withLock { $0.append(change); return $0.count }
                return count < 3
            }
            done.signal()
        }
        usleep(200_000)
        try store.write([Item(representations: [Representation(type: .utf8PlainText, data: Data("one".utf8))])], to: .general)
        usleep(300_000)
        try store.write([Item(representations: [Representation(type: .html, data: Data("<p>two</p>".utf8))])], to: .general)
        usleep(300_000)
        try store.clear(.general)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        let changes = seen.withLock { $0 }
        XCTAssertEqual(changes.map(\.types), [[.utf8PlainText], [.html], []])
        XCTAssertEqual(changes.map { $0.owner == nil }, [false, false, true])
        XCTAssertEqual(changes.map(\.changeCount), changes.map(\.changeCount).sorted())
    }
}

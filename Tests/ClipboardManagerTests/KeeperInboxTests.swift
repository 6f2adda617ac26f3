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

/// The keeper's way in: only the newest counts.
final class KeeperInboxTests: XCTestCase {
    func testOnlyTheNewestItemHandedInIsTakenAndTheDescriptorIsDrained() throws {
        let inbox = try KeeperInbox()
        let origin = ItemOrigin(.device(id: "phone"), label: "Test: phone")
        XCTAssertNil(inbox.takeNewest())
        for text in ["one", "two", "three"] { inbox.offer(OfferedItem(item: Item.text(text), origin: origin)) }
        var ready = pollfd(fd: inbox.descriptor, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&ready, 1, 0), 1)
        XCTAssertEqual(inbox.takeNewest()?.item.textForTests, "three")
        XCTAssertNil(inbox.takeNewest())
        ready.revents = 0
        XCTAssertEqual(poll(&ready, 1, 0), 0)
    }

    func testThousandsOfOffersNeverBlockTheSender() throws {
        // More wake-ups than a pipe holds: the sender goes on (a full pipe already wakes the keeper).
        let inbox = try KeeperInbox()
        let origin = ItemOrigin(.device(id: "phone"), label: "Test: phone")
        for index in 0..<100_000 { inbox.offer(OfferedItem(item: Item.text("\(index)"), origin: origin)) }
        XCTAssertEqual(inbox.takeNewest()?.item.textForTests, "99999")
    }
}

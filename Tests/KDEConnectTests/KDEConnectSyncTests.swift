import Foundation
import Pasteboard
import XCTest

@testable import KDEConnect

final class KDEConnectSyncTests: XCTestCase {
    func testLocalChangesAreSentOnceAndEchoesAreNot() {
        var sync = ClipboardSync()
        XCTAssertEqual(sync.localChange(SyncedContent(text: "a"), sensitive: false, now: 10), .send)
        XCTAssertEqual(sync.localChange(SyncedContent(text: "a"), sensitive: false, now: 11), .skip("unchanged (what was just received)"))
        XCTAssertTrue(sync.received(SyncedContent(text: "b"), now: 12))
        // The display gives our write back: not sent back.
        XCTAssertEqual(sync.localChange(SyncedContent(text: "b"), sensitive: false, now: 13), .skip("unchanged (what was just received)"))
        XCTAssertFalse(sync.received(SyncedContent(text: "b"), now: 14))
    }

    func testADeviceEchoingBackWhatWeSentIsNotAppliedAgain() {
        // The daemon no longer tells KDE Connect what a device sent (the origin says so); this guard is
        // for the other direction: a phone that sets what we sent as its clipboard and sends it back.
        var sync = ClipboardSync()
        XCTAssertEqual(sync.localChange(SyncedContent(text: "sent"), sensitive: false, now: 10), .send)
        XCTAssertFalse(sync.received(SyncedContent(text: "sent"), now: 11))
        XCTAssertTrue(sync.received(SyncedContent(text: "new on the phone"), now: 12))
    }

    func testSensitiveContentIsNeverSentNorOfferedOnConnect() {
        var sync = ClipboardSync()
        _ = sync.localChange(SyncedContent(text: "public"), sensitive: false, now: 10)
        XCTAssertEqual(sync.localChange(nil, sensitive: true, now: 20), .skip("the content is marked sensitive"))
        XCTAssertNil(sync.onConnect)
        XCTAssertEqual(sync.localChange(SyncedContent(text: "public"), sensitive: false, now: 30), .send)
    }

    func testNewestWinsOnConnectAndZeroMeansUnknown() {
        var sync = ClipboardSync()
        _ = sync.localChange(SyncedContent(text: "mine"), sensitive: false, now: 1000)
        XCTAssertEqual(sync.onConnect?.changed, 1000)
        XCTAssertFalse(sync.receivedOnConnect(SyncedContent(text: "theirs"), changed: 0, now: 2000))
        XCTAssertFalse(sync.receivedOnConnect(SyncedContent(text: "theirs"), changed: 999, now: 2000))
        XCTAssertFalse(sync.receivedOnConnect(SyncedContent(text: "theirs"), changed: 1000, now: 2000))
        XCTAssertTrue(sync.receivedOnConnect(SyncedContent(text: "theirs"), changed: 1001, now: 2000))
        XCTAssertEqual(sync.current?.text, "theirs")
    }

    func testItemsMarkedSensitiveByFlagOrMarkerAreNotForSync() {
        var flagged = Item(representations: [Representation(type: .utf8PlainText, data: Data("pw".utf8))])
        flagged.metadata.flags.insert(.sensitive)
        XCTAssertTrue(flagged.isSensitiveForSync)
        let hinted = Item(representations: [
            Representation(type: .utf8PlainText, data: Data("pw".utf8)), Representation(type: TypeIdentifier("dyn.x11.x-kde-passwordManagerHint"), data: Data("secret".utf8)),
        ])
        XCTAssertTrue(hinted.isSensitiveForSync)
        XCTAssertFalse(Item(representations: [Representation(type: .utf8PlainText, data: Data("a".utf8))]).isSensitiveForSync)
    }
}

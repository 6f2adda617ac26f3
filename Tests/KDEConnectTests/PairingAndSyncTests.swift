import Foundation
import Pasteboard
import XCTest

@testable import KDEConnect

/// The pairing state machine and the sync decisions, driven by events and times given (no socket).
final class KDEConnectPairingTests: XCTestCase {
    func testRequestAcceptedByThePeer() {
        var pairing = Pairing(paired: false)
        XCTAssertEqual(pairing.handle(.request, now: 0, wallClock: 1000, reachable: false), [.report("not reachable: the device must be on the network to pair")])
        let asked = pairing.handle(.request, now: 0, wallClock: 1000, reachable: true)
        XCTAssertEqual(asked.first, .send(pair: true, timestamp: 1000))
        XCTAssertEqual(pairing.word, "requested")
        XCTAssertEqual(pairing.handle(.received(pair: true), now: 1, wallClock: 0, reachable: true).first, .trust)
        XCTAssertTrue(pairing.isPaired)
    }

    func testAPeersRequestTimesOutAfterThirtySecondsAsKDEConnectsDoes() {
        var pairing = Pairing(paired: false)
        _ = pairing.handle(.received(pair: true), now: 100, wallClock: 0, reachable: true)
        XCTAssertEqual(pairing.word, "requested-by-peer")
        XCTAssertEqual(pairing.handle(.tick, now: 129.9, wallClock: 0, reachable: true), [])
        XCTAssertEqual(pairing.handle(.tick, now: 130, wallClock: 0, reachable: true).first, .send(pair: false, timestamp: nil))
        XCTAssertEqual(pairing.word, "unpaired")
        // Accepting now is too late.
        XCTAssertEqual(pairing.handle(.accept, now: 131, wallClock: 0, reachable: true), [.report("no pairing request to accept")])
    }

    func testAcceptRejectAndUnpair() {
        var pairing = Pairing(paired: false)
        _ = pairing.handle(.received(pair: true), now: 0, wallClock: 0, reachable: true)
        XCTAssertEqual(pairing.handle(.reject, now: 1, wallClock: 0, reachable: true).first, .send(pair: false, timestamp: nil))
        _ = pairing.handle(.received(pair: true), now: 2, wallClock: 0, reachable: true)
        XCTAssertEqual(Array(pairing.handle(.accept, now: 3, wallClock: 0, reachable: true).prefix(2)), [.send(pair: true, timestamp: nil), .trust])
        // The peer asking again while paired is answered yes (protocol 7's rule), nothing forgotten.
        XCTAssertEqual(pairing.handle(.received(pair: true), now: 4, wallClock: 0, reachable: true), [.send(pair: true, timestamp: nil)])
        XCTAssertEqual(Array(pairing.handle(.unpair, now: 5, wallClock: 0, reachable: true).prefix(2)), [.send(pair: false, timestamp: nil), .forget])
        _ = pairing.handle(.received(pair: true), now: 6, wallClock: 0, reachable: true)
        _ = pairing.handle(.accept, now: 7, wallClock: 0, reachable: true)
        XCTAssertEqual(pairing.handle(.received(pair: false), now: 8, wallClock: 0, reachable: true).first, .forget)
        XCTAssertFalse(pairing.isPaired)
    }

    func testTheLinkGoingDownEndsARequestButNotAPairing() {
        var pairing = Pairing(paired: false)
        _ = pairing.handle(.request, now: 0, wallClock: 0, reachable: true)
        XCTAssertFalse(pairing.linkLost().isEmpty)
        XCTAssertEqual(pairing.word, "unpaired")
        var paired = Pairing(paired: true)
        XCTAssertEqual(paired.linkLost(), [])
        XCTAssertTrue(paired.isPaired)
    }
}

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

final class KDEConnectRichClipboardTests: XCTestCase {
    func testEveryRepresentationTravelsInChunksAndReadsBack() throws {
        let big = Data((0..<(RichClipboard.chunkSize * 2 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var sender = RichClipboardSender(
            transfer: 9, changed: 1234, onConnect: false,
            representations: [("net.daringfireball.markdown", nil, Data("# Hi".utf8)), ("public.html", "net.daringfireball.markdown", Data("<h1>Hi</h1>".utf8)), ("public.png", nil, big), ("public.rtf", nil, Data())])
        var receiver = RichClipboardReceiver(maximumTotal: 1 << 24)
        var parts: [Int: Data] = [:]
        var finished: RichClipboard.Header?
        var packets = 0
        while let packet = sender.next(now: 0) {
            packets += 1
            let line = packet.encoded()
            XCTAssertLessThan(line.count, NetworkPacket.maximumSize)
            for output in receiver.handle(try NetworkPacket.decode(line.dropLast())) {
                switch output {
                case .bytes(let part, let data): parts[part, default: Data()].append(data)
                case .finished(let header): finished = header
                case .abandoned(let why): XCTFail(why)
                case .started: break
                }
            }
        }
        XCTAssertEqual(packets, 1 + 1 + 1 + 3 + 1)
        XCTAssertEqual(finished?.parts.map(\.type), ["net.daringfireball.markdown", "public.html", "public.png", "public.rtf"])
        XCTAssertEqual(finished?.parts[1].derivedFrom, "net.daringfireball.markdown")
        XCTAssertEqual(parts[2], big)
        XCTAssertEqual(parts[0], Data("# Hi".utf8))
    }

    func testTheReceiverRefusesWhatWasNotDeclared() throws {
        func header(_ size: Int) -> NetworkPacket {
            RichClipboard.Header(transfer: 1, changed: 0, onConnect: false, parts: [.init(type: "public.utf8-plain-text", derivedFrom: nil, size: size)]).packet(now: 0)
        }
        var receiver = RichClipboardReceiver(maximumTotal: 100)
        XCTAssertEqual(receiver.handle(header(101)).count, 1)
        XCTAssertNil(receiver.open)
        _ = receiver.handle(header(2))
        let tooMuch = RichClipboard.chunk(transfer: 1, part: 0, bytes: Data("abc".utf8), now: 0)
        XCTAssertEqual(receiver.handle(tooMuch), [.abandoned("more bytes than declared")])
        _ = receiver.handle(header(3))
        _ = receiver.handle(RichClipboard.chunk(transfer: 1, part: 0, bytes: Data("ab".utf8), now: 0))
        XCTAssertEqual(receiver.handle(RichClipboard.end(transfer: 1, now: 0)), [.abandoned("a transfer ended short")])
        _ = receiver.handle(header(1))
        XCTAssertEqual(receiver.handle(RichClipboard.chunk(transfer: 2, part: 0, bytes: Data("a".utf8), now: 0)).first, .abandoned("a chunk of another transfer, or without data"))
    }
}

import Foundation
import XCTest
@testable import PasteboardWayland
@testable import Pasteboard

/// The owner of a selection without a compositor or a pipe: events, write results and the time in,
/// actions out. Descriptors are plain numbers here.
final class WaylandOwnerStateMachineTests: XCTestCase {
    typealias Machine = WaylandOwnerStateMachine
    let second: UInt64 = 1_000_000_000
    let source: UInt32 = 6
    let text = Data("hello".utf8)
    let html = Data("<b>hello</b>".utf8)

    /// The MIME types of a type, as the backend names them.
    static func mimes(_ type: TypeIdentifier) -> [String] {
        switch type {
        case .utf8PlainText: ["text/plain;charset=utf-8", "text/plain"]
        case .html: ["text/html"]
        default: []
        }
    }

    /// A machine serving text and HTML from `source` since time 0.
    func machine(_ configuration: Machine.Configuration = .init(), sensitive: Bool = false) -> Machine {
        var machine = Machine(types: [.utf8PlainText, .html], sensitive: sensitive, mimeTypes: Self.mimes, configuration: configuration)
        machine.claimed(source: source, now: 0)
        return machine
    }

    func produce(_ content: Machine.Content) -> Data? {
        switch content {
        case .representation(0): text
        case .representation(1): html
        case .representation: nil
        case .bytes(let data): data
        }
    }

    func send(_ machine: inout Machine, _ mime: String, fd: Int32, now: UInt64 = 0, from: UInt32? = nil) -> [Machine.Action] {
        machine.handle(.send(source: from ?? source, mime: mime, fd: fd), now: now, produce: produce)
    }

    /// Writes as the pipe would take them: `taken` bytes of what is pending (nil: all of it).
    func write(_ machine: inout Machine, _ fd: Int32, taking taken: Int? = nil, now: UInt64 = 0) -> [Machine.Action] {
        guard let (data, offset) = machine.pendingWrite(fd) else { return [] }
        return machine.wrote(fd, count: min(taken ?? data.count, data.count - offset), readerGone: false, now: now)
    }

    func testOffersEachTypeUnderItsMIMETypesOnceAndTheHintForASecret() {
        let machine = Machine(
            types: [.utf8PlainText, .html, "public.plain-text", "image/x-custom", "org.example.no-mime"], sensitive: true,
            mimeTypes: { $0 == "public.plain-text" ? ["text/plain"] : Self.mimes($0) }, configuration: .init())
        XCTAssertEqual(machine.offers.map(\.mime), ["text/plain;charset=utf-8", "text/plain", "text/html", "image/x-custom"],
                       "a MIME type once, for the first representation; a type without one under its own name when it is a MIME type")
        XCTAssertEqual(machine.offers.map(\.representation), [0, 0, 1, 3])
        XCTAssertEqual(machine.offeredMIMETypes.last, "x-kde-passwordManagerHint")
        XCTAssertEqual(machine.content(for: "x-kde-passwordManagerHint"), .bytes(Data("secret".utf8)))
        XCTAssertEqual(machine.content(for: "text/plain"), .representation(0))
        XCTAssertNil(machine.content(for: "image/png"))
        let open = self.machine()
        XCTAssertFalse(open.offeredMIMETypes.contains("x-kde-passwordManagerHint"))
        XCTAssertNil(open.content(for: "x-kde-passwordManagerHint"), "no hint for content that is not secret")
    }

    func testASendIsWrittenAtOnceAndClosedWhenDone() {
        var m = machine()
        XCTAssertEqual(send(&m, "text/html", fd: 20), [.log("owner: sending text/html (12 bytes)"), .makeNonBlocking(20), .write(20)])
        XCTAssertEqual(m.transferDescriptors, [20])
        XCTAssertEqual(m.pendingWrite(20)?.data, html)
        XCTAssertEqual(write(&m, 20), [.close(20)])
        XCTAssertEqual(m.transferDescriptors, [])
        XCTAssertTrue(m.isServing, "one paste does not end the serving")
    }

    func testRefusalsCloseTheReadersDescriptor() {
        var m = machine()
        XCTAssertEqual(send(&m, "image/png", fd: 21), [.close(21), .log("owner: refused image/png")], "never offered")
        XCTAssertEqual(send(&m, "text/plain", fd: 22, from: 99), [.close(22)], "for another source")
        var failing = Machine(types: [.png], sensitive: false, mimeTypes: { _ in ["image/png"] }, configuration: .init())
        failing.claimed(source: source, now: 0)
        XCTAssertEqual(failing.handle(.send(source: source, mime: "image/png", fd: 23), now: 0, produce: { _ in nil }),
                       [.close(23), .log("owner: refused image/png")], "content that cannot be produced")
        XCTAssertEqual(m.transferDescriptors, [])
    }

    /// Several readers at once, each written as it takes the bytes: a slow one holds up nobody.
    func testTransfersProceedIndependently() {
        var m = machine()
        _ = send(&m, "text/plain", fd: 30)
        XCTAssertEqual(write(&m, 30, taking: 2, now: 1), [], "the pipe took part of it")
        _ = send(&m, "text/html", fd: 31, now: 2)
        XCTAssertEqual(write(&m, 31, taking: 0, now: 2), [])
        XCTAssertEqual(m.transferDescriptors, [30, 31])
        XCTAssertEqual(m.pendingWrite(30)?.offset, 2)
        XCTAssertEqual(write(&m, 30, now: 3), [.close(30)])
        XCTAssertEqual(write(&m, 31, now: 4), [.close(31)])
        // A reader that goes away mid-transfer: closed, and nothing more is written.
        _ = send(&m, "text/html", fd: 32, now: 5)
        XCTAssertEqual(m.wrote(32, count: 3, readerGone: true, now: 5), [.close(32)])
        XCTAssertNil(m.pendingWrite(32))
        XCTAssertEqual(m.wrote(32, count: 1, readerGone: false, now: 6), [], "a descriptor no longer written")
    }

    func testAReaderThatTakesNothingForAMinuteIsDropped() {
        var m = machine()
        _ = send(&m, "text/html", fd: 40)
        _ = write(&m, 40, taking: 0)
        XCTAssertEqual(m.nextDeadline, 60 * second)
        XCTAssertEqual(m.tick(now: 59 * second), [])
        XCTAssertEqual(write(&m, 40, taking: 1, now: 59 * second), [], "progress: the minute starts again")
        XCTAssertEqual(m.tick(now: 100 * second), [])
        let actions = m.tick(now: 120 * second)
        XCTAssertEqual(actions.first, .close(40))
        XCTAssertEqual(m.transferDescriptors, [])
        XCTAssertTrue(m.isServing, "the owner serves on")
    }

    func testCancelledEndsTheServingOnceTheTransfersAreWritten() {
        var m = machine()
        XCTAssertEqual(m.handle(.cancelled(source: 99), now: 0, produce: produce), [], "another source's")
        _ = send(&m, "text/plain", fd: 50)
        _ = write(&m, 50, taking: 1)
        XCTAssertEqual(m.handle(.cancelled(source: source), now: 1, produce: produce), [.log("owner: another client took the selection")])
        XCTAssertFalse(m.isServing)
        XCTAssertEqual(m.phase, .finishing(.cancelled))
        XCTAssertEqual(send(&m, "text/plain", fd: 51), [.close(51), .log("owner: refused text/plain: no longer serving")])
        XCTAssertEqual(write(&m, 50, now: 2), [.close(50), .stopped(.cancelled)], "the paste under way got all of it")
        XCTAssertTrue(m.isStopped)

        var idle = machine()
        XCTAssertEqual(idle.handle(.cancelled(source: source), now: 0, produce: produce),
                       [.log("owner: another client took the selection"), .stopped(.cancelled)])
    }

    /// Once the serving is over, a reader that takes nothing for 5 s is dropped: the owner does not wait
    /// a minute to exit.
    func testFinishingDropsAStalledReaderSooner() {
        var m = machine()
        _ = send(&m, "text/plain", fd: 52)
        _ = write(&m, 52, taking: 1)
        _ = m.handle(.cancelled(source: source), now: 1, produce: produce)
        XCTAssertEqual(m.nextDeadline, 5 * second)
        XCTAssertEqual(m.tick(now: 4 * second), [])
        XCTAssertEqual(m.tick(now: 6 * second).filter { if case .log = $0 { false } else { true } }, [.close(52), .stopped(.cancelled)])
    }

    func testTheSeatOrTheCompositorGoneEndsTheServing() {
        var m = machine()
        XCTAssertEqual(m.handle(.finished, now: 0, produce: produce), [.stopped(.seatGone)])
        var failed = machine()
        _ = send(&failed, "text/plain", fd: 53)
        XCTAssertEqual(failed.handle(.fatal("gone"), now: 0, produce: produce), [])
        XCTAssertEqual(failed.phase, .finishing(.failed("gone")))
        XCTAssertEqual(write(&failed, 53), [.close(53), .stopped(.failed("gone"))])
        var stopped = machine()
        XCTAssertEqual(stopped.stop(.failed("the connection failed")), [.stopped(.failed("the connection failed"))])
        XCTAssertEqual(stopped.stop(.cancelled), [], "stopped once")
        XCTAssertEqual(stopped.handle(.selection(primary: false, offer: nil), now: 0, produce: produce), [])
    }

    /// `--clear-after`: the selection is cleared at the end of the lifetime, a paste begun in time still
    /// gets everything.
    func testTheLifetimesEndClearsTheSelectionAndFinishesTransfers() {
        var m = machine(.init(lifetime: 10 * second))
        XCTAssertEqual(m.nextDeadline, 10 * second)
        XCTAssertEqual(m.tick(now: 9 * second), [])
        _ = send(&m, "text/plain", fd: 60, now: 9 * second)
        _ = write(&m, 60, taking: 1, now: 9 * second)
        XCTAssertEqual(m.tick(now: 10 * second), [.clearSelection, .log("owner: lifetime over, selection cleared")])
        XCTAssertEqual(m.phase, .finishing(.lifetimeOver))
        XCTAssertEqual(write(&m, 60, now: 11 * second), [.close(60), .stopped(.lifetimeOver)])

        var idle = machine(.init(lifetime: 1))
        XCTAssertEqual(idle.tick(now: 1), [.clearSelection, .log("owner: lifetime over, selection cleared"), .stopped(.lifetimeOver)])
        // The lifetime counts from the claim.
        var late = Machine(types: [.utf8PlainText], sensitive: false, mimeTypes: Self.mimes, configuration: .init(lifetime: 5 * second))
        late.claimed(source: source, now: 100 * second)
        XCTAssertEqual(late.nextDeadline, 105 * second)
    }

    /// `--paste-once`: the first paste written in full ends the serving, but the selection is cleared
    /// only once its reader has emptied the pipe (wl-paste 2.1 makes a round trip after asking, and a
    /// cleared selection arriving in it makes it print nothing).
    func testPasteOnceClearsTheSelectionOnceTheReaderEmptiedThePipe() {
        var m = machine(.init(pasteOnce: true, pasteLinger: 0))
        _ = send(&m, "text/plain", fd: 70)
        XCTAssertEqual(write(&m, 70), [], "written, not closed: its reader is watched")
        XCTAssertEqual(m.pasteReader, 70)
        XCTAssertEqual(m.phase, .awaitingPasteRead(reader: 70, until: 2 * second))
        XCTAssertTrue(m.isServing, "the selection is still ours")
        XCTAssertEqual(m.pasteReader(unread: 5, gone: false, now: 1), [], "the reader has not read it yet")
        XCTAssertEqual(send(&m, "text/plain", fd: 71, now: 1), [.close(71), .log("owner: refused text/plain: no longer serving")],
                       "one paste only")
        XCTAssertEqual(m.pasteReader(unread: 0, gone: false, now: 2),
                       [.close(70), .clearSelection, .log("owner: pasted once, selection cleared"), .stopped(.pastedOnce)])
        XCTAssertNil(m.pasteReader)
    }

    /// After the one paste's end of data the selection stays the owner's for a moment, refusing every
    /// other paste, then it is cleared: the reader's round trip after its end of data finds its owner
    /// there, which tells a paste that ended from one whose owner died (TransferCompleteness).
    func testPasteOnceKeepsTheSelectionAMomentAfterTheEndOfData() {
        var m = machine(.init(pasteOnce: true))
        _ = send(&m, "text/plain", fd: 90)
        _ = write(&m, 90)
        XCTAssertEqual(m.pasteReader(unread: 0, gone: false, now: 10), [.close(90)], "the reader gets its end of data")
        XCTAssertTrue(m.isServing, "the selection is still ours")
        XCTAssertEqual(m.nextDeadline, 10 + 250_000_000)
        XCTAssertEqual(send(&m, "text/plain", fd: 91, now: 11), [.close(91), .log("owner: refused text/plain: no longer serving")])
        XCTAssertEqual(m.tick(now: 10 + 250_000_000 - 1), [])
        XCTAssertEqual(m.tick(now: 10 + 250_000_000), [.clearSelection, .log("owner: pasted once, selection cleared"), .stopped(.pastedOnce)])

        // Another client taking the selection meanwhile ends it without a clearing.
        var taken = machine(.init(pasteOnce: true))
        _ = send(&taken, "text/plain", fd: 92)
        _ = write(&taken, 92)
        _ = taken.pasteReader(unread: 0, gone: false, now: 0)
        XCTAssertEqual(taken.handle(.cancelled(source: source), now: 1, produce: produce),
                       [.log("owner: another client took the selection"), .stopped(.cancelled)])
    }

    func testPasteOnceWaitsNoLongerThanItsLimitOrTheReader() {
        var gone = machine(.init(pasteOnce: true, pasteLinger: 0))
        _ = send(&gone, "text/plain", fd: 72)
        _ = write(&gone, 72)
        XCTAssertEqual(gone.pasteReader(unread: 5, gone: true, now: 1).first, .close(72), "the reader left")
        XCTAssertTrue(gone.isStopped)

        var slow = machine(.init(pasteOnce: true, pasteLinger: 0))
        _ = send(&slow, "text/plain", fd: 73)
        _ = write(&slow, 73)
        XCTAssertEqual(slow.nextDeadline, 2 * second)
        XCTAssertEqual(slow.tick(now: 2 * second - 1), [])
        XCTAssertEqual(slow.tick(now: 2 * second), [.close(73), .clearSelection, .log("owner: pasted once, selection cleared"), .stopped(.pastedOnce)])

        var file = machine(.init(pasteOnce: true, pasteLinger: 0))
        _ = send(&file, "text/plain", fd: 74)
        _ = write(&file, 74)
        XCTAssertEqual(file.pasteReader(unread: nil, gone: false, now: 0).first, .close(74), "not a pipe: what was written counts as read")
    }

    func testPasteOnceLetsOtherTransfersFinishAndYieldsToANewOwner() {
        var m = machine(.init(pasteOnce: true, pasteLinger: 0))
        _ = send(&m, "text/html", fd: 80)
        _ = write(&m, 80, taking: 1)
        _ = send(&m, "text/plain", fd: 81)
        _ = write(&m, 81)
        XCTAssertEqual(m.pasteReader, 81, "the first written in full is the one paste")
        XCTAssertEqual(m.pasteReader(unread: 0, gone: false, now: 1), [.close(81), .clearSelection, .log("owner: pasted once, selection cleared")])
        XCTAssertEqual(m.phase, .finishing(.pastedOnce))
        XCTAssertEqual(write(&m, 80), [.close(80), .stopped(.pastedOnce)], "a transfer under way is finished, not watched")

        // Another client takes the selection while the reader reads: nothing to clear (it is theirs).
        var taken = machine(.init(pasteOnce: true, pasteLinger: 0))
        _ = send(&taken, "text/plain", fd: 82)
        _ = write(&taken, 82)
        XCTAssertEqual(taken.handle(.cancelled(source: source), now: 1, produce: produce),
                       [.log("owner: another client took the selection"), .close(82), .stopped(.cancelled)])
        var seat = machine(.init(pasteOnce: true, pasteLinger: 0))
        _ = send(&seat, "text/plain", fd: 83)
        _ = write(&seat, 83)
        XCTAssertEqual(seat.handle(.finished, now: 1, produce: produce), [.close(83), .stopped(.seatGone)])
        var failed = machine(.init(pasteOnce: true, pasteLinger: 0))
        _ = send(&failed, "text/plain", fd: 84)
        _ = write(&failed, 84)
        XCTAssertEqual(failed.stop(.failed("lost")), [.close(84), .stopped(.failed("lost"))])
    }

    func testTheSecretsHintIsServedAsSuch() {
        var m = machine(sensitive: true)
        XCTAssertEqual(send(&m, "x-kde-passwordManagerHint", fd: 90), [
            .log("owner: sending x-kde-passwordManagerHint (6 bytes)"), .makeNonBlocking(90), .write(90),
        ])
        XCTAssertEqual(m.pendingWrite(90)?.data, Data("secret".utf8))
    }

    func testNothingHappensBeforeTheClaim() {
        var m = Machine(types: [.utf8PlainText], sensitive: false, mimeTypes: Self.mimes, configuration: .init(lifetime: 1))
        XCTAssertEqual(m.phase, .unclaimed)
        XCTAssertFalse(m.isServing)
        XCTAssertNil(m.nextDeadline)
        XCTAssertEqual(m.tick(now: 10 * second), [])
        XCTAssertEqual(m.handle(.send(source: 0, mime: "text/plain", fd: 5), now: 0, produce: produce),
                       [.close(5), .log("owner: refused text/plain: no longer serving")])
    }
}

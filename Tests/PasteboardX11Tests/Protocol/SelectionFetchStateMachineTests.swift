import Foundation
import XCTest

@testable import PasteboardX11

/// The clipboard manager's fetch of an owner's content, step by step, without a server: it never waits,
/// it only says what to send and what the answers mean.
final class SelectionFetchStateMachineTests: XCTestCase {
    typealias F = SelectionFetchStateMachine
    let atoms = KnownAtoms.forTesting
    let window: XWindow = 0x40
    let utf8: XAtom = 500
    let html: XAtom = 501
    let time: XTimestamp = 77
    let second: UInt64 = 1_000_000_000

    var selection: XAtom { atoms[.clipboard] }

    func fetch(_ choice: F.Choice = .snapshot, listed: [String]? = nil,
               limits: ClipboardManagerStateMachine.Limits = .snapshot) -> F {
        F(atoms: atoms, selection: selection, window: window,
          configuration: F.Configuration(choice: choice, listed: listed, limits: limits, stepTimeout: second,
                                         fetchTimeout: 8 * second))
    }

    func notify(_ target: XAtom, _ property: XAtom, to requestor: XWindow? = nil) -> SelectionNotify {
        SelectionNotify(requestor: requestor ?? window, selection: selection, target: target, property: property,
                        time: time)
    }

    func atomList(_ items: [XAtom]) -> PropertyValue {
        PropertyValue(type: PredefinedAtom.atom, format: 32, bytes: PropertyValue.bytes(of: items))
    }

    func text(_ string: String, type: XAtom = 500) -> PropertyValue {
        PropertyValue(type: type, format: 8, bytes: Data(string.utf8))
    }

    /// Runs a fetch to the point where it converts the first content target: TARGETS answered with
    /// `offered` (names, looked up as the driver would).
    func answerTargets(_ m: inout F, offered: [String]) -> [F.Action] {
        _ = m.start(now: 0, time: time)
        XCTAssertEqual(m.selectionNotify(notify(atoms[.targets], atoms[.pbctlTargets]), now: 1),
                       [.getProperty(window: window, property: atoms[.pbctlTargets], offset: 0, delete: true)])
        let fake = offered.indices.map { XAtom(900 + $0) }
        XCTAssertEqual(m.propertyValue(atomList(fake), now: 2), [.lookUpNames(fake)])
        return m.namesResolved(offered, now: 3)
    }

    func testStartAsksForTargetsIntoItsOwnProperty() {
        var m = fetch()
        XCTAssertEqual(m.start(now: 0, time: time), [
            .deleteProperty(window: window, property: atoms[.pbctlTargets]),
            .convertSelection(selection: selection, target: atoms[.targets], property: atoms[.pbctlTargets],
                              requestor: window, time: time),
        ])
        XCTAssertEqual(m.nextDeadline, second)
        XCTAssertFalse(m.isDone)
    }

    func testSnapshotFetchesTheChosenTargetsInTurnAndKeepsTheReplyTypes() {
        var m = fetch()
        XCTAssertEqual(answerTargets(&m, offered: ["TARGETS", "UTF8_STRING", "image/bmp", "text/html"]),
                       [.intern(["UTF8_STRING", "text/html"])])
        XCTAssertEqual(m.interned([utf8, html], now: 4), [
            .deleteProperty(window: window, property: atoms[.pbctlData]),
            .convertSelection(selection: selection, target: utf8, property: atoms[.pbctlData], requestor: window,
                              time: time),
        ])
        XCTAssertEqual(m.selectionNotify(notify(utf8, atoms[.pbctlData]), now: 5),
                       [.getProperty(window: window, property: atoms[.pbctlData], offset: 0, delete: true)])
        let next = m.propertyValue(text("hi"), now: 6)
        XCTAssertEqual(next.last, .convertSelection(selection: selection, target: html, property: atoms[.pbctlData],
                                                    requestor: window, time: time))
        _ = m.selectionNotify(notify(html, atoms[.pbctlData]), now: 7)
        // A reply of type None is served back under the target itself.
        let done = m.propertyValue(PropertyValue(type: 99, format: 8, bytes: Data("<b>hi</b>".utf8)), now: 8)
        XCTAssertEqual(done, [.finished(.kept([
            F.Entry(target: utf8, name: "UTF8_STRING", type: 500, format: 8, bytes: Data("hi".utf8)),
            F.Entry(target: html, name: "text/html", type: 99, format: 8, bytes: Data("<b>hi</b>".utf8)),
        ]))])
        XCTAssertTrue(m.isDone)
        XCTAssertNil(m.nextDeadline)
    }

    func testEventsForOtherWindowsAndConversionsAreIgnored() {
        var m = fetch()
        _ = m.start(now: 0, time: time)
        XCTAssertEqual(m.selectionNotify(notify(atoms[.targets], atoms[.pbctlTargets], to: 0x99), now: 1), [])
        XCTAssertEqual(m.selectionNotify(notify(utf8, atoms[.pbctlTargets]), now: 1), [])
        XCTAssertEqual(m.propertyNotify(window: 0x99, atom: atoms[.pbctlTargets], deleted: false, now: 1), [])
        XCTAssertFalse(m.isDone)
    }

    func testConcealedOrTransientMarkersEndTheFetchBeforeAnyContentIsAskedFor() {
        var m = fetch()
        XCTAssertEqual(answerTargets(&m, offered: ["UTF8_STRING", "org.nspasteboard.ConcealedType"]),
                       [.finished(.sensitive(reason: "content marked concealed or transient"))])
        var save = fetch(.save, listed: ["UTF8_STRING", "org.nspasteboard.TransientType"], limits: .save)
        XCTAssertEqual(answerTargets(&save, offered: ["UTF8_STRING"]),
                       [.finished(.sensitive(reason: "content marked concealed or transient"))],
                       "a marker in the list to save counts too")
    }

    func testKDEHintIsReadAndOnlyPublicLetsTheContentBeKept() {
        for (value, kept) in [("secret", false), ("public", true), ("", false)] {
            var m = fetch()
            let hint = answerTargets(&m, offered: ["UTF8_STRING", "x-kde-passwordManagerHint"])
            XCTAssertEqual(hint.last, .convertSelection(
                selection: selection, target: atoms[.passwordManagerHint], property: atoms[.pbctlData],
                requestor: window, time: time))
            _ = m.selectionNotify(notify(atoms[.passwordManagerHint], atoms[.pbctlData]), now: 4)
            let after = m.propertyValue(text(value, type: PredefinedAtom.string), now: 5)
            if kept {
                XCTAssertEqual(after, [.intern(["UTF8_STRING"])], "the hint itself is never kept")
            } else {
                XCTAssertEqual(after, [.finished(.sensitive(reason: "content marked secret (x-kde-passwordManagerHint)"))])
            }
        }
        // A hint the owner refuses counts as secret.
        var m = fetch()
        _ = answerTargets(&m, offered: ["UTF8_STRING", "x-kde-passwordManagerHint"])
        XCTAssertEqual(m.selectionNotify(notify(atoms[.passwordManagerHint], PredefinedAtom.none), now: 4),
                       [.finished(.sensitive(reason: "content marked secret (x-kde-passwordManagerHint)"))])
    }

    func testRefusedTargetIsSkippedAndTheNextOneFetched() {
        var m = fetch()
        _ = answerTargets(&m, offered: ["UTF8_STRING", "text/html"])
        _ = m.interned([utf8, html], now: 4)
        let next = m.selectionNotify(notify(utf8, PredefinedAtom.none), now: 5)
        XCTAssertEqual(next.first, .log("UTF8_STRING skipped: the selection owner refused the conversion"))
        XCTAssertEqual(next.last, .convertSelection(selection: selection, target: html, property: atoms[.pbctlData],
                                                    requestor: window, time: time))
    }

    func testStalledOwnerEndsTheFetchAtTheStepDeadlineWithWhatItHandedOver() {
        var m = fetch()
        _ = answerTargets(&m, offered: ["UTF8_STRING", "text/html"])
        _ = m.interned([utf8, html], now: 4)
        _ = m.selectionNotify(notify(utf8, atoms[.pbctlData]), now: 5)
        _ = m.propertyValue(text("kept"), now: 6)  // now waiting for text/html, until 6 + 1 s
        XCTAssertEqual(m.nextDeadline, 6 + second)
        XCTAssertEqual(m.tick(now: 5 + second), [], "nothing before the deadline")
        let end = m.tick(now: 6 + second)
        XCTAssertEqual(end.last, .finished(.kept([
            F.Entry(target: utf8, name: "UTF8_STRING", type: 500, format: 8, bytes: Data("kept".utf8)),
        ])))
    }

    func testTheWholeFetchHasADeadlineEvenWhenEachStepIsInTime() {
        var m = fetch()
        _ = answerTargets(&m, offered: ["UTF8_STRING"])
        _ = m.interned([utf8], now: 4)
        _ = m.selectionNotify(notify(utf8, atoms[.pbctlData]), now: 5)
        // INCR: the owner trickles chunks just inside each step's deadline.
        _ = m.propertyValue(PropertyValue(type: atoms[.incr], format: 32, bytes: PropertyValue.bytes(of: [100])), now: 6)
        var now: UInt64 = 6
        while now < 8 * second {
            now += second - 1
            _ = m.propertyNotify(window: window, atom: atoms[.pbctlData], deleted: false, now: now)
            _ = m.propertyValue(text("x"), now: now)
        }
        XCTAssertLessThanOrEqual(m.nextDeadline!, 8 * second)
        XCTAssertEqual(m.tick(now: 8 * second), [.log("deadline reached, skipped the remaining targets"),
                                                 .finished(.kept([]))])
    }

    /// Its content asked for, an owner that vanishes cut it short: the target under way and those not
    /// asked yet are listed as cut short (no keeper keeps the rest: FetchVerdict).
    func testOwnerThatVanishesMidFetchEndsItAtOnceCutShort() {
        var m = fetch()
        _ = answerTargets(&m, offered: ["UTF8_STRING", "text/html", "image/png"])
        let png: XAtom = 502
        _ = m.interned([utf8, html, png], now: 4)
        _ = m.selectionNotify(notify(utf8, atoms[.pbctlData]), now: 5)
        _ = m.propertyValue(text("whole"), now: 6)  // now waiting for text/html
        let end = m.ownerVanished(now: 7)
        XCTAssertEqual(end, [.log("text/html: its owner went away before sending all of it"), .finished(.kept([
            F.Entry(target: utf8, name: "UTF8_STRING", type: 500, format: 8, bytes: Data("whole".utf8)),
        ]))])
        XCTAssertEqual(m.skipped, [F.Skipped(target: html, name: "text/html", size: nil, cutShort: true),
                                   F.Skipped(target: png, name: "image/png", size: nil, cutShort: true)])
        XCTAssertTrue(m.isDone)
        XCTAssertEqual(m.ownerVanished(now: 8), [], "once only")
        // Before it answered TARGETS: nothing.
        var early = fetch()
        _ = early.start(now: 0, time: time)
        XCTAssertEqual(early.ownerVanished(now: 1).last,
                       .finished(.failed(reason: "the owner answered no TARGETS (the selection owner stopped answering (the owner exited))")))
    }

    func testAbandonedINCRTransferGetsAFreshWindowBeforeTheNextTarget() {
        // A chunk that cannot be read mid-INCR: the owner may go on writing chunks into the old window.
        var m = fetch()
        _ = answerTargets(&m, offered: ["text/html", "UTF8_STRING"])
        _ = m.interned([html, utf8], now: 4)
        _ = m.selectionNotify(notify(html, atoms[.pbctlData]), now: 5)
        _ = m.propertyValue(PropertyValue(type: atoms[.incr], format: 32, bytes: PropertyValue.bytes(of: [100])), now: 6)
        _ = m.propertyNotify(window: window, atom: atoms[.pbctlData], deleted: false, now: 7)
        let over = m.propertyUnreadable(now: 8)
        XCTAssertEqual(over.last, .replaceWindow(window))
        let fresh: XWindow = 0x41
        XCTAssertEqual(m.windowReplaced(fresh, now: 9), [
            .deleteProperty(window: fresh, property: atoms[.pbctlData]),
            .convertSelection(selection: selection, target: utf8, property: atoms[.pbctlData], requestor: fresh,
                              time: time),
        ])
        XCTAssertEqual(m.window, fresh)
        XCTAssertEqual(m.skipped, [], "not left out for its size")
    }

    /// Issue 46: an owner that dies in the middle of an INCR transfer: nothing of the target is kept,
    /// and it is listed as cut short (as on Wayland), with the targets after it.
    func testAnOwnerDyingMidINCRListsItsTargetsAsCutShort() {
        var m = fetch()
        startINCR(&m, offered: ["UTF8_STRING", "text/html"], targets: [utf8, html])
        XCTAssertEqual(chunk(&m, "first chunk", now: 7), [])
        XCTAssertEqual(m.ownerVanished(now: 8), [.log("UTF8_STRING: its owner went away before sending all of it"),
                                                 .finished(.kept([]))])
        XCTAssertEqual(m.skipped.map(\.cutShort), [true, true])
        XCTAssertEqual(m.skipped.map(\.name), ["UTF8_STRING", "text/html"])
        XCTAssertNil(m.nextDeadline)
        // A stalled owner (the step's deadline) is no death: what it handed over stays, nothing is cut short.
        var stalled = fetch()
        startINCR(&stalled, offered: ["UTF8_STRING", "text/html"], targets: [utf8, html])
        _ = chunk(&stalled, "first chunk", now: 7)
        XCTAssertEqual(stalled.tick(now: 7 + second).last, .finished(.kept([])))
        XCTAssertEqual(stalled.skipped, [])
    }

    /// Answers TARGETS with `count` private atoms (10_000 + n), then `tail`, in one plain reply.
    func answerLongTargets(_ m: inout F, count: Int, tail: [XAtom]) -> [F.Action] {
        _ = m.start(now: 0, time: time)
        _ = m.selectionNotify(notify(atoms[.targets], atoms[.pbctlTargets]), now: 1)
        let listed = (0..<count).map { XAtom(10_000 + $0) } + tail
        return m.propertyValue(atomList(listed), now: 2)
    }

    /// Issue 46: a TARGETS reply over 64 KB (20,000 targets) kept nothing. It is read whole up to
    /// 1 MB; with more targets than names looked up (4,096), pbctl's own atoms and the preferred
    /// names (interned) are found wherever they are, the rest looked up in the order offered.
    func testALongTargetsListIsReadAndItsTextAndImagesFound() {
        var m = fetch(.save, limits: .save)
        let png: XAtom = 7_000
        let found = answerLongTargets(&m, count: 20_000, tail: [png, atoms[.utf8String], atoms[.utf8String]])
        XCTAssertEqual(found, [.intern(ClipboardManagerStateMachine.preferredNames)])
        let preferred = ClipboardManagerStateMachine.preferredNames.map { $0 == "image/png" ? png : XAtom(8_000 + $0.count) }
        let lookUp = m.interned(preferred, now: 3)
        let expected = (0..<4096).map { XAtom(10_000 + $0) } + [png, atoms[.utf8String]]
        XCTAssertEqual(lookUp, [.log("TARGETS lists 20002 targets: the names of 4098 are looked up"), .lookUpNames(expected)])
        let names = (0..<4096).map { "x-private/\($0)" } + ["image/png", "UTF8_STRING"]
        let chosen = m.namesResolved(names, now: 4)
        guard case .intern(let asked)? = chosen.last else { return XCTFail("\(chosen)") }
        XCTAssertEqual(Array(asked.prefix(3)), ["UTF8_STRING", "image/png", "x-private/0"])
        XCTAssertEqual(asked.count, 64)
    }

    /// Over 1 MB, TARGETS is cut there and its head used (it kept nothing at all over 64 KB).
    func testATargetsListOverTheByteBoundIsCutAndItsHeadUsed() {
        var m = fetch(.save, limits: .save)
        let found = answerLongTargets(&m, count: 300_000, tail: [atoms[.utf8String]])
        XCTAssertEqual(found.first, .log("TARGETS longer than 1048576 bytes: its first 262144 targets are used"))
        XCTAssertEqual(found.last, .intern(ClipboardManagerStateMachine.preferredNames))
        // A short list is looked up at once, as before.
        var short = fetch()
        XCTAssertEqual(answerLongTargets(&short, count: 3, tail: [atoms[.utf8String]]),
                       [.lookUpNames([10_000, 10_001, 10_002, atoms[.utf8String]])])
    }

    /// Starts the INCR transfer of the first of `offered`'s targets (atoms `targets`).
    func startINCR(_ m: inout F, offered: [String], targets: [XAtom], now: UInt64 = 4) {
        _ = answerTargets(&m, offered: offered)
        _ = m.interned(targets, now: now)
        _ = m.selectionNotify(notify(targets[0], atoms[.pbctlData]), now: now + 1)
        _ = m.propertyValue(PropertyValue(type: atoms[.incr], format: 32, bytes: PropertyValue.bytes(of: [100])), now: now + 2)
    }

    /// The owner's next INCR chunk: its PropertyNotify, then the value read (and deleted).
    func chunk(_ m: inout F, _ value: String, now: UInt64) -> [F.Action] {
        XCTAssertEqual(m.propertyNotify(window: m.window, atom: atoms[.pbctlData], deleted: false, now: now),
                       [.getProperty(window: m.window, property: atoms[.pbctlData], offset: 0, delete: true)])
        return m.propertyValue(text(value), now: now)
    }

    /// xclip copying more than the cap waited forever for the deletion of a chunk nobody read (the
    /// clipboard froze): the rest is now read and dropped to the end, the owner released, and the
    /// target listed as skipped with its size; the next target comes on the same window.
    func testAnINCRTransferOverTheCapIsDrainedToItsEndAndReportedWithItsSize() {
        let limits = ClipboardManagerStateMachine.Limits(maxTargetBytes: 4, maxTotalBytes: 100, maxTargets: 10)
        var m = fetch(limits: limits)
        startINCR(&m, offered: ["UTF8_STRING", "text/html"], targets: [utf8, html])
        XCTAssertEqual(chunk(&m, "abc", now: 7), [])
        XCTAssertEqual(chunk(&m, "defg", now: 8), [], "over the cap: drained, not abandoned")
        XCTAssertEqual(chunk(&m, "hijk", now: 9), [])
        XCTAssertEqual(m.nextDeadline, 9 + second, "each chunk has its deadline")
        XCTAssertEqual(chunk(&m, "", now: 10), [
            .log("UTF8_STRING skipped: 11 bytes, over the limit"),
            .deleteProperty(window: window, property: atoms[.pbctlData]),
            .convertSelection(selection: selection, target: html, property: atoms[.pbctlData], requestor: window,
                              time: time),
        ])
        XCTAssertEqual(m.skipped, [F.Skipped(target: utf8, name: "UTF8_STRING", size: 11)])
        _ = m.selectionNotify(notify(html, atoms[.pbctlData]), now: 11)
        XCTAssertEqual(m.propertyValue(text("hi"), now: 12), [.finished(.kept([
            F.Entry(target: html, name: "text/html", type: 500, format: 8, bytes: Data("hi".utf8)),
        ]))])
    }

    func testADrainGoesOnPastTheFetchDeadlineUntilItsOwn() {
        let limits = ClipboardManagerStateMachine.Limits(maxTargetBytes: 4, maxTotalBytes: 100, maxTargets: 10)
        var m = F(atoms: atoms, selection: selection, window: window,
                  configuration: F.Configuration(choice: .snapshot, limits: limits, stepTimeout: second,
                                                 fetchTimeout: 8 * second, drainTimeout: 20 * second))
        startINCR(&m, offered: ["UTF8_STRING", "text/html"], targets: [utf8, html])
        XCTAssertEqual(chunk(&m, "abcdefgh", now: 7), [])
        // The owner goes on sending, each chunk in time, past the fetch's deadline: still drained.
        var now: UInt64 = 7
        var sent = 8
        while now < 10 * second {
            now += second - 1
            XCTAssertEqual(m.tick(now: now), [])
            XCTAssertEqual(chunk(&m, "x", now: now), [])
            sent += 1
        }
        XCTAssertFalse(m.isDone)
        // Its end, past the fetch's deadline: nothing more is fetched.
        XCTAssertEqual(chunk(&m, "", now: now), [
            .log("UTF8_STRING skipped: \(sent) bytes, over the limit"),
            .log("deadline reached, skipped the remaining targets"), .finished(.kept([])),
        ])
        XCTAssertEqual(m.skipped, [F.Skipped(target: utf8, name: "UTF8_STRING", size: sent)])

        // An owner that never ends: given up at the drain's deadline, its size unknown.
        var endless = F(atoms: atoms, selection: selection, window: window,
                        configuration: F.Configuration(choice: .snapshot, limits: limits, stepTimeout: second,
                                                       fetchTimeout: 8 * second, drainTimeout: 20 * second))
        startINCR(&endless, offered: ["UTF8_STRING"], targets: [utf8])
        XCTAssertEqual(chunk(&endless, "abcdefgh", now: 7), [])
        now = 7
        while now < 20 * second {
            now += second - 1
            _ = chunk(&endless, "x", now: now)
        }
        XCTAssertLessThanOrEqual(endless.nextDeadline!, 7 + 20 * second)
        XCTAssertEqual(endless.tick(now: 7 + 20 * second).last, .finished(.kept([])))
        XCTAssertTrue(endless.isDone)
        XCTAssertEqual(endless.skipped, [F.Skipped(target: utf8, name: "UTF8_STRING", size: nil)])
    }

    func testAnINCRTransferPastTheTotalCapIsDrainedToo() {
        let limits = ClipboardManagerStateMachine.Limits(maxTargetBytes: 100, maxTotalBytes: 6, maxTargets: 10)
        var m = fetch(limits: limits)
        startINCR(&m, offered: ["UTF8_STRING", "text/html"], targets: [utf8, html])
        XCTAssertEqual(chunk(&m, "abcd", now: 7), [])
        XCTAssertEqual(chunk(&m, "efgh", now: 8), [.log("UTF8_STRING skipped: more than 6 bytes in all")])
        XCTAssertEqual(chunk(&m, "ij", now: 9), [])
        XCTAssertEqual(chunk(&m, "", now: 10).last,
                       .convertSelection(selection: selection, target: html, property: atoms[.pbctlData], requestor: window,
                                         time: time))
        XCTAssertEqual(m.skipped, [F.Skipped(target: utf8, name: "UTF8_STRING", size: 10)])
    }

    func testAPlainReplyOverTheCapIsSkippedWithItsSize() {
        let limits = ClipboardManagerStateMachine.Limits(maxTargetBytes: 4, maxTotalBytes: 100, maxTargets: 10)
        var m = fetch(limits: limits)
        _ = answerTargets(&m, offered: ["image/png"])
        _ = m.interned([html], now: 4)
        _ = m.selectionNotify(notify(html, atoms[.pbctlData]), now: 5)
        let end = m.propertyValue(PropertyValue(type: 99, format: 8, bytes: Data("abcd".utf8), bytesAfter: 1000), now: 6)
        XCTAssertEqual(end.last, .finished(.kept([])))
        XCTAssertEqual(m.skipped, [F.Skipped(target: html, name: "image/png", size: 1004)])
    }

    func testTotalCapSkipsWhatNoLongerFits() {
        let limits = ClipboardManagerStateMachine.Limits(maxTargetBytes: 100, maxTotalBytes: 6, maxTargets: 10)
        var m = fetch(limits: limits)
        _ = answerTargets(&m, offered: ["UTF8_STRING", "text/html"])
        _ = m.interned([utf8, html], now: 4)
        _ = m.selectionNotify(notify(utf8, atoms[.pbctlData]), now: 5)
        _ = m.propertyValue(text("1234"), now: 6)
        _ = m.selectionNotify(notify(html, atoms[.pbctlData]), now: 7)
        let end = m.propertyValue(text("56789"), now: 8)
        XCTAssertEqual(end, [.log("text/html skipped: more than 6 bytes in all"), .finished(.kept([
            F.Entry(target: utf8, name: "UTF8_STRING", type: 500, format: 8, bytes: Data("1234".utf8)),
        ]))])
    }

    func testSaveWithAListTriesItWhenTheOwnerRefusesTargets() {
        var m = fetch(.save, listed: ["text/html", "TARGETS", "UTF8_STRING"], limits: .save)
        _ = m.start(now: 0, time: time)
        XCTAssertEqual(m.selectionNotify(notify(atoms[.targets], PredefinedAtom.none), now: 1),
                       [.intern(["UTF8_STRING", "text/html"])])
        var plain = fetch()
        _ = plain.start(now: 0, time: time)
        XCTAssertEqual(plain.selectionNotify(notify(atoms[.targets], PredefinedAtom.none), now: 1),
                       [.finished(.failed(reason: "the owner answered no TARGETS (the selection owner refused the conversion)"))])
    }

    func testSaveTakesEverythingAndPrimaryTextOnlyPlainText() {
        let offered = ["TARGETS", "text/html", "UTF8_STRING", "image/png", "application/x-custom", "text/plain;charset=utf-8"]
        var save = fetch(.save, limits: .save)
        XCTAssertEqual(answerTargets(&save, offered: offered),
                       [.intern(["UTF8_STRING", "text/plain;charset=utf-8", "text/html", "image/png",
                                 "application/x-custom"])])
        var text = fetch(.text)
        XCTAssertEqual(answerTargets(&text, offered: offered), [.intern(["UTF8_STRING", "text/plain;charset=utf-8"])])
        var nothing = fetch(.text)
        XCTAssertEqual(answerTargets(&nothing, offered: ["TARGETS", "image/png"]), [.finished(.kept([]))])
    }
}

import Foundation
import XCTest

@testable import PasteboardX11

/// ICCCM §2.4 and §2.7.2 requestor behaviour, without a server.
final class ConversionStateMachineTests: XCTestCase {
    let window: XWindow = 0x10
    let selection: XAtom = 70
    let target: XAtom = 71
    let property: XAtom = 72
    let incr: XAtom = 73
    let utf8: XAtom = 74

    func machine(maxBytes: Int = 1 << 30, drains: Bool = false) -> ConversionStateMachine {
        ConversionStateMachine(window: window, selection: selection, target: target, property: property,
                               incrAtom: incr, stepTimeout: 100, maxBytes: maxBytes, drainsOverLimit: drains)
    }

    /// A machine reading an INCR transfer, waiting for its first chunk.
    func incrTransfer(maxBytes: Int, drains: Bool = true) -> ConversionStateMachine {
        var m = machine(maxBytes: maxBytes, drains: drains)
        _ = m.start(now: 0, time: 1)
        _ = m.selectionNotify(notify(property), now: 1)
        _ = m.propertyValue(PropertyValue(type: incr, format: 32, bytes: PropertyValue.bytes(of: [12])), now: 2)
        return m
    }

    /// The owner's next INCR chunk: its PropertyNotify, then the value read (and deleted).
    func chunk(_ m: inout ConversionStateMachine, _ text: String, now: UInt64) -> ConversionStateMachine.Actions {
        XCTAssertEqual(m.propertyNotify(window: window, atom: property, deleted: false, now: now),
                       [.getProperty(window: window, property: property, offset: 0, delete: true)])
        return m.propertyValue(PropertyValue(type: utf8, format: 8, bytes: Data(text.utf8)), now: now)
    }

    func notify(_ property: XAtom) -> SelectionNotify {
        SelectionNotify(requestor: window, selection: selection, target: target, property: property, time: 9)
    }

    func testICCCM2_4StartDeletesThePropertyThenConverts() {
        var m = machine()
        XCTAssertEqual(m.start(now: 0, time: 42), [
            .deleteProperty(window: window, property: property),
            .convertSelection(selection: selection, target: target, property: property, requestor: window, time: 42),
        ])
        XCTAssertEqual(m.nextDeadline, 100)
    }

    func testRefusalFails() {
        var m = machine()
        _ = m.start(now: 0, time: 1)
        XCTAssertEqual(m.selectionNotify(notify(0), now: 1), [.failed(.refused)])
    }

    func testNotificationsForOtherConversionsAreIgnored() {
        var m = machine()
        _ = m.start(now: 0, time: 1)
        var other = notify(property)
        other.target = 99
        XCTAssertEqual(m.selectionNotify(other, now: 1), [])
        XCTAssertEqual(m.phase, .awaitingNotify)
    }

    func testSimpleReplyIsReadWithDeleteAndAnyType() {
        var m = machine()
        _ = m.start(now: 0, time: 1)
        XCTAssertEqual(m.selectionNotify(notify(property), now: 1), [.getProperty(window: window, property: property, offset: 0, delete: true)])
        // An owner that answers with an unexpected type (xclip answers every target with its own type).
        let actions = m.propertyValue(PropertyValue(type: 555, format: 8, bytes: Data("hi".utf8)), now: 2)
        XCTAssertEqual(actions, [.deliver(Data("hi".utf8)), .finished(type: 555, format: 8)])
    }

    func testPartialReadsContinueAtTheOffset() {
        var m = machine()
        _ = m.start(now: 0, time: 1)
        _ = m.selectionNotify(notify(property), now: 1)
        let first = m.propertyValue(PropertyValue(type: utf8, format: 8, bytes: Data(repeating: 1, count: 8), bytesAfter: 3), now: 2)
        XCTAssertEqual(first, [.deliver(Data(repeating: 1, count: 8)), .getProperty(window: window, property: property, offset: 2, delete: true)])
        let second = m.propertyValue(PropertyValue(type: utf8, format: 8, bytes: Data([2, 2, 2])), now: 3)
        XCTAssertEqual(second, [.deliver(Data([2, 2, 2])), .finished(type: utf8, format: 8)])
    }

    func testICCCM2_7_2IncrReadsChunksUntilZeroLength() {
        var m = machine()
        _ = m.start(now: 0, time: 1)
        _ = m.selectionNotify(notify(property), now: 1)
        XCTAssertEqual(m.propertyValue(PropertyValue(type: incr, format: 32, bytes: PropertyValue.bytes(of: [0])), now: 2), [])
        XCTAssertEqual(m.phase, .awaitingChunk)
        XCTAssertEqual(m.nextDeadline, 102)
        XCTAssertEqual(m.propertyNotify(window: window, atom: property, deleted: true, now: 3), [], "our own deletion")
        XCTAssertEqual(m.propertyNotify(window: window, atom: property, deleted: false, now: 4),
                       [.getProperty(window: window, property: property, offset: 0, delete: true)])
        XCTAssertEqual(m.propertyValue(PropertyValue(type: utf8, format: 8, bytes: Data("ab".utf8)), now: 5), [.deliver(Data("ab".utf8))])
        _ = m.propertyNotify(window: window, atom: property, deleted: false, now: 6)
        XCTAssertEqual(m.propertyValue(PropertyValue(type: utf8, format: 8, bytes: Data()), now: 7), [.finished(type: utf8, format: 8)])
        XCTAssertTrue(m.usedIncr)
    }

    func testOwnerThatStallsTimesOutAtEachStep() {
        var m = machine()
        _ = m.start(now: 0, time: 1)
        XCTAssertEqual(m.tick(now: 99), [])
        XCTAssertEqual(m.tick(now: 100), [.deleteProperty(window: window, property: property), .failed(.timedOut(phase: "waiting for the owner to answer"))])

        var n = machine()
        _ = n.start(now: 0, time: 1)
        _ = n.selectionNotify(notify(property), now: 1)
        _ = n.propertyValue(PropertyValue(type: incr, format: 32, bytes: PropertyValue.bytes(of: [9])), now: 10)
        XCTAssertEqual(n.tick(now: 109), [])
        XCTAssertEqual(n.tick(now: 110).last, .failed(.timedOut(phase: "waiting for the next INCR chunk")))
    }

    func testSizeCapStopsTheTransfer() {
        var m = machine(maxBytes: 3)
        _ = m.start(now: 0, time: 1)
        _ = m.selectionNotify(notify(property), now: 1)
        XCTAssertEqual(m.propertyValue(PropertyValue(type: utf8, format: 8, bytes: Data("abcd".utf8)), now: 2).last, .failed(.tooLarge(limit: 3)))
    }

    /// The owner of an INCR transfer writes each chunk only once the last one is deleted: one over the
    /// cap is read (and deleted) to its end without being delivered, or the owner waits forever.
    func testOverTheCapAnINCRTransferIsDrainedToItsEnd() {
        var m = incrTransfer(maxBytes: 6)
        XCTAssertEqual(chunk(&m, "abcd", now: 3), [.deliver(Data("abcd".utf8))])
        XCTAssertEqual(chunk(&m, "efgh", now: 4), [], "over the cap: nothing more delivered")
        XCTAssertTrue(m.isDiscarding)
        XCTAssertEqual(m.phase, .awaitingChunk)
        XCTAssertEqual(m.nextDeadline, 104, "each chunk still has its deadline")
        XCTAssertEqual(chunk(&m, "ijkl", now: 5), [])
        XCTAssertNil(m.replySize)
        // The zero-length chunk ends it (already deleted by the read): too large, with its size.
        XCTAssertEqual(chunk(&m, "", now: 6), [.failed(.tooLarge(limit: 6))])
        XCTAssertEqual(m.replySize, 12)
        XCTAssertNil(m.nextDeadline)
        XCTAssertTrue(m.isDone)
    }

    func testWithoutDrainingAnINCRTransferOverTheCapFailsAtOnce() {
        var m = incrTransfer(maxBytes: 6, drains: false)
        _ = chunk(&m, "abcd", now: 3)
        XCTAssertEqual(chunk(&m, "efgh", now: 4), [.deleteProperty(window: window, property: property), .failed(.tooLarge(limit: 6))])
        XCTAssertFalse(m.isDiscarding)
    }

    func testAPlainReplyOverTheCapFailsAtOnceWithItsSize() {
        var m = machine(maxBytes: 6, drains: true)
        _ = m.start(now: 0, time: 1)
        _ = m.selectionNotify(notify(property), now: 1)
        XCTAssertEqual(m.propertyValue(PropertyValue(type: utf8, format: 8, bytes: Data("abcd".utf8), bytesAfter: 96), now: 2),
                       [.deleteProperty(window: window, property: property), .failed(.tooLarge(limit: 6))])
        XCTAssertEqual(m.replySize, 100)
    }

    func testDiscardRestDrainsOnlyAnINCRTransferUnderWay() {
        var m = incrTransfer(maxBytes: 100)
        XCTAssertEqual(chunk(&m, "abcd", now: 3), [.deliver(Data("abcd".utf8))])
        XCTAssertTrue(m.discardRest())
        XCTAssertEqual(chunk(&m, "efgh", now: 4), [])
        XCTAssertEqual(chunk(&m, "", now: 5), [.failed(.tooLarge(limit: 100))])
        XCTAssertEqual(m.replySize, 8)
        var plain = machine(maxBytes: 100, drains: true)
        _ = plain.start(now: 0, time: 1)
        _ = plain.selectionNotify(notify(property), now: 1)
        XCTAssertFalse(plain.discardRest(), "a plain reply leaves no owner waiting")
        XCTAssertFalse(plain.isDiscarding)
    }

    /// Truncating (a TARGETS list): over the cap, the head is delivered, the rest of a plain reply or an
    /// INCR transfer is read without being delivered, and the conversion finishes.
    func testTruncatingDeliversTheHeadAndFinishes() {
        var plain = ConversionStateMachine(window: window, selection: selection, target: target, property: property,
                                           incrAtom: incr, stepTimeout: 100, maxBytes: 8, truncatesOverLimit: true)
        _ = plain.start(now: 0, time: 1)
        _ = plain.selectionNotify(notify(property), now: 1)
        XCTAssertEqual(plain.propertyValue(PropertyValue(type: utf8, format: 8, bytes: Data("0123456789ab".utf8)), now: 2),
                       [.deliver(Data("01234567".utf8)), .finished(type: utf8, format: 8)])
        XCTAssertTrue(plain.isTruncated)
        var chunked = ConversionStateMachine(window: window, selection: selection, target: target, property: property,
                                             incrAtom: incr, stepTimeout: 100, maxBytes: 8, truncatesOverLimit: true)
        _ = chunked.start(now: 0, time: 1)
        _ = chunked.selectionNotify(notify(property), now: 1)
        _ = chunked.propertyValue(PropertyValue(type: incr, format: 32, bytes: PropertyValue.bytes(of: [12])), now: 2)
        XCTAssertEqual(chunk(&chunked, "0123", now: 3), [.deliver(Data("0123".utf8))])
        XCTAssertEqual(chunk(&chunked, "456789", now: 4), [.deliver(Data("4567".utf8))])
        XCTAssertEqual(chunk(&chunked, "more", now: 5), [], "read to its end, not delivered")
        XCTAssertEqual(chunk(&chunked, "", now: 6), [.finished(type: utf8, format: 8)])
        XCTAssertTrue(chunked.isTruncated)
        XCTAssertEqual(chunked.replySize, 14)
    }

    func testMissingReplyPropertyFails() {
        var m = machine()
        _ = m.start(now: 0, time: 1)
        _ = m.selectionNotify(notify(property), now: 1)
        XCTAssertEqual(m.propertyValue(PropertyValue(type: 0, format: 0, bytes: Data()), now: 2).last, .failed(.malformed("the reply property does not exist")))
    }

    /// Each step's actions are held inline, at most two, in order, and a GetProperty is always the last
    /// of its list (the reader replaces the list with the answer's actions).
    func testEachStepAsksForAtMostTwoActionsWithGetPropertyLast() {
        func check(_ actions: ConversionStateMachine.Actions, _ step: String) {
            XCTAssertLessThanOrEqual(actions.count, 2, step)
            for (position, action) in actions.enumerated() {
                if case .getProperty = action { XCTAssertEqual(position, actions.count - 1, step) }
            }
        }
        var m = machine()
        check(m.start(now: 0, time: 1), "start")
        check(m.selectionNotify(notify(property), now: 1), "notify")
        check(m.propertyValue(PropertyValue(type: utf8, format: 8, bytes: Data("ab".utf8), bytesAfter: 4), now: 2), "partial read")
        check(m.propertyValue(PropertyValue(type: utf8, format: 8, bytes: Data("cdef".utf8)), now: 3), "last read")
        var incr = incrTransfer(maxBytes: 4)
        check(chunk(&incr, "toolong", now: 3), "over the limit")
        var empty = ConversionStateMachine.Actions()
        XCTAssertTrue(empty.isEmpty)
        empty.append(.deliver(Data("x".utf8)))
        XCTAssertEqual(empty, [.deliver(Data("x".utf8))])
        XCTAssertNotEqual(empty, [])
    }
}

import Foundation
import Pasteboard
import XCTest

@testable import PasteboardX11

/// A content source backed by a dictionary, counting how often each target is produced.
final class TableSource: SelectionContentSource {
    var table: [XAtom: ServedContent]
    var produced: [XAtom: Int] = [:]
    init(_ table: [XAtom: ServedContent]) { self.table = table }
    var targets: [XAtom] { table.keys.sorted() }
    func content(for target: XAtom) -> ServedContent? {
        produced[target, default: 0] += 1
        return table[target]
    }
}

/// ICCCM §2.2, §2.6.2 and §2.7.2 owner behaviour, without a server.
final class SelectionOwnerStateMachineTests: XCTestCase {
    let atoms = KnownAtoms.forTesting
    let owner: XWindow = 0x100
    let requestor: XWindow = 0x200
    let html: XAtom = 5000
    let prop: XAtom = 6000
    var clipboard: XAtom { atoms[.clipboard] }

    func machine(threshold: Int = 100, chunk: Int = 40, source: TableSource? = nil) -> (SelectionOwnerStateMachine, TableSource) {
        let source = source ?? TableSource([html: ServedContent(type: html, bytes: Data("<b>x</b>".utf8))])
        var machine = SelectionOwnerStateMachine(
            atoms: atoms,
            configuration: .init(incrThreshold: threshold, chunkSize: chunk, stepTimeout: 1000, maxTransfers: 4,
                                 maxTransfersPerWindow: 2))
        machine.claimed(clipboard, window: owner, time: 500, source: source)
        return (machine, source)
    }

    func request(_ target: XAtom, property: XAtom? = nil, time: XTimestamp = 0, requestor: XWindow? = nil) -> SelectionRequest {
        SelectionRequest(owner: owner, requestor: requestor ?? self.requestor, selection: clipboard, target: target,
                         property: property ?? prop, time: time)
    }

    func replyWrites(_ actions: [SelectionOwnerStateMachine.Action]) -> ([PropertyWrite], SelectionNotify)? {
        for case .reply(let writes, let notify) in actions { return (writes, notify) }
        return nil
    }

    func refusal(_ actions: [SelectionOwnerStateMachine.Action]) -> SelectionNotify? {
        for case .sendNotify(let notify) in actions where notify.property == 0 { return notify }
        return nil
    }

    func testICCCM2_6_2TargetsListsProtocolTargetsThenContentAsAtom32() throws {
        var (m, _) = machine()
        let (writes, notify) = try XCTUnwrap(replyWrites(m.handle(request(atoms[.targets]), now: 0)))
        XCTAssertEqual(writes[0].type, PredefinedAtom.atom)
        XCTAssertEqual(writes[0].format, 32)
        let list = PropertyValue(type: 4, format: 32, bytes: writes[0].bytes).items32
        XCTAssertEqual(list, [atoms[.targets], atoms[.timestamp], atoms[.multiple], atoms[.saveTargets], html])
        XCTAssertEqual(notify.property, prop)
        XCTAssertEqual(notify.target, atoms[.targets])
    }

    func testICCCM2_6_2TimestampIsTheAcquisitionTimeAsInteger() throws {
        var (m, _) = machine()
        let (writes, _) = try XCTUnwrap(replyWrites(m.handle(request(atoms[.timestamp]), now: 0)))
        XCTAssertEqual(writes[0].type, PredefinedAtom.integer)
        XCTAssertEqual(PropertyValue(type: 19, format: 32, bytes: writes[0].bytes).items32, [500])
    }

    func testContentReplyCarriesTheRequestedTypeAndCompletes() throws {
        var (m, _) = machine()
        let actions = m.handle(request(html), now: 0)
        let (writes, notify) = try XCTUnwrap(replyWrites(actions))
        XCTAssertEqual(writes, [PropertyWrite(window: requestor, property: prop, type: html, format: 8, bytes: Data("<b>x</b>".utf8))])
        XCTAssertEqual(notify, SelectionNotify(requestor: requestor, selection: clipboard, target: html, property: prop, time: 0))
        XCTAssertTrue(actions.contains(.transferCompleted(TransferKey(window: requestor, property: prop), target: html)))
    }

    func testUnknownTargetIsRefusedWithPropertyNone() {
        var (m, _) = machine()
        XCTAssertNotNil(refusal(m.handle(request(7777), now: 0)))
    }

    func testTargetWhoseConversionFailsIsRefused() {
        let source = TableSource([html: ServedContent(type: html, bytes: Data())])
        source.table = [:]
        var (m, _) = machine(source: TableSource([:]))
        XCTAssertNotNil(refusal(m.handle(request(html), now: 0)))
    }

    func testICCCM2_2RequestOlderThanOwnershipIsRefusedButCurrentTimeIsAccepted() {
        var (m, _) = machine()
        XCTAssertNotNil(refusal(m.handle(request(html, time: 499), now: 0)))
        XCTAssertNil(refusal(m.handle(request(html, time: 0), now: 0)))
        XCTAssertNil(refusal(m.handle(request(html, time: 501), now: 0)))
    }

    func testTimestampsCompareWithWraparound() {
        XCTAssertTrue(XTimestamp(0xFFFF_FFF0).isEarlier(than: 5))
        XCTAssertFalse(XTimestamp(5).isEarlier(than: 0xFFFF_FFF0))
        XCTAssertTrue(XTimestamp(4).isEarlier(than: 5))
    }

    func testICCCM2_2ObsoleteRequestorWithPropertyNoneGetsTheTargetAsProperty() throws {
        var (m, _) = machine()
        let (writes, notify) = try XCTUnwrap(replyWrites(m.handle(request(html, property: 0), now: 0)))
        XCTAssertEqual(writes[0].property, html)
        XCTAssertEqual(notify.property, html)
    }

    func testICCCM2_6_2MultipleWithPropertyNoneIsRefused() {
        var (m, _) = machine()
        XCTAssertNotNil(refusal(m.handle(request(atoms[.multiple], property: 0), now: 0)))
    }

    func testICCCM2_6_2MultipleConvertsEachPairAndMarksFailuresNone() throws {
        var (m, _) = machine()
        let req = request(atoms[.multiple])
        XCTAssertEqual(m.handle(req, now: 0), [.fetchMultipleParameters(req)])
        let pairs: [UInt32] = [html, 61, 7777, 62, atoms[.multiple], 63, atoms[.timestamp], 64]
        let actions = m.handleMultiple(req, parameters: PropertyValue(type: atoms[.atomPair], format: 32, bytes: PropertyValue.bytes(of: pairs)), now: 0)
        let (writes, notify) = try XCTUnwrap(replyWrites(actions))
        XCTAssertEqual(notify.property, prop)
        XCTAssertEqual(writes.map(\.property), [61, 64, prop])
        XCTAssertEqual(PropertyValue(type: 0, format: 32, bytes: writes.last!.bytes).items32,
                       [html, 61, 7777, 0, atoms[.multiple], 0, atoms[.timestamp], 64])
        XCTAssertEqual(writes.last?.type, atoms[.atomPair])
    }

    func testMultipleAcceptsAtomTypedParametersAndIgnoresAnOddLastAtom() throws {
        var (m, _) = machine()
        let req = request(atoms[.multiple])
        _ = m.handle(req, now: 0)
        let actions = m.handleMultiple(req, parameters: PropertyValue(type: PredefinedAtom.atom, format: 32, bytes: PropertyValue.bytes(of: [html, 61, html])), now: 0)
        let (writes, _) = try XCTUnwrap(replyWrites(actions))
        XCTAssertEqual(PropertyValue(type: 0, format: 32, bytes: writes.last!.bytes).items32, [html, 61])
    }

    func testMultipleWithMissingOrMalformedParametersIsRefused() {
        var (m, _) = machine()
        let req = request(atoms[.multiple])
        XCTAssertNotNil(refusal(m.handleMultiple(req, parameters: nil, now: 0)))
        XCTAssertNotNil(refusal(m.handleMultiple(req, parameters: PropertyValue(type: atoms[.atomPair], format: 8, bytes: Data([1, 2, 3, 4, 5, 6, 7, 8])), now: 0)))
        XCTAssertNotNil(refusal(m.handleMultiple(req, parameters: PropertyValue(type: PredefinedAtom.string, format: 32, bytes: PropertyValue.bytes(of: [html, 61])), now: 0)))
    }

    func testICCCM2_7_2IncrSendsMarkerThenChunksOnEachDeletionThenZeroLength() throws {
        let payload = Data((0..<100).map { UInt8($0) })
        var (m, _) = machine(threshold: 50, chunk: 40, source: TableSource([html: ServedContent(type: html, bytes: payload)]))
        let actions = m.handle(request(html), now: 0)
        XCTAssertTrue(actions.contains(.watchWindow(requestor)))
        let (writes, notify) = try XCTUnwrap(replyWrites(actions))
        XCTAssertEqual(writes[0].type, atoms[.incr])
        XCTAssertEqual(PropertyValue(type: 0, format: 32, bytes: writes[0].bytes).items32, [100])
        XCTAssertEqual(notify.property, prop)
        XCTAssertFalse(actions.contains { if case .transferCompleted = $0 { return true } else { return false } })

        var received = Data()
        var ended = false
        for step in 0..<5 {
            let next = m.propertyNotify(window: requestor, atom: prop, deleted: true, now: UInt64(step * 10))
            guard case .writeChunk(let write)? = next.first else { return XCTFail("no chunk at step \(step)") }
            XCTAssertEqual(write.type, html)
            if write.bytes.isEmpty {
                XCTAssertTrue(next.contains(.unwatchWindow(requestor)))
                XCTAssertTrue(next.contains(.transferCompleted(TransferKey(window: requestor, property: prop), target: html)))
                ended = true
                break
            }
            XCTAssertLessThanOrEqual(write.bytes.count, 40)
            received.append(write.bytes)
        }
        XCTAssertTrue(ended)
        XCTAssertEqual(received, payload)
        XCTAssertFalse(m.hasTransfers)
    }

    func testNewValueNotificationsAndOtherPropertiesDoNotAdvanceATransfer() {
        var (m, _) = machine(threshold: 5, chunk: 4)
        _ = m.handle(request(html), now: 0)
        XCTAssertEqual(m.propertyNotify(window: requestor, atom: prop, deleted: false, now: 1), [])
        XCTAssertEqual(m.propertyNotify(window: requestor, atom: prop + 1, deleted: true, now: 1), [])
        XCTAssertEqual(m.propertyNotify(window: requestor + 1, atom: prop, deleted: true, now: 1), [])
    }

    func testRequestorThatNeverDeletesTimesOutWithoutAffectingOthers() {
        var (m, _) = machine(threshold: 5, chunk: 4)
        let slow: XWindow = 0x300
        _ = m.handle(request(html, requestor: slow), now: 0)
        _ = m.handle(request(html), now: 500)
        XCTAssertEqual(m.nextDeadline, 1000)
        XCTAssertEqual(m.tick(now: 999), [])
        let expired = m.tick(now: 1000)
        XCTAssertEqual(expired, [.unwatchWindow(slow), .transferAborted(TransferKey(window: slow, property: prop), .timedOut)])
        // The other transfer goes on.
        guard case .writeChunk? = m.propertyNotify(window: requestor, atom: prop, deleted: true, now: 1001).first else {
            return XCTFail("the other transfer stalled")
        }
        XCTAssertEqual(m.activeTransfers, 1)
    }

    func testDestroyedRequestorDropsItsTransfers() {
        var (m, _) = machine(threshold: 5, chunk: 4)
        _ = m.handle(request(html), now: 0)
        _ = m.handle(request(html, property: prop + 1), now: 0)
        XCTAssertEqual(m.activeTransfers, 2)
        let actions = m.windowDestroyed(requestor)
        XCTAssertEqual(actions.count, 2)
        XCTAssertFalse(m.hasTransfers)
        XCTAssertEqual(m.propertyNotify(window: requestor, atom: prop, deleted: true, now: 1), [])
    }

    func testSameWindowTwoPropertiesAreIndependentTransfers() {
        var (m, _) = machine(threshold: 5, chunk: 4)
        let a = m.handle(request(html), now: 0)
        let b = m.handle(request(html, property: prop + 1), now: 0)
        XCTAssertTrue(a.contains(.watchWindow(requestor)))
        XCTAssertFalse(b.contains(.watchWindow(requestor)), "the window is watched once, reference-counted")
        XCTAssertEqual(m.activeTransfers, 2)
        _ = m.tick(now: 5000)
        XCTAssertFalse(m.hasTransfers)
    }

    func testReusedPropertyReplacesTheStaleTransfer() {
        var (m, _) = machine(threshold: 5, chunk: 4)
        _ = m.handle(request(html), now: 0)
        let again = m.handle(request(html), now: 10)
        XCTAssertTrue(again.contains(.transferAborted(TransferKey(window: requestor, property: prop), .replaced)))
        XCTAssertEqual(m.activeTransfers, 1)
    }

    func testTransferCapsRefuseInsteadOfGrowing() {
        var (m, _) = machine(threshold: 5, chunk: 4)
        _ = m.handle(request(html, property: 1), now: 0)
        _ = m.handle(request(html, property: 2), now: 0)
        XCTAssertNotNil(refusal(m.handle(request(html, property: 3), now: 0)), "per-window cap")
        _ = m.handle(request(html, property: 1, requestor: 0x999), now: 0)
        _ = m.handle(request(html, property: 2, requestor: 0x998), now: 0)
        XCTAssertNotNil(refusal(m.handle(request(html, property: 1, requestor: 0x997), now: 0)), "global cap")
    }

    func testTransfersContinueAfterOwnershipIsLost() {
        var (m, _) = machine(threshold: 5, chunk: 4)
        _ = m.handle(request(html), now: 0)
        m.released(clipboard)
        XCTAssertFalse(m.owns(clipboard))
        guard case .writeChunk? = m.propertyNotify(window: requestor, atom: prop, deleted: true, now: 1).first else {
            return XCTFail("ICCCM §2.2: a transfer in progress must complete after losing ownership")
        }
        XCTAssertNotNil(refusal(m.handle(request(html, property: 77), now: 2)), "new requests are refused")
    }

    func testStaleSelectionClearIsIgnored() {
        let (m, _) = machine()
        XCTAssertTrue(m.isStaleClear(selection: clipboard, time: 499))
        XCTAssertFalse(m.isStaleClear(selection: clipboard, time: 600))
        XCTAssertFalse(m.isStaleClear(selection: clipboard, time: 0))
    }

    func testFailedWriteDropsTheTransfer() {
        var (m, _) = machine(threshold: 5, chunk: 4)
        _ = m.handle(request(html), now: 0)
        let actions = m.writeFailed(window: requestor)
        XCTAssertEqual(actions, [.unwatchWindow(requestor), .transferAborted(TransferKey(window: requestor, property: prop), .writeFailed)])
    }

    func testServerSizedConfigurationKeepsChunksWithinOneRequestAndXselsReadSize() {
        let small = SelectionOwnerStateMachine.Configuration.forServer(maxRequestBytes: 262_140)
        XCTAssertEqual(small.chunkSize, 262_116)
        let big = SelectionOwnerStateMachine.Configuration.forServer(maxRequestBytes: 16_777_212)
        XCTAssertLessThan(big.chunkSize, 4_000_000)
        XCTAssertEqual(big.incrThreshold, big.chunkSize)
    }
}

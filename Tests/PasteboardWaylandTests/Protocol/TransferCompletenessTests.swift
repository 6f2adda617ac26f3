import XCTest
@testable import PasteboardWayland

/// The verdict on a Wayland transfer, which carries no length: whole, or cut short by an owner that died.
final class TransferCompletenessTests: XCTestCase {
    let machine = TransferCompleteness(oneWrite: 1 << 20, quick: 20_000_000, grace: 10_000_000)

    func testAQuickSmallTransferIsWholeWithoutWaiting() {
        XCTAssertEqual(machine.verdict(received: 12, duration: 1_000_000), .whole)
        var cleared = machine
        cleared.selectionCleared(writerClosed: true)  // wl-copy -o exits as soon as it has written
        XCTAssertEqual(cleared.verdict(received: 12, duration: 1_000_000), .whole)
    }

    func testNothingLargeOrSlowIsConfirmed() {
        XCTAssertEqual(machine.verdict(received: 0, duration: 1), .confirm, "nothing at all")
        XCTAssertEqual(machine.verdict(received: 1 << 20, duration: 1), .confirm, "as much as the pipe holds: maybe one write of many")
        XCTAssertEqual(machine.verdict(received: 300_000, duration: 50_000_000), .confirm, "written over a while")
        XCTAssertEqual(machine.confirmed(cleared: false), .whole, "still the selection after the grace")
        XCTAssertEqual(machine.confirmed(cleared: true), .cutShort, "the owner died as it closed its pipe")
    }

    /// A clearing while the pipe is still open is no proof of a whole transfer: a dying owner closes its
    /// socket and its pipe in no set order, and a `cat` it forked may be killed with it. Only an offer
    /// marked transient (an owner clearing on purpose, still writing) counts it as a writer that
    /// outlived its selection.
    func testAClearingWhileTheWriterStillWritesIsWholeOnlyForATransientOffer() {
        var completeness = machine
        completeness.selectionCleared(writerClosed: false)
        XCTAssertEqual(completeness.verdict(received: 100 << 20, duration: 1_000_000_000), .cutShort)
        XCTAssertEqual(completeness.verdict(received: 100 << 20, duration: 1_000_000_000, transient: true), .whole)
        XCTAssertEqual(completeness.confirmed(cleared: true), .whole, "decided before the end (transient)")
    }

    func testAClearingAfterTheWriterClosedWithMoreThanOneWriteIsADeath() {
        var completeness = machine
        completeness.selectionCleared(writerClosed: true)
        completeness.selectionCleared(writerClosed: false)  // only the first clearing counts
        XCTAssertEqual(completeness.verdict(received: 5 << 20, duration: 1), .cutShort)
        XCTAssertEqual(completeness.confirmed(cleared: false), .cutShort)
        XCTAssertEqual(completeness.verdict(received: 0, duration: 1), .cutShort, "nothing, and the owner gone")
    }
}

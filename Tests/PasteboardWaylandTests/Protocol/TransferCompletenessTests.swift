import XCTest
@testable import PasteboardWayland

/// The verdict on a Wayland transfer, which carries no length: whole, or cut short by an owner that died.
final class TransferCompletenessTests: XCTestCase {
    func testNoClearingMeansConfirmAfterTheEnd() {
        let completeness = TransferCompleteness()
        XCTAssertEqual(completeness.verdict, .confirm)
        XCTAssertEqual(completeness.confirmed(cleared: false), .whole, "still the selection after the round trip")
        XCTAssertEqual(completeness.confirmed(cleared: true), .cutShort, "the owner died as it closed its pipe")
    }

    func testAClearingWhileTheWriterStillWritesIsAWriterThatOutlivedItsSelection() {
        var completeness = TransferCompleteness()
        completeness.selectionCleared(writerClosed: false)  // wl-copy --paste-once exits, its cat writes on
        XCTAssertEqual(completeness.verdict, .whole)
        XCTAssertEqual(completeness.confirmed(cleared: true), .whole, "decided before the end")
    }

    func testAClearingAfterTheWriterClosedWithDataUnreadIsADeath() {
        var completeness = TransferCompleteness()
        completeness.selectionCleared(writerClosed: true)
        completeness.selectionCleared(writerClosed: false)  // only the first clearing counts
        XCTAssertEqual(completeness.verdict, .cutShort)
        XCTAssertEqual(completeness.confirmed(cleared: false), .cutShort)
    }
}

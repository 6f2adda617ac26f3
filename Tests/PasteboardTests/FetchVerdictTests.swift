import Foundation
import XCTest

@testable import Pasteboard

/// The one rule every keeper (X11, Wayland) applies to what it fetched of a new owner: whole or not kept.
final class FetchVerdictTests: XCTestCase {
    let text = TypeSummary(type: .utf8PlainText, size: 5)
    let html = TypeSummary(type: .html, size: 9)

    func testWholeContentIsKeptWithWhatWasTooLarge() {
        let large = TypeSummary(type: .png, size: 80 << 20)
        let verdict = FetchVerdict(fetched: [text, html], skipped: [large])
        XCTAssertEqual(verdict, .keep(skipped: [large]))
        XCTAssertTrue(verdict.keeps)
        XCTAssertTrue(verdict.records)
    }

    func testNothingFetchedIsRecordedOnlyWhenSomethingWasLeftOutForItsSize() {
        XCTAssertEqual(FetchVerdict(fetched: [], skipped: []), .nothing(skipped: []))
        XCTAssertFalse(FetchVerdict(fetched: [], skipped: []).records)
        let large = TypeSummary(type: .utf8PlainText, size: 80 << 20)
        XCTAssertTrue(FetchVerdict(fetched: [], skipped: [large]).records)
        XCTAssertFalse(FetchVerdict(fetched: [], skipped: [large]).keeps)
    }

    /// One representation cut short: nothing is kept, every type is listed (the fetched ones first, each
    /// once), marked cut short, then what was skipped for its size.
    func testAContentCutShortKeepsNothingAndListsEveryType() {
        let cut = TypeSummary(type: .html, cutShort: true)
        let rest = TypeSummary(type: .png, cutShort: true)
        let large = TypeSummary(type: .rtf, size: 80 << 20)
        let verdict = FetchVerdict(fetched: [text], skipped: [large, cut, rest, TypeSummary(type: .utf8PlainText, cutShort: true)])
        XCTAssertEqual(verdict, .cutShort(skipped: [
            TypeSummary(type: .utf8PlainText, size: 5, cutShort: true), large, cut, rest,
        ]))
        XCTAssertFalse(verdict.keeps)
        XCTAssertTrue(verdict.records)
        XCTAssertEqual(FetchVerdict(fetched: [], skipped: [cut]), .cutShort(skipped: [cut]))
    }
}

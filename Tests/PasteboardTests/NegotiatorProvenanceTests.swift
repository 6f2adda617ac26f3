import XCTest

@testable import Pasteboard

final class NegotiatorProvenanceTests: XCTestCase {
    func testOffersWithoutProvenanceHaveNoOriginal() {
        let x11Offer = [TypeSummary(type: .utf8PlainText), TypeSummary(type: .html), TypeSummary(type: .rtf)]
        XCTAssertNil(Negotiator.original(of: x11Offer))
        let negotiator = Negotiator { from, to in from != to && [.html, .utf8PlainText, .markdown, .rtf].contains(from) }
        XCTAssertEqual(
            negotiator.choose(offered: x11Offer, accepting: [.markdown]), .convert(from: .html, to: .markdown),
            "converts from the richest, not from whatever was listed first")
        XCTAssertEqual(negotiator.choose(offered: x11Offer, accepting: [.rtf, .html]), .use(.rtf))
        XCTAssertEqual(Negotiator.original(of: [TypeSummary(type: .png)]), .png)
    }
}

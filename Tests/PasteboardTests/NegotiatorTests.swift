import XCTest

@testable import Pasteboard

final class NegotiatorTests: XCTestCase {
    /// Our converters go through one AST, so any text format reaches any other.
    static let textFormats: Set<TypeIdentifier> = [.markdown, .html, .rtf, .utf8PlainText, .plainText]
    let negotiator = Negotiator { from, to in
        NegotiatorTests.textFormats.contains(from) && NegotiatorTests.textFormats.contains(to) && from != to
    }

    /// Offered types as a Markdown copy makes them: the source, then HTML, RTF and text derived from it.
    let markdownCopy = [
        TypeSummary(type: .markdown),
        TypeSummary(type: .html, derivedFrom: .markdown),
        TypeSummary(type: .rtf, derivedFrom: .markdown),
        TypeSummary(type: .utf8PlainText, derivedFrom: .markdown),
    ]

    func testOriginalWinsWhenTheConsumerAcceptsItEvenIfItPrefersAnother() {
        XCTAssertEqual(negotiator.choose(offered: markdownCopy, accepting: [.rtf, .markdown]), .use(.markdown))
        XCTAssertEqual(negotiator.choose(offered: markdownCopy, accepting: [.markdown, .rtf]), .use(.markdown))
    }

    func testConsumerPreferenceDecidesAmongDerivedTypes() {
        XCTAssertEqual(negotiator.choose(offered: markdownCopy, accepting: [.rtf, .html]), .use(.rtf))
        XCTAssertEqual(negotiator.choose(offered: markdownCopy, accepting: [.html, .rtf]), .use(.html))
        XCTAssertEqual(negotiator.choose(offered: markdownCopy, accepting: [.utf8PlainText]), .use(.utf8PlainText))
    }

    func testExactBeforeConforming() {
        // public.plain-text is named, but only conforming types are offered; utf8 is named exactly later.
        let offered = [TypeSummary(type: .html), TypeSummary(type: .utf8PlainText, derivedFrom: .html)]
        XCTAssertEqual(negotiator.choose(offered: offered, accepting: [.plainText, .utf8PlainText]), .use(.utf8PlainText))
    }

    func testConformingMatchPrefersOriginalThenRichest() {
        XCTAssertEqual(negotiator.choose(offered: markdownCopy, accepting: [.text]), .use(.markdown))
        let htmlCopy = [
            TypeSummary(type: .utf8PlainText, derivedFrom: .html), TypeSummary(type: .rtf, derivedFrom: .html),
            TypeSummary(type: .html),
        ]
        XCTAssertEqual(negotiator.choose(offered: htmlCopy, accepting: [.text]), .use(.html))
        let derivedOnly = [TypeSummary(type: .utf8PlainText, derivedFrom: .pdf), TypeSummary(type: .rtf, derivedFrom: .pdf)]
        XCTAssertEqual(negotiator.choose(offered: derivedOnly, accepting: [.text]), .use(.rtf), "richest")
    }

    func testConversionOnlyWhenNothingOfferedIsAccepted() {
        let htmlOnly = [TypeSummary(type: .html)]
        XCTAssertEqual(negotiator.choose(offered: htmlOnly, accepting: [.markdown]), .convert(from: .html, to: .markdown))
        XCTAssertEqual(
            negotiator.choose(offered: htmlOnly, accepting: [.png, .markdown]), .convert(from: .html, to: .markdown),
            "skips accepted types nothing converts to")
        XCTAssertEqual(negotiator.choose(offered: htmlOnly, accepting: [.html, .markdown]), .use(.html))
    }

    func testConversionStartsFromTheOriginal() {
        let rtfCopy = [
            TypeSummary(type: .utf8PlainText, derivedFrom: .rtf), TypeSummary(type: .html, derivedFrom: .rtf),
            TypeSummary(type: .rtf),
        ]
        XCTAssertEqual(negotiator.choose(offered: rtfCopy, accepting: [.markdown]), .convert(from: .rtf, to: .markdown))
        let noOriginalConvertible = [TypeSummary(type: .pdf), TypeSummary(type: .utf8PlainText, derivedFrom: .pdf),
                                     TypeSummary(type: .html, derivedFrom: .pdf)]
        XCTAssertEqual(
            negotiator.choose(offered: noOriginalConvertible, accepting: [.markdown]), .convert(from: .html, to: .markdown),
            "richest convertible when the original cannot be converted")
    }

    func testNothingFits() {
        XCTAssertNil(negotiator.choose(offered: [TypeSummary(type: .png)], accepting: [.markdown]))
        XCTAssertNil(negotiator.choose(offered: [], accepting: [.markdown]))
        XCTAssertNil(negotiator.choose(offered: markdownCopy, accepting: []))
    }

    func testUnknownTypesMatchExactlyAndByConformance() {
        let custom = TypeRegistry.standard.type(forMIMEType: "application/x-thing")
        let offered = [TypeSummary(type: custom), TypeSummary(type: .utf8PlainText, derivedFrom: custom)]
        XCTAssertEqual(negotiator.choose(offered: offered, accepting: [custom]), .use(custom))
        XCTAssertEqual(negotiator.choose(offered: offered, accepting: [.data]), .use(custom), "original conforms to data")
        XCTAssertEqual(negotiator.choose(offered: offered, accepting: [.text]), .use(.utf8PlainText))
        XCTAssertNil(negotiator.choose(offered: offered, accepting: ["com.example.other"]))
    }

    func testTiesKeepOfferOrderAndRankingIsConfigurable() {
        let offered = [TypeSummary(type: .utf8PlainText, derivedFrom: .pdf), TypeSummary(type: .html, derivedFrom: .pdf),
                       TypeSummary(type: .rtf, derivedFrom: .pdf)]
        XCTAssertEqual(negotiator.choose(offered: offered, accepting: [.text]), .use(.html))
        var rtfFirst = negotiator
        rtfFirst.ranking = [.rtf, .html]
        XCTAssertEqual(rtfFirst.choose(offered: offered, accepting: [.text]), .use(.rtf))
        let unranked: [TypeIdentifier] = ["com.example.b", "com.example.a"]
        XCTAssertEqual(negotiator.rankedByRichness(unranked), unranked)
    }

    /// Every combination of a small universe: the decision is always offered-and-accepted (by identity
    /// or conformance), or a conversion between convertible types, and the original is never passed
    /// over for a derived type the consumer also accepts.
    func testExhaustiveInvariants() {
        let universe: [TypeIdentifier] = [.markdown, .html, .rtf, .utf8PlainText, .png]
        let registry = TypeRegistry.standard
        for originalIndex in universe.indices {
            for mask in 0..<(1 << universe.count) {
                let original = universe[originalIndex]
                var offered = [TypeSummary(type: original)]
                for (i, type) in universe.enumerated() where mask & (1 << i) != 0 && type != original {
                    offered.append(TypeSummary(type: type, derivedFrom: original))
                }
                for acceptMask in 1..<(1 << universe.count) {
                    let accepting = universe.enumerated().filter { acceptMask & (1 << $0.offset) != 0 }.map(\.element)
                    let decision = negotiator.choose(offered: offered, accepting: accepting)
                    let offeredTypes = offered.map(\.type)
                    switch decision {
                    case .use(let type):
                        XCTAssertTrue(offeredTypes.contains(type))
                        XCTAssertTrue(accepting.contains { registry.conforms(type, to: $0) })
                        if accepting.contains(original) { XCTAssertEqual(type, original) }
                    case .convert(let from, let to):
                        XCTAssertTrue(offeredTypes.contains(from))
                        XCTAssertTrue(accepting.contains(to))
                        XCTAssertFalse(offeredTypes.contains { t in accepting.contains { registry.conforms(t, to: $0) } })
                    case nil:
                        XCTAssertFalse(offeredTypes.contains { t in accepting.contains { registry.conforms(t, to: $0) } })
                    }
                }
            }
        }
    }
}

import XCTest
@testable import Pasteboard

/// The paste policy without a command line: each mode's decision over offers with and without
/// provenance.
final class PasteRequestTests: XCTestCase {
    let registry = TypeRegistry.standard
    /// The text formats convert among themselves (as `Conversion.canConvert` says in Representations).
    let canConvert: @Sendable (TypeIdentifier, TypeIdentifier) -> Bool = { source, target in
        let text: Set<TypeIdentifier> = [.markdown, .html, .rtf, .utf8PlainText, .plainText]
        return text.contains(source) && text.contains(target)
    }

    /// What a Markdown copy offers: the original, HTML and RTF derived, plain text derived (the source).
    var markdownCopy: [TypeSummary] {
        [
            TypeSummary(type: .markdown), TypeSummary(type: .html, derivedFrom: .markdown),
            TypeSummary(type: .rtf, derivedFrom: .markdown), TypeSummary(type: .utf8PlainText, derivedFrom: .markdown),
        ]
    }
    var htmlCopy: [TypeSummary] {
        [TypeSummary(type: .html), TypeSummary(type: .rtf, derivedFrom: .html), TypeSummary(type: .utf8PlainText, derivedFrom: .html)]
    }
    /// An X11 owner: no provenance.
    var browser: [TypeSummary] { [TypeSummary(type: .html), TypeSummary(type: .utf8PlainText)] }

    func choose(_ mode: PasteRequest.Mode, _ offered: [TypeSummary]) throws -> PasteRequest.Choice {
        try PasteRequest(mode).choose(offered, registry: registry, canConvert: canConvert)
    }

    func testExactTakesTheTypeOrNamesWhatIsOffered() throws {
        XCTAssertEqual(try choose(.exact(.rtf), markdownCopy), .init(read: .rtf))
        XCTAssertThrowsError(try choose(.exact(.png), markdownCopy)) { error in
            let error = error as? PasteboardError
            XCTAssertEqual(error?.code, .typeNotOffered)
            XCTAssertTrue(error?.message.contains("net.daringfireball.markdown") == true, error?.message ?? "")
        }
    }

    func testAcceptPrefersTheOriginalThenConverts() throws {
        XCTAssertEqual(try choose(.accept([.html, .markdown]), markdownCopy), .init(read: .markdown))
        XCTAssertEqual(try choose(.accept([.markdown]), htmlCopy), .init(read: .html, convertTo: .markdown))
        XCTAssertThrowsError(try choose(.accept([.png]), htmlCopy))
    }

    func testFormatTakesAnOfferedRepresentationElseConvertsFromTheOriginal() throws {
        XCTAssertEqual(try choose(.format(.rtf, takesOffered: true), markdownCopy), .init(read: .rtf))
        XCTAssertEqual(try choose(.format(.markdown, takesOffered: true), htmlCopy), .init(read: .html, convertTo: .markdown))
        // Without provenance the richest convertible type is the source.
        XCTAssertEqual(try choose(.format(.rtf, takesOffered: true), browser), .init(read: .html, convertTo: .rtf))
    }

    /// A dialect (`--as commonmark`): offered Markdown is held as GFM, so even the original converts.
    func testFormatThatDoesNotTakeTheOfferedTypeConvertsTheOriginalToo() throws {
        XCTAssertEqual(try choose(.format(.markdown, takesOffered: false), markdownCopy), .init(read: .markdown, convertTo: .markdown))
        XCTAssertEqual(try choose(.format(.markdown, takesOffered: false), htmlCopy), .init(read: .html, convertTo: .markdown))
    }

    func testPlainKeepsCopiedTextAndRendersEverythingRicher() throws {
        let plainCopy = [TypeSummary(type: .utf8PlainText)]
        XCTAssertEqual(try choose(.plain, plainCopy), .init(read: .utf8PlainText))
        // Markdown's offered plain text is its source: plain text is rendered from the Markdown.
        XCTAssertEqual(try choose(.plain, markdownCopy), .init(read: .markdown, convertTo: .utf8PlainText))
        XCTAssertEqual(try choose(.plain, htmlCopy), .init(read: .html, convertTo: .utf8PlainText))
        // An owner of plain text only (no provenance): as it is.
        XCTAssertEqual(try choose(.plain, [TypeSummary(type: .utf8PlainText), TypeSummary(type: .plainText)]), .init(read: .utf8PlainText))
    }

    /// An image copied here: the HTML and RTF made to carry the picture are no text, and no default.
    func testAnImageCopyPastesAsItselfAndHasNoText() throws {
        let imageCopy = [
            TypeSummary(type: .png), TypeSummary(type: .jpeg, derivedFrom: .png),
            TypeSummary(type: .html, derivedFrom: .png), TypeSummary(type: .rtf, derivedFrom: .png),
        ]
        XCTAssertEqual(try choose(.standard, imageCopy), .init(read: .png))
        XCTAssertEqual(try choose(.preferRTF, imageCopy), .init(read: .rtf), "-Prefer rtf asks for RTF")
        XCTAssertThrowsError(try choose(.plain, imageCopy)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .typeNotOffered)
        }
        XCTAssertThrowsError(try choose(.format(.utf8PlainText, takesOffered: true), imageCopy))
        XCTAssertEqual(try choose(.format(.html, takesOffered: true), imageCopy), .init(read: .html))
        // A browser's image with its own HTML (no provenance): the HTML is text.
        let browserImage = [TypeSummary(type: .html), TypeSummary(type: .png)]
        XCTAssertEqual(try choose(.plain, browserImage), .init(read: .html, convertTo: .utf8PlainText))
        XCTAssertEqual(try choose(.standard, browserImage), .init(read: .html))
    }

    func testTheDefaultLadderPrefersPlainText() throws {
        XCTAssertEqual(try choose(.standard, browser), .init(read: .utf8PlainText))
        XCTAssertEqual(try choose(.standard, [TypeSummary(type: .rtf), TypeSummary(type: .html)]), .init(read: .html))
        XCTAssertEqual(try choose(.standard, [TypeSummary(type: .png)]), .init(read: .png))
        XCTAssertEqual(try choose(.preferRTF, htmlCopy), .init(read: .rtf))
        XCTAssertEqual(try choose(.preferRTF, [TypeSummary(type: .utf8PlainText)]), .init(read: .utf8PlainText))
        XCTAssertEqual(PasteRequest.defaultType([.html, .markdown], registry: registry), .markdown, "Markdown is plain text")
    }

    func testAnItemWithNoTypesIsEmpty() {
        XCTAssertThrowsError(try choose(.standard, [])) { XCTAssertEqual(($0 as? PasteboardError)?.code, .empty) }
    }
}

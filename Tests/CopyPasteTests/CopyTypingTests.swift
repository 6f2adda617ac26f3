import CopyPaste
import Foundation
import Pasteboard
import Representations
import XCTest

/// The one typing rule (``CopyAssembly/type(image:given:isValidUTF8:typing:sniff:)``) in its variants:
/// `pbctl copy`'s, pbcopy's and the tools'.
final class CopyTypingTests: XCTestCase {
    private func type(
        _ data: Data, given: TypeIdentifier? = nil, _ typing: CopyAssembly.Typing
    ) -> TypeIdentifier {
        CopyAssembly.type(
            image: CopyAssembly.imageType(data, declared: given), given: given, isValidUTF8: TypeSniffer.isValidUTF8(data), typing: typing,
            sniff: { TypeSniffer.sniff(data) })
    }

    private let html = Data("<!DOCTYPE html><html><body><p>hi</p></body></html>".utf8)
    private let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    func testPbctlSniffsWhatNothingNames() {
        XCTAssertEqual(type(html, .pbctl), .html)
        XCTAssertEqual(type(Data("café".utf8), .pbctl), .utf8PlainText)
        XCTAssertEqual(type(Data([0xFF, 0x00, 0x01]), .pbctl), .data)
    }

    func testPbcopyKeepsSniffedHTMLAsPlainTextButNotDeclaredHTML() {
        XCTAssertEqual(type(html, .pbcopy), .utf8PlainText)
        XCTAssertEqual(type(html, given: .html, .pbcopy), .html)
    }

    func testGenericPlainTextThatIsUTF8IsUTF8TextInEveryVariant() {
        for typing in [CopyAssembly.Typing.pbctl, .pbcopy, .tool(named: "text/plain")] {
            XCTAssertEqual(type(Data("plain".utf8), given: .plainText, typing), .utf8PlainText, "\(typing)")
        }
    }

    func testAnImageIsKnownByItsContentInEveryVariant() {
        for typing in [CopyAssembly.Typing.pbctl, .pbcopy, .tool(named: nil)] {
            XCTAssertEqual(type(png, typing), .png, "\(typing)")
            XCTAssertEqual(type(png, given: .jpeg, typing), .png, "\(typing)")
        }
    }

    func testTheToolsDefaultTextIsNeverSniffed() {
        var sniffed = false
        let resolved = CopyAssembly.type(
            image: nil, given: nil, isValidUTF8: true, typing: .tool(named: nil),
            sniff: {
                sniffed = true
                return .html
            })
        XCTAssertEqual(resolved, .utf8PlainText)
        XCTAssertFalse(sniffed)
        XCTAssertEqual(type(html, .tool(named: nil)), .utf8PlainText)
    }

    func testTheToolsKeepGenericTextThatIsNotUTF8AsLatin1() {
        let latin1 = Data([0x63, 0x61, 0x66, 0xE9])  // "café" in Latin-1
        XCTAssertEqual(type(latin1, .tool(named: nil)), .latin1PlainText)
        XCTAssertEqual(type(latin1, given: .utf8PlainText, .tool(named: "STRING")), .latin1PlainText)
        XCTAssertEqual(type(latin1, given: .plainText, .tool(named: "text/plain")), .latin1PlainText)
        // Named as UTF-8 text, it stays that (and is refused later as not UTF-8).
        XCTAssertEqual(type(latin1, given: .utf8PlainText, .tool(named: "UTF8_STRING")), .utf8PlainText)
        // pbctl's rule sniffs it as bytes.
        XCTAssertEqual(type(latin1, .pbctl), .data)
    }

    func testATypeNameResolvesOnceForEveryCaller() throws {
        XCTAssertEqual(try TypeResolution.resolve("md", .standard), TextFormat.gfm.type)
        XCTAssertEqual(try TypeResolution.resolve("text/html", .standard), .html)
        XCTAssertEqual(try TypeResolution.resolve("png", .standard), .png)
        XCTAssertThrowsError(try TypeResolution.resolve("", .standard))
        XCTAssertThrowsError(try TypeResolution.resolve("text/\nhtml", .standard))
        XCTAssertThrowsError(try TypeResolution.resolve("no-such-type-anywhere", .standard)) { error in
            XCTAssertTrue((error as? TypeResolution.Problem)?.message.hasPrefix("unknown type 'no-such-type-anywhere'") == true, "\(error)")
        }
    }
}

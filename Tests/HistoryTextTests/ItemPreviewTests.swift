import Foundation
import XCTest

@testable import HistoryText
@testable import Pasteboard

/// What the history shows of an item and the text it searches it in.
final class ItemPreviewTests: XCTestCase {
    func item(_ pairs: [(TypeIdentifier, Data)]) -> Item {
        var item = Item()
        for (type, data) in pairs { item.set(Representation(type: type, data: data)) }
        return item
    }

    func testTheFirstNonBlankLineWithControlCharactersShown() {
        let text = item([(.utf8PlainText, Data("\n   \n\tfirst\u{1B}[2J line\nsecond".utf8))])
        XCTAssertEqual(historyPreview(text, .standard), "first␛[2J line")
        XCTAssertEqual(historyPreview(plainText: text), "first␛[2J line")
        XCTAssertEqual(previewLine(Data("\n\n".utf8)), "␊")
        XCTAssertNil(previewLine(Data()))
        let long = String(repeating: "é", count: 200)
        XCTAssertEqual(visibleLine(Substring(long)), String(repeating: "é", count: 79) + "…")
    }

    func testRichTextIsPreviewedAsTheTextItShows() {
        let html = item([(.html, Data("<p><b>Bold</b> words</p>".utf8))])
        XCTAssertEqual(historyPreview(html, .standard), "Bold words")
        XCTAssertEqual(historySearchText(html, .standard), "Bold words\n")
    }

    func testSearchTextHoldsEveryTextOnce() {
        let both = item([(.utf8PlainText, Data("same".utf8)), (.markdown, Data("same".utf8)), (.html, Data("<p>other</p>".utf8))])
        XCTAssertEqual(historySearchText(both, .standard), "same\nother\n")
        XCTAssertNil(historySearchText(item([(.png, Data([0x89, 0x50]))]), .standard))
        // Invalid UTF-8 is not searched as text.
        XCTAssertNil(historySearchText(item([(.utf8PlainText, Data([0xFF, 0xFE]))]), .standard))
    }

    func testFilesAndOpaqueDataAreNamedNotShown() {
        let files = item([(.fileURL, Data("file:///home/u/a.pdf\r\nfile:///home/u/b%0A.png\r\nfile:///home/u/c.txt\r\n".utf8))])
        XCTAssertEqual(historyPreview(files, .standard), "[3 files: a.pdf, b␊.png, …]")
        XCTAssertEqual(historyPreview(item([(TypeIdentifier("com.example.blob"), Data(count: 2048))]), .standard), "[com.example.blob 2.0 KB]")
        XCTAssertEqual(historyPreview(Item(), .standard), "[empty]")
    }

    func testSizesAsFileManagersShowThem() {
        XCTAssertEqual(humanSize(512), "512 B")
        XCTAssertEqual(humanSize(34_000), "34 KB")
        XCTAssertEqual(humanSize(1_234_567), "1.2 MB")
        XCTAssertEqual(humanSize(5_000_000_000), "5.0 GB")
    }
}

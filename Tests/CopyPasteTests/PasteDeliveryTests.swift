import CopyPaste
import Foundation
import Pasteboard
import XCTest

/// The paste policy as a library call over an in-memory pasteboard.
final class PasteDeliveryTests: XCTestCase {
    private func paste(_ item: Item, _ request: PasteRequest = PasteRequest(), exact: Bool = false) throws -> Data {
        let board = InMemoryPasteboard()
        _ = try board.write([item], to: .general, options: CopyOptions())
        let summary = try board.items(in: .general)[0]
        let choice = try request.choose(summary.types, registry: .standard, canConvert: { _, _ in false })
        var delivery = PasteDelivery(registry: .standard)
        delivery.exact = exact
        let sink = DataSink()
        try delivery.deliver(choice, item: 0, of: summary, from: board, .general, to: sink)
        return sink.data
    }

    func testUTF16TextPastesAsUTF8UnlessItsExactBytesWereAsked() throws {
        let utf16 = Data([0xFF, 0xFE, 0x68, 0x00, 0xE9, 0x00])  // "hé", little-endian with its mark
        let item = Item(representations: [Representation(type: .utf16PlainText, data: utf16)])
        XCTAssertEqual(try paste(item), Data("hé".utf8))
        XCTAssertEqual(try paste(item, PasteRequest(.exact(.utf16PlainText)), exact: true), utf16)
    }

    func testUTF16DecodingReadsEitherByteOrder() {
        XCTAssertEqual(TextDecoding.utf16ToUTF8(Data([0xFE, 0xFF, 0x00, 0x68, 0x00, 0xE9])), Data("hé".utf8))
        XCTAssertEqual(TextDecoding.utf16ToUTF8(Data([0x68, 0x00, 0x69])), Data("h".utf8))  // an odd last byte dropped
        XCTAssertEqual(TextDecoding.latin1ToUTF8(Data([0x63, 0x61, 0x66, 0xE9])), Data("café".utf8))
    }

    func testPbpasteTakesOnlyTheItemsThatGiveText() {
        let choices = [PasteRequest.Choice(read: .png), PasteRequest.Choice(read: .utf8PlainText), PasteRequest.Choice(read: .html)]
        let (indices, kept) = PasteDelivery.textOnly(choices, items: [4, 5, 6], registry: .standard)
        XCTAssertEqual(indices, [5, 6])
        XCTAssertEqual(kept.map(\.read), [.utf8PlainText, .html])
        XCTAssertTrue(PasteDelivery.textOnly([PasteRequest.Choice(read: .png)], items: [0], registry: .standard).indices.isEmpty)
    }

    func testFileListsGiveLocalPathsAndNameWhatIsNotLocal() throws {
        let lists = [FileList(uris: ["file:///tmp/a%20b", "https://example.com/x"]), FileList(uris: ["file:///tmp/c"], cut: true)]
        let (paths, notLocal) = PasteDelivery.localPaths(lists)
        XCTAssertEqual(paths, ["/tmp/a b", "/tmp/c"])
        XCTAssertEqual(notLocal, ["https://example.com/x"])
        XCTAssertThrowsError(try PasteDelivery.fileSources(lists)) { error in
            XCTAssertEqual((error as? PasteboardError)?.code, .invalidData)
            XCTAssertTrue("\(error)".contains("example.com"), "\(error)")
        }
        let sources = try PasteDelivery.fileSources([lists[1]])
        XCTAssertEqual(sources.map(\.path), ["/tmp/c"])
        XCTAssertEqual(sources.map(\.cut), [true])
    }
}

import Foundation
import XCTest
import Images
@testable import Pasteboard
@testable import Representations

/// What pbctl serves of an item that arrived whole from elsewhere: what a copy of its original would offer.
final class ProducersTests: XCTestCase {
    let produce: RepresentationProducer = Conversion.produceRepresentation

    /// The types produced, in order.
    final class Produced: @unchecked Sendable {
        var types: [TypeIdentifier] = []
    }

    func testAJPEGOnlyItemOffersEveryFormatProducedWhenAsked() throws {
        let raster = RasterImage(width: 4, height: 3, pixels: Data(repeating: 0x80, count: 4 * 3 * 4))
        let jpeg = try ImageCodec.encode(raster, as: .jpeg)
        let kept = Item(representations: [Representation(type: .jpeg, data: jpeg)])
        let produced = Produced()
        let completed = Producers.completed(kept) { from, data, to in
            produced.types.append(to)
            return try Conversion.produceRepresentation(from, data, to)
        }
        XCTAssertEqual(completed.types.first, .jpeg, "the owner's own bytes first")
        for type in Producers.derivedTypes(for: .jpeg) { XCTAssertNotNil(completed.representation(for: type), "\(type)") }
        XCTAssertTrue(produced.types.isEmpty, "nothing is produced before it is asked for")
        let png = try XCTUnwrap(completed.representation(for: .png)).data()
        XCTAssertEqual(ImageCodec.dimensions(png)?.width, 4)
        XCTAssertEqual(produced.types, [.png])
        XCTAssertEqual(completed.representation(for: .png)?.derivedFrom, .jpeg)
    }

    func testWhatTheItemHoldsIsKeptAndOnlyTheMissingIsAdded() throws {
        let html = Data("<p>a <b>b</b></p>".utf8)
        let kept = Item(representations: [
            Representation(type: .html, data: html), Representation(type: .utf8PlainText, data: Data("the owner's own text".utf8)),
        ])
        let completed = Producers.completed(kept, convert: produce)
        XCTAssertEqual(try completed.representation(for: .utf8PlainText)?.data(), Data("the owner's own text".utf8))
        XCTAssertNil(completed.representation(for: .utf8PlainText)?.derivedFrom)
        XCTAssertTrue(String(decoding: try XCTUnwrap(completed.representation(for: .rtf)).data(), as: UTF8.self).hasPrefix("{\\rtf1"))
    }

    func testMarkdownOffersItsSourceAsPlainTextAsACopyDoes() throws {
        let markdown = Data("# Notes\n\n- **b**\n".utf8)
        let completed = Producers.completed(Item(representations: [Representation(type: .markdown, data: markdown)]), convert: produce)
        let copy = Producers.item(original: markdown, type: .markdown, convert: produce)
        XCTAssertEqual(completed.types, copy.types)
        for type in copy.types { XCTAssertEqual(try completed.representation(for: type)?.data(), try copy.representation(for: type)?.data(), "\(type)") }
        guard case .data = completed.representation(for: .utf8PlainText)?.content else { return XCTFail("held as data, as a copy holds it") }
    }

    func testPlainTextAndFilesGainNothing() {
        let text = Item(representations: [Representation(type: .utf8PlainText, data: Data("x".utf8))])
        XCTAssertEqual(Producers.completed(text, convert: produce).types, [.utf8PlainText])
        let files = Item(representations: [Representation(type: .fileURL, data: Data("file:///a\r\n".utf8))])
        XCTAssertEqual(Producers.completed(files, convert: produce).types, [.fileURL])
    }
}

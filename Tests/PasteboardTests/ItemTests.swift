import Foundation
import XCTest

@testable import Pasteboard

final class ItemTests: XCTestCase {
    func testSettingATypeAgainReplacesItInPlace() {
        var item = Item(representations: [
            Representation(type: .markdown, data: Data("# a".utf8)),
            Representation(type: .html, data: Data("<h1>a</h1>".utf8), derivedFrom: .markdown),
        ])
        item.set(Representation(type: .markdown, data: Data("# b".utf8)))
        XCTAssertEqual(item.types, [.markdown, .html])
        XCTAssertEqual(try item.representation(for: .markdown)?.data(), Data("# b".utf8))
        XCTAssertEqual(item.original?.type, .markdown)
    }

    func testPromisedDataIsProducedOnceAndCachedByTheInMemoryBackend() throws {
        let calls = Counter()
        let item = Item(representations: [
            Representation(type: .markdown, data: Data("*x*".utf8)),
            Representation(type: .html, derivedFrom: .markdown) {
                calls.increment()
                return Data("<p><em>x</em></p>".utf8)
            },
        ])
        let board = InMemoryPasteboard()
        XCTAssertEqual(try board.write([item], to: .general), 1)
        XCTAssertEqual(try board.items(in: .general).first?.types.map(\.size), [3, nil])
        XCTAssertEqual(try board.read(.html, item: 0, from: .general), Data("<p><em>x</em></p>".utf8))
        XCTAssertEqual(try board.read(.html, item: 0, from: .general), Data("<p><em>x</em></p>".utf8))
        XCTAssertEqual(calls.value, 1)
    }

    func testInMemoryBackendErrorsAndChangeCount() throws {
        let board = InMemoryPasteboard()
        XCTAssertEqual(try board.changeCount(of: .general), 0)
        XCTAssertThrowsError(try board.read(.utf8PlainText, item: 0, from: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .empty)
        }
        try board.write([Item(representations: [Representation(type: .utf8PlainText, data: Data("a".utf8))])], to: .general)
        XCTAssertThrowsError(try board.read(.rtf, item: 0, from: .general)) {
            XCTAssertEqual(($0 as? PasteboardError)?.code, .typeNotOffered)
        }
        try board.clear(.general)
        XCTAssertEqual(try board.changeCount(of: .general), 2)
        XCTAssertEqual(try board.items(in: .general), [])
        XCTAssertEqual(try board.changeCount(of: .find), 0, "pasteboards are independent")
    }

    func testPasteboardNames() {
        XCTAssertNotNil(PasteboardName("general"))
        XCTAssertNotNil(PasteboardName("my.board_2-x"))
        XCTAssertNotNil(PasteboardName(String(repeating: "a", count: 64)))
        XCTAssertNil(PasteboardName(String(repeating: "a", count: 65)))
        XCTAssertNil(PasteboardName(""))
        XCTAssertNil(PasteboardName("../etc"))
        XCTAssertNil(PasteboardName(".."))
        XCTAssertNil(PasteboardName("a b"))
        XCTAssertNil(PasteboardName("é"))
    }

    func testArchiveRoundTripKeepsOrderMetadataAndLazyDerivedTypes() throws {
        var metadata = ItemMetadata(sourceApplication: "test", sourcePath: "/tmp/x.md")
        metadata.flags = [.transient]
        let item = Item(
            representations: [
                Representation(type: .markdown, data: Data("*x*".utf8)),
                Representation(type: .html, derivedFrom: .markdown) { XCTFail("must stay lazy"); return Data() },
                Representation(type: .png, data: Data([0x89, 0x50, 0, 1, 2])),
            ], metadata: metadata)
        let archive = try ItemArchive.encode([item, Item(representations: [Representation(type: .utf8PlainText, data: Data())])])
        let decoded = try ItemArchive.decode(archive) { source, data, target in
            XCTAssertEqual(source, .markdown)
            XCTAssertEqual(target, .html)
            return Data("<em>".utf8) + data
        }
        XCTAssertEqual(decoded.count, 2)
        XCTAssertEqual(decoded[0].types, [.markdown, .html, .png])
        XCTAssertEqual(decoded[0].metadata, metadata)
        XCTAssertEqual(try decoded[0].representation(for: .html)?.data(), Data("<em>*x*".utf8))
        XCTAssertEqual(try decoded[0].representation(for: .png)?.data(), Data([0x89, 0x50, 0, 1, 2]))
        XCTAssertEqual(try decoded[1].representation(for: .utf8PlainText)?.data(), Data())
    }

    func testDamagedArchivesAreRejected() throws {
        let archive = try ItemArchive.encode([Item(representations: [Representation(type: .png, data: Data(count: 100))])])
        for length in [0, 3, 8, 20, archive.count - 1] {
            XCTAssertThrowsError(try ItemArchive.decode(archive.prefix(length)), "length \(length)") {
                XCTAssertEqual(($0 as? PasteboardError)?.code, .corrupt)
            }
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

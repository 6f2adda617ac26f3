import Foundation
import Pasteboard
import XCTest

@testable import PasteboardX11

final class ItemContentSourceTests: XCTestCase {
    func source(_ item: Item) throws -> ItemContentSource {
        var next: XAtom = 2000
        var names: [String: XAtom] = [:]
        let atoms = KnownAtoms.forTesting
        for known in KnownAtom.allCases { names[known.rawValue] = atoms[known] }
        return try ItemContentSource(item: item, atoms: atoms) { list in
            list.map { name in
                if let atom = names[name] { return atom }
                next += 1
                names[name] = next
                return next
            }
        }
    }

    func testPlainTextIsOfferedUnderEveryTextTargetAndStringIsAlwaysServedAsLatin1() throws {
        let atoms = KnownAtoms.forTesting
        let s = try source(Item(representations: [Representation(type: .utf8PlainText, data: Data("€ café".utf8))]))
        XCTAssertEqual(Set(s.targetNames), ["UTF8_STRING", "text/plain;charset=utf-8", "STRING", "TEXT", "COMPOUND_TEXT", "text/plain"])
        // A target listed is a target served: Latin-1, a character outside it written as GTK 3 writes it.
        let string = try XCTUnwrap(s.content(for: atoms[.string]), "STRING is listed, so it is served")
        XCTAssertEqual(string.type, atoms[.string])
        XCTAssertEqual(string.bytes, Data("\\u20ac caf".utf8) + Data([0xE9]))
        let text = try XCTUnwrap(s.content(for: atoms[.text]))
        XCTAssertEqual(text.type, atoms[.utf8String])
        XCTAssertEqual(s.content(for: atoms[.utf8String])?.type, atoms[.utf8String])
        let compound = try XCTUnwrap(s.content(for: atoms[.compoundText]))
        XCTAssertEqual(compound.type, atoms[.compoundText])
        XCTAssertEqual(compound.bytes, Data([0x1B, 0x25, 0x47, 0xE2, 0x82, 0xAC, 0x1B, 0x25, 0x40, 0x20, 0x63, 0x61, 0x66, 0xE9]),
                       "Latin-1 as it is, the euro sign in a UTF-8 segment")
    }

    func testStringOutsideTheBasicPlaneIsEscapedAsGTK3Does() {
        XCTAssertEqual(TextTranscoder.utf8ToLatin1Replacing(Data("a✓😀é".utf8)), Data("a\\u2713\\U0001f600".utf8) + Data([0xE9]))
        XCTAssertEqual(TextTranscoder.utf8ToLatin1Replacing(Data("plain".utf8)), Data("plain".utf8))
    }

    func testTextThatIsNotUTF8IsServedAsItIsUnderStringTextAndTextPlainOnly() throws {
        let atoms = KnownAtoms.forTesting
        let bytes = Data([0x63, 0x61, 0x66, 0xE9])
        let s = try source(Item(representations: [Representation(type: .latin1PlainText, data: bytes)]))
        XCTAssertEqual(s.targetNames, ["STRING", "TEXT", "text/plain"], "no UTF8_STRING: a reader falls back to STRING and gets the bytes")
        XCTAssertEqual(s.content(for: atoms[.string])?.bytes, bytes)
        XCTAssertEqual(s.content(for: atoms[.text])?.bytes, bytes)
        XCTAssertEqual(s.content(for: atoms[.text])?.type, atoms[.string])
    }

    func testLatin1TextIsServedAsStringAndTextAsString() throws {
        let atoms = KnownAtoms.forTesting
        let s = try source(Item(representations: [Representation(type: .utf8PlainText, data: Data("café".utf8))]))
        XCTAssertEqual(s.content(for: atoms[.string])?.bytes, Data([0x63, 0x61, 0x66, 0xE9]))
        XCTAssertEqual(s.content(for: atoms[.text])?.type, atoms[.string])
    }

    func testConversionsRunOnFirstRequestOnlyAndAreCached() throws {
        let counter = Counter()
        let item = Item(representations: [
            Representation(type: .markdown, data: Data("# hi".utf8)),
            Representation(type: .html, derivedFrom: .markdown) {
                counter.increment()
                return Data("<h1>hi</h1>".utf8)
            },
        ])
        let s = try source(item)
        XCTAssertEqual(counter.value, 0, "offering must not convert")
        let htmlIndex = try XCTUnwrap(s.targetNames.firstIndex(of: "text/html"))
        let html = s.targets[htmlIndex]
        XCTAssertEqual(s.content(for: html)?.bytes, Data("<h1>hi</h1>".utf8))
        _ = s.content(for: html)
        XCTAssertEqual(counter.value, 1)
        XCTAssertTrue(s.targetNames.contains("text/markdown"))
        XCTAssertTrue(s.targetNames.contains("UTF8_STRING"), "Markdown is plain text")
    }

    func testSensitiveItemsCarryThePasswordManagerHint() throws {
        let item = Item(representations: [Representation(type: .utf8PlainText, data: Data("pw".utf8))],
                        metadata: ItemMetadata(flags: [.sensitive]))
        let s = try source(item)
        let index = try XCTUnwrap(s.targetNames.firstIndex(of: "x-kde-passwordManagerHint"))
        XCTAssertEqual(s.content(for: s.targets[index])?.bytes, Data("secret".utf8))
    }
}

import Foundation
import Pasteboard
import XCTest

@testable import PasteboardX11

final class TargetNegotiationTests: XCTestCase {
    let negotiation = TargetNegotiation()

    func testTextTargetsArePreferredUTF8First() {
        let offered = ["TARGETS", "STRING", "text/plain", "UTF8_STRING", "text/html"]
        XCTAssertEqual(negotiation.targets(for: .utf8PlainText, offered: offered), ["UTF8_STRING", "text/plain", "STRING"])
        XCTAssertEqual(negotiation.targets(for: .html, offered: offered), ["text/html"])
        XCTAssertEqual(negotiation.targets(for: .png, offered: offered), [])
    }

    func testTypesSkipProtocolTargetsAndDuplicates() {
        let types = negotiation.types(forTargets: ["TARGETS", "MULTIPLE", "TIMESTAMP", "SAVE_TARGETS", "UTF8_STRING", "STRING",
                                                   "text/html", "image/png", "application/x-foo"])
        XCTAssertEqual(types.prefix(3), [.utf8PlainText, .html, .png])
        XCTAssertEqual(types.count, 4)
        XCTAssertEqual(TypeRegistry.standard.tags(of: types[3], .mimeType), ["application/x-foo"])
    }

    func testServedTargetsCoverTheIssueList() {
        XCTAssertEqual(negotiation.servedTargets(for: .markdown), ["text/markdown", "text/x-markdown"])
        XCTAssertEqual(negotiation.servedTargets(for: .html), ["text/html"])
        XCTAssertEqual(negotiation.servedTargets(for: .rtf), ["text/rtf", "text/richtext", "application/rtf"])
        XCTAssertEqual(Set(negotiation.servedTargets(for: .utf8PlainText)),
                       ["UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "TEXT", "STRING", "COMPOUND_TEXT"])
        XCTAssertEqual(negotiation.servedTargets(for: .png), ["image/png"])
    }
}

final class TextTranscoderTests: XCTestCase {
    func run(_ mode: TextTranscoder.Mode, _ chunks: [[UInt8]]) -> [UInt8] {
        var t = TextTranscoder(mode: mode)
        var out = Data()
        for c in chunks { out.append(t.feed(Data(c))) }
        out.append(t.finish())
        return [UInt8](out)
    }

    func testStringIsLatin1() {
        XCTAssertEqual(run(.latin1, [[0x63, 0x61, 0x66, 0xE9]]), Array("café".utf8))
        XCTAssertEqual(TextTranscoder.mode(target: "STRING", replyType: "STRING"), .latin1)
    }

    func testUTF8TargetsPassThrough() {
        XCTAssertEqual(TextTranscoder.mode(target: "UTF8_STRING", replyType: "whatever"), .passthrough)
        XCTAssertEqual(TextTranscoder.mode(target: "text/plain;charset=utf-8", replyType: nil), .passthrough)
    }

    func testTextPlainIsUTF8WhenValidElseLatin1() {
        XCTAssertEqual(run(.utf8OrLatin1, [Array("ä".utf8)]), Array("ä".utf8))
        XCTAssertEqual(run(.utf8OrLatin1, [[0xE4]]), Array("ä".utf8))
    }

    func testHTMLWithUTF16BOMIsDecodedAndTrailingNULDropped() {
        let le: [UInt8] = [0xFF, 0xFE, 0x3C, 0, 0x62, 0, 0x3E, 0, 0xE9, 0, 0, 0]
        XCTAssertEqual(run(.html, [Array(le.prefix(3)), Array(le.dropFirst(3))]), Array("<b>é".utf8))
        let be: [UInt8] = [0xFE, 0xFF, 0, 0x3C, 0, 0x62]
        XCTAssertEqual(run(.html, [be]), Array("<b".utf8))
    }

    func testHTMLInUTF8LosesOnlyOneTrailingNULAcrossChunks() {
        XCTAssertEqual(run(.html, [Array("<p>a".utf8), [0]]), Array("<p>a".utf8))
        XCTAssertEqual(run(.html, [Array("<p>".utf8) + [0], Array("b".utf8)]), Array("<p>".utf8) + [0] + Array("b".utf8))
    }

    func testTextAndCompoundTextAreDecodedByTheReplyType() {
        XCTAssertEqual(TextTranscoder.mode(target: "TEXT", replyType: "COMPOUND_TEXT"), .compoundText)
        XCTAssertEqual(TextTranscoder.mode(target: "TEXT", replyType: "STRING"), .latin1)
        XCTAssertEqual(TextTranscoder.mode(target: "TEXT", replyType: "UTF8_STRING"), .passthrough)
        XCTAssertEqual(TextTranscoder.mode(target: "TEXT", replyType: "TEXT"), .utf8OrLatin1)
        XCTAssertEqual(TextTranscoder.mode(target: "COMPOUND_TEXT", replyType: "COMPOUND_TEXT"), .compoundText)
        XCTAssertEqual(TextTranscoder.mode(target: "COMPOUND_TEXT", replyType: nil), .compoundText)
        // Greek in ISO 8859-7 (GR), split across two chunks in the middle of the escape sequence.
        XCTAssertEqual(run(.compoundText, [[0x61, 0x1B, 0x2D], [0x46, 0xD9, 0x00]]), Array("aΩ".utf8))
    }

    func testLatin1EncodingRefusesCharactersOutsideLatin1() {
        XCTAssertEqual(TextTranscoder.utf8ToLatin1(Data("café".utf8)), Data([0x63, 0x61, 0x66, 0xE9]))
        XCTAssertNil(TextTranscoder.utf8ToLatin1(Data("€".utf8)))
    }
}

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

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

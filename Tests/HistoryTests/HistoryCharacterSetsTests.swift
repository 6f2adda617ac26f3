import Foundation
import Pasteboard
import XCTest

@testable import History

/// The character sets a short needle is narrowed by (``CharacterSets``): a text that matches always holds
/// what the needle requires, on random texts of the pieces the byte search is tested with and the
/// symbols that are bucketed; and a search of one or two characters finds what reading every text finds,
/// also in rows written without sets and in a history made before them.
final class HistoryCharacterSetsTests: XCTestCase {
    static let pieces: [[UInt8]] = HistorySubstringTests.pieces
        + ["§", "×", "—", "€", "·", "\u{387}", "´", "\u{1FFD}", "@", "~", "[", "_", "\t", "😀", "┌"].map { Array($0.utf8) }

    func testATextThatMatchesHoldsWhatTheNeedleRequires() {
        var seed: UInt64 = 49
        func next(_ bound: Int) -> Int {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        func random(_ length: Int) -> [UInt8] { (0..<length).flatMap { _ in Self.pieces[next(Self.pieces.count)] } }
        var matched = 0, narrowed = 0
        for _ in 0..<6000 {
            let text = random(next(30))
            let sets = text.withUnsafeBytes { CharacterSets.of($0) }
            var needles = (0..<3).map { _ in String(decoding: random(1 + next(2)), as: UTF8.self) }
            if !text.isEmpty {
                let start = next(text.count)
                needles.append(String(decoding: text[start..<min(text.count, start + 1 + next(3))], as: UTF8.self).uppercased())
            }
            for needle in needles {
                guard let required = CharacterSets.required(needle) else { continue }
                let matches = text.withUnsafeBytes { History.CaseInsensitiveSubstring.reference(needle, in: $0) }
                if matches {
                    matched += 1
                    XCTAssertTrue(sets.holds(required), "needle \(Array(needle.unicodeScalars)) in \(Array(String(decoding: text, as: UTF8.self).unicodeScalars))")
                } else if !sets.holds(required) {
                    narrowed += 1
                }
            }
        }
        XCTAssertGreaterThan(matched, 1000)
        XCTAssertGreaterThan(narrowed, 5000, "the sets must leave most texts out")
    }

    func testEveryPrintableASCIICharacterHasABitOfItsOwn() {
        var bits = Set<Int>()
        for byte in UInt8(0x20)...0x7E where !(0x41...0x5A).contains(byte) { bits.insert(CharacterSets.bit(ascii: byte)!) }
        XCTAssertEqual(bits, Set(0..<69))
        XCTAssertEqual(CharacterSets.bit(ascii: UInt8(ascii: "Q")), CharacterSets.bit(ascii: UInt8(ascii: "q")))
        XCTAssertNil(CharacterSets.bit(ascii: 0x0A))
    }

    func history(_ root: String) throws -> History {
        var limits = History.Limits()
        limits.maxRepresentationSize = 1 << 20
        limits.maxEntries = 100_000
        return try History(
            root: root, limits: limits, producer: { _, data, _ in data },
            describe: { item in String(decoding: (try? item.representations.first?.data()) ?? Data(), as: UTF8.self) })
    }

    func plain(_ text: String) -> Item { Item(representations: [Representation(type: .utf8PlainText, data: Data(text.utf8))]) }

    func testShortNeedlesFindWhatReadingEveryTextFinds() throws {
        let root = NSTemporaryDirectory() + "/chars-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let history = try history(root)
        let texts = ["mail me at a@b.org", "50 % off", "§ 3 of the law", "plain words", "Kelvin \u{212A}", "tab\there", "x×y",
                     "😀 smile", String(repeating: "long ", count: 20_000) + "~ at the end"]
        for (index, text) in texts.enumerated() {
            _ = try history.record(plain(text), preview: String(text.prefix(40)), application: nil, now: Date(timeIntervalSince1970: Double(index + 1)))
        }
        func expected(_ needle: String) -> [Int] {
            texts.indices.reversed().filter { index in
                Array(texts[index].utf8).withUnsafeBytes { History.CaseInsensitiveSubstring.reference(needle, in: $0) }
            }.map { $0 + 1 }
        }
        let needles = ["@", "%", "§", "k", "K", "\t", "×", "😀", "~", "é", "at", "x×", "zz", "|", "ß"]
        for needle in needles {
            XCTAssertEqual(try history.search(.substring(needle)).entries.map(\.id), expected(needle), needle)
        }
        // Rows without sets (as an earlier pbctl writes them) are still searched.
        let connection = try SQLiteConnection(path: root + "/history.db", create: false)
        try connection.execute("UPDATE search_text SET chars_a = NULL, chars_b = NULL WHERE id IN (1, 3)")
        for needle in needles {
            XCTAssertEqual(try history.search(.substring(needle)).entries.map(\.id), expected(needle), needle)
        }
    }

    func testAHistoryMadeBeforeTheSetsGetsThemOnItsNextRecord() throws {
        let root = NSTemporaryDirectory() + "/chars-old-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        do {
            let history = try history(root)
            _ = try history.record(plain("a@b"), preview: "a@b", application: nil, now: Date(timeIntervalSince1970: 1))
            _ = try history.record(plain("§ 2"), preview: "§ 2", application: nil, now: Date(timeIntervalSince1970: 2))
        }
        let connection = try SQLiteConnection(path: root + "/history.db", create: false)
        try connection.execute("DROP INDEX search_text_chars; ALTER TABLE search_text DROP COLUMN chars_a; ALTER TABLE search_text DROP COLUMN chars_b;")
        let history = try history(root)
        XCTAssertEqual(try history.search(.substring("@")).entries.map(\.id), [1], "searched by reading every text")
        _ = try history.record(plain("third"), preview: "third", application: nil, now: Date(timeIntervalSince1970: 3))
        XCTAssertEqual(try connection.integer("SELECT count(*) FROM search_text WHERE chars_a IS NOT NULL"), 3)
        XCTAssertEqual(try history.search(.substring("@")).entries.map(\.id), [1])
        XCTAssertEqual(try history.search(.substring("§")).entries.map(\.id), [2])
        XCTAssertEqual(try history.search(.substring("h")).entries.map(\.id), [3])
    }
}

import Foundation
import Pasteboard
import XCTest

@testable import History
@testable import PasteboardStore

/// The history's case-insensitive substring search on bytes answers as
/// `String(decoding:).lowercased().contains` does (the reference it replaced), over random texts of
/// ASCII, CR LF, combining marks, characters that lowercase to ASCII or are ASCII in another spelling,
/// and bytes that are not UTF-8; and long texts are searched whole without reading their entries.
final class HistorySubstringTests: XCTestCase {
    /// The tables the byte search relies on, checked against every scalar: only İ and the Kelvin sign
    /// lowercase to something holding ASCII (i and k), and only U+037E, U+1FEF and U+212A are ASCII
    /// characters in another spelling (; ` K).
    func testTheScalarsThatBecomeASCIIAreTheOnesListed() {
        let ascii = Set((0..<128).map { Character(Unicode.Scalar(UInt8($0))) })
        var lowercasedToASCII: [UInt32: [UInt8]] = [:]
        var equivalent: [UInt32] = []
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let lowered = String(scalar).lowercased()
            let bytes = lowered.utf8.filter { $0 < 0x80 }
            if !bytes.isEmpty { lowercasedToASCII[value] = bytes }
            if ascii.contains(Character(scalar)) { equivalent.append(value) }
        }
        XCTAssertEqual(lowercasedToASCII, [0x130: [UInt8(ascii: "i")], 0x212A: [UInt8(ascii: "k")]])
        XCTAssertEqual(Set(lowercasedToASCII.values.flatMap { $0 }), History.CaseInsensitiveSubstring.lowercasedToASCII)
        XCTAssertEqual(Set(equivalent), History.CaseInsensitiveSubstring.equivalentScalars)
        for value in equivalent {
            let character = Character(Unicode.Scalar(value)!)
            let same = (0..<128).map { UInt8($0) }.filter { Character(Unicode.Scalar($0)) == character }
            XCTAssertEqual(same.count, 1)
            let folded = same.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            XCTAssertTrue(History.CaseInsensitiveSubstring.equivalentToASCII.isSuperset(of: folded), "U+\(String(value, radix: 16)): \(same)")
        }
    }

    /// Pieces random texts and needles are made of.
    static let pieces: [[UInt8]] = {
        let strings = [
            "a", "b", "A", "B", "k", "K", "i", "I", "s", "S", "e", "E", "x", "z", " ", ";", "`", "\r", "\n", "\r\n", "0", "-", "/",
            "\u{212A}", "\u{130}", "\u{37E}", "\u{1FEF}", "é", "e\u{301}", "\u{301}", "É", "ß", "ẞ", "Σ", "σ", "ς", "İ", "ı",
            "日本", "🎉", "👍🏽", "\u{200D}", "👨\u{200D}👩", "🇫🇷", "\u{600}", "ǅ", "ﬁ", "Å", "\u{212B}", "Ω", "\u{2126}", "ö", "Ö",
        ]
        return strings.map { Array($0.utf8) } + [[0xFF], [0xC3], [0xE2, 0x84], [0x80]]
    }()

    func testTheByteSearchAnswersAsTheStringSearchOnRandomTexts() {
        var seed: UInt64 = 47
        func next(_ bound: Int) -> Int {
            // A fixed sequence (SplitMix64): a failure is the same on every run.
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        func random(_ length: Int, asciiOnly: Bool) -> [UInt8] {
            var out: [UInt8] = []
            for _ in 0..<length {
                let piece = asciiOnly ? Self.pieces[next(23)] : Self.pieces[next(Self.pieces.count)]
                out += piece
            }
            return out
        }
        var checked = 0, matched = 0
        for round in 0..<4000 {
            let text = random(next(40), asciiOnly: round % 3 == 0)
            var needles: [String] = []
            // Pieces of the text itself (cut anywhere, so often not UTF-8 at the ends), in other cases.
            for _ in 0..<4 {
                guard !text.isEmpty else { break }
                let start = next(text.count), length = next(min(8, text.count - start) + 1)
                let piece = String(decoding: text[start..<start + length], as: UTF8.self)
                needles.append(next(2) == 0 ? piece.uppercased() : piece)
            }
            for _ in 0..<3 { needles.append(String(decoding: random(1 + next(4), asciiOnly: next(2) == 0), as: UTF8.self)) }
            for needle in needles {
                let finder = History.CaseInsensitiveSubstring(needle)
                text.withUnsafeBytes { bytes in
                    let expected = History.CaseInsensitiveSubstring.reference(needle, in: bytes)
                    XCTAssertEqual(finder.matches(bytes), expected, "needle \(Array(needle.utf8)) in \(text)")
                    if expected { matched += 1 }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(matched, checked / 5, "the random needles must often match")
        XCTAssertLessThan(matched, checked * 4 / 5, "the random needles must often miss")
    }

    func testTheAnchorLeavesOutWhatAnotherSpellingMakes() {
        XCTAssertEqual(History.CaseInsensitiveSubstring("Zero-Byte").asciiAnchor, Array("zero-byte".utf8))
        XCTAssertEqual(History.CaseInsensitiveSubstring("kiwi fruit").asciiAnchor, Array(" fru".utf8), "i and k come from İ and the Kelvin sign too")
        XCTAssertEqual(History.CaseInsensitiveSubstring("café au lait").asciiAnchor, Array("au la".utf8), "the ASCII next to é may be one character with it")
        XCTAssertEqual(History.CaseInsensitiveSubstring("日本").asciiAnchor, [])
        let kelvin = History.CaseInsensitiveSubstring("K")
        XCTAssertTrue(Array("\u{212A}elvin".utf8).withUnsafeBytes { kelvin.matches($0) })
        let dotted = History.CaseInsensitiveSubstring("i")
        XCTAssertEqual(Array("\u{130}".utf8).withUnsafeBytes { dotted.matches($0) }, Array("\u{130}".utf8).withUnsafeBytes { History.CaseInsensitiveSubstring.reference("i", in: $0) })
        let crlf = History.CaseInsensitiveSubstring("\n")
        XCTAssertEqual(Array("a\r\nb".utf8).withUnsafeBytes { crlf.matches($0) }, Array("a\r\nb".utf8).withUnsafeBytes { History.CaseInsensitiveSubstring.reference("\n", in: $0) })
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

    /// A text longer than the index keeps is searched whole from `search_long`, for needles of every
    /// length; one recorded without it (by a pbctl before it) is still searched, from its
    /// representations; deleting and clearing remove its row.
    func testLongTextsAreSearchedWholeAndLeaveWithTheirEntry() throws {
        let root = NSTemporaryDirectory() + "pbctl-history-substring-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let history = try history(root)
        let filler = String(repeating: "filler ", count: 12_000)
        XCTAssertEqual(try history.record(plain(filler + "Far-Away-Word §"), preview: "filler", application: nil), .recorded(1))
        XCTAssertEqual(try history.record(plain(filler + "another ending ¤"), preview: "filler", application: nil), .recorded(2))
        XCTAssertEqual(try history.record(plain("short one"), preview: "short", application: nil), .recorded(3))
        func ids(_ needle: String) throws -> [Int] { try history.search(.substring(needle)).entries.map(\.id) }
        func longRows() throws -> Int64 {
            let connection = try SQLiteConnection(path: root + "/history.db", create: false)
            return try connection.integer("SELECT count(*) FROM search_long") ?? -1
        }
        XCTAssertEqual(try longRows(), 2)
        XCTAssertEqual(try ids("far-away-WORD"), [1])
        XCTAssertEqual(try ids("§"), [1], "one character: every text read, the long ones whole")
        XCTAssertEqual(try ids("g ¤"), [2])
        XCTAssertEqual(try ids("ONE"), [3])
        XCTAssertEqual(try ids("filler filler"), [2, 1])
        XCTAssertEqual(try ids("no such words"), [])
        // As a pbctl before `search_long` left it: the table gone, the long entries still found.
        do {
            let connection = try SQLiteConnection(path: root + "/history.db", create: false)
            try connection.execute("DROP TABLE search_long")
        }
        let older = try self.history(root)
        XCTAssertEqual(try older.search(.substring("far-away-word")).entries.map(\.id), [1])
        XCTAssertEqual(try older.search(.substring("§")).entries.map(\.id), [1])
        // The next long text makes the table again; the entries before it are still read whole.
        XCTAssertEqual(try older.record(plain(filler + "third µ"), preview: "filler", application: nil), .recorded(4))
        XCTAssertEqual(try longRows(), 1)
        XCTAssertEqual(try older.search(.substring("Far-away-word")).entries.map(\.id), [1])
        XCTAssertEqual(try older.search(.substring("THIRD µ")).entries.map(\.id), [4])
        _ = try older.delete([4])
        XCTAssertEqual(try longRows(), 0)
        XCTAssertEqual(try older.search(.substring("third")).entries.map(\.id), [])
        XCTAssertEqual(try older.record(plain(filler + "fifth"), preview: "filler", application: nil), .recorded(5))
        XCTAssertEqual(try longRows(), 1)
        _ = try older.clear()
        XCTAssertEqual(try longRows(), 0)
        XCTAssertEqual(try older.search(.substring("fifth")).entries.map(\.id), [])
    }

    /// More candidates than are looked up one by one (every text holds each trigram of the needle, few
    /// hold the needle): every match is found, newest first, and a limit takes the newest.
    func testManyCandidatesFewMatches() throws {
        let root = NSTemporaryDirectory() + "pbctl-history-substring-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let history = try history(root)
        let count = History.candidateLookupLimit + 100
        let matching: Set<Int> = [7, 5_000, 19_999, count - 1]
        var entries: [History.ImportedEntry] = []
        for n in 0..<count {
            let text = matching.contains(n) ? "entry \(n): ABCD" : "entry \(n): abc and bcd"
            // Times out of id order: the newest entry is not the last one.
            let time = Date(timeIntervalSince1970: Double(n == 7 ? 10 * count : n))
            entries.append(History.ImportedEntry(item: plain(text), time: time, pinned: false, preview: text))
        }
        XCTAssertEqual(try history.importEntries(entries).added, count)
        let all = try history.search(.substring("abcd")).entries.map(\.preview)
        XCTAssertEqual(all, ["entry 7: ABCD", "entry \(count - 1): ABCD", "entry 19999: ABCD", "entry 5000: ABCD"])
        XCTAssertEqual(try history.search(.substring("abcd"), History.Query(limit: 2)).entries.map(\.preview), Array(all.prefix(2)))
        XCTAssertEqual(try history.search(.substring("bcd")).entries.count, count)
        XCTAssertEqual(try history.search(.substring("nothing")).entries.count, 0)
    }

    /// Short texts outside ASCII that repeat (pictures' previews) get each the answer their own text
    /// gives, whichever came first.
    func testRepeatedTextsOutsideASCIIAreAnsweredAsTheirOwn() throws {
        let root = NSTemporaryDirectory() + "pbctl-history-substring-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let history = try history(root)
        let texts = ["[image/png 48×48 2.8 KB]", "Naïve ÉCOLE", "[image/png 48×48 2.8 KB] ", "naïve école", "[image/png 48×48 2.8 KB]x"]
        for (index, text) in texts.enumerated() {
            // The same text again and again: distinct entries by their pictures' bytes.
            for copy in 0..<3 {
                let item = Item(representations: [
                    Representation(type: .png, data: Data([0x89, 0x50, UInt8(index), UInt8(copy)])),
                ])
                _ = try history.record(item, preview: text, application: nil, now: Date(timeIntervalSince1970: Double(index * 10 + copy)))
                _ = try history.record(plain(text + String(repeating: "~", count: copy)), preview: "t", application: nil, now: Date(timeIntervalSince1970: Double(1000 + index * 10 + copy)))
            }
        }
        func count(_ needle: String) throws -> Int { try history.search(.substring(needle)).entries.count }
        XCTAssertEqual(try count("48×48"), 18)
        XCTAssertEqual(try count("naïve école"), 12)
        XCTAssertEqual(try count("B]x"), 6)
        XCTAssertEqual(try count("§"), 0)
        XCTAssertEqual(try count("×"), 18)
    }
}

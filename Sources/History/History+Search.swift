#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import PasteboardStore

// Search: every entry's text (``History/searchable``, the preview when it has none) is indexed by its
// trigrams (FTS5's trigram tokenizer, case folded, `detail=none`). A search asks the index for the
// entries holding every trigram of what a match must contain, then confirms each candidate on its
// text: the index only narrows, the answer is always the text's. Without such a literal (a needle of one
// or two characters, a regular expression with none) every text is read, in the order it is stored.
// Texts longer than the index keeps are always candidates, confirmed on their whole text (`search_long`).

extension History {
    /// How a search confirms one entry's text.
    public struct Matcher: Sendable {
        /// Strings every match contains, in any case: what the index narrows the candidates by (each of
        /// at least three characters counts).
        public var literals: [String]
        /// Whether a text (its UTF-8 bytes) matches.
        public var matches: @Sendable (UnsafeRawBufferPointer) -> Bool

        public init(literals: [String], matches: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool) {
            self.literals = literals
            self.matches = matches
        }

        /// A case-insensitive substring (lowercased, as Swift lowercases): the answers of
        /// `String(decoding:).lowercased().contains`, found on the bytes (``CaseInsensitiveSubstring``).
        public static func substring(_ needle: String) -> Matcher {
            let finder = CaseInsensitiveSubstring(needle)
            return Matcher(literals: [needle]) { finder.matches($0) }
        }

        /// A regular expression (``LineRegex``, matched line by line in linear time), narrowed by the
        /// literals every match contains. One scanner serves every text: its DFA's states are made once.
        /// An ASCII text is first looked for each ASCII literal on its bytes (`memmem`), so a text without
        /// them (a long one above all) is never run through the scanner.
        public static func regex(_ pattern: LineRegex) -> Matcher {
            let scanner = LineRegex.Scanner(pattern)
            let literals = pattern.requiredLiterals
            let finders = literals.filter { $0.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0A && $0 != 0x0D } && !$0.isEmpty }
                .map(CaseInsensitiveSubstring.init)
            return Matcher(literals: literals) { bytes in
                if !finders.isEmpty, bytes.count > 4096, !bytes.contains(where: { $0 >= 0x80 }),
                    !finders.allSatisfy({ $0.matches(bytes) })
                {
                    return false
                }
                return scanner.matches(bytes)
            }
        }
    }

    /// A matcher's answers for short texts outside ASCII, kept for one search: such texts repeat (every
    /// picture's preview says `[image/png W×H SIZE]`), and the exact comparison they may need is the
    /// slow one. A matcher's answer depends on the bytes alone.
    final class RepeatedTexts {
        let matcher: Matcher
        private var answers: [[UInt8]: Bool] = [:]
        static let longest = 96, most = 4096

        init(_ matcher: Matcher) { self.matcher = matcher }

        func matches(_ text: UnsafeRawBufferPointer) -> Bool {
            guard text.count <= Self.longest, text.contains(where: { $0 >= 0x80 }) else { return matcher.matches(text) }
            let key = [UInt8](text)
            if let known = answers[key] { return known }
            let answer = matcher.matches(text)
            if answers.count < Self.most { answers[key] = answer }
            return answer
        }
    }

    /// The entries whose text `matcher` matches, newest first, as `query` filters them.
    public func search(_ matcher: Matcher, _ query: Query = Query()) throws -> (entries: [Entry], problems: [String]) {
        try withDatabase(create: false, absent: ([Entry](), [String]())) { database in
            try database.connection.transaction(write: false) {
                try search(matcher, try resolved(query, database), database)
            }
        }
    }

    /// The FTS5 query asking for every trigram of `literals` (each of at least three characters; at
    /// most 24 trigrams spread over each): nil when none is long enough.
    static func trigramQuery(_ literals: [String]) -> String? {
        var terms: [String] = []
        for literal in literals {
            let scalars = Array(literal.unicodeScalars)
            guard scalars.count >= 3 else { continue }
            let count = scalars.count - 2
            let step = max(1, count / 24)
            var starts = Array(stride(from: 0, to: count, by: step))
            if starts.last != count - 1 { starts.append(count - 1) }
            for start in starts {
                var trigram = String.UnicodeScalarView()
                trigram.append(contentsOf: scalars[start..<start + 3])
                // Inside an FTS5 string only the double quote is special (doubled).
                var term = "\""
                for scalar in trigram {
                    if scalar == "\"" { term += "\"" }
                    term.unicodeScalars.append(scalar)
                }
                term += "\""
                if !terms.contains(term) { terms.append(term) }
            }
        }
        return terms.isEmpty ? nil : terms.joined(separator: " AND ")
    }

    /// What every text matching must hold, by ``CharacterSets``: the characters of every literal; nil
    /// when nothing is required.
    static func requiredCharacters(_ literals: [String]) -> CharacterSets.Sets? {
        var sets = CharacterSets.Sets()
        var any = false
        for literal in literals {
            guard let needed = CharacterSets.required(literal) else { continue }
            sets.a |= needed.a
            sets.b |= needed.b
            any = true
        }
        return any ? sets : nil
    }

    /// Candidates fewer than this are looked up one by one and sorted; more are met while walking the
    /// entries newest first.
    static let candidateLookupLimit = 20_000

    private func search(_ matcher: Matcher, _ query: Query, _ database: HistoryDatabase) throws -> ([Entry], [String]) {
        let connection = database.connection
        // Texts longer than the index holds are always candidates, read whole.
        var long: [Int64] = []
        let longStatement = try connection.statement("SELECT id FROM entry WHERE long_text = 1")
        while try longStatement.step() { long.append(longStatement.integer(0)) }
        longStatement.reset()
        var candidates: [Int64]? = nil
        if let fts = Self.trigramQuery(matcher.literals) {
            var found: [Int64] = []
            let statement = try connection.statement("SELECT rowid FROM search WHERE search MATCH ?")
            try statement.bind([.text(fts)])
            while try statement.step() { found.append(statement.integer(0)) }
            statement.reset()
            found += long
            candidates = found
        } else if let required = Self.requiredCharacters(matcher.literals), try database.characterSets(create: false) {
            // Too short for the trigram index: the texts holding every character the literals need (a
            // row without its sets, written by an earlier pbctl, always).
            var found: [Int64] = []
            let statement = try connection.statement(
                "SELECT id FROM search_text INDEXED BY search_text_chars WHERE chars_a IS NULL OR chars_b IS NULL"
                    + " OR (chars_a & ?1 = ?1 AND chars_b & ?2 = ?2)")
            try statement.bind([.integer(required.a), .integer(required.b)])
            while try statement.step() { found.append(statement.integer(0)) }
            statement.reset()
            candidates = found
        }
        var problems: [String] = []
        var results: [Entry] = []
        let limit = query.limit ?? Int.max
        let repeated = RepeatedTexts(matcher)
        let longSet = Set(long)
        let longText = try database.longTexts(create: false) ? connection.statement("SELECT text FROM search_long WHERE id = ?") : nil
        func confirm(_ id: Int64) throws -> Bool {
            if longSet.contains(id) {
                if let longText {
                    // Its whole text, kept beside the index.
                    try longText.bind([.integer(id)])
                    defer { longText.reset() }
                    if try longText.step() { return longText.withBytes(0) { matcher.matches($0) } ?? false }
                }
                // Recorded by a pbctl that kept no such text: read from its representations.
                guard let item = try? item(id: Int(id), database) else { return false }
                let text = searchable(item) ?? ""
                var bytes = Array(text.utf8)
                return bytes.withUnsafeMutableBytes { matcher.matches(UnsafeRawBufferPointer($0)) }
            }
            let statement = try connection.statement("SELECT text FROM search_text WHERE id = ?")
            try statement.bind([.integer(id)])
            defer { statement.reset() }
            guard try statement.step() else { return false }
            return statement.withBytes(0) { repeated.matches($0) } ?? false
        }
        func take(_ row: SQLiteStatement) throws {
            switch try entry(row, database) {
            case .success(let entry): results.append(entry)
            case .failure(let problem): problems.append(problem.message)
            }
        }
        if var candidates, candidates.count < Self.candidateLookupLimit {
            // Few candidates: each looked up (with the filters), sorted newest first, confirmed in order.
            candidates.sort()
            var timed: [(time: Int64, id: Int64)] = []
            var unlimited = query
            unlimited.limit = nil
            let (sql, values) = Self.listing(unlimited, columns: "time", order: nil, extra: "id = ?", expiredBefore: ageCutoff())
            let lookup = try connection.statement(sql)
            var previous: Int64 = -1
            for id in candidates where id != previous {
                previous = id
                try lookup.bind(values + [.integer(id)])
                if try lookup.step() { timed.append((lookup.integer(0), id)) }
                lookup.reset()
            }
            timed.sort { ($0.time, $0.id) > ($1.time, $1.id) }
            let row = try connection.statement("SELECT \(Self.entryColumns) FROM entry WHERE id = ?")
            for (_, id) in timed where results.count < limit {
                guard try confirm(id) else { continue }
                try row.bind([.integer(id)])
                if try row.step() { try take(row) }
                row.reset()
            }
            return (results, problems)
        }
        if var candidates, query.limit == nil {
            // Many candidates and every match wanted: each confirmed in the order the texts are stored
            // (no walk over every entry), the matches then listed newest first.
            candidates.sort()
            var matched: [Int64] = []
            var previous: Int64 = -1
            for id in candidates where id != previous {
                previous = id
                if try confirm(id) { matched.append(id) }
            }
            return try listMatched(matched, query, database)
        }
        // Many candidates and a limit, or none known: the newest entries first, each (candidate) confirmed.
        var member: [Bool]? = nil
        if let candidates {
            let top = Int(candidates.max() ?? 0)
            var bits = [Bool](repeating: false, count: top + 1)
            for id in candidates where id >= 0 { bits[Int(id)] = true }
            member = bits
        }
        if candidates != nil || query.limit != nil {
            var unlimited = query
            unlimited.limit = nil
            let (sql, values) = Self.listing(unlimited, expiredBefore: ageCutoff())
            let walk = try connection.statement(sql)
            try walk.bind(values)
            defer { walk.reset() }
            // Without candidates, walking in time order is worth it only while matches come early: after
            // a few thousand entries the texts are read in the order they are stored instead.
            var walked = 0
            while results.count < limit, try walk.step() {
                let id = walk.integer(0)
                walked += 1
                if member == nil, walked > 4096 {
                    walk.reset()
                    return try scanAll(repeated, query, long: long, database, confirm: confirm)
                }
                if let member, id >= member.count || !member[Int(id)] { continue }
                guard try confirm(id) else { continue }
                try take(walk)
            }
            return (results, problems)
        }
        return try scanAll(repeated, query, long: long, database, confirm: confirm)
    }

    /// Every text read in the order it is stored, matches collected, then listed newest first.
    private func scanAll(
        _ matcher: RepeatedTexts, _ query: Query, long: [Int64], _ database: HistoryDatabase, confirm: (Int64) throws -> Bool
    ) throws -> ([Entry], [String]) {
        let connection = database.connection
        var matched: [Int64] = []
        let scan = try connection.statement("SELECT id, text FROM search_text")
        while try scan.step() {
            let id = scan.integer(0)
            if scan.withBytes(1, { matcher.matches($0) }) == true { matched.append(id) }
        }
        scan.reset()
        let seen = Set(matched)
        for id in long where !seen.contains(id) {
            if try confirm(id) { matched.append(id) }
        }
        return try listMatched(matched, query, database)
    }

    /// The entries `matched` (confirmed matches, any order) as `query` filters them, newest first.
    private func listMatched(_ matched: [Int64], _ query: Query, _ database: HistoryDatabase) throws -> ([Entry], [String]) {
        let connection = database.connection
        var results: [Entry] = []
        var problems: [String] = []
        guard !matched.isEmpty else { return ([], []) }
        let top = Int(matched.max() ?? 0)
        var member = [Bool](repeating: false, count: top + 1)
        for id in matched { member[Int(id)] = true }
        if matched.count < Self.candidateLookupLimit {
            // Few matches: each looked up, with the filters.
            var query = query
            let limit = query.limit ?? Int.max
            query.limit = nil
            let (sql, values) = Self.listing(query, order: nil, extra: "id = ?", expiredBefore: ageCutoff())
            let lookup = try connection.statement(sql)
            for id in matched {
                try lookup.bind(values + [.integer(id)])
                if try lookup.step() {
                    switch try entry(lookup, database) {
                    case .success(let entry): results.append(entry)
                    case .failure(let problem): problems.append(problem.message)
                    }
                }
                lookup.reset()
            }
            results.sort { ($0.time, $0.id) > ($1.time, $1.id) }
            if results.count > limit { results.removeLast(results.count - limit) }
            return (results, problems)
        }
        var unlimited = query
        unlimited.limit = nil
        let (sql, values) = Self.listing(unlimited, expiredBefore: ageCutoff())
        let walk = try connection.statement(sql)
        try walk.bind(values)
        defer { walk.reset() }
        let limit = query.limit ?? Int.max
        while results.count < limit, try walk.step() {
            let id = walk.integer(0)
            guard id < member.count, member[Int(id)] else { continue }
            switch try entry(walk, database) {
            case .success(let entry): results.append(entry)
            case .failure(let problem): problems.append(problem.message)
            }
        }
        return (results, problems)
    }
}

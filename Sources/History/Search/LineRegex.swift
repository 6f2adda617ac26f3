// A regular-expression engine whose time is linear in the text, whatever the pattern: what
// `pbctl history search --regex` runs over what other applications copied, where one entry must never
// stall a search (a backtracking engine takes seconds on `(a*)*b` against two dozen `a`).
//
// The pattern is POSIX ERE as `grep -E` reads it, plus the usual escapes (`\d \w \s \b`…). It is parsed
// without recursion into a Thompson NFA (a flat program of position-independent instructions, so a counted
// repetition is a copy), which is run in lockstep over the text's Unicode scalars (a Pike VM without
// captures): each instruction is visited at most once per scalar, so a match costs O(text × program).
// The program is capped, so the cost is bounded by the text's length alone.

/// A compiled regular expression that says whether it matches anywhere in a text, line by line as `grep -E`
/// sees it, in time linear in the text.
///
/// Syntax (POSIX ERE, as `grep -E` accepts it):
/// - literals; `.` (any scalar but a line break); bracket expressions `[abc]`, `[^a-z]`, `[]a]`, `[a-]`,
///   with the POSIX classes `[:alpha:]` `[:digit:]` `[:alnum:]` `[:upper:]` `[:lower:]` `[:space:]`
///   `[:blank:]` `[:punct:]` `[:print:]` `[:graph:]` `[:cntrl:]` `[:xdigit:]` and `[=x=]` `[.x.]` for one
///   scalar; inside brackets a backslash is an ordinary character, as in POSIX (`[\d]` is `\` or `d`);
/// - `*` `+` `?` `{m}` `{m,}` `{,n}` `{m,n}` (counts up to ``maximumRepetition``); a `?` right after a
///   quantifier (`*?`, lazy elsewhere) changes nothing here, since only whether it matches is asked;
///   quantifiers in a row apply to the repeated atom (`a**` is `a*`); `{` not followed by a digit or `,`
///   is a literal `{`;
/// - `|`, `( )`, `(?: )`, `^`, `$`;
/// - escapes: `\` before a punctuation character makes it literal (`\.` `\\` `\(`); `\d \D` (ASCII digits),
///   `\w \W` (letters, digits, `_`), `\s \S` (white space), `\b \B` (word boundary or not), `\<` `\>` (start
///   and end of a word), `` \` `` `\'` (start and end of the whole text), `\t \n \r \f \v`.
///
/// Refused with an ``Error``: back-references (`\1`: no linear-time algorithm matches them), unknown
/// escapes (`\q`), a quantifier with nothing to repeat (`*a`, `(|+)`, `^*`), an unmatched `(`, `)` or `[`,
/// a malformed interval (`a{1`, `a{2,1}`), a count above ``maximumRepetition``, groups nested deeper than
/// ``maximumNesting``, and a pattern that compiles to more than ``maximumProgramSize`` instructions (or
/// whose repetitions write more than ``maximumRepetitionWork`` while it is read).
/// (`grep -E` reads some of these as literals or ignores them, with a warning at best.)
///
/// Semantics: matching is over Unicode scalars, unanchored. A text is seen as lines, as grep sees it:
/// `^` matches at the start of the text and after every line feed, `$` at the end and before every line
/// feed (or CR LF); no match begins after a final line feed (grep sees no line there, so `^$` does not
/// match "a\n"), but an empty text is one empty line. Nothing but `\n` (or a line feed in the pattern)
/// matches a line feed: not `.`, not `\s`, not `[^a]`, not `[[:space:]]`; so a match never spans two
/// lines unless the pattern asks for it.
/// The POSIX classes follow glibc's UTF-8 locales (`[[:alpha:]]` matches `é`, `[[:digit:]]` only ASCII).
/// With `caseInsensitive`, a scalar matches its simple case variants (`é` and `É`, `σ` `ς` and `Σ`; not
/// `ß` and `SS`).
public struct LineRegex: Sendable {
    /// Why a pattern was refused: one line naming what is wrong and where (an offset in Unicode scalars,
    /// from 0).
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
        public init(_ message: String) { self.message = message }
    }

    /// The most instructions a pattern may compile to (counted repetition copies its atom: `a{1000}` is
    /// 1000 instructions). A match costs at most a few steps per instruction and scalar.
    public static let maximumProgramSize = 20_000
    /// The largest count `{m,n}` accepts (POSIX requires 255 at least).
    public static let maximumRepetition = 1_000
    /// The deepest nesting of groups.
    public static let maximumNesting = 1_000
    /// The most instructions the repetitions of a pattern may write while it is read, those a later `{0}`
    /// drops included: what bounds the time a pattern takes to compile.
    public static let maximumRepetitionWork = 1_000_000

    /// The pattern as given.
    public let pattern: String
    public let caseInsensitive: Bool
    let program: [Instruction]
    let sets: [ScalarSet]

    /// Compiles `pattern`; throws an ``Error`` saying what is wrong and where when it is not one this
    /// engine accepts (see the type's documentation).
    public init(_ pattern: String, caseInsensitive: Bool = false) throws {
        var parser = Parser(Array(pattern.unicodeScalars), caseInsensitive: caseInsensitive)
        program = try parser.parse()
        sets = parser.sets
        self.pattern = pattern
        self.caseInsensitive = caseInsensitive
    }

    /// Whether the pattern matches anywhere in `text`.
    public func matches(_ text: String) -> Bool {
        var scalars = text.unicodeScalars.makeIterator()
        return run(&scalars).matched
    }

    /// Whether the pattern matches anywhere in `bytes`, read as UTF-8 (an invalid sequence reads as U+FFFD,
    /// as `String(decoding:as:)` would): no copy of the text is made.
    public func matches(_ bytes: some Collection<UInt8>) -> Bool {
        if let answer = bytes.withContiguousStorageIfAvailable({ buffer -> Bool in
            var scalars = DecodingIterator(base: buffer.makeIterator())
            return run(&scalars).matched
        }) {
            return answer
        }
        var scalars = DecodingIterator(base: bytes.makeIterator())
        return run(&scalars).matched
    }

    /// The answer of ``matches(_:)`` and the steps the machine took to find it: an instruction
    /// visited, or a thread tried on a scalar. At most 2 × program size + 1 per position (scalars + 1),
    /// since each instruction joins a position's threads once: what the tests assert instead of a time.
    func matchSteps(_ text: String) -> (matched: Bool, steps: Int) {
        var scalars = text.unicodeScalars.makeIterator()
        return run(&scalars)
    }

    /// How many instructions the pattern compiled to (the final `match` included).
    var programSize: Int { program.count }

    func run<Scalars: IteratorProtocol<Unicode.Scalar>>(_ scalars: inout Scalars) -> (matched: Bool, steps: Int) {
        var machine = Machine(program: program, sets: sets, caseInsensitive: caseInsensitive)
        let matched = machine.run(&scalars)
        return (matched, machine.steps)
    }
}

// MARK: - Program

extension LineRegex {
    /// One instruction of the NFA. Targets are relative to the instruction's own index, so a fragment
    /// can be copied anywhere (counted repetition) without relocation.
    enum Instruction: Sendable, Equatable {
        /// Consumes this scalar (its case fold when matching case-insensitively).
        case scalar(UInt32)
        /// Consumes any scalar but a line feed.
        case anyButNewline
        /// Consumes a scalar of `sets[index]` (never a line feed).
        case set(Int32)
        /// Continues at both `self + first` and `self + second`.
        case split(Int32, Int32)
        /// Continues at `self + offset`.
        case jump(Int32)
        /// Continues at the next instruction when the assertion holds at this position.
        case assertion(Assertion)
        case match
    }

    enum Assertion: UInt8, Sendable {
        case lineStart, lineEnd, textStart, textEnd, wordBoundary, notWordBoundary, wordStart, wordEnd
    }

    /// The named classes: POSIX's, and `\w`'s.
    enum CharacterClass: Sendable, CaseIterable {
        case alpha, digit, alnum, upper, lower, space, blank, punct, print, graph, cntrl, xdigit, word

        init?(name: String) {
            switch name {
            case "alpha": self = .alpha
            case "digit": self = .digit
            case "alnum": self = .alnum
            case "upper": self = .upper
            case "lower": self = .lower
            case "space": self = .space
            case "blank": self = .blank
            case "punct": self = .punct
            case "print": self = .print
            case "graph": self = .graph
            case "cntrl": self = .cntrl
            case "xdigit": self = .xdigit
            default: return nil
            }
        }

        /// Membership as glibc's UTF-8 locales define the classes, from the scalar's Unicode properties.
        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let v = scalar.value
            if v < 0x80 {
                let upper = v >= 0x41 && v <= 0x5A, lower = v >= 0x61 && v <= 0x7A, digit = v >= 0x30 && v <= 0x39
                switch self {
                case .alpha: return upper || lower
                case .digit: return digit
                case .alnum: return upper || lower || digit
                case .upper: return upper
                case .lower: return lower
                case .space: return v == 0x20 || (v >= 0x09 && v <= 0x0D)
                case .blank: return v == 0x20 || v == 0x09
                case .punct: return v > 0x20 && v < 0x7F && !(upper || lower || digit)
                case .print: return v >= 0x20 && v < 0x7F
                case .graph: return v > 0x20 && v < 0x7F
                case .cntrl: return v < 0x20 || v == 0x7F
                case .xdigit: return digit || (v >= 0x41 && v <= 0x46) || (v >= 0x61 && v <= 0x66)
                case .word: return upper || lower || digit || v == 0x5F
                }
            }
            let properties = scalar.properties
            let category = properties.generalCategory
            // No-break spaces are neither space nor blank in glibc; U+0085 is a control there.
            let noBreak = v == 0xA0 || v == 0x2007 || v == 0x202F
            switch self {
            case .alpha, .alnum, .word: return properties.isAlphabetic || category == .decimalNumber
            case .digit, .xdigit: return false
            case .upper: return properties.isUppercase || category == .titlecaseLetter
            case .lower: return properties.isLowercase
            case .space: return properties.isWhitespace && !noBreak && v != 0x85
            case .blank: return category == .spaceSeparator && !noBreak
            case .cntrl: return category == .control || category == .lineSeparator || category == .paragraphSeparator
            case .print: return Self.printable(category)
            case .graph: return Self.printable(category) && category != .spaceSeparator
            case .punct:
                return Self.printable(category) && category != .spaceSeparator && !properties.isAlphabetic
                    && category != .decimalNumber
            }
        }

        static func printable(_ category: Unicode.GeneralCategory) -> Bool {
            switch category {
            case .control, .unassigned, .surrogate, .lineSeparator, .paragraphSeparator: return false
            default: return true
            }
        }
    }

    /// A bracket expression, or the set of `\d \w \s` and their negations.
    struct ScalarSet: Sendable {
        /// Sorted, disjoint and not adjacent once ``finish(caseInsensitive:)`` has run.
        var ranges: [ClosedRange<UInt32>] = []
        var classes: [CharacterClass] = []
        var negated = false
        /// The answer for each ASCII scalar (negation and case included; never a line feed).
        var ascii: (UInt64, UInt64) = (0, 0)

        /// Membership before negation, without case variants.
        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let v = scalar.value
            var low = 0, high = ranges.count
            while low < high {
                let middle = (low + high) / 2
                if ranges[middle].upperBound < v {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            if low < ranges.count && ranges[low].contains(v) { return true }
            for c in classes where c.contains(scalar) { return true }
            return false
        }

        func containsAnyCase(_ scalar: Unicode.Scalar) -> Bool {
            if contains(scalar) { return true }
            let folded = caseFold(scalar)
            if folded != scalar && contains(folded) { return true }
            if let upper = simpleUppercase(scalar), upper != scalar, contains(upper) { return true }
            return false
        }

        mutating func finish(caseInsensitive: Bool) {
            ranges.sort { $0.lowerBound < $1.lowerBound }
            var merged: [ClosedRange<UInt32>] = []
            for r in ranges {
                if let last = merged.last, r.lowerBound <= last.upperBound &+ 1 {
                    merged[merged.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
                } else {
                    merged.append(r)
                }
            }
            ranges = merged
            var bits: (UInt64, UInt64) = (0, 0)
            for v in UInt32(0)..<0x80 where v != 0x0A {
                let scalar = Unicode.Scalar(v)!
                let inside = caseInsensitive ? containsAnyCase(scalar) : contains(scalar)
                guard inside != negated else { continue }
                if v < 64 { bits.0 |= 1 << UInt64(v) } else { bits.1 |= 1 << UInt64(v - 64) }
            }
            ascii = bits
        }

        @inline(__always)
        func matches(_ scalar: Unicode.Scalar, caseInsensitive: Bool) -> Bool {
            let v = scalar.value
            if v < 64 { return ascii.0 & (1 << UInt64(v)) != 0 }
            if v < 128 { return ascii.1 & (1 << UInt64(v - 64)) != 0 }
            return (caseInsensitive ? containsAnyCase(scalar) : contains(scalar)) != negated
        }
    }
}

/// The one scalar `mapping` holds, or nil when it holds several (`ß` uppercases to `SS`).
private func single(_ mapping: String) -> Unicode.Scalar? {
    var scalars = mapping.unicodeScalars.makeIterator()
    guard let first = scalars.next(), scalars.next() == nil else { return nil }
    return first
}

/// The scalar's simple uppercase, when it is one scalar.
private func simpleUppercase(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
    let v = scalar.value
    if v < 0x80 { return v >= 0x61 && v <= 0x7A ? Unicode.Scalar(v - 0x20) : scalar }
    return single(scalar.properties.uppercaseMapping)
}

/// The simple case fold the case-insensitive comparison uses: the lowercase of the uppercase, so `ς`, `σ`
/// and `Σ` fold together, as do `K`, `k` and the Kelvin sign; a scalar whose mappings are several scalars
/// (`ß`, `İ`) is its own fold, and so is the dotless `ı` (Unicode folds it to nothing else).
func caseFold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    let v = scalar.value
    if v < 0x80 { return v >= 0x41 && v <= 0x5A ? Unicode.Scalar(v + 0x20)! : scalar }
    if v == 0x131 { return scalar }
    if let upper = single(scalar.properties.uppercaseMapping), let lower = single(upper.properties.lowercaseMapping) {
        return lower
    }
    return single(scalar.properties.lowercaseMapping) ?? scalar
}

// MARK: - Parser

extension LineRegex {
    /// Reads a pattern into a program without recursion: one frame per open group on a stack of at most
    /// ``LineRegex/maximumNesting``, each holding the instructions of its branches so far.
    struct Parser {
        let pattern: [Unicode.Scalar]
        let caseInsensitive: Bool
        var position = 0
        var sets: [ScalarSet] = []
        /// The sets of `\d \D \w \W \s \S`, made once each.
        var escapeSets: [UInt32: Int32] = [:]
        /// Instructions in every frame, plus the split and jump each `|` will add: what the program will
        /// hold, kept under the cap as the pattern is read.
        var size = 1
        /// Instructions written by repetitions so far (see ``spend(_:at:)``).
        var work = 0
        var frames: [Frame] = [Frame(open: -1)]

        /// The simple quantifiers, which combine: `(x*)+` is `x*`, `(x+)?` is `x*`.
        enum Simple { case star, plus, optional }

        struct Frame {
            /// The offset of its `(` (-1 for the whole pattern).
            let open: Int
            var branches: [[Instruction]] = []
            var current: [Instruction] = []
            /// Where the last atom (what a quantifier repeats) begins in `current`; nil when there is none
            /// (start of a branch, after an anchor).
            var atomStart: Int?
            /// The simple quantifier applied last to that atom and the length of the atom before it, so a
            /// following one is combined with it instead of nesting a copy.
            var quantifier: (kind: Simple, baseLength: Int)?

            init(open: Int) { self.open = open }
        }

        init(_ pattern: [Unicode.Scalar], caseInsensitive: Bool) {
            self.pattern = pattern
            self.caseInsensitive = caseInsensitive
        }

        func error(_ message: String) -> Error { Error(message) }

        func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
            position + ahead < pattern.count ? pattern[position + ahead] : nil
        }

        mutating func parse() throws -> [Instruction] {
            while position < pattern.count {
                let start = position
                let c = pattern[position]
                position += 1
                switch c {
                case "(":
                    if peek() == "?" {
                        guard peek(1) == ":" else {
                            throw error("unsupported group (? at offset \(start): only (?:…) is understood")
                        }
                        position += 2
                    }
                    guard frames.count <= LineRegex.maximumNesting else {
                        throw error("groups nested deeper than \(LineRegex.maximumNesting) at offset \(start)")
                    }
                    frames.append(Frame(open: start))
                case ")":
                    guard frames.count > 1 else { throw error("unmatched ) at offset \(start)") }
                    let group = Self.alternation(frames.removeLast())
                    appendAtom(group)  // its size is already counted
                case "|":
                    frames[frames.count - 1].branches.append(frames[frames.count - 1].current)
                    frames[frames.count - 1].current = []
                    frames[frames.count - 1].atomStart = nil
                    frames[frames.count - 1].quantifier = nil
                    try grow(by: 2, at: start)
                case "*": try quantify(.star, at: start)
                case "+": try quantify(.plus, at: start)
                case "?": try quantify(.optional, at: start)
                case "{":
                    if let next = peek(), next == "," || (next >= "0" && next <= "9") {
                        let (minimum, maximum) = try parseInterval(at: start)
                        try quantify(minimum: minimum, maximum: maximum, at: start)
                    } else {
                        try appendLiteral(c, at: start)
                    }
                case ".":
                    try appendCounted([.anyButNewline], at: start)
                case "^": try appendAssertion(.lineStart, at: start)
                case "$": try appendAssertion(.lineEnd, at: start)
                case "[":
                    let index = try parseBracket(at: start)
                    try appendCounted([.set(index)], at: start)
                case "\\": try parseEscape(at: start)
                default: try appendLiteral(c, at: start)
                }
            }
            if frames.count > 1 { throw error("unmatched ( at offset \(frames[1].open)") }
            var program = Self.alternation(frames.removeLast())
            program.append(.match)
            return program
        }

        /// Counts the instructions a repetition writes, kept or not: `(x{1000}{19}){0}` writes 19,000 it
        /// then drops, so a long pattern of those would take long to read without ever being large.
        mutating func spend(_ count: Int, at offset: Int) throws {
            work += count
            guard work <= LineRegex.maximumRepetitionWork else {
                throw error("pattern too large: its repetitions write more than \(LineRegex.maximumRepetitionWork) instructions (at offset \(offset))")
            }
        }

        mutating func grow(by count: Int, at offset: Int) throws {
            size += count
            guard size <= LineRegex.maximumProgramSize else {
                throw error("pattern too large: it compiles to more than \(LineRegex.maximumProgramSize) instructions (at offset \(offset))")
            }
        }

        /// Appends a repeatable atom whose instructions are already counted in `size`.
        mutating func appendAtom(_ fragment: [Instruction]) {
            let top = frames.count - 1
            frames[top].atomStart = frames[top].current.count
            frames[top].quantifier = nil
            frames[top].current += fragment
        }

        mutating func appendCounted(_ fragment: [Instruction], at offset: Int) throws {
            try grow(by: fragment.count, at: offset)
            appendAtom(fragment)
        }

        mutating func appendLiteral(_ scalar: Unicode.Scalar, at offset: Int) throws {
            try appendCounted([.scalar(caseInsensitive ? caseFold(scalar).value : scalar.value)], at: offset)
        }

        mutating func appendAssertion(_ assertion: Assertion, at offset: Int) throws {
            try grow(by: 1, at: offset)
            let top = frames.count - 1
            frames[top].current.append(.assertion(assertion))
            frames[top].atomStart = nil
            frames[top].quantifier = nil
        }

        /// The branches of a finished group as one fragment: `split` to each branch but the last, each
        /// ending in a `jump` past the rest.
        static func alternation(_ frame: Frame) -> [Instruction] {
            guard !frame.branches.isEmpty else { return frame.current }
            let branches = frame.branches + [frame.current]
            var out: [Instruction] = []
            out.reserveCapacity(branches.reduce(0) { $0 + $1.count + 2 })
            var jumps: [Int] = []
            for branch in branches.dropLast() {
                out.append(.split(1, Int32(branch.count + 2)))
                out += branch
                jumps.append(out.count)
                out.append(.jump(0))
            }
            out += branches[branches.count - 1]
            for j in jumps { out[j] = .jump(Int32(out.count - j)) }
            return out
        }

        static func wrap(_ base: ArraySlice<Instruction>, _ kind: Simple) -> [Instruction] {
            let length = Int32(base.count)
            switch kind {
            case .star: return [.split(1, length + 2)] + base + [.jump(-(length + 1))]
            case .plus: return Array(base) + [.split(-length, 1)]
            case .optional: return [.split(1, length + 1)] + base
            }
        }

        static func symbol(_ kind: Simple) -> String {
            switch kind {
            case .star: return "*"
            case .plus: return "+"
            case .optional: return "?"
            }
        }

        /// After a quantifier, a `?` (lazy) changes nothing: only whether the pattern matches is asked.
        mutating func skipLazyMarker() {
            if peek() == "?" { position += 1 }
        }

        mutating func quantify(_ kind: Simple, at offset: Int) throws {
            let top = frames.count - 1
            guard let atomStart = frames[top].atomStart else {
                throw error("\(Self.symbol(kind)) at offset \(offset) has nothing to repeat")
            }
            let current = frames[top].current
            let base: ArraySlice<Instruction>
            var combined = kind
            if let previous = frames[top].quantifier {
                combined = previous.kind == kind ? kind : .star
                if combined == previous.kind {
                    skipLazyMarker()
                    return
                }
                let first = previous.kind == .plus ? atomStart : atomStart + 1
                base = current[first..<(first + previous.baseLength)]
            } else {
                base = current[atomStart...]
            }
            if base.isEmpty {  // an empty group repeated is still empty
                skipLazyMarker()
                return
            }
            let wrapped = Self.wrap(base, combined)
            try grow(by: wrapped.count - (current.count - atomStart), at: offset)
            try spend(wrapped.count, at: offset)
            frames[top].current.replaceSubrange(atomStart..., with: wrapped)
            frames[top].quantifier = (combined, base.count)
            skipLazyMarker()
        }

        mutating func quantify(minimum: Int, maximum: Int?, at offset: Int) throws {
            let top = frames.count - 1
            guard let atomStart = frames[top].atomStart else {
                throw error("{ at offset \(offset) has nothing to repeat")
            }
            switch (minimum, maximum) {
            case (0, nil): return try quantify(.star, at: offset)
            case (1, nil): return try quantify(.plus, at: offset)
            case (0, 1): return try quantify(.optional, at: offset)
            default: break
            }
            let base = frames[top].current[atomStart...]
            let length = base.count
            if (minimum == 1 && maximum == 1) || length == 0 {
                skipLazyMarker()
                return
            }
            // x{m,} is m - 1 copies and x+; x{m,n} is m copies and n - m nested optional ones.
            let newLength = maximum.map { minimum * length + ($0 - minimum) * (length + 1) } ?? (minimum * length + 1)
            try grow(by: newLength - length, at: offset)
            try spend(newLength, at: offset)
            var out: [Instruction] = []
            out.reserveCapacity(newLength)
            if let maximum {
                for _ in 0..<minimum { out += base }
                let optional = maximum - minimum
                for k in 0..<optional {
                    // Each optional copy skips to the end: (x(x(x)?)?)? without the nesting.
                    let remaining = optional - k
                    out.append(.split(1, Int32(remaining * (length + 1))))
                    out += base
                }
            } else {
                for _ in 0..<(minimum - 1) { out += base }
                out += base
                out.append(.split(Int32(-length), 1))
            }
            frames[top].current.replaceSubrange(atomStart..., with: out)
            frames[top].quantifier = nil
            skipLazyMarker()
        }

        /// Reads `{m}`, `{m,}`, `{,n}` or `{m,n}` after the `{` at `offset`.
        mutating func parseInterval(at offset: Int) throws -> (Int, Int?) {
            let limit = LineRegex.maximumRepetition
            func number() -> Int? {
                var value: Int?
                while let c = peek(), c >= "0" && c <= "9" {
                    value = min((value ?? 0) * 10 + Int(c.value - 0x30), 1_000_000_000)
                    position += 1
                }
                return value
            }
            let malformed = "malformed interval at offset \(offset): expected {m}, {m,}, {,n} or {m,n}"
            let minimum = number()
            var maximum = minimum
            if peek() == "," {
                position += 1
                maximum = number()
            } else if minimum == nil {
                throw error(malformed)
            }
            guard peek() == "}" else { throw error(malformed) }
            position += 1
            for count in [minimum, maximum] {
                if let count, count > limit {
                    throw error("repetition count \(count) at offset \(offset) is above the limit of \(limit)")
                }
            }
            if let minimum, let maximum, maximum < minimum {
                throw error("invalid interval at offset \(offset): {\(minimum),\(maximum)} has its minimum above its maximum")
            }
            return (minimum ?? 0, maximum)
        }

        mutating func parseEscape(at offset: Int) throws {
            guard let c = peek() else { throw error("trailing \\ at offset \(offset)") }
            position += 1
            switch c {
            case "d": try appendEscapeSet(c, .digit, negated: false, at: offset)
            case "D": try appendEscapeSet(c, .digit, negated: true, at: offset)
            case "w": try appendEscapeSet(c, .word, negated: false, at: offset)
            case "W": try appendEscapeSet(c, .word, negated: true, at: offset)
            case "s": try appendEscapeSet(c, .space, negated: false, at: offset)
            case "S": try appendEscapeSet(c, .space, negated: true, at: offset)
            case "b": try appendAssertion(.wordBoundary, at: offset)
            case "B": try appendAssertion(.notWordBoundary, at: offset)
            case "<": try appendAssertion(.wordStart, at: offset)
            case ">": try appendAssertion(.wordEnd, at: offset)
            case "`": try appendAssertion(.textStart, at: offset)
            case "'": try appendAssertion(.textEnd, at: offset)
            case "t": try appendLiteral("\t", at: offset)
            case "n": try appendLiteral("\n", at: offset)
            case "r": try appendLiteral("\r", at: offset)
            case "f": try appendLiteral("\u{0C}", at: offset)
            case "v": try appendLiteral("\u{0B}", at: offset)
            case "1"..."9":
                throw error("back-reference \\\(c) at offset \(offset) is not supported: it cannot be matched in linear time")
            default:
                if c.isASCII && (c.properties.isAlphabetic || (c >= "0" && c <= "9")) {
                    throw error("unknown escape \\\(c) at offset \(offset)")
                }
                try appendLiteral(c, at: offset)
            }
        }

        mutating func appendEscapeSet(_ letter: Unicode.Scalar, _ cls: CharacterClass, negated: Bool, at offset: Int) throws {
            let index: Int32
            if let known = escapeSets[letter.value] {
                index = known
            } else {
                var set = ScalarSet()
                set.classes = [cls]
                set.negated = negated
                set.finish(caseInsensitive: caseInsensitive)
                index = Int32(sets.count)
                sets.append(set)
                escapeSets[letter.value] = index
            }
            try appendCounted([.set(index)], at: offset)
        }

        /// Reads a bracket expression after the `[` at `offset` into a new set; returns its index.
        mutating func parseBracket(at offset: Int) throws -> Int32 {
            var set = ScalarSet()
            if peek() == "^" {
                set.negated = true
                position += 1
            }
            var first = true
            var afterRange = false
            while true {
                guard let c = peek() else { throw error("unmatched [ at offset \(offset)") }
                let itemStart = position
                if c == "]" && !first {
                    position += 1
                    break
                }
                first = false
                if c == "-" && afterRange && peek(1) != "]" {
                    throw error("invalid range at offset \(itemStart): a range cannot start where another ends")
                }
                let low: Unicode.Scalar
                if c == "[", let kind = peek(1), kind == ":" || kind == "." || kind == "=" {
                    let (name, end) = try bracketName(kind, at: itemStart)
                    position = end
                    if kind == ":" {
                        guard let cls = CharacterClass(name: String(String.UnicodeScalarView(name))) else {
                            throw error("unknown character class [:\(String(String.UnicodeScalarView(name))):] at offset \(itemStart)")
                        }
                        // Once each: a scalar is tried against every class, whatever the pattern's length.
                        if !set.classes.contains(cls) { set.classes.append(cls) }
                        if peek() == "-", let after = peek(1), after != "]" {
                            throw error("invalid range at offset \(position): a character class cannot be a range endpoint")
                        }
                        afterRange = false
                        continue
                    }
                    low = try collatingElement(name, kind, at: itemStart)
                } else {
                    low = c
                    position += 1
                }
                if peek() == "-", let after = peek(1), after != "]" {
                    position += 1
                    let highStart = position
                    let high: Unicode.Scalar
                    if after == "[", let kind = peek(1), kind == "." || kind == "=" {
                        let (name, end) = try bracketName(kind, at: highStart)
                        position = end
                        high = try collatingElement(name, kind, at: highStart)
                    } else if after == "[", peek(1) == ":" {
                        throw error("invalid range at offset \(highStart): a character class cannot be a range endpoint")
                    } else {
                        high = after
                        position += 1
                    }
                    guard low.value <= high.value else {
                        throw error("invalid range \(low)-\(high) at offset \(itemStart): its end is before its start")
                    }
                    set.ranges.append(low.value...high.value)
                    afterRange = true
                } else {
                    set.ranges.append(low.value...low.value)
                    afterRange = false
                }
            }
            set.finish(caseInsensitive: caseInsensitive)
            sets.append(set)
            return Int32(sets.count - 1)
        }

        /// The name of `[:name:]`, `[.x.]` or `[=x=]` starting at `offset`, and the offset after it.
        func bracketName(_ kind: Unicode.Scalar, at offset: Int) throws -> (ArraySlice<Unicode.Scalar>, Int) {
            let nameStart = offset + 2
            var j = nameStart
            while j + 1 < pattern.count && !(pattern[j] == kind && pattern[j + 1] == "]") { j += 1 }
            guard j + 1 < pattern.count else { throw error("unmatched [\(kind) at offset \(offset)") }
            return (pattern[nameStart..<j], j + 2)
        }

        func collatingElement(_ name: ArraySlice<Unicode.Scalar>, _ kind: Unicode.Scalar, at offset: Int) throws -> Unicode.Scalar {
            guard name.count == 1, let scalar = name.first else {
                throw error("unsupported collating element [\(kind)\(String(String.UnicodeScalarView(name)))\(kind)] at offset \(offset): only one character is understood")
            }
            return scalar
        }
    }
}

// MARK: - Machine

extension LineRegex {
    /// The lockstep simulation: the threads alive at a position are a set of instruction indices (each
    /// once), advanced together over one scalar at a time, with a thread started at every position.
    struct Machine {
        let program: [Instruction]
        let sets: [ScalarSet]
        let caseInsensitive: Bool
        /// The position each instruction was last added at: an instruction joins a list once per position.
        var mark: [Int]
        var generation = 0
        var current: [Int32] = []
        var next: [Int32] = []
        var stack: [Int32] = []
        var steps = 0
        /// The scalars around the position: before it (nil at the start), at it (nil at the end), after it.
        var previous: Unicode.Scalar?
        var scalar: Unicode.Scalar?
        var following: Unicode.Scalar?

        init(program: [Instruction], sets: [ScalarSet], caseInsensitive: Bool) {
            self.program = program
            self.sets = sets
            self.caseInsensitive = caseInsensitive
            mark = Array(repeating: -1, count: program.count)
            current.reserveCapacity(program.count)
            next.reserveCapacity(program.count)
        }

        mutating func run<Scalars: IteratorProtocol<Unicode.Scalar>>(_ scalars: inout Scalars) -> Bool {
            scalar = scalars.next()
            following = scalar == nil ? nil : scalars.next()
            if addThread(0) { return true }
            swap(&current, &next)
            while let c = scalar {
                previous = c
                scalar = following
                following = scalar == nil ? nil : scalars.next()
                generation += 1
                next.removeAll(keepingCapacity: true)
                let folded = caseInsensitive ? caseFold(c).value : c.value
                for pc in current {
                    steps += 1
                    let consumed: Bool
                    switch program[Int(pc)] {
                    case .scalar(let v): consumed = v == folded
                    case .anyButNewline: consumed = c != "\n"
                    case .set(let index): consumed = c != "\n" && sets[Int(index)].matches(c, caseInsensitive: caseInsensitive)
                    default: consumed = false
                    }
                    if consumed && addThread(pc + 1) { return true }
                }
                // No match begins after a final line feed: grep sees no line there (`^$` does not match
                // "a\n", nor `\B` "a\n").
                if !(scalar == nil && c == "\n"), addThread(0) { return true }
                swap(&current, &next)
            }
            return false
        }

        /// Follows the instructions that consume nothing from `start`, adding those that do to `next`;
        /// true when it reaches `match`.
        mutating func addThread(_ start: Int32) -> Bool {
            stack.append(start)
            while let pc = stack.popLast() {
                steps += 1
                let index = Int(pc)
                if mark[index] == generation { continue }
                mark[index] = generation
                switch program[index] {
                case .split(let a, let b):
                    stack.append(pc + b)
                    stack.append(pc + a)
                case .jump(let offset):
                    stack.append(pc + offset)
                case .assertion(let assertion):
                    if holds(assertion) { stack.append(pc + 1) }
                case .match:
                    stack.removeAll(keepingCapacity: true)
                    return true
                case .scalar, .anyButNewline, .set:
                    next.append(pc)
                }
            }
            return false
        }

        func holds(_ assertion: Assertion) -> Bool {
            switch assertion {
            case .lineStart: return previous == nil || previous == "\n"
            case .lineEnd: return scalar == nil || scalar == "\n" || (scalar == "\r" && following == "\n")
            case .textStart: return previous == nil
            case .textEnd: return scalar == nil
            case .wordBoundary: return isWord(previous) != isWord(scalar)
            case .notWordBoundary: return isWord(previous) == isWord(scalar)
            case .wordStart: return !isWord(previous) && isWord(scalar)
            case .wordEnd: return isWord(previous) && !isWord(scalar)
            }
        }

        func isWord(_ scalar: Unicode.Scalar?) -> Bool {
            scalar.map { CharacterClass.word.contains($0) } ?? false
        }
    }

    /// Unicode scalars from UTF-8 bytes, an invalid sequence as U+FFFD (as `String(decoding:as:)` reads it).
    struct DecodingIterator<Base: IteratorProtocol<UInt8>>: IteratorProtocol {
        var base: Base
        var decoder = Unicode.UTF8()

        init(base: Base) { self.base = base }

        mutating func next() -> Unicode.Scalar? {
            switch decoder.decode(&base) {
            case .scalarValue(let scalar): return scalar
            case .emptyInput: return nil
            case .error: return "\u{FFFD}"
            }
        }
    }
}

// MARK: - Required literals

extension LineRegex {
    /// Strings every match contains: runs of literal scalars that every path from the start of the
    /// program to its match goes through, one after the other (in the case the pattern gives them;
    /// case-insensitive patterns hold folded scalars). What a search index narrows candidates by before
    /// the pattern runs; empty when the program is too large to tell or has no such run. Longest first.
    public var requiredLiterals: [String] {
        let count = program.count
        guard count > 0, count <= 4096 else { return [] }
        func successors(_ index: Int) -> [Int] {
            switch program[index] {
            case .scalar, .anyButNewline, .set, .assertion: return [index + 1]
            case .split(let first, let second): return [index + Int(first), index + Int(second)]
            case .jump(let offset): return [index + Int(offset)]
            case .match: return []
            }
        }
        /// Whether a match is reachable from the start without passing `avoided`.
        func reachesMatch(avoiding avoided: Int) -> Bool {
            var seen = [Bool](repeating: false, count: count)
            var stack = [0]
            if avoided == 0 { return false }
            seen[0] = true
            while let index = stack.popLast() {
                if case .match = program[index] { return true }
                for next in successors(index) where next >= 0 && next < count && !seen[next] && next != avoided {
                    seen[next] = true
                    stack.append(next)
                }
            }
            return false
        }
        guard reachesMatch(avoiding: -1) else { return [] }
        var required = [Bool](repeating: false, count: count)
        for index in 0..<count {
            if case .scalar = program[index] { required[index] = !reachesMatch(avoiding: index) }
        }
        var literals: [String] = []
        var run = String.UnicodeScalarView()
        for index in 0...count {
            if index < count, required[index], case .scalar(let value) = program[index], let scalar = Unicode.Scalar(value) {
                run.append(scalar)
                continue
            }
            if !run.isEmpty { literals.append(String(run)) }
            run = String.UnicodeScalarView()
        }
        return literals.sorted { $0.unicodeScalars.count > $1.unicodeScalars.count }
    }
}

// MARK: - A lazy DFA for long scans

extension LineRegex {
    /// A matcher for many texts (a search over a whole history): a pattern without assertions (`^ $ \b
    /// \< \>`…) runs as a DFA built lazily from the NFA, each state a set of the NFA's instructions,
    /// each transition computed once and then looked up (a table for ASCII), so a text costs about one
    /// look-up a scalar; the answer is the NFA's, by construction. The cache is bounded (cleared when
    /// full), so time stays linear in the text whatever the pattern. Patterns with assertions run on the
    /// NFA (``LineRegex/matches(_:)-(some Collection<UInt8>)``). One thread at a time.
    public final class Scanner: @unchecked Sendable {
        let regex: LineRegex
        private let usesDFA: Bool
        /// Each state's NFA instructions (sorted), whether it has matched, its ASCII transitions (-1: not
        /// computed) and the others.
        private var sets: [[Int32]] = []
        /// Per state (up to ``maximumStates``): whether it matched, and its 128 ASCII transitions; plain
        /// memory, so the scan's loop reads them without an array's checks.
        private let matched: UnsafeMutablePointer<Bool>
        private let ascii: UnsafeMutablePointer<Int32>
        private var other: [[UInt32: Int32]] = []
        private var index: [[Int32]: Int32] = [:]
        private var machine: Machine
        private var start: Int32 = 0
        static let maximumStates = 2048

        public init(_ regex: LineRegex) {
            self.regex = regex
            usesDFA = !regex.program.contains { if case .assertion = $0 { return true } else { return false } }
            machine = Machine(program: regex.program, sets: regex.sets, caseInsensitive: regex.caseInsensitive)
            let states = usesDFA ? Self.maximumStates : 0
            matched = .allocate(capacity: states)
            ascii = .allocate(capacity: states * 128)
            if usesDFA { reset() }
        }

        deinit {
            matched.deallocate()
            ascii.deallocate()
        }

        /// Whether the pattern matches anywhere in `bytes` (UTF-8, an invalid sequence read as U+FFFD).
        public func matches(_ bytes: UnsafeRawBufferPointer) -> Bool {
            guard usesDFA else { return regex.matches(bytes) }
            let matched = self.matched, ascii = self.ascii
            var state = start
            if matched[Int(state)] { return true }
            var at = 0
            let count = bytes.count
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            while at < count {
                let byte = base[at]
                let next: Int32
                if byte < 0x80 {
                    at += 1
                    let cached = ascii[Int(state) << 7 | Int(byte)]
                    next = cached >= 0 ? cached : transition(state, Unicode.Scalar(byte))
                } else {
                    var parser = Unicode.UTF8.ForwardParser()
                    var iterator = UnsafeBufferPointer(start: base + at, count: min(4, count - at)).makeIterator()
                    let scalar: Unicode.Scalar
                    switch parser.parseScalar(from: &iterator) {
                    case .valid(let encoded):
                        scalar = Unicode.UTF8.decode(encoded)
                        at += encoded.count
                    case .error(let length):
                        // As String(decoding:) reads an invalid sequence: one U+FFFD for its maximal prefix.
                        scalar = "\u{FFFD}"
                        at += max(1, length)
                    case .emptyInput:
                        at = count
                        continue
                    }
                    next = other[Int(state)][scalar.value] ?? transition(state, scalar)
                }
                state = next
                if matched[Int(state)] { return true }
            }
            return false
        }

        private func reset() {
            sets.removeAll(keepingCapacity: true)
            other.removeAll(keepingCapacity: true)
            index.removeAll(keepingCapacity: true)
            start = add(closure([0]))
        }

        /// The instructions reached from `seeds` without consuming (none of them an assertion here), and
        /// whether `match` is among them.
        private func closure(_ seeds: [Int32]) -> (set: [Int32], matched: Bool) {
            machine.generation += 1
            machine.next.removeAll(keepingCapacity: true)
            var matched = false
            for seed in seeds where machine.addThread(seed) {
                matched = true
                break
            }
            return (machine.next.sorted(), matched)
        }

        private func add(_ state: (set: [Int32], matched: Bool)) -> Int32 {
            if let known = index[state.set], matched[Int(known)] == state.matched { return known }
            let number = Int32(sets.count)
            sets.append(state.set)
            matched[Int(number)] = state.matched
            (ascii + Int(number) * 128).initialize(repeating: -1, count: 128)
            other.append([:])
            if !state.matched { index[state.set] = number }
            return number
        }

        /// The state after `state` reads `scalar` (a new search starts at every position, as the NFA's
        /// does), computed and remembered.
        private func transition(_ state: Int32, _ scalar: Unicode.Scalar) -> Int32 {
            if sets.count >= Self.maximumStates - 1 {
                // Bounded memory: start again from this state's set.
                let kept = sets[Int(state)]
                reset()
                let again = add((kept, false))
                return transition(again, scalar)
            }
            let folded = regex.caseInsensitive ? caseFold(scalar).value : scalar.value
            var seeds: [Int32] = []
            for pc in sets[Int(state)] {
                let consumed: Bool
                switch regex.program[Int(pc)] {
                case .scalar(let value): consumed = value == folded
                case .anyButNewline: consumed = scalar != "\n"
                case .set(let set): consumed = scalar != "\n" && regex.sets[Int(set)].matches(scalar, caseInsensitive: regex.caseInsensitive)
                default: consumed = false
                }
                if consumed { seeds.append(pc + 1) }
            }
            seeds.append(0)
            let next = add(closure(seeds))
            if scalar.value < 0x80 {
                ascii[Int(state) << 7 | Int(scalar.value)] = next
            } else if other[Int(state)].count < 4096 {
                other[Int(state)][scalar.value] = next
            }
            return next
        }
    }
}

import ReaderSupport

// Phase 2 of CommonMark parsing: the inline content of paragraphs, headings and table cells
// (cmark's inlines.c algorithm, with cmark-gfm's strikethrough, extended autolinks and footnote
// references), recording marks rather than nodes. How, and why it stays within 7x its input:
// docs/markdown-engine.md, "The inline parser". This file holds the state, the block driver and the scan.

let maxBackticks = 1000

/// Bytes that end a plain text run in the scan: line ending, `\`, `` ` ``, `&`, `<`, `*`, `_`, `[`, `]`,
/// `!` (1); `~` with strikethrough (1); `:` and `w`, where GFM extended autolinks may start (2).
private let scanClassCommonMark: [UInt8] = {
    var t = [UInt8](repeating: 0, count: 256)
    for c in "\n\\`&<*_[]!".utf8 { t[Int(c)] = 1 }
    return t
}()
private let scanClassStrikethrough: [UInt8] = {
    var t = scanClassCommonMark
    t[Int(UInt8(ascii: "~"))] = 1
    return t
}()
private let scanClassAutolinks: [UInt8] = {
    var t = scanClassStrikethrough
    t[Int(UInt8(ascii: ":"))] = 2
    t[Int(UInt8(ascii: "w"))] = 2
    return t
}()

/// The inline parser: one per document (its arrays are reused from block to block).
struct InlineParser {
    private(set) var options: MarkdownOptions
    /// Link reference and footnote definitions of the whole document.
    var references = LabelMap<ReferenceDefinition>()
    var footnotes = LabelMap<Int32>()
    /// The document's storage, where reference definitions keep their decoded destinations and titles.
    var storage = MDBytes(start: nil, count: 0)

    // Per block.
    var s = MDBytes(start: nil, count: 0)
    var pos = 0
    var end = 0
    // Grown with realloc, not by copying (GrowableBuffer): a paragraph of a million open brackets or
    // unmatched openers holds its marks once, not twice while they move.
    var marks = GrowableBuffer<InlineMark>()
    var emphasis = GrowableBuffer<InlineEmphasis>()
    var matches = GrowableBuffer<InlineMatch>()
    var brackets = GrowableBuffer<Bracket>()
    /// Marks made after marks that follow them (a link's or image's start, made at its `]`): a heap
    /// ordered by `start`, merged with `marks` as they are emitted.
    /// The sorted run of late marks (`addLateMark`): first as they are (`lateFast`, read from
    /// `lateFastHead`), then, past `lateFastLimit` waiting, packed (`late`): the byte where the next to
    /// read starts, how many are left, the start of the last one packed, and the next one to read,
    /// decoded, with its length in bytes. `lateLastStart`: the start of the last one added. The ones that
    /// came out of order are a heap.
    // (Made by the first parse, then handed on with the parser's other buffers: `init(options:reusing:)`.)
    var lateFast: GrowableBuffer<InlineMark>! = nil
    var lateFastHead = 0
    static let lateFastLimit = 1024
    var late: GrowableBuffer<UInt8>! = nil
    var lateHead = 0
    var latePackedCount = 0
    var latePackedLast: Int32 = 0
    var lateLastStart: Int32 = 0
    var lateNext = InlineMark(.delimiter, 0)
    var lateNextSize = 0
    var lateHeap: GrowableBuffer<InlineMark>! = nil
    /// Link (`[`) brackets below this index are inactive: a link was made above them (cmark deactivates
    /// every earlier link opener). Image brackets stay active.
    var linkFloor = 0
    var imageBrackets = 0
    /// Link brackets from `linkFloor` up.
    var activeLinkBrackets = 0
    var activeBrackets: Int { imageBrackets + activeLinkBrackets }
    /// Whether a bracket was pushed after the top one (cmark's `bracket_after`): only the top can have
    /// none, since every other one has at least the bracket above it.
    var topBracketAfter = false
    /// Every bracket below this index is inactive (brackets never become active again).
    var inactiveFloor = 0
    /// Brackets below this index are dead: more brackets are open above them than `]` are left in the
    /// subject, and each `]` takes the top one, so they stay text whatever follows. They neither hold
    /// emphasis back nor keep marks from being emitted (`[*[*[*…`).
    var deadFloor = 0
    /// How many `]` the subject has from the first bracket on, less those handled (an upper bound on the
    /// `]` still to come: one inside a code span is counted and never handled); -1 before the first bracket.
    var closeBracketsLeft = -1
    /// Where emission stops (the first delimiter in the stack or active bracket) and the first mark at or
    /// after it.
    var limitCache = (position: -1, mark: 0)
    /// The destination and title of recent inline links, by their `]` (the slot: its position modulo the
    /// count), so a link's start emitted soon after its end needs no second scan.
    static let recentLinkCount = 64
    var recentLinks: GrowableBuffer<RecentLink>! = nil
    /// The slots of `recentLinks` written in this block (bit i: slot i), the only ones a new block resets.
    var recentLinkSlots: UInt64 = 0
    /// The delimiter stack: the delimiter runs still in it, in order (cmark's doubly linked
    /// list, kept as an array: a pass over the closers compacts it as it goes, see `processEmphasis`).
    var delimiters = GrowableBuffer<Delimiter>()
    /// The index in `delimiters` of the first delimiter not yet processed as a closer (-1: none).
    var firstUnprocessed = -1
    /// openers_bottom of the block-wide emphasis pass (persisting across its eager steps).
    var bottoms = [Int32](repeating: -1, count: 10)
    var linkBottoms = [Int32](repeating: -1, count: 10)
    /// The bracket (its index and position) whose text is being matched as it is read: the one active
    /// bracket, with no delimiter before it in the stack. Its closers find the same openers whether or
    /// not it makes a link (there are none before it), so they need not wait for its `]` with every run
    /// of its text (`[*a*a*a…](u)`). They use `sessionBottoms`, fresh for the bracket as cmark's pass at
    /// its `]` would be: dropped if it makes a link, or else copied into the block-wide `bottoms`
    /// (where it was set) as the block-wide pass would have set them (`endSession`).
    var session: (bracket: Int, position: Int)? = nil
    /// The bracket (index and position) whose closers stopped being matched ahead: with delimiters before
    /// it, a closer inside the one active bracket is matched as it comes only while it finds an opener
    /// after the bracket, which it would find with or without a link (`processEmphasis(speculative:)`);
    /// from the first that does not, the rest wait for its `]` as before.
    var speculationStopped: (bracket: Int, position: Int)? = nil
    /// What the `]` ahead will make of the one active bracket (at `position`), read ahead once when a
    /// closer after it meets delimiters before it (`outcomeAhead(of:)`).
    var bracketAhead: (position: Int, outcome: BracketOutcome) = (-1, .unknown)
    var sessionBottoms: [Int32] = []
    var backticks = [Int](repeating: 0, count: maxBackticks + 1)
    var scannedForBackticks = false
    var noCommentEnd = false
    var noPIEnd = false
    var noCDATAEnd = false
    var noDeclEnd = false
    var noQuoteFrom = (Int.max, Int.max)  // ", ' in attribute values
    var noTitleFrom = (Int.max, Int.max)  // ", ' link titles
    var label: [UInt8] = []
    private var scanClass: [UInt8]

    // Emission.
    var emitted = 0
    var textStart = 0
    var linkDepth = 0
    var blockHasAt = false
    var scratch: [UInt8] = []
    var titleScratch: [UInt8] = []
    var lineScratch: [UInt8] = []

    init(options: MarkdownOptions) {
        self.options = options
        scanClass = options.autolinks ? scanClassAutolinks : options.strikethrough ? scanClassStrikethrough : scanClassCommonMark
    }

    /// A parser for a new document with the buffers an earlier parse allocated (their capacity kept).
    init(options: MarkdownOptions, reusing old: inout InlineParser) {
        self.init(options: options)
        swap(&marks, &old.marks)
        swap(&emphasis, &old.emphasis)
        swap(&matches, &old.matches)
        swap(&brackets, &old.brackets)
        swap(&late, &old.late)
        swap(&lateFast, &old.lateFast)
        swap(&recentLinks, &old.recentLinks)
        swap(&recentLinkSlots, &old.recentLinkSlots)
        swap(&lateHeap, &old.lateHeap)
        swap(&delimiters, &old.delimiters)
        swap(&bottoms, &old.bottoms)
        swap(&linkBottoms, &old.linkBottoms)
        swap(&sessionBottoms, &old.sessionBottoms)
        swap(&backticks, &old.backticks)
        swap(&scannedForBackticks, &old.scannedForBackticks)
        swap(&label, &old.label)
        swap(&scratch, &old.scratch)
        swap(&titleScratch, &old.titleScratch)
        swap(&lineScratch, &old.lineScratch)
    }

    /// Lets go of the document: its definitions and storage (before the parser is kept for another).
    mutating func detach() {
        references = LabelMap()
        footnotes = LabelMap()
        storage = MDBytes(start: nil, count: 0)
        s = MDBytes(start: nil, count: 0)
    }

    // MARK: Block driver

    /// Parses `subject` (a leaf block's content) and sends it to `sink`.
    mutating func parse<Sink: InlineSink & ~Copyable>(_ subject: MDBytes, into sink: inout Sink) {
        s = subject
        pos = 0
        end = subject.count
        if lateFast == nil {
            lateFast = GrowableBuffer()
            late = GrowableBuffer()
            lateHeap = GrowableBuffer()
        }
        resetMarks()
        if !brackets.isEmpty { brackets.removeAll() }
        linkFloor = 0
        imageBrackets = 0
        activeLinkBrackets = 0
        topBracketAfter = false
        inactiveFloor = 0
        deadFloor = 0
        closeBracketsLeft = -1
        session = nil
        speculationStopped = nil
        bracketAhead = (-1, .unknown)
        limitCache = (-1, 0)
        if recentLinkSlots != 0 {
            var slots = recentLinkSlots
            while slots != 0 {
                recentLinks[slots.trailingZeroBitCount].close = -1
                slots &= slots &- 1
            }
            recentLinkSlots = 0
        }
        if scannedForBackticks {
            for i in 0...maxBackticks { backticks[i] = 0 }
            scannedForBackticks = false
        }
        noCommentEnd = false
        noPIEnd = false
        noCDATAEnd = false
        noDeclEnd = false
        noQuoteFrom = (Int.max, Int.max)
        noTitleFrom = (Int.max, Int.max)
        emitted = 0
        textStart = 0
        linkDepth = 0
        blockHasAt = options.autolinks && Self.contains(subject, 0x40)

        var progress = ProgressCheck("Markdown inline parser")
        while pos < end {
            progress.advance(to: pos)
            scanOne(&sink)
            if marks.count - emitted >= 256 || lateCount >= 256 { emitFinished(&sink) }
        }
        // The end: every closer is processed now (brackets left open are text), and what is left in the
        // delimiter stack stays text.
        endSession(linkMade: false)
        if firstUnprocessed >= 0 { processEmphasis(stackBottom: -1, from: firstUnprocessed, link: false) }
        firstUnprocessed = -1
        for j in 0..<delimiters.count { retire(delimiters[j]) }
        delimiters.removeAll()
        emit(upTo: marks.count, lateBefore: Int.max, final: true, &sink)
    }

    mutating func resetMarks() {
        if !marks.isEmpty { marks.removeAll() }
        if !emphasis.isEmpty {
            emphasis.removeAll()
            matches.removeAll()
        }
        lateFast.removeAll()
        lateFastHead = 0
        late.removeAll()
        lateHead = 0
        latePackedCount = 0
        latePackedLast = 0
        lateLastStart = 0
        lateHeap.removeAll()
        bottoms.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
        delimiters.removeAll()
        firstUnprocessed = -1
    }

    static func contains(_ p: MDBytes, _ byte: UInt8) -> Bool {
        guard let base = p.baseAddress else { return false }
        return SWAR.first(byte, in: base, from: 0, to: p.count) < p.count
    }

    // MARK: Scan

    private mutating func scanOne<Sink: InlineSink & ~Copyable>(_ sink: inout Sink) {
        let c = s[pos]
        switch c {
        case 0x0A:
            pos += 1
            while pos < end && (s[pos] == 0x20 || s[pos] == 0x09) { pos += 1 }
        case UInt8(ascii: "`"):
            handleBackticks()
        case UInt8(ascii: "\\"):
            if pos + 1 < end && MD.isASCIIPunct(s[pos + 1]) {
                pos += 2
            } else if pos + 1 < end && s[pos + 1] == 0x0A {
                pos += 2
                while pos < end && (s[pos] == 0x20 || s[pos] == 0x09) { pos += 1 }
            } else {
                pos += 1
            }
        case UInt8(ascii: "&"):
            pos += 1
        case UInt8(ascii: "<"):
            handlePointyBrace()
        case UInt8(ascii: "*"), UInt8(ascii: "_"):
            handleDelim(c, &sink)
        case UInt8(ascii: "~") where options.strikethrough:
            handleDelim(c, &sink)
        case UInt8(ascii: "["):
            pos += 1
            pushBracket(image: false, start: pos - 1)
        case UInt8(ascii: "!"):
            if pos + 1 < end && s[pos + 1] == UInt8(ascii: "[") {
                pos += 2
                pushBracket(image: true, start: pos - 2)
            } else {
                pos += 1
            }
        case UInt8(ascii: "]"):
            handleCloseBracket(&sink)
        default:
            if options.autolinks && brackets.isEmpty {
                if c == UInt8(ascii: "w") || c == UInt8(ascii: "W"), wwwMatch() { return }
                if c == UInt8(ascii: ":"), urlMatch() { return }
            }
            scanText()
        }
    }

    /// A plain run from `pos` (the byte at `pos` is not special).
    @inline(__always)
    private mutating func scanText() {
        var e = pos + 1
        let table = scanClass
        table.withUnsafeBufferPointer { t in
            while e < end {
                let k = t[Int(s[e])]
                if k == 0 {
                    e += 1
                    continue
                }
                if k == 1 { break }
                // `:` or `w`, where an extended autolink may start (the scan stops there to try it).
                let d = s[e]
                if d == UInt8(ascii: ":") {
                    if e + 2 < end && s[e + 1] == UInt8(ascii: "/") && MD.isAlpha(s[e - 1]) { break }
                } else if e + 3 < end && s[e + 3] == UInt8(ascii: ".") {
                    let b = s[e - 1]
                    if b == UInt8(ascii: "(") || MD.isSpace(b) { break }
                }
                e += 1
            }
        }
        pos = e
    }

    @inline(__always)
    mutating func appendMark(_ mark: InlineMark) -> Int32 {
        marks.append(mark)
        return Int32(marks.count - 1)
    }
}

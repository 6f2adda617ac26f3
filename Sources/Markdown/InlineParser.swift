#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ReaderSupport

// Phase 2 of CommonMark parsing: the inline content of paragraphs, headings and table cells
// (cmark's inlines.c algorithm: delimiter stack, bracket stack, "process emphasis" with
// openers_bottom; plus cmark-gfm's strikethrough, extended autolinks and footnote references).
//
// The parser builds no node per text run. A left-to-right scan records *marks* in one array, in
// source order, for the constructs resolved on the spot (code spans, autolinks, raw HTML, a link's or
// image's end once its `]` is seen). Text is implicit: whatever lies between marks, decoded (escapes,
// entities, line breaks) only when it is emitted. What may still change waits in two stacks without
// marks: delimiter runs (`Delimiter`, 8 bytes: where, how long, can open or close, and the matches
// made so far, packed) and brackets (`Bracket`, 4 bytes: where, and whether an image's). Emphasis is
// matched on the stack itself; a run that leaves it having matched becomes a mark then, and so does a
// bracket that makes a link (its start). Those *late* marks start before marks already made, so they
// are kept apart, as a sorted run plus a heap for the few that come out of order, and merged with
// the array as marks are emitted. A run that matched nothing, and a bracket that made nothing, were
// text all along and leave nothing.
//
// Closers are matched as soon as nothing can change their outcome (no active link bracket before
// them): the result is the same as cmark's one pass at the end, since closers are still processed in
// source order against the same delimiters. Two refinements keep closers from waiting needlessly: a
// bracket with more brackets above it than `]` left in the subject is dead (never taken by a `]`, so
// text); inside the one active bracket with no delimiter before it, closers are matched as they
// come (their openers are the same whether or not it makes a link; `session`); with delimiters before
// it, its `]` is read ahead once (`outcomeAhead(of:)`: up to the next bracket, code span or `<`) and,
// when that tells, they are matched within it if the `]` makes a link (a session again) or as the
// block's if it makes nothing; else as long as each finds its opener after the bracket
// (`speculationStopped`).
//
// Marks before the first delimiter still in the stack and before the first active bracket are final:
// they are emitted to the sink and, once nothing is pending, the arrays are reset. A paragraph of
// matched emphasis or links therefore holds a bounded number of marks however long it is. What must
// wait costs 8 bytes per delimiter run and 4 per bracket; what resolved behind something still
// waiting (an opener that may yet close around it) costs a late mark per matched run and two marks
// per link (destinations and titles are read again from the subject or the reference definition when
// the start is emitted), late marks packed (typically 4 to 6 bytes) once more than 1,024 wait. The whole
// process stays under 7× its input on every shape docs/benchmarks.md measures.
//
// `InlineSink` receives the result in document order: the HTML renderer writes it out at once, the
// tree builder (`InlineTreeBuilder`) makes the nodes of a `MarkdownDocument`.

private let maxBackticks = 1000
private let maxLinkLabelLength = 1000

/// Where the inline parser's output goes, in document order. Positions are offsets in the subject.
protocol InlineSink: ~Copyable {
    /// Subject bytes `from..<to`, as they are; `plain`: none of them is `<`, `>`, `"` or `&` (so HTML
    /// needs no escaping).
    mutating func text(_ subject: MDBytes, from: Int, to: Int, plain: Bool)
    /// Decoded text (an escape, an entity, an e-mail address with its entities decoded) standing for the
    /// subject bytes `from..<to`.
    mutating func decodedText(_ bytes: MDBytes, from: Int, to: Int)
    mutating func softBreak(at: Int)
    mutating func lineBreak(from: Int, to: Int)
    /// A code span: its content is `subject[contentFrom..<contentTo]` with line endings read as spaces.
    mutating func code(_ subject: MDBytes, contentFrom: Int, contentTo: Int, from: Int, to: Int)
    mutating func rawHTML(_ subject: MDBytes, from: Int, to: Int)
    /// Emphasis, strong emphasis or strikethrough starts at `at` / ends at its last byte `at`.
    mutating func enter(_ kind: MarkdownNodeKind, at: Int)
    mutating func exit(_ kind: MarkdownNodeKind, at: Int)
    mutating func enterLink(image: Bool, destination: MDBytes, title: MDBytes, at: Int)
    mutating func exitLink(image: Bool, at: Int)
    mutating func footnoteReference(label: MDBytes, definition: Int32, from: Int, to: Int)
}

/// One mark of the scan (see the file comment).
struct InlineMark {
    enum Kind: UInt8 {
        /// A run of `*`, `_` or `~` that matched (a run that did not is text and has no mark).
        case delimiter
        /// The `[` / `![` of a resolved link or image (`data`: its `InlineLink`).
        case linkOpen
        case imageOpen
        /// The `](…)`, `][label]`, `]` of a resolved link or image.
        case linkClose
        case imageClose
        /// A code span (`width`: the backtick count).
        case code
        case html
        /// `<scheme:…>` and `<user@host>`.
        case autolinkURI
        case autolinkEmail
        /// GFM extended autolinks: `www.…` and `http(s)://…`, `ftp://…`.
        case wwwLink
        case urlLink
        /// `[^label]` (`data`: the definition's node).
        case footnoteReference
    }

    enum Flag {
        static let canOpen: UInt8 = 1
        static let canClose: UInt8 = 2
        /// A delimiter run of at most `CompactMatches.maxLength` characters: its matches are kept in
        /// `data` itself (`CompactMatches`), never in the emphasis records.
        static let compact: UInt8 = 4
    }

    // 12 bytes: what resolved behind an opener that may still close around it waits as marks, and
    // their size bounds a paragraph's memory. Where a mark ends is not stored but follows from its kind
    // (`InlineParser.markEnd`).
    var start: Int32
    /// Per kind: delimiters, their `CompactMatches` (`Flag.compact`) or else their `InlineEmphasis`
    /// record; links' and images' starts, the position of their `]` (inline links, whose destination
    /// and title are scanned again from there) or minus one more than their reference definition's
    /// index; links' and images' ends, code spans, raw HTML and autolinks, their end; footnote
    /// references, the definition node.
    var data: Int32
    var kind: Kind
    var flags: UInt8
    /// Per kind: delimiters, the run's length (0 when longer than 65535: then its record has it); links
    /// and images, the length of `[` or `![`; code spans, the backtick count; footnote references,
    /// their length.
    var width: UInt16

    @inline(__always)
    init(_ kind: Kind, _ start: Int, data: Int32 = -1, width: Int = 0) {
        self.start = Int32(truncatingIfNeeded: start)
        self.data = data
        self.kind = kind
        self.flags = 0
        self.width = UInt16(truncatingIfNeeded: width)
    }
}

/// The matches of a short delimiter run, packed in its mark's `data` (so matched emphasis costs its
/// marks and nothing more: a paragraph of `*a**a**a*…` behind one unmatched opener holds 12 bytes per
/// run). A run of n characters makes at most n matches, so 7 fit: on each edge a count (3 bits) and one
/// bit per match in the order made, set when it used two characters (strong emphasis, `~~`).
enum CompactMatches {
    static let maxLength = 7

    @inline(__always) static func closeCount(_ d: Int32) -> Int { Int(d & 7) }
    @inline(__always) static func openCount(_ d: Int32) -> Int { Int((d >> 10) & 7) }
    /// How many characters the `index`th match (in the order made) on either edge used.
    @inline(__always) static func closeUses(_ d: Int32, _ index: Int) -> Int { (d >> (3 + Int32(index))) & 1 != 0 ? 2 : 1 }
    @inline(__always) static func openUses(_ d: Int32, _ index: Int) -> Int { (d >> (13 + Int32(index))) & 1 != 0 ? 2 : 1 }

    /// Characters used by all the matches.
    @inline(__always) static func used(_ d: Int32) -> Int32 {
        Int32(closeCount(d) + openCount(d)) + Int32(((d >> 3) & 0x7F).nonzeroBitCount + ((d >> 13) & 0x7F).nonzeroBitCount)
    }

    @inline(__always) static func addingClose(_ d: Int32, uses: Int32) -> Int32 {
        let n = Int32(closeCount(d))
        return (d & ~7) | (n + 1) | (uses == 2 ? 1 << (3 + n) : 0)
    }

    @inline(__always) static func addingOpen(_ d: Int32, uses: Int32) -> Int32 {
        let n = Int32(openCount(d))
        return (d & ~(7 << 10)) | ((n + 1) << 10) | (uses == 2 ? 1 << (13 + n) : 0)
    }
}

/// What matching did to one delimiter run longer than `CompactMatches.maxLength`: characters left, and
/// its matches on both edges.
struct InlineEmphasis {
    /// The run's length (its mark keeps it when it is at most 65535).
    var length: Int32
    var remaining: Int32
    /// Its matches as a closer: `count` consecutive entries of the match log from `first`
    /// (chronological, i.e. innermost first, which is the order their end tags are written).
    var closeFirst: Int32
    var closeCount: Int32
    /// Its latest match as an opener; each match links to the previous one, so walking the chain gives
    /// the outermost first, the order their start tags are written.
    var lastOpen: Int32
    /// `InlineMark.Flag.canOpen` and `canClose`.
    var flags: UInt8
}

/// A delimiter run in the delimiter stack: 8 bytes, and no mark until it leaves the stack having
/// matched (`InlineParser.retire`), so a paragraph of unmatched openers holds 8 bytes per run.
struct Delimiter {
    var start: Int32
    /// A run of at most `CompactMatches.maxLength` characters: its length (bits 0–2), its
    /// `InlineMark.Flag.canOpen` and `canClose` (bits 3–4) and its `CompactMatches` (bits 5–24). A longer
    /// run: bit 31, and the index of its `InlineEmphasis` record (which has all that).
    private var info: UInt32

    init(start: Int, width: Int, flags: UInt8) {
        self.start = Int32(truncatingIfNeeded: start)
        info = UInt32(width) | UInt32(flags) << 3
    }

    init(start: Int, record: Int) {
        self.start = Int32(truncatingIfNeeded: start)
        info = 0x8000_0000 | UInt32(truncatingIfNeeded: record)
    }

    var isCompact: Bool { info & 0x8000_0000 == 0 }
    var record: Int { Int(info & 0x7FFF_FFFF) }
    var width: Int32 { Int32(info & 7) }
    var compactFlags: UInt8 { UInt8((info >> 3) & 3) }
    var matches: Int32 {
        get { Int32((info >> 5) & 0xF_FFFF) }
        set { info = (info & ~(UInt32(0xF_FFFF) << 5)) | (UInt32(newValue) & 0xF_FFFF) << 5 }
    }
}

/// One emphasis match: the delimiter characters it used on each side (1 emphasis, 2 strong; a tilde
/// run's length for strikethrough), and the opener's previous match.
struct InlineMatch {
    var count: Int32
    var previousOpen: Int32
}

/// An inline link's `]` and its destination and title (`InlineParser.recentLinks`).
struct RecentLink {
    var close: Int32
    var link: InlineLink
}

/// A link's or image's destination and title, either still escaped in the subject (inline links) or
/// decoded in the document's storage (reference definitions). Made when its start is emitted, not kept:
/// the start's mark says where to find them (`InlineMark.data`), so a link costs its two marks.
struct InlineLink {
    var destinationStart: Int32
    var destinationCount: Int32
    var titleStart: Int32
    var titleCount: Int32
    /// True: the ranges are in the subject and need unescaping; false: in the storage, decoded.
    var inSubject: Bool
}

/// An open bracket: where its `[` (or the `!` of `![`) is, and in the top bit whether it is an image's.
/// 4 bytes and no mark (a paragraph can hold one per byte of its input): a bracket that makes a link
/// puts its start among the late marks (`late`); one that makes nothing was text all along. Whether it
/// is active is the parser's `linkFloor` (images always are); the top of the delimiter stack when it was
/// pushed is the last delimiter still in the stack before it (`delimiterBottom(before:)`).
/// What a bracket's `]` will make of it, when that can be told ahead (`InlineParser.outcomeAhead(of:)`).
enum BracketOutcome {
    case link, text, unknown
}

struct Bracket {
    var bits: UInt32

    init(position: Int, image: Bool) {
        bits = UInt32(truncatingIfNeeded: position) | (image ? 1 << 31 : 0)
    }

    /// Where `[` or `![` starts (subjects are under 2 GiB: `MarkdownParser.maximumInputLength`).
    var position: Int { Int(bits & 0x7FFF_FFFF) }
    var isImage: Bool { bits & (1 << 31) != 0 }
}

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

/// Bytes that end a plain run when text is emitted: line ending, `\`, `&`.
private let emitClass: [Bool] = {
    var t = [Bool](repeating: false, count: 256)
    for c in "\n\\&".utf8 { t[Int(c)] = true }
    return t
}()

/// Text emission in one pass: line ending (1), `\` (2), `&` (3), and what HTML escapes (4).
private let textClass: [UInt8] = {
    var t = [UInt8](repeating: 0, count: 256)
    t[0x0A] = 1
    t[Int(UInt8(ascii: "\\"))] = 2
    t[Int(UInt8(ascii: "&"))] = 3
    for c in "<>\"".utf8 { t[Int(c)] = 4 }
    return t
}()

/// Reference definitions as the block parser stores them: ranges of the document's storage.
struct ReferenceDefinition {
    var destStart: Int32
    var destCount: Int32
    var titleStart: Int32
    var titleCount: Int32
}

/// The inline parser: one per document (its arrays are reused from block to block).
struct InlineParser {
    private(set) var options: MarkdownOptions
    /// Link reference and footnote definitions of the whole document.
    var references = LabelMap<ReferenceDefinition>()
    var footnotes = LabelMap<Int32>()
    /// The document's storage, where reference definitions keep their decoded destinations and titles.
    var storage = MDBytes(start: nil, count: 0)

    // Per block.
    private var s = MDBytes(start: nil, count: 0)
    private var pos = 0
    private var end = 0
    // Grown with realloc, not by copying (GrowableBuffer): a paragraph of a million open brackets or
    // unmatched openers holds its marks once, not twice while they move.
    private var marks = GrowableBuffer<InlineMark>()
    private var emphasis = GrowableBuffer<InlineEmphasis>()
    private var matches = GrowableBuffer<InlineMatch>()
    private var brackets = GrowableBuffer<Bracket>()
    /// Marks made after marks that follow them (a link's or image's start, made at its `]`): a heap
    /// ordered by `start`, merged with `marks` as they are emitted.
    /// The sorted run of late marks (`addLateMark`): first as they are (`lateFast`, read from
    /// `lateFastHead`), then, past `lateFastLimit` waiting, packed (`late`): the byte where the next to
    /// read starts, how many are left, the start of the last one packed, and the next one to read,
    /// decoded, with its length in bytes. `lateLastStart`: the start of the last one added. The ones that
    /// came out of order are a heap.
    // (Made by the first parse, then handed on with the parser's other buffers: `init(options:reusing:)`.)
    private var lateFast: GrowableBuffer<InlineMark>! = nil
    private var lateFastHead = 0
    private static let lateFastLimit = 1024
    private var late: GrowableBuffer<UInt8>! = nil
    private var lateHead = 0
    private var latePackedCount = 0
    private var latePackedLast: Int32 = 0
    private var lateLastStart: Int32 = 0
    private var lateNext = InlineMark(.delimiter, 0)
    private var lateNextSize = 0
    private var lateHeap: GrowableBuffer<InlineMark>! = nil
    /// Link (`[`) brackets below this index are inactive: a link was made above them (cmark deactivates
    /// every earlier link opener). Image brackets stay active.
    private var linkFloor = 0
    private var imageBrackets = 0
    /// Link brackets from `linkFloor` up.
    private var activeLinkBrackets = 0
    private var activeBrackets: Int { imageBrackets + activeLinkBrackets }
    /// Whether a bracket was pushed after the top one (cmark's `bracket_after`): only the top can have
    /// none, since every other one has at least the bracket above it.
    private var topBracketAfter = false
    /// Every bracket below this index is inactive (brackets never become active again).
    private var inactiveFloor = 0
    /// Brackets below this index are dead: more brackets are open above them than `]` are left in the
    /// subject, and each `]` takes the top one, so they stay text whatever follows. They neither hold
    /// emphasis back nor keep marks from being emitted (`[*[*[*…`).
    private var deadFloor = 0
    /// How many `]` the subject has from the first bracket on, less those handled (an upper bound on the
    /// `]` still to come: one inside a code span is counted and never handled); -1 before the first bracket.
    private var closeBracketsLeft = -1
    /// Where emission stops (the first delimiter in the stack or active bracket) and the first mark at or
    /// after it.
    private var limitCache = (position: -1, mark: 0)
    /// The destination and title of recent inline links, by their `]` (the slot: its position modulo the
    /// count), so a link's start emitted soon after its end needs no second scan.
    private static let recentLinkCount = 64
    private var recentLinks: GrowableBuffer<RecentLink>! = nil
    /// The delimiter stack: the delimiter runs still in it, in order (cmark's doubly linked
    /// list, kept as an array: a pass over the closers compacts it as it goes, see `processEmphasis`).
    private var delimiters = GrowableBuffer<Delimiter>()
    /// The index in `delimiters` of the first delimiter not yet processed as a closer (-1: none).
    private var firstUnprocessed = -1
    /// openers_bottom of the block-wide emphasis pass (persisting across its eager steps).
    private var bottoms = [Int32](repeating: -1, count: 10)
    private var linkBottoms = [Int32](repeating: -1, count: 10)
    /// The bracket (its index and position) whose text is being matched as it is read: the one active
    /// bracket, with no delimiter before it in the stack. Its closers find the same openers whether or
    /// not it makes a link (there are none before it), so they need not wait for its `]` with every run
    /// of its text (`[*a*a*a…](u)`). They use `sessionBottoms`, fresh for the bracket as cmark's pass at
    /// its `]` would be: dropped if it makes a link, or else copied into the block-wide `bottoms`
    /// (where it was set) as the block-wide pass would have set them (`endSession`).
    private var session: (bracket: Int, position: Int)? = nil
    /// The bracket (index and position) whose closers stopped being matched ahead: with delimiters before
    /// it, a closer inside the one active bracket is matched as it comes only while it finds an opener
    /// after the bracket, which it would find with or without a link (`processEmphasis(speculative:)`);
    /// from the first that does not, the rest wait for its `]` as before.
    private var speculationStopped: (bracket: Int, position: Int)? = nil
    /// What the `]` ahead will make of the one active bracket (at `position`), read ahead once when a
    /// closer after it meets delimiters before it (`outcomeAhead(of:)`).
    private var bracketAhead: (position: Int, outcome: BracketOutcome) = (-1, .unknown)
    private var sessionBottoms: [Int32] = []
    private var backticks = [Int](repeating: 0, count: maxBackticks + 1)
    private var scannedForBackticks = false
    private var noCommentEnd = false
    private var noPIEnd = false
    private var noCDATAEnd = false
    private var noDeclEnd = false
    private var noQuoteFrom = (Int.max, Int.max)  // ", ' in attribute values
    private var noTitleFrom = (Int.max, Int.max)  // ", ' link titles
    private var label: [UInt8] = []
    private var scanClass: [UInt8]

    // Emission.
    private var emitted = 0
    private var textStart = 0
    private var linkDepth = 0
    private var blockHasAt = false
    private var scratch: [UInt8] = []
    private var titleScratch: [UInt8] = []
    private var lineScratch: [UInt8] = []

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
        if let recentLinks { for i in 0..<Self.recentLinkCount { recentLinks[i].close = -1 } }
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

    private mutating func resetMarks() {
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
        for c in p where c == byte { return true }
        return false
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
    private mutating func appendMark(_ mark: InlineMark) -> Int32 {
        marks.append(mark)
        return Int32(marks.count - 1)
    }

    // MARK: Code spans, autolinks, HTML

    private mutating func scanToClosingBackticks(_ openLen: Int) -> Int? {
        if openLen > maxBackticks { return nil }
        if scannedForBackticks && backticks[openLen] <= pos { return nil }
        var p = pos
        while true {
            while p < end && s[p] != UInt8(ascii: "`") { p += 1 }
            if p >= end { break }
            let s0 = p
            while p < end && s[p] == UInt8(ascii: "`") { p += 1 }
            let n = p - s0
            if n <= maxBackticks { backticks[n] = s0 }
            if n == openLen { return p }
        }
        scannedForBackticks = true
        return nil
    }

    private mutating func handleBackticks() {
        let start = pos
        while pos < end && s[pos] == UInt8(ascii: "`") { pos += 1 }
        let openLen = pos - start
        guard let closeEnd = scanToClosingBackticks(openLen) else { return }
        pos = closeEnd
        _ = appendMark(InlineMark(.code, start, data: Int32(truncatingIfNeeded: closeEnd), width: openLen))
    }

    private mutating func handlePointyBrace() {
        let start = pos
        if let e = scanAutolinkURI(pos + 1) {
            pos = e
            _ = appendMark(InlineMark(.autolinkURI, start, data: Int32(truncatingIfNeeded: e)))
            return
        }
        if let e = scanAutolinkEmail(pos + 1) {
            pos = e
            _ = appendMark(InlineMark(.autolinkEmail, start, data: Int32(truncatingIfNeeded: e)))
            return
        }
        if let e = scanHTMLTag(pos + 1) {
            pos = e
            _ = appendMark(InlineMark(.html, start, data: Int32(truncatingIfNeeded: e)))
            return
        }
        pos += 1
    }

    /// `<scheme:…>` after the `<` at p - 1; returns the end (after `>`).
    private func scanAutolinkURI(_ p: Int) -> Int? {
        var i = p
        guard i < end, MD.isAlpha(s[i]) else { return nil }
        i += 1
        while i < end && (MD.isAlnum(s[i]) || s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: ".") || s[i] == UInt8(ascii: "-")) {
            i += 1
        }
        let schemeLen = i - p
        guard schemeLen >= 2 && schemeLen <= 32, i < end, s[i] == UInt8(ascii: ":") else { return nil }
        i += 1
        while i < end {
            let c = s[i]
            if c == UInt8(ascii: ">") { return i + 1 }
            if c <= 0x20 || c == UInt8(ascii: "<") || c == 0x7F { return nil }
            i += 1
        }
        return nil
    }

    private func scanAutolinkEmail(_ p: Int) -> Int? {
        var i = p
        while i < end {
            let c = s[i]
            if MD.isAlnum(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "!") || c == UInt8(ascii: "#")
                || c == UInt8(ascii: "$") || c == UInt8(ascii: "%") || c == UInt8(ascii: "&") || c == UInt8(ascii: "'")
                || c == UInt8(ascii: "*") || c == UInt8(ascii: "+") || c == UInt8(ascii: "/") || c == UInt8(ascii: "=")
                || c == UInt8(ascii: "?") || c == UInt8(ascii: "^") || c == UInt8(ascii: "_") || c == UInt8(ascii: "`")
                || c == UInt8(ascii: "{") || c == UInt8(ascii: "|") || c == UInt8(ascii: "}") || c == UInt8(ascii: "~")
                || c == UInt8(ascii: "-")
            {
                i += 1
            } else {
                break
            }
        }
        guard i > p, i < end, s[i] == UInt8(ascii: "@") else { return nil }
        i += 1
        // domain labels
        while true {
            let ls = i
            guard i < end, MD.isAlnum(s[i]) else { return nil }
            i += 1
            while i < end && (MD.isAlnum(s[i]) || s[i] == UInt8(ascii: "-")) && i - ls < 63 { i += 1 }
            if s[i - 1] == UInt8(ascii: "-") { return nil }
            guard i < end else { return nil }
            if s[i] == UInt8(ascii: ">") { return i + 1 }
            if s[i] == UInt8(ascii: ".") {
                i += 1
                continue
            }
            return nil
        }
    }

    /// Raw HTML after '<' at p. Returns end index (after '>').
    private mutating func scanHTMLTag(_ p: Int) -> Int? {
        guard p < end else { return nil }
        let c = s[p]
        if MD.isAlpha(c) {
            return scanOpenTagLinear(p)
        }
        if c == UInt8(ascii: "/") {
            return MD.scanClosingTag(s, p + 1, end)
        }
        if c == UInt8(ascii: "?") {
            if noPIEnd { return nil }
            if let e = MD.find(s, p + 1, end, UInt8(ascii: "?"), UInt8(ascii: ">")) { return e }
            noPIEnd = true
            return nil
        }
        if c == UInt8(ascii: "!") {
            if p + 2 < end && s[p + 1] == UInt8(ascii: "-") && s[p + 2] == UInt8(ascii: "-") {
                // <!--> and <!---> are complete comments
                if p + 3 < end && s[p + 3] == UInt8(ascii: ">") { return p + 4 }
                if p + 4 < end && s[p + 3] == UInt8(ascii: "-") && s[p + 4] == UInt8(ascii: ">") { return p + 5 }
                if noCommentEnd { return nil }
                if let e = MD.find(s, p + 3, end, UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: ">")) {
                    return e
                }
                noCommentEnd = true
                return nil
            }
            if p + 8 <= end && MD.matchesExactly(s, p - 1, "<![CDATA[") {
                if noCDATAEnd { return nil }
                if let e = MD.find(s, p + 8, end, UInt8(ascii: "]"), UInt8(ascii: "]"), UInt8(ascii: ">")) {
                    return e
                }
                noCDATAEnd = true
                return nil
            }
            if p + 1 < end && MD.isAlpha(s[p + 1]) {
                if noDeclEnd { return nil }
                var i = p + 2
                while i < end && s[i] != UInt8(ascii: ">") { i += 1 }
                if i < end { return i + 1 }
                noDeclEnd = true
                return nil
            }
        }
        return nil
    }

    /// Open tag scan with memo of failed quote searches (keeps `<a b="` repeated linear).
    private mutating func scanOpenTagLinear(_ p: Int) -> Int? {
        var j = p + 1
        while j < end && (MD.isAlnum(s[j]) || s[j] == UInt8(ascii: "-")) { j += 1 }
        while true {
            var k = j
            while k < end && MD.isSpace(s[k]) { k += 1 }
            if k < end && s[k] == UInt8(ascii: ">") { return k + 1 }
            if k + 1 < end && s[k] == UInt8(ascii: "/") && s[k + 1] == UInt8(ascii: ">") { return k + 2 }
            if k == j || k >= end { return nil }
            let c = s[k]
            guard MD.isAlpha(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") else { return nil }
            k += 1
            while k < end {
                let d = s[k]
                if MD.isAlnum(d) || d == UInt8(ascii: "_") || d == UInt8(ascii: ".") || d == UInt8(ascii: ":")
                    || d == UInt8(ascii: "-")
                {
                    k += 1
                } else {
                    break
                }
            }
            j = k
            var m = k
            while m < end && MD.isSpace(s[m]) { m += 1 }
            if m < end && s[m] == UInt8(ascii: "=") {
                m += 1
                while m < end && MD.isSpace(s[m]) { m += 1 }
                guard m < end else { return nil }
                let q = s[m]
                if q == UInt8(ascii: "\"") || q == UInt8(ascii: "'") {
                    let doubleQuote = q == UInt8(ascii: "\"")
                    if m >= (doubleQuote ? noQuoteFrom.0 : noQuoteFrom.1) { return nil }
                    let from = m
                    m += 1
                    while m < end && s[m] != q { m += 1 }
                    guard m < end else {
                        if doubleQuote { noQuoteFrom.0 = from } else { noQuoteFrom.1 = from }
                        return nil
                    }
                    j = m + 1
                } else {
                    let vs = m
                    while m < end {
                        let d = s[m]
                        if MD.isSpace(d) || d == UInt8(ascii: "\"") || d == UInt8(ascii: "'") || d == UInt8(ascii: "=")
                            || d == UInt8(ascii: "<") || d == UInt8(ascii: ">") || d == UInt8(ascii: "`")
                        {
                            break
                        }
                        m += 1
                    }
                    if m == vs { return nil }
                    j = m
                }
            }
        }
    }

    // MARK: Emphasis delimiters

    private mutating func handleDelim<Sink: InlineSink & ~Copyable>(_ c: UInt8, _ sink: inout Sink) {
        let start = pos
        let before = MD.scalarBefore(s, pos, 0)
        while pos < end && s[pos] == c { pos += 1 }
        let n = pos - start
        // GFM strikethrough: runs of one or two tildes only.
        if c == UInt8(ascii: "~") && n > 2 { return }
        let after: UInt32 = pos < end ? MD.decode(s, pos, end).0 : 0x0A
        let afterSpace = MD.isUnicodeSpace(after)
        let beforeSpace = MD.isUnicodeSpace(before)
        let afterPunct = MD.isUnicodePunctOrSymbol(after)
        let beforePunct = MD.isUnicodePunctOrSymbol(before)
        let leftFlanking = !afterSpace && (!afterPunct || beforeSpace || beforePunct)
        let rightFlanking = !beforeSpace && (!beforePunct || afterSpace || afterPunct)
        let canOpen: Bool
        let canClose: Bool
        if c == UInt8(ascii: "_") {
            canOpen = leftFlanking && (!rightFlanking || beforePunct)
            canClose = rightFlanking && (!leftFlanking || afterPunct)
        } else {
            canOpen = leftFlanking
            canClose = rightFlanking
        }
        guard canOpen || canClose else { return }
        let flags = (canOpen ? InlineMark.Flag.canOpen : 0) | (canClose ? InlineMark.Flag.canClose : 0)
        let entry: Delimiter
        if n <= CompactMatches.maxLength {
            entry = Delimiter(start: start, width: n, flags: flags)
        } else {
            // A longer run keeps its length, flags and matches in a record.
            entry = Delimiter(start: start, record: emphasis.count)
            emphasis.append(
                InlineEmphasis(
                    length: Int32(truncatingIfNeeded: n), remaining: Int32(truncatingIfNeeded: n), closeFirst: -1, closeCount: 0,
                    lastOpen: -1, flags: flags))
        }
        if firstUnprocessed < 0 { firstUnprocessed = delimiters.count }
        delimiters.append(entry)
        if canClose && activeBrackets > 0 && closeBracketsLeft < 0 {
            // It would wait behind a bracket: is that one dead?
            updateDeadFloor()
            checkSession()
        }
        if canClose && activeBrackets == 0 {
            processEmphasis(stackBottom: -1, from: firstUnprocessed, link: false)
            firstUnprocessed = -1
            emitFinished(&sink)
        } else if canClose && activeBrackets == 1, let top = brackets.last, isActive(brackets.count - 1),
            delimiters[0].start > Int32(truncatingIfNeeded: top.position)
        {
            if session == nil {
                session = (brackets.count - 1, top.position)
                if sessionBottoms.isEmpty { sessionBottoms = [Int32](repeating: -2, count: 10) }
                for i in 0..<10 { sessionBottoms[i] = -2 }
            }
            // (A session for another bracket has ended: see endSession's callers.)
            if let current = session, current.bracket == brackets.count - 1, current.position == top.position {
                processEmphasis(stackBottom: -1, from: firstUnprocessed, link: false, inSession: true)
                firstUnprocessed = -1
            }
        } else if canClose && activeBrackets == 1, let top = brackets.last, isActive(brackets.count - 1),
            firstUnprocessed >= 0, delimiters[firstUnprocessed].start > Int32(truncatingIfNeeded: top.position),
            case let outcome = outcomeAhead(of: top), outcome != .unknown
        {
            // Delimiters before the bracket, every unprocessed one after it, and its `]` read ahead.
            if outcome == .link {
                // Its text is a link's: matched within it, as the pass at its `]` would (a session of its
                // own, whose openers_bottom goes with the link).
                if session == nil {
                    session = (brackets.count - 1, top.position)
                    if sessionBottoms.isEmpty { sessionBottoms = [Int32](repeating: -2, count: 10) }
                    for i in 0..<10 { sessionBottoms[i] = -2 }
                }
                if let current = session, current.bracket == brackets.count - 1, current.position == top.position {
                    processEmphasis(
                        stackBottom: Int32(truncatingIfNeeded: top.position), from: firstUnprocessed, link: false, inSession: true)
                    firstUnprocessed = -1
                }
            } else {
                // It stays text: its closers are the block's, as if it were not there.
                processEmphasis(stackBottom: -1, from: firstUnprocessed, link: false)
                firstUnprocessed = -1
                emitFinished(&sink)
            }
        } else if canClose && activeBrackets == 1, session == nil, let top = brackets.last, isActive(brackets.count - 1),
            speculationStopped.map({ $0.bracket != brackets.count - 1 || $0.position != top.position }) ?? true
        {
            let stop = processEmphasis(
                stackBottom: Int32(truncatingIfNeeded: top.position), from: firstUnprocessed, link: false, speculative: true)
            firstUnprocessed = stop
            if stop >= 0 { speculationStopped = (brackets.count - 1, top.position) }
        }
    }

    /// What the `]` that closes `bracket` (the top one, active) will make of it, read ahead from `pos`
    /// once per bracket: `.link` (a link or image), `.text` (its `]` makes nothing, or never comes), or
    /// `.unknown` when something before that `]` could change which `]` it is or what it does: another
    /// bracket, a code span, an autolink or raw HTML (`` ` `` or `<`), a footnote label. Only escapes are
    /// skipped, as the scan skips them. The bytes read are those up to the next such byte, after the
    /// bracket, so each is read ahead at most once per block; the link test is `handleCloseBracket`'s,
    /// without its effects (the title memo it shares only records a title that never closes).
    private mutating func outcomeAhead(of bracket: Bracket) -> BracketOutcome {
        if bracketAhead.position == bracket.position { return bracketAhead.outcome }
        var outcome = BracketOutcome.unknown
        var p = pos
        scan: while true {
            guard p < end else {
                outcome = .text
                break
            }
            switch s[p] {
            case UInt8(ascii: "["), UInt8(ascii: "`"), UInt8(ascii: "<"):
                break scan
            case UInt8(ascii: "\\"):
                p += p + 1 < end && MD.isASCIIPunct(s[p + 1]) ? 2 : 1
            case UInt8(ascii: "]"):
                outcome = linkWouldBeMade(bracket, closeStart: p)
                break scan
            default:
                p += 1
            }
        }
        bracketAhead = (bracket.position, outcome)
        return outcome
    }

    /// `handleCloseBracket`'s test, without its effects: whether the `]` at `closeStart` makes `bracket`
    /// a link or image (`.unknown` for a footnote reference's label, which that test treats apart).
    private mutating func linkWouldBeMade(_ bracket: Bracket, closeStart: Int) -> BracketOutcome {
        let after = closeStart + 1
        let textStart = bracket.position + (bracket.isImage ? 2 : 1)
        if after < end && s[after] == UInt8(ascii: "(") {
            let sp = MD.skipSpacechars(s, after + 1, end)
            if let (destEnd, _, _) = MD.scanLinkDestination(s, sp, end) ?? emptyDestination(sp) {
                let startTitle = MD.skipSpacechars(s, destEnd, end)
                var endTitle = startTitle
                if startTitle != destEnd, let te = scanTitleMemo(startTitle) { endTitle = te }
                let endAll = MD.skipSpacechars(s, endTitle, end)
                if endAll < end && s[endAll] == UInt8(ascii: ")") { return .link }
            }
        }
        var labelRange: (Int, Int)? = nil
        if let (_, ls, lend) = MD.scanLinkLabel(s, after, end) {
            labelRange = (ls, lend)
        } else if after + 1 < end && s[after] == UInt8(ascii: "[") && s[after + 1] == UInt8(ascii: "]") {
            labelRange = (after + 1, after + 1)
        }
        if (labelRange == nil || labelRange!.0 == labelRange!.1) && !topBracketAfter {
            labelRange = (textStart, closeStart)
        }
        if let (ls, le) = labelRange, le - ls <= maxLinkLabelLength, le > ls, !references.isEmpty {
            MD.normalizeLabel(s, ls, le, into: &label)
            if label.withUnsafeBufferPointer({ references.index($0) }) != nil { return .link }
        }
        if options.footnotes && closeStart - textStart >= 2 && s[textStart] == UInt8(ascii: "^") { return .unknown }
        return .text
    }

    /// The session's bracket is done with: `linkMade`, its text was matched as a link's (the session's
    /// openers_bottom goes, as cmark's at a link's end); else it is text, and the block-wide openers_bottom
    /// takes what the session set (the same values the block-wide pass would have set: openers before the
    /// bracket there were none).
    private mutating func endSession(linkMade: Bool) {
        guard session != nil else { return }
        session = nil
        if !linkMade {
            for i in 0..<10 where sessionBottoms[i] != -2 { bottoms[i] = sessionBottoms[i] }
        }
    }

    /// Ends the session when its bracket is no longer on the stack as it was, or no longer active (a link
    /// made after it, or more brackets open than `]` left).
    private mutating func checkSession() {
        guard let current = session else { return }
        if current.bracket >= brackets.count || brackets[current.bracket].position != current.position || !isActive(current.bracket) {
            endSession(linkMade: false)
        }
    }

    /// A delimiter run's length as scanned.
    @inline(__always)
    private func delimiterLength(_ m: InlineMark) -> Int32 {
        m.width != 0 ? Int32(m.width) : emphasis[Int(m.data)].length
    }

    /// Where a mark ends in the subject (see `InlineMark`).
    @inline(__always)
    private func markEnd(_ m: InlineMark) -> Int {
        switch m.kind {
        case .code, .html, .autolinkURI, .autolinkEmail, .wwwLink, .urlLink: return Int(m.data)
        case .linkClose, .imageClose: return Int(m.data)
        case .delimiter: return Int(m.start) + Int(delimiterLength(m))
        case .linkOpen, .imageOpen, .footnoteReference: return Int(m.start) + Int(m.width)
        }
    }

    @inline(__always)
    private func flags(_ d: Delimiter) -> UInt8 { d.isCompact ? d.compactFlags : emphasis[d.record].flags }

    @inline(__always)
    private func length(_ d: Delimiter) -> Int32 { d.isCompact ? d.width : emphasis[d.record].length }

    @inline(__always)
    private func remaining(_ d: Delimiter) -> Int32 {
        d.isCompact ? d.width - CompactMatches.used(d.matches) : emphasis[d.record].remaining
    }

    @inline(__always)
    private func bottomIndex(_ d: Delimiter) -> Int {
        // As cmark / commonmark.js 0.31: one bound for '_', six for '*' (by can-open and
        // length mod 3); '~' (cmark-gfm) by length mod 3. The single '_' bound is part of the
        // reference behaviour, not only an optimisation.
        switch s[Int(d.start)] {
        case UInt8(ascii: "*"): return (flags(d) & InlineMark.Flag.canOpen != 0 ? 3 : 0) + Int(length(d) % 3)
        case UInt8(ascii: "_"): return 6
        default: return 7 + Int(length(d) % 3)
        }
    }

    /// A delimiter run leaves the stack: a run that matched becomes a mark (among the late ones: marks
    /// after it may exist), one that did not is text and leaves nothing.
    private mutating func retire(_ d: Delimiter) {
        if d.isCompact {
            guard d.matches != 0 else { return }
            var m = InlineMark(.delimiter, Int(d.start), data: d.matches, width: Int(d.width))
            m.flags = d.compactFlags | InlineMark.Flag.compact
            addLateMark(m)
        } else {
            let e = emphasis[d.record]
            guard e.closeCount > 0 || e.lastOpen >= 0 else { return }
            var m = InlineMark(.delimiter, Int(d.start), data: Int32(d.record), width: e.length <= Int32(UInt16.max) ? Int(e.length) : 0)
            m.flags = e.flags
            addLateMark(m)
        }
    }

    /// cmark's process_emphasis over the closers from `delimiters[start]` on, above `stackBottom` (a
    /// position: delimiters after it; -1 for all). The block-wide pass leaves the delimiters that may
    /// still open in the stack; a link's pass removes everything above its bottom, as cmark does.
    ///
    /// cmark's stack is a doubly linked list; here it is an array, compacted in the one pass: the closers
    /// are read in order from `start`, and what stays in the stack is written back below them. Every
    /// removal cmark makes is of delimiters between an opener and the closer being processed, all of
    /// them at the top of what has been written, so removing them is moving the write position down.
    /// What leaves the stack is retired (`retire`).
    /// `speculative`: only while each closer finds an opener after `stackBottom` (the one active
    /// bracket's position); at the first that does not, the pass stops, and that closer and the rest stay
    /// in the stack unprocessed. No openers_bottom is written before that. Returns where they start (-1:
    /// all processed).
    @discardableResult
    private mutating func processEmphasis(stackBottom: Int32, from start: Int, link: Bool, inSession: Bool = false, speculative: Bool = false) -> Int {
        guard start >= 0 && start < delimiters.count else { return -1 }
        // The openers_bottom array in use, swapped out of `self` for the pass (no copy).
        var bottoms: [Int32] = []
        if inSession { swap(&bottoms, &sessionBottoms) } else if link { swap(&bottoms, &linkBottoms) } else { swap(&bottoms, &self.bottoms) }
        defer {
            if inSession { swap(&bottoms, &sessionBottoms) } else if link { swap(&bottoms, &linkBottoms) } else { swap(&bottoms, &self.bottoms) }
        }
        var write = start
        var read = start
        let count = delimiters.count
        while read < count {
            var closer = delimiters[read]
            read += 1
            let closerFlags = flags(closer)
            guard closerFlags & InlineMark.Flag.canClose != 0 else {
                delimiters[write] = closer
                write += 1
                continue
            }
            let bi = bottomIndex(closer)
            let cChar = s[Int(closer.start)]
            let cLen = length(closer)
            var k = write - 1
            var found = false
            while k >= 0 {
                let opener = delimiters[k]
                guard opener.start > stackBottom && opener.start > bottoms[bi] else { break }
                let openerFlags = flags(opener)
                if openerFlags & InlineMark.Flag.canOpen != 0 && s[Int(opener.start)] == cChar {
                    let oLen = length(opener)
                    if !(closerFlags & InlineMark.Flag.canOpen != 0 || openerFlags & InlineMark.Flag.canClose != 0)
                        || cLen % 3 == 0 || (oLen + cLen) % 3 != 0
                    {
                        found = true
                        break
                    }
                }
                k -= 1
            }
            guard found else {
                if speculative {
                    // This closer and the rest wait, moved down onto what was written.
                    let rest = count - (read - 1)
                    if write != read - 1 {
                        for j in 0..<rest { delimiters[write + j] = delimiters[read - 1 + j] }
                    }
                    delimiters.truncate(to: write + rest)
                    return write
                }
                bottoms[bi] = write > 0 ? delimiters[write - 1].start : -1
                if closerFlags & InlineMark.Flag.canOpen != 0 {
                    delimiters[write] = closer
                    write += 1
                } else {
                    retire(closer)
                }
                continue
            }
            var opener = delimiters[k]
            if cChar == UInt8(ascii: "~") {
                let count = remaining(closer)
                if remaining(opener) == count {
                    // The delimiters between them end up inside the new node: they leave, and so do both.
                    recordMatch(opener: &opener, closer: &closer, count: count)
                    for j in (k + 1)..<write { retire(delimiters[j]) }
                    retire(opener)
                    retire(closer)
                    write = k
                }
                // Different lengths (~ vs ~~): as cmark-gfm, the closer is dropped (text) and the opener stays.
                continue
            }
            let use: Int32 = (remaining(closer) >= 2 && remaining(opener) >= 2) ? 2 : 1
            recordMatch(opener: &opener, closer: &closer, count: use)
            for j in (k + 1)..<write { retire(delimiters[j]) }
            if remaining(opener) == 0 {
                retire(opener)
                write = k
            } else {
                delimiters[k] = opener
                write = k + 1
            }
            if remaining(closer) > 0 {
                // The closer is processed again (back in its place, read - 1, which is at or above write).
                delimiters[read - 1] = closer
                read -= 1
            } else {
                retire(closer)
            }
        }
        delimiters.truncate(to: write)
        return -1
    }

    /// Records that `count` characters of `opener` and of `closer` made one match: in a compact run's
    /// bits, or in its record and the match log (one entry, shared by both edges when both have records;
    /// a closer's entries stay consecutive, since it is matched again at once until it is done).
    private mutating func recordMatch(opener: inout Delimiter, closer: inout Delimiter, count: Int32) {
        var index: Int32 = -1
        if !opener.isCompact || !closer.isCompact {
            index = Int32(matches.count)
            matches.append(InlineMatch(count: count, previousOpen: -1))
        }
        if opener.isCompact {
            opener.matches = CompactMatches.addingOpen(opener.matches, uses: count)
        } else {
            let o = opener.record
            matches[Int(index)].previousOpen = emphasis[o].lastOpen
            emphasis[o].lastOpen = index
            emphasis[o].remaining -= count
        }
        if closer.isCompact {
            closer.matches = CompactMatches.addingClose(closer.matches, uses: count)
        } else {
            let c = closer.record
            if emphasis[c].closeCount == 0 { emphasis[c].closeFirst = index }
            emphasis[c].closeCount += 1
            emphasis[c].remaining -= count
        }
    }

    // MARK: Brackets and links

    private mutating func pushBracket(image: Bool, start: Int) {
        topBracketAfter = false
        brackets.append(Bracket(position: start, image: image))
        if image { imageBrackets += 1 } else { activeLinkBrackets += 1 }
        if closeBracketsLeft >= 0 || brackets.count >= 2 { updateDeadFloor() }
        checkSession()
    }

    /// Counts the `]` left (once per block, when a second bracket opens or a closer would wait behind
    /// one: most blocks never need it) and moves `deadFloor` up over the brackets beyond their reach.
    private mutating func updateDeadFloor() {
        if closeBracketsLeft < 0 {
            var count = 0
            if let base = s.baseAddress, pos < end {
                var p = UnsafeRawPointer(base + pos)
                let stop = UnsafeRawPointer(base + end)
                while p < stop, let found = memchr(p, 0x5D, stop - p) {
                    count += 1
                    p = UnsafeRawPointer(found) + 1
                }
            }
            closeBracketsLeft = count
        }
        while deadFloor < brackets.count - closeBracketsLeft {
            if isActive(deadFloor) {
                if brackets[deadFloor].isImage { imageBrackets -= 1 } else { activeLinkBrackets -= 1 }
            }
            deadFloor += 1
        }
    }

    /// Whether the bracket at `index` of the stack can still make a link or image.
    @inline(__always)
    private func isActive(_ index: Int) -> Bool {
        index >= deadFloor && (index >= linkFloor || brackets[index].isImage)
    }

    /// The index of the first mark at or after `position` (marks are in source order).
    private func firstMark(atOrAfter position: Int) -> Int {
        var low = emitted
        var high = marks.count
        while low < high {
            let middle = (low + high) / 2
            if Int(marks[middle].start) < position { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Takes the top bracket off the stack (`image`: it is an image's). A bracket that made nothing is
    /// text: it left no mark.
    private mutating func popBracket(image: Bool) {
        guard brackets.popLast() != nil else { return }
        if image {
            imageBrackets -= 1
        } else if brackets.count >= linkFloor {
            activeLinkBrackets -= 1
        }
        linkFloor = min(linkFloor, brackets.count)
        inactiveFloor = min(inactiveFloor, brackets.count)
        topBracketAfter = true
        checkSession()
    }

    // MARK: Late marks

    private var lateRunCount: Int { lateFast.count - lateFastHead + latePackedCount }
    private var lateCount: Int { lateRunCount + lateHeap.count }

    /// The next mark of the sorted run (there is one).
    @inline(__always)
    private var lateRunNext: InlineMark { lateFastHead < lateFast.count ? lateFast[lateFastHead] : lateNext }

    /// Whether the next late mark is the next of the sorted run (else the top of the heap).
    @inline(__always)
    private var lateRunFirst: Bool {
        lateHeap.isEmpty || (lateRunCount > 0 && lateRunNext.start < lateHeap[0].start)
    }

    /// Where the first late mark starts; Int32.max when there is none.
    @inline(__always)
    private var firstLateStart: Int32 {
        var first = Int32.max
        if lateFastHead < lateFast.count {
            first = lateFast[lateFastHead].start
        } else if latePackedCount > 0 {
            first = lateNext.start
        }
        if !lateHeap.isEmpty { first = min(first, lateHeap[0].start) }
        return first
    }

    /// Adds a mark that starts before marks already made. Late marks mostly come in source order
    /// (matched delimiter runs, links one after another): those go on a sorted run. Past
    /// `lateFastLimit` waiting (a paragraph may hold millions behind an opener that never closes) the run
    /// goes on packed: a byte for the kind and flags, then varints for the start (after the previous
    /// one's), the width and the data (for a link's start, after its own start), typically 4 to 6 bytes instead of
    /// 12. One that comes out of order (emphasis around emphasis, a link around an image) goes on a heap
    /// on `start`; run and heap are merged as they are emitted.
    private mutating func addLateMark(_ mark: InlineMark) {
        if lateRunCount > 0 && mark.start < lateLastStart {
            lateHeap.append(mark)
            var child = lateHeap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard lateHeap[parent].start > lateHeap[child].start else { break }
                let t = lateHeap[parent]
                lateHeap[parent] = lateHeap[child]
                lateHeap[child] = t
                child = parent
            }
            return
        }
        lateLastStart = mark.start
        if latePackedCount == 0 && lateFast.count - lateFastHead < Self.lateFastLimit {
            if lateFastHead == lateFast.count {
                lateFast.removeAll()
                lateFastHead = 0
            }
            lateFast.append(mark)
            return
        }
        if latePackedCount == 0 {
            late.removeAll()
            lateHead = 0
            latePackedLast = 0
        }
        late.append(mark.kind.rawValue | mark.flags << 4)
        appendVarint(UInt64(UInt32(bitPattern: mark.start &- latePackedLast)))
        appendVarint(UInt64(mark.width))
        if mark.kind == .delimiter {
            appendVarint(UInt64(UInt32(bitPattern: mark.data)))
        } else {
            let delta = Int64(mark.data) - Int64(mark.start)
            appendVarint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)))
        }
        latePackedLast = mark.start
        latePackedCount += 1
        if latePackedCount == 1 { decodeLateNext(after: 0) }
    }

    @inline(__always)
    private func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            late.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        late.append(UInt8(v))
    }

    /// Decodes the mark at `lateHead` into `lateNext` (`previous`: the start of the one before it).
    private mutating func decodeLateNext(after previous: Int32) {
        var at = lateHead
        func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = late[at]
                at += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
        let header = late[at]
        at += 1
        let start = previous &+ Int32(bitPattern: UInt32(truncatingIfNeeded: varint()))
        let width = Int(varint())
        let kind = InlineMark.Kind(rawValue: header & 0x0F)!
        let data: Int32
        if kind == .delimiter {
            data = Int32(bitPattern: UInt32(truncatingIfNeeded: varint()))
        } else {
            let z = varint()
            data = Int32(truncatingIfNeeded: Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1))) + Int64(start))
        }
        lateNext = InlineMark(kind, Int(start), data: data, width: width)
        lateNext.flags = header >> 4
        lateNextSize = at - lateHead
    }

    /// Removes and returns the late mark that starts first (there is one).
    private mutating func popLateMark() -> InlineMark {
        if lateRunFirst {
            if lateFastHead < lateFast.count {
                let first = lateFast[lateFastHead]
                lateFastHead += 1
                if lateFastHead == lateFast.count {
                    lateFast.removeAll()
                    lateFastHead = 0
                } else if lateFastHead >= 4096 && 2 * lateFastHead >= lateFast.count {
                    // What was read is given back, as for the packed run.
                    for i in lateFastHead..<lateFast.count { lateFast[i - lateFastHead] = lateFast[i] }
                    lateFast.truncate(to: lateFast.count - lateFastHead)
                    lateFastHead = 0
                }
                return first
            }
            let first = lateNext
            lateHead += lateNextSize
            latePackedCount -= 1
            if latePackedCount == 0 {
                late.removeAll()
                lateHead = 0
                latePackedLast = 0
            } else {
                if lateHead >= 1 << 16 && 2 * lateHead >= late.count {
                    // What was read is given back (the run is moved down, at most as long as what was read).
                    for i in lateHead..<late.count { late[i - lateHead] = late[i] }
                    late.truncate(to: late.count - lateHead)
                    lateHead = 0
                }
                decodeLateNext(after: first.start)
            }
            return first
        }
        let first = lateHeap[0]
        let last = lateHeap.popLast()!
        guard !lateHeap.isEmpty else { return first }
        lateHeap[0] = last
        var parent = 0
        let count = lateHeap.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            var child = left
            if left + 1 < count && lateHeap[left + 1].start < lateHeap[left].start { child = left + 1 }
            guard lateHeap[child].start < lateHeap[parent].start else { break }
            let t = lateHeap[parent]
            lateHeap[parent] = lateHeap[child]
            lateHeap[child] = t
            parent = child
        }
        return first
    }

    private mutating func handleCloseBracket<Sink: InlineSink & ~Copyable>(_ sink: inout Sink) {
        let closeStart = pos
        pos += 1
        let initialPos = pos
        guard let opener = brackets.last else { return }
        // (The top bracket is never dead: this `]` is one of those left, when they are counted.)
        if closeBracketsLeft > 0 { closeBracketsLeft -= 1 }
        let isImage = opener.isImage
        if !isActive(brackets.count - 1) {
            popBracket(image: false)
            bracketsChanged(&sink)
            return
        }
        // Where the bracket's text starts: just after `[` or `![`.
        let textStart = Int(opener.position) + (isImage ? 2 : 1)
        // What the start's mark keeps (`InlineMark.data`): an inline link's `]`, or minus one more than
        // its reference definition's index.
        var linkData: Int32 = Int32(truncatingIfNeeded: closeStart)
        var matched = false

        // Inline link
        if pos < end && s[pos] == UInt8(ascii: "(") {
            let sp = MD.skipSpacechars(s, pos + 1, end)
            if let (destEnd, ds, de) = MD.scanLinkDestination(s, sp, end) ?? emptyDestination(sp) {
                let startTitle = MD.skipSpacechars(s, destEnd, end)
                var endTitle = startTitle
                if startTitle != destEnd, let te = scanTitleMemo(startTitle) {
                    endTitle = te
                }
                let endAll = MD.skipSpacechars(s, endTitle, end)
                if endAll < end && s[endAll] == UInt8(ascii: ")") {
                    // Kept in the recent-link cache; its start, emitted later, finds it there or scans
                    // again (`inlineLink(closedAt:)`).
                    var link = InlineLink(destinationStart: Int32(ds), destinationCount: Int32(de - ds), titleStart: 0, titleCount: 0, inSubject: true)
                    if endTitle > startTitle {
                        link.titleStart = Int32(startTitle + 1)
                        link.titleCount = Int32(endTitle - 1 - (startTitle + 1))
                    }
                    if recentLinks == nil {
                        recentLinks = GrowableBuffer()
                        for _ in 0..<Self.recentLinkCount { recentLinks.append(RecentLink(close: -1, link: link)) }
                    }
                    recentLinks[closeStart & (Self.recentLinkCount - 1)] = RecentLink(close: Int32(truncatingIfNeeded: closeStart), link: link)
                    pos = endAll + 1
                    matched = true
                } else {
                    pos = initialPos
                }
            }
        }
        if !matched {
            // Reference link: full, collapsed or shortcut.
            var labelRange: (Int, Int)? = nil
            var foundLabel = false
            if let (le, ls, lend) = MD.scanLinkLabel(s, pos, end) {
                labelRange = (ls, lend)
                foundLabel = true
                pos = le
            } else if pos + 1 < end && s[pos] == UInt8(ascii: "[") && s[pos + 1] == UInt8(ascii: "]") {
                // collapsed "[]": empty label
                labelRange = (pos + 1, pos + 1)
                foundLabel = true
                pos += 2
            }
            if !foundLabel { pos = initialPos }
            if (!foundLabel || labelRange!.0 == labelRange!.1) && !topBracketAfter {
                labelRange = (textStart, initialPos - 1)
                foundLabel = true
            }
            if foundLabel, let (ls, le) = labelRange, le - ls <= maxLinkLabelLength, le > ls, !references.isEmpty {
                MD.normalizeLabel(s, ls, le, into: &label)
                if let index = label.withUnsafeBufferPointer({ references.index($0) }) {
                    linkData = -Int32(truncatingIfNeeded: index) - 1
                    matched = true
                }
            }
            if !matched && options.footnotes {
                // Footnote reference [^label]
                let ls = textStart
                let le = initialPos - 1
                if le - ls >= 2 && s[ls] == UInt8(ascii: "^") && le - ls <= maxLinkLabelLength {
                    MD.normalizeLabel(s, ls + 1, le, into: &label)
                    if let definition = label.withUnsafeBufferPointer({ footnotes.value($0) }) {
                        pos = initialPos
                        makeFootnoteReference(opener, image: isImage, definition: definition, end: initialPos, &sink)
                        return
                    }
                }
            }
            if !matched {
                popBracket(image: isImage)
                pos = initialPos
                bracketsChanged(&sink)
                return
            }
        }

        // The bracket's start is a late mark (the marks of the link's text are already made), and `]…`
        // its end.
        addLateMark(InlineMark(isImage ? .imageOpen : .linkOpen, opener.position, data: linkData, width: isImage ? 2 : 1))
        _ = appendMark(InlineMark(isImage ? .imageClose : .linkClose, closeStart, data: Int32(truncatingIfNeeded: pos)))

        processLinkEmphasis(opener.position)
        popBracket(image: isImage)
        if !isImage {
            // Every earlier link opener is inactive now.
            linkFloor = brackets.count
            activeLinkBrackets = 0
        }
        checkSession()
        bracketsChanged(&sink)
    }

    /// After a bracket left the stack or was deactivated: closers that waited behind active brackets are
    /// processed once none is left, and what is final is emitted.
    private mutating func bracketsChanged<Sink: InlineSink & ~Copyable>(_ sink: inout Sink) {
        if activeBrackets == 0 && firstUnprocessed >= 0 {
            processEmphasis(stackBottom: -1, from: firstUnprocessed, link: false)
            firstUnprocessed = -1
        }
        emitFinished(&sink)
    }

    /// Emphasis inside the text of a link or image whose bracket is at `bracket`: matched on its own
    /// (its own openers_bottom), then every delimiter after the bracket leaves the stack. (cmark bounds
    /// this by the top of the stack when the bracket was pushed; while a bracket is active nothing before
    /// it leaves the stack, so that is the same as the delimiters after it.)
    private mutating func processLinkEmphasis(_ bracket: Int) {
        let bottom = Int32(truncatingIfNeeded: bracket)
        // The first delimiter after the bracket.
        var first = delimiters.count
        while first > 0 && delimiters[first - 1].start > bottom { first -= 1 }
        // Closers matched ahead (a session, a speculative pass) are done: the pass starts at the first
        // unprocessed one (every delimiter before it is processed).
        let from = firstUnprocessed < 0 ? delimiters.count : max(first, firstUnprocessed)
        if let current = session, current.position == bracket {
            // The rest, with the session's openers_bottom.
            processEmphasis(stackBottom: bottom, from: from, link: false, inSession: true)
            endSession(linkMade: true)
        } else {
            for i in 0..<10 { linkBottoms[i] = bottom }
            processEmphasis(stackBottom: bottom, from: from, link: true)
        }
        // The pass changed nothing below `first`: what is above the bottom is from there on.
        for j in first..<delimiters.count { retire(delimiters[j]) }
        delimiters.truncate(to: first)
        // Every unprocessed delimiter was above the bracket (delimiters wait only behind an active bracket).
        if firstUnprocessed >= first { firstUnprocessed = -1 }
    }

    private func emptyDestination(_ sp: Int) -> (Int, Int, Int)? {
        // An empty destination is allowed before ')' or whitespace.
        if sp < end && (s[sp] == UInt8(ascii: ")") || MD.isSpace(s[sp])) { return (sp, sp, sp) }
        return nil
    }

    private mutating func scanTitleMemo(_ p: Int) -> Int? {
        guard p < end else { return nil }
        let qi: Int
        switch s[p] {
        case UInt8(ascii: "\""): qi = 0
        case UInt8(ascii: "'"): qi = 1
        case UInt8(ascii: "("): qi = 2
        default: return nil
        }
        if qi == 0 && p >= noTitleFrom.0 { return nil }
        if qi == 1 && p >= noTitleFrom.1 { return nil }
        if let e = MD.scanLinkTitle(s, p, end) { return e }
        // A title that runs off the end without its closing delimiter can't close from any later
        // position either (for parentheses: unless a '(' intervenes, so only memoise quotes).
        if qi == 0 { noTitleFrom.0 = p } else if qi == 1 { noTitleFrom.1 = p }
        return nil
    }

    private mutating func makeFootnoteReference<Sink: InlineSink & ~Copyable>(
        _ opener: Bracket, image: Bool, definition: Int32, end referenceEnd: Int, _ sink: inout Sink
    ) {
        processLinkEmphasis(opener.position)
        // The reference replaces the opener and everything after it (an image opener's "!" stays text).
        // No link or image can have been made inside: a link deactivates the bracket, and a label holding
        // an image's brackets matches no definition (labels have no unescaped brackets). Still, late marks
        // there would go too.
        let start = opener.position + (image ? 1 : 0)
        marks.truncate(to: firstMark(atOrAfter: opener.position))
        if lateCount > 0 { dropLateMarks(from: opener.position) }
        _ = appendMark(InlineMark(.footnoteReference, start, data: definition, width: referenceEnd - start))
        popBracket(image: image)
        bracketsChanged(&sink)
    }

    /// Removes the late marks that start at or after `position`.
    private mutating func dropLateMarks(from position: Int) {
        var kept: [InlineMark] = []
        while lateCount > 0 {
            let m = popLateMark()
            if Int(m.start) < position { kept.append(m) }
        }
        for m in kept { addLateMark(m) }
    }

    // MARK: GFM extended autolinks

    private func isValidHostChar(_ p: Int) -> Bool {
        let (cp, _) = MD.decode(s, p, end)
        return !MD.isUnicodeSpace(cp) && !MD.isUnicodePunct(cp)
    }

    private func checkDomain(_ start: Int, _ size: Int, allowShort: Bool) -> Int {
        var np = 0
        var uscore1 = 0
        var uscore2 = 0
        var i = 1
        while i < size - 1 {
            if s[start + i] == UInt8(ascii: "\\") && i < size - 2 { i += 1 }
            let c = s[start + i]
            if c == UInt8(ascii: "_") {
                uscore2 += 1
            } else if c == UInt8(ascii: ".") {
                uscore1 = uscore2
                uscore2 = 0
                np += 1
            } else if !isValidHostChar(start + i) && c != UInt8(ascii: "-") {
                break
            }
            i += 1
        }
        if uscore1 > 0 || uscore2 > 0 { return 0 }
        if allowShort { return i }
        return np > 0 ? i : 0
    }

    private func autolinkDelim(_ start: Int, _ linkEndIn: Int) -> Int {
        var linkEnd = linkEndIn
        var opening = 0
        var closing = 0
        for i in 0..<linkEnd {
            let c = s[start + i]
            if c == UInt8(ascii: "<") {
                linkEnd = i
                break
            } else if c == UInt8(ascii: "(") {
                opening += 1
            } else if c == UInt8(ascii: ")") {
                closing += 1
            }
        }
        while linkEnd > 0 {
            let c = s[start + linkEnd - 1]
            switch c {
            case UInt8(ascii: ")"):
                if closing <= opening { return linkEnd }
                closing -= 1
                linkEnd -= 1
            case UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"),
                UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "'"), UInt8(ascii: "\""):
                linkEnd -= 1
            case UInt8(ascii: ";"):
                var newEnd = linkEnd - 2
                while newEnd > 0 && MD.isAlpha(s[start + newEnd]) { newEnd -= 1 }
                if newEnd < linkEnd - 2 && s[start + newEnd] == UInt8(ascii: "&") {
                    linkEnd = newEnd
                } else {
                    linkEnd -= 1
                }
            default:
                return linkEnd
            }
        }
        return linkEnd
    }

    /// `www.` autolink at `pos` (autolinks are made only outside brackets).
    private mutating func wwwMatch() -> Bool {
        if pos > 0 {
            let b = s[pos - 1]
            if !(b == UInt8(ascii: "*") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~") || b == UInt8(ascii: "(")
                || MD.isSpace(b))
            {
                return false
            }
        }
        let size = end - pos
        // cmark-gfm compares "www." case-sensitively
        guard size >= 4, s[pos] == UInt8(ascii: "w"), s[pos + 1] == UInt8(ascii: "w"), s[pos + 2] == UInt8(ascii: "w"),
            s[pos + 3] == UInt8(ascii: ".")
        else { return false }
        var linkEnd = checkDomain(pos, size, allowShort: false)
        if linkEnd == 0 { return false }
        while linkEnd < size && !MD.isSpace(s[pos + linkEnd]) && s[pos + linkEnd] != UInt8(ascii: "<") {
            linkEnd += 1
        }
        linkEnd = autolinkDelim(pos, linkEnd)
        if linkEnd == 0 { return false }
        _ = appendMark(InlineMark(.wwwLink, pos, data: Int32(truncatingIfNeeded: pos + linkEnd)))
        pos += linkEnd
        return true
    }

    /// `http://`, `https://`, `ftp://` autolink whose `:` is at `pos`: the scheme is the letters before it.
    private mutating func urlMatch() -> Bool {
        let size = end - pos
        guard size >= 4, s[pos + 1] == UInt8(ascii: "/"), s[pos + 2] == UInt8(ascii: "/") else { return false }
        var rewind = 0
        while rewind < pos && MD.isAlpha(s[pos - rewind - 1]) { rewind += 1 }
        let schemeStart = pos - rewind
        guard MD.matchesCI(s, schemeStart, pos, "http") && rewind == 4 || MD.matchesCI(s, schemeStart, pos, "https") && rewind == 5
            || MD.matchesCI(s, schemeStart, pos, "ftp") && rewind == 3
        else { return false }
        guard pos + 3 < end, isValidHostChar(pos + 3) else { return false }
        var linkEnd = 3
        let domainLen = checkDomain(pos + 3, size - 3, allowShort: true)
        if domainLen == 0 { return false }
        linkEnd += domainLen
        while linkEnd < size && !MD.isSpace(s[pos + linkEnd]) && s[pos + linkEnd] != UInt8(ascii: "<") {
            linkEnd += 1
        }
        linkEnd = autolinkDelim(pos, linkEnd)
        if linkEnd == 0 { return false }
        // The scheme's letters are text just scanned; no mark lies in them (letters start none).
        _ = appendMark(InlineMark(.urlLink, schemeStart, data: Int32(truncatingIfNeeded: pos + linkEnd)))
        pos += linkEnd
        return true
    }

    // MARK: Emission

    /// Emits what can no longer change: the marks before the first delimiter still in the stack and the
    /// first active bracket. Resets the arrays when nothing is pending.
    private mutating func emitFinished<Sink: InlineSink & ~Copyable>(_ sink: inout Sink) {
        var before = delimiters.isEmpty ? Int.max : Int(delimiters[0].start)
        while inactiveFloor < brackets.count && !isActive(inactiveFloor) { inactiveFloor += 1 }
        if inactiveFloor < brackets.count { before = min(before, brackets[inactiveFloor].position) }
        var limit = marks.count
        if before != Int.max {
            if limitCache.position != before {
                // Looked up once per boundary (this runs every few marks): the marks before it stay as
                // they are while it is the boundary.
                limitCache = (before, firstMark(atOrAfter: before))
            }
            limit = limitCache.mark
        }
        if limit - emitted < 64 && limit < marks.count && lateCount < 64 { return }
        emit(upTo: limit, lateBefore: before, final: false, &sink)
        if emitted == marks.count && delimiters.isEmpty && brackets.isEmpty && lateCount == 0 {
            resetMarks()
            emitted = 0
            limitCache = (-1, 0)
        }
    }

    /// Emits marks `emitted..<limit`, the late marks that start before `lateBefore` in their place among
    /// them, and the text before them; with `final`, every late mark and the text after them too.
    private mutating func emit<Sink: InlineSink & ~Copyable>(upTo limit: Int, lateBefore: Int, final: Bool, _ sink: inout Sink) {
        var i = emitted
        while true {
            let m: InlineMark
            let lateStart = firstLateStart
            if lateStart != Int32.max, Int(lateStart) < lateBefore, i >= limit || lateStart < marks[i].start {
                m = popLateMark()
            } else if i < limit {
                m = marks[i]
                i += 1
            } else {
                break
            }
            let start = Int(m.start)
            let mEnd = markEnd(m)
            switch m.kind {
            case .delimiter where m.flags & InlineMark.Flag.compact != 0:
                let d = m.data
                guard d != 0 else { break }
                let isTilde = s[start] == UInt8(ascii: "~")
                var p = start
                let closes = CompactMatches.closeCount(d)
                if closes > 0 {
                    emitText(upTo: start, &sink)
                    for k in 0..<closes {
                        let count = CompactMatches.closeUses(d, k)
                        sink.exit(isTilde ? .strikethrough : count == 1 ? .emphasis : .strong, at: p + count - 1)
                        p += count
                    }
                    textStart = p
                }
                let opens = CompactMatches.openCount(d)
                if opens > 0 {
                    var q = p + Int(Int32(m.width) - CompactMatches.used(d))
                    emitText(upTo: q, &sink)
                    for k in stride(from: opens - 1, through: 0, by: -1) {
                        let count = CompactMatches.openUses(d, k)
                        sink.enter(isTilde ? .strikethrough : count == 1 ? .emphasis : .strong, at: q)
                        q += count
                    }
                    textStart = mEnd
                }
            case .delimiter:
                guard m.data >= 0 else { break }
                let e = emphasis[Int(m.data)]
                let isTilde = s[start] == UInt8(ascii: "~")
                var p = start
                if e.closeCount > 0 {
                    emitText(upTo: start, &sink)
                    for k in Int(e.closeFirst)..<Int(e.closeFirst + e.closeCount) {
                        let count = Int(matches[k].count)
                        sink.exit(isTilde ? .strikethrough : count == 1 ? .emphasis : .strong, at: p + count - 1)
                        p += count
                    }
                    textStart = p
                }
                if e.lastOpen >= 0 {
                    var q = p + Int(e.remaining)
                    emitText(upTo: q, &sink)
                    var k = Int(e.lastOpen)
                    while k >= 0 {
                        let count = Int(matches[k].count)
                        sink.enter(isTilde ? .strikethrough : count == 1 ? .emphasis : .strong, at: q)
                        q += count
                        k = Int(matches[k].previousOpen)
                    }
                    textStart = mEnd
                }
            case .linkOpen, .imageOpen:
                emitText(upTo: start, &sink)
                emitLinkStart(m.data >= 0 ? inlineLink(closedAt: Int(m.data)) : referenceLink(Int(-m.data - 1)), image: m.kind == .imageOpen, at: start, &sink)
                textStart = mEnd
            case .linkClose, .imageClose:
                emitText(upTo: start, &sink)
                let image = m.kind == .imageClose
                if !image { linkDepth -= 1 }
                sink.exitLink(image: image, at: mEnd - 1)
                textStart = mEnd
            case .code:
                emitText(upTo: start, &sink)
                emitCode(m, &sink)
                textStart = mEnd
            case .html:
                emitText(upTo: start, &sink)
                sink.rawHTML(s, from: start, to: mEnd)
                textStart = mEnd
            case .autolinkURI, .autolinkEmail:
                emitText(upTo: start, &sink)
                scratch.removeAll(keepingCapacity: true)
                if m.kind == .autolinkEmail { scratch.append(contentsOf: "mailto:".utf8) }
                let textOffset = scratch.count
                // Entities (not backslash escapes) are decoded in autolinks, as cmark does.
                var k = start + 1
                while k < mEnd - 1 {
                    if s[k] == UInt8(ascii: "&") {
                        let n = MD.unescapeEntity(s, k + 1, mEnd - 1, into: &scratch)
                        if n > 0 {
                            k += 1 + n
                            continue
                        }
                    }
                    scratch.append(s[k])
                    k += 1
                }
                scratch.withUnsafeBufferPointer { d in
                    sink.enterLink(image: false, destination: d, title: MDBytes(start: nil, count: 0), at: start)
                    sink.decodedText(MDBytes(rebasing: d[textOffset...]), from: start + 1, to: mEnd - 1)
                    sink.exitLink(image: false, at: mEnd - 1)
                }
                textStart = mEnd
            case .wwwLink, .urlLink:
                emitText(upTo: start, &sink)
                scratch.removeAll(keepingCapacity: true)
                if m.kind == .wwwLink { scratch.append(contentsOf: "http://".utf8) }
                scratch.append(contentsOf: MDBytes(rebasing: s[start..<mEnd]))
                scratch.withUnsafeBufferPointer { d in
                    sink.enterLink(image: false, destination: d, title: MDBytes(start: nil, count: 0), at: start)
                }
                sink.text(s, from: start, to: mEnd, plain: false)
                sink.exitLink(image: false, at: mEnd - 1)
                textStart = mEnd
            case .footnoteReference:
                emitText(upTo: start, &sink)
                sink.footnoteReference(label: MDBytes(rebasing: s[(start + 2)..<(mEnd - 1)]), definition: m.data, from: start, to: mEnd)
                textStart = mEnd
            }
        }
        emitted = limit
        if final { emitText(upTo: end, &sink) }
    }

    /// The destination and title of the inline link whose `]` is at `close`: its `(…)` scanned again as
    /// `handleCloseBracket` scanned it when it made the link (a title scan that failed there fails here).
    private func inlineLink(closedAt close: Int) -> InlineLink {
        if let recentLinks {
            let recent = recentLinks[close & (Self.recentLinkCount - 1)]
            if Int(recent.close) == close { return recent.link }
        }
        let sp = MD.skipSpacechars(s, close + 2, end)
        let (destEnd, ds, de) = MD.scanLinkDestination(s, sp, end) ?? emptyDestination(sp) ?? (sp, sp, sp)
        var link = InlineLink(destinationStart: Int32(ds), destinationCount: Int32(de - ds), titleStart: 0, titleCount: 0, inSubject: true)
        let startTitle = MD.skipSpacechars(s, destEnd, end)
        if startTitle != destEnd, let endTitle = MD.scanLinkTitle(s, startTitle, end), endTitle > startTitle {
            link.titleStart = Int32(startTitle + 1)
            link.titleCount = Int32(endTitle - 1 - (startTitle + 1))
        }
        return link
    }

    private func referenceLink(_ index: Int) -> InlineLink {
        let ref = references.value(at: index)
        return InlineLink(
            destinationStart: ref.destStart, destinationCount: ref.destCount, titleStart: ref.titleStart, titleCount: ref.titleCount,
            inSubject: false)
    }

    private mutating func emitLinkStart<Sink: InlineSink & ~Copyable>(_ link: InlineLink, image: Bool, at: Int, _ sink: inout Sink) {
        if !image { linkDepth += 1 }
        if !link.inSubject {
            let d = MDBytes(rebasing: storage[Int(link.destinationStart)..<Int(link.destinationStart + link.destinationCount)])
            let t = MDBytes(rebasing: storage[Int(link.titleStart)..<Int(link.titleStart + link.titleCount)])
            sink.enterLink(image: image, destination: d, title: t, at: at)
            return
        }
        let ds = Int(link.destinationStart)
        let de = ds + Int(link.destinationCount)
        let ts = Int(link.titleStart)
        let te = ts + Int(link.titleCount)
        scratch.removeAll(keepingCapacity: true)
        titleScratch.removeAll(keepingCapacity: true)
        MD.appendUnescaped(s, ds, de, into: &scratch)
        MD.appendUnescaped(s, ts, te, into: &titleScratch)
        scratch.withUnsafeBufferPointer { d in
            titleScratch.withUnsafeBufferPointer { t in
                sink.enterLink(image: image, destination: d, title: t, at: at)
            }
        }
    }

    private func emitCode<Sink: InlineSink & ~Copyable>(_ m: InlineMark, _ sink: inout Sink) {
        let open = Int(m.width)
        var a = Int(m.start) + open
        let mEnd = Int(m.data)
        var b = mEnd - open
        // Strip one space (or line ending) from each side when both are there and the content is not all spaces.
        if b - a >= 2 {
            let first = s[a]
            let last = s[b - 1]
            if (first == 0x20 || first == 0x0A) && (last == 0x20 || last == 0x0A) {
                var allSpace = true
                for k in a..<b where s[k] != 0x20 && s[k] != 0x0A {
                    allSpace = false
                    break
                }
                if !allSpace {
                    a += 1
                    b -= 1
                }
            }
        }
        sink.code(s, contentFrom: a, contentTo: b, from: Int(m.start), to: mEnd)
    }

    // MARK: Text

    /// Emits the text from `textStart` to `limit`: backslash escapes and entities decoded, line endings as
    /// soft or hard breaks (spaces and tabs before them dropped, leading ones after them skipped), and,
    /// with GFM autolinks, e-mail addresses (outside links) as links.
    private mutating func emitText<Sink: InlineSink & ~Copyable>(upTo limit: Int, _ sink: inout Sink) {
        var i = textStart
        textStart = limit
        guard i < limit else { return }
        if blockHasAt && linkDepth == 0 {
            emitTextByLine(i, limit, &sink)
            return
        }
        // One pass: runs of plain bytes go out whole; escapes, entities and line endings split them.
        var run = i
        var plain = true
        let table = textClass
        table.withUnsafeBufferPointer { t in
            while i < limit {
                let k = t[Int(s[i])]
                if k == 0 {
                    i += 1
                    continue
                }
                switch k {
                case 4:
                    plain = false
                    i += 1
                case 1:
                    // A line ending: the spaces and tabs before it are dropped, those after it skipped.
                    var te = i
                    while te > run && (s[te - 1] == 0x20 || s[te - 1] == 0x09) { te -= 1 }
                    if run < te { sink.text(s, from: run, to: te, plain: plain) }
                    if i > 1 && s[i - 1] == 0x20 && s[i - 2] == 0x20 {
                        sink.lineBreak(from: i, to: i + 1)
                    } else {
                        sink.softBreak(at: i)
                    }
                    i += 1
                    while i < limit && (s[i] == 0x20 || s[i] == 0x09) { i += 1 }
                    run = i
                    plain = true
                case 2:
                    guard i + 1 < limit else {
                        i += 1
                        break
                    }
                    let d = s[i + 1]
                    if d == 0x0A {
                        // Backslash before a line ending: a hard break.
                        if run < i { sink.text(s, from: run, to: i, plain: plain) }
                        sink.lineBreak(from: i, to: i + 2)
                        i += 2
                        while i < limit && (s[i] == 0x20 || s[i] == 0x09) { i += 1 }
                        run = i
                        plain = true
                    } else if MD.isASCIIPunct(d) {
                        if run < i { sink.text(s, from: run, to: i, plain: plain) }
                        sink.text(s, from: i + 1, to: i + 2, plain: t[Int(d)] == 0)
                        i += 2
                        run = i
                        plain = true
                    } else {
                        i += 1
                    }
                default:
                    // `&`: an entity, or a literal ampersand.
                    lineScratch.removeAll(keepingCapacity: true)
                    let n = MD.unescapeEntity(s, i + 1, limit, into: &lineScratch)
                    if n > 0 {
                        if run < i { sink.text(s, from: run, to: i, plain: plain) }
                        let decoded = lineScratch
                        decoded.withUnsafeBufferPointer { sink.decodedText($0, from: i, to: i + 1 + n) }
                        i += 1 + n
                        run = i
                        plain = true
                    } else {
                        plain = false
                        i += 1
                    }
                }
            }
        }
        if run < limit { sink.text(s, from: run, to: limit, plain: plain) }
    }

    /// `emitText` a line at a time, for text where cmark-gfm looks for e-mail addresses.
    private mutating func emitTextByLine<Sink: InlineSink & ~Copyable>(_ start: Int, _ limit: Int, _ sink: inout Sink) {
        var i = start
        let emails = true
        var lineStart = i
        while i < limit {
            // One line (or what is left of the region on it).
            var e = i
            while e < limit {
                let c = s[e]
                if c == 0x0A { break }
                if c == UInt8(ascii: "\\") && e + 1 < limit {
                    let d = s[e + 1]
                    if d == 0x0A { break }
                    if MD.isASCIIPunct(d) {
                        e += 2
                        continue
                    }
                }
                e += 1
            }
            if e < limit && s[e] == 0x0A {
                // Drop the spaces and tabs before a line ending.
                var te = e
                while te > lineStart && (s[te - 1] == 0x20 || s[te - 1] == 0x09) { te -= 1 }
                emitSegment(lineStart, te, emails: emails, &sink)
                if e > 1 && s[e - 1] == 0x20 && s[e - 2] == 0x20 {
                    sink.lineBreak(from: e, to: e + 1)
                } else {
                    sink.softBreak(at: e)
                }
                i = e + 1
            } else if e < limit {
                // Backslash before a line ending: a hard break.
                emitSegment(lineStart, e, emails: emails, &sink)
                sink.lineBreak(from: e, to: e + 2)
                i = e + 2
            } else {
                emitSegment(lineStart, e, emails: emails, &sink)
                i = e
                break
            }
            while i < limit && (s[i] == 0x20 || s[i] == 0x09) { i += 1 }
            lineStart = i
        }
    }

    /// Text of one line: `s[from..<to]` holds no line ending.
    private mutating func emitSegment<Sink: InlineSink & ~Copyable>(_ from: Int, _ to: Int, emails: Bool, _ sink: inout Sink) {
        guard from < to else { return }
        if emails {
            var special = false
            for k in from..<to where s[k] == UInt8(ascii: "@") || s[k] == UInt8(ascii: "&") {
                special = true
                break
            }
            if special {
                emitSegmentWithEmails(from, to, &sink)
                return
            }
        }
        var i = from
        var run = from
        let emitTable = emitClass
        emitTable.withUnsafeBufferPointer { table in
            while i < to {
                if !table[Int(s[i])] {
                    i += 1
                    continue
                }
                let c = s[i]
                if c == UInt8(ascii: "\\") {
                    if i + 1 < to && MD.isASCIIPunct(s[i + 1]) {
                        if run < i { sink.text(s, from: run, to: i, plain: false) }
                        sink.text(s, from: i + 1, to: i + 2, plain: false)
                        i += 2
                        run = i
                    } else {
                        i += 1
                    }
                } else {
                    // `&`
                    lineScratch.removeAll(keepingCapacity: true)
                    let n = MD.unescapeEntity(s, i + 1, to, into: &lineScratch)
                    if n > 0 {
                        if run < i { sink.text(s, from: run, to: i, plain: false) }
                        lineScratch.withUnsafeBufferPointer { sink.decodedText($0, from: i, to: i + 1 + n) }
                        i += 1 + n
                        run = i
                    } else {
                        i += 1
                    }
                }
            }
        }
        if run < to { sink.text(s, from: run, to: to, plain: false) }
    }

    /// cmark-gfm's e-mail autolinks (its postprocess_text) on one line of text, decoded first, as cmark-gfm
    /// looks for them in the text nodes it has merged.
    private mutating func emitSegmentWithEmails<Sink: InlineSink & ~Copyable>(_ from: Int, _ to: Int, _ sink: inout Sink) {
        lineScratch.removeAll(keepingCapacity: true)
        MD.appendUnescaped(s, from, to, into: &lineScratch)
        let decoded = lineScratch
        decoded.withUnsafeBufferPointer { t in
            let size = t.count
            var offset = 0
            var done = 0
            var depth = 0
            while depth < 1000 {
                depth += 1
                guard offset < size else { break }
                var at = -1
                var i = offset
                while i < size {
                    if t[i] == UInt8(ascii: "@") {
                        at = i
                        break
                    }
                    i += 1
                }
                if at < 0 { break }
                let maxRewind = at - offset
                var rewind = 0
                while rewind < maxRewind {
                    let c = t[at - rewind - 1]
                    if MD.isAlnum(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
                        || c == UInt8(ascii: "_")
                    {
                        rewind += 1
                        continue
                    }
                    break
                }
                if rewind == 0 {
                    offset = at + 1
                    continue
                }
                var linkEnd = 0
                var nb = 0
                var np = 0
                let rest = size - at
                while linkEnd < rest {
                    let c = t[at + linkEnd]
                    if MD.isAlnum(c) {
                        linkEnd += 1
                        continue
                    }
                    if c == UInt8(ascii: "@") {
                        nb += 1
                    } else if c == UInt8(ascii: ".") && linkEnd < rest - 1 && MD.isAlnum(t[at + linkEnd + 1]) {
                        np += 1
                    } else if c != UInt8(ascii: "-") && c != UInt8(ascii: "_") {
                        break
                    }
                    linkEnd += 1
                }
                if linkEnd < 2 || nb != 1 || np == 0
                    || (!MD.isAlpha(t[at + linkEnd - 1]) && t[at + linkEnd - 1] != UInt8(ascii: "."))
                {
                    offset = at + 1
                    continue
                }
                linkEnd = Self.trimEmailEnd(t, at, linkEnd)
                if linkEnd == 0 {
                    offset = at + 1
                    continue
                }
                let emailStart = at - rewind
                let emailEnd = at + linkEnd
                if done < emailStart { sink.decodedText(MDBytes(rebasing: t[done..<emailStart]), from: from, to: to) }
                scratch.removeAll(keepingCapacity: true)
                scratch.append(contentsOf: "mailto:".utf8)
                scratch.append(contentsOf: MDBytes(rebasing: t[emailStart..<emailEnd]))
                scratch.withUnsafeBufferPointer { d in
                    sink.enterLink(image: false, destination: d, title: MDBytes(start: nil, count: 0), at: from)
                }
                sink.decodedText(MDBytes(rebasing: t[emailStart..<emailEnd]), from: from, to: to)
                sink.exitLink(image: false, at: max(from, to - 1))
                done = emailEnd
                offset = emailEnd
                if offset >= size { break }
            }
            if done < size { sink.decodedText(MDBytes(rebasing: t[done..<size]), from: from, to: to) }
        }
    }

    private static func trimEmailEnd(_ t: MDBytes, _ start: Int, _ linkEndIn: Int) -> Int {
        var linkEnd = linkEndIn
        while linkEnd > 0 {
            let c = t[start + linkEnd - 1]
            switch c {
            case UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"),
                UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "'"), UInt8(ascii: "\""):
                linkEnd -= 1
            default:
                return linkEnd
            }
        }
        return linkEnd
    }
}

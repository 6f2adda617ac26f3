// The records of the inline parser (`InlineParser.swift`): its marks, delimiter and bracket stacks, emphasis
// matches and links, packed (their sizes bound a paragraph's memory: `MarkdownPathologicalTests.testInlineRecordsStaySmall`),
// and the reference definitions the block parser hands it.

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

/// Reference definitions as the block parser stores them: ranges of the document's storage.
struct ReferenceDefinition {
    var destStart: Int32
    var destCount: Int32
    var titleStart: Int32
    var titleCount: Int32
}

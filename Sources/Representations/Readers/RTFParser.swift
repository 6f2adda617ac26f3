import Markdown
import ReaderSupport

/// The RTF parser: a state machine over ``RTFTokenizer`` tokens (see ``RTFReader``). Groups push and pop
/// ``GroupState``; control words are handled by family (``Keyword``, one method per family in
/// `RTFParser+….swift`); finished paragraphs and tables are recorded as ``RTFItem``s.
struct RTFParser {
    private var tokenizer: RTFTokenizer
    var state = GroupState()
    var stack: [GroupState] = []
    var documentCodePage = 1252
    var defaultFont = 0

    // font table
    struct Font {
        var monospace = false
        var charset: Int? = nil
        var name = ""
    }
    var fonts: [Int: Font] = [:] {
        didSet { fontGeneration &+= 1 }
    }
    var fontGeneration = 0
    var fontCache: (index: Int, generation: Int, exists: Bool, monospace: Bool, charset: Int?) = (Int.min, 0, false, false, nil)
    var fontEntry = -1
    var styleOutline: [Int: Int] = [:]
    var styleEntry: (index: Int, outline: Int?, name: String, character: Bool) = (0, nil, "", false)
    /// Character styles (`\csN`): their formatting, font and name.
    var characterStyles: [Int: (style: RTFRunStyle, font: Int, name: String)] = [:]

    // list table: listid -> levels; override ls -> listid
    var listLevels: [Int: [RTFListLevel]] = [:]
    var listOverrides: [Int: Int] = [:]
    var currentListID = 0
    var currentListLevels: [RTFListLevel] = []
    var currentOverrideList = 0
    /// The `\leveltext` being read (see ``RTFListLevel/levelText``).
    var levelText: [Unicode.Scalar] = []

    // output
    var items: [RTFItem] = []
    private(set) var footnotes: [[RTFItem]] = []
    var paragraph = RTFParagraph()
    var markerText = ""
    var pendingBytes: [UInt8] = []
    var unicodeSkip = 0
    var pendingHighSurrogate: UInt16? = nil
    var sizeHistogram: [Int: Int] = [:]
    var lastHistogramSize = 24
    var lastHistogramCount = 0

    // tables
    var rows: [[[RTFParagraph]]] = []
    var headerRows = 0
    var rowIsHeader = false
    var currentRow: [[RTFParagraph]] = []
    var currentCell: [RTFParagraph] = []
    /// The nested tables being read, one per level below the outer table: `nestedLevels[0]` is `\itap2`,
    /// `nestedLevels[1]` `\itap3`… (at most ``RTFParser/maxNestedLevels``; deeper ones flatten into the
    /// deepest).
    var nestedLevels: [RTFNestedTable] = []

    // fields
    var fields: [(instruction: String, depth: Int)] = []
    var fieldURLs: [String?] = []
    /// The UTF-8 text of every run, in reading order (runs hold ranges in it).
    var text: [UInt8] = []
    var images: [(data: [UInt8], type: String)] = []

    // pictures
    var pictureHex: [UInt8] = []
    var pictureNibble: UInt8? = nil
    var pictureType: String? = nil
    var pictureDepth = -1

    // footnotes
    var savedOutput: (items: [RTFItem], paragraph: RTFParagraph, depth: Int)? = nil

    /// The global table, read once per document rather than once per control word.
    private let keywordTable = RTFParser.keywords
    private var codePage = CodePage.cp1252

    private let input: [UInt8]

    init(_ bytes: [UInt8]) {
        input = bytes
        tokenizer = RTFTokenizer(UnsafeBufferPointer(start: nil, count: 0))
    }

    /// The code page of the current font (cached: looking it up takes a `swift_once` and copies its tables).
    @inline(__always)
    mutating func currentCodePage() -> CodePage {
        if codePage.number != state.codePageNumber { codePage = CodePage.forNumber(state.codePageNumber) }
        return codePage
    }

    func bodyFontSize() -> Int {
        var sizeHistogram = self.sizeHistogram
        sizeHistogram[lastHistogramSize, default: 0] += lastHistogramCount
        return sizeHistogram.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? 24
    }

    mutating func run() {
        let input = self.input
        input.withUnsafeBufferPointer { buf in
            tokenizer = RTFTokenizer(buf)
            runTokens()
        }
        tokenizer = RTFTokenizer(UnsafeBufferPointer(start: nil, count: 0))
    }

    private mutating func runTokens() {
        var sawRTF = false
        var progress = ProgressCheck("RTF reader")
        loop: while true {
            progress.advance(to: tokenizer.position)
            let token = tokenizer.next()
            switch token {
            case .end:
                break loop
            case .groupStart:
                flushBytes()
                if stack.count >= RTFReader.maxGroupDepth {
                    // Too deep: treat the rest of this group as ignorable rather than growing without bound.
                    stack.append(state)
                    state.destination = .skip
                } else {
                    stack.append(state)
                }
                unicodeSkip = 0
            case .groupEnd:
                flushBytes()
                unicodeSkip = 0
                endGroup()
                if stack.isEmpty && sawRTF { break loop }  // the closing brace of {\rtf1 …}: ignore what follows
            case .word(let key, let parameter):
                if unicodeSkip > 0 {
                    unicodeSkip -= 1
                    continue
                }
                if key == RTFParser.rtfKey { sawRTF = true }
                handleWord(key, parameter)
            case .symbol(let c):
                if unicodeSkip > 0 {
                    unicodeSkip -= 1
                    continue
                }
                handleSymbol(c)
            case .hexByte(let b):
                if unicodeSkip > 0 {
                    unicodeSkip -= 1
                    continue
                }
                if state.destination == .picture {
                    pictureHexDigits([b >> 4 < 10 ? 0x30 + (b >> 4) : 0x57 + (b >> 4), (b & 15) < 10 ? 0x30 + (b & 15) : 0x57 + (b & 15)])
                } else {
                    appendByte(b)
                }
            case .text(let range, let ascii):
                var start = range.lowerBound
                if unicodeSkip > 0 {
                    let skip = min(unicodeSkip, range.count)
                    unicodeSkip -= skip
                    start += skip
                    if start == range.upperBound { continue }
                }
                if pendingHighSurrogate != nil {
                    pendingHighSurrogate = nil
                    appendScalar(0xFFFD)
                }
                if state.destination == .picture {
                    pictureHexDigits(tokenizer.bytes[start..<range.upperBound])
                } else if pendingBytes.isEmpty && state.destination == .normal
                    && (ascii || !tokenizer.bytes[start..<range.upperBound].contains(where: { $0 >= 0x80 }))
                {
                    // Plain ASCII text: no code page needed.
                    if !state.hidden { appendText(UnsafeBufferPointer(rebasing: tokenizer.bytes[start..<range.upperBound])) }
                } else if state.destination.readsText {
                    for b in tokenizer.bytes[start..<range.upperBound] { appendByte(b) }
                }
            case .binary(let range):
                flushBytes()
                unicodeSkip = 0
                if state.destination == .picture {
                    pictureHex.append(contentsOf: tokenizer.bytes[range])
                    pictureNibble = nil
                }
            }
        }
        flushBytes()
        while !stack.isEmpty { endGroup() }
        finishParagraph(force: false)
        closeTable()
    }

    // MARK: Groups

    private mutating func endGroup() {
        guard var outer = stack.popLast() else { return }
        let inner = state
        let depth = stack.count
        switch inner.destination {
        case .fontTable where outer.destination != .fontTable:
            fontEntry = -1
        case .fontTable:
            break
        case .styleSheet where outer.destination == .styleSheet:
            finishStyleEntry(inner)
        case .listText:
            if outer.destination != .listText {
                paragraph.marker = markerText.trimmingWhitespace()
            }
        case .levelText where outer.destination == .listTable:
            if !currentListLevels.isEmpty { currentListLevels[currentListLevels.count - 1].levelText = levelText }
        case .picture where depth <= pictureDepth:
            finishPicture(outerStyle: outer)
        default:
            break
        }
        if inner.destination == .legacyNumbering, outer.destination != .legacyNumbering {
            // `{\*\pn …}` sets paragraph properties: they outlive its group and hold, paragraph after
            // paragraph, until `\pard` (Word 95 numbers every following paragraph).
            outer.legacyLevel = inner.legacyLevel
            outer.legacyStart = inner.legacyStart
            outer.legacyStyle = inner.legacyStyle
        }
        if let f = fields.last, depth < f.depth {
            fields.removeLast()
        }
        if inner.footnote && !outer.footnote, let saved = savedOutput, depth <= saved.depth {
            finishParagraph(force: false)
            closeTable()
            footnotes.append(items)
            items = saved.items
            paragraph = saved.paragraph
            savedOutput = nil
        }
        state = outer
        if inner.destination == .normal && outer.destination == .normal {
            // character formatting is group-scoped; nothing else to do
        }
    }

    // MARK: Control words

    @inline(__always)
    static func hash<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 { RTFTokenizer.hash(bytes) }
    // Literals (checked by a test) rather than `static let`s, which cost a `swift_once` check on every use.
    static var rtfKey: UInt64 { 0x89b6_c219_60c9_6f4f }
    static var udKey: UInt64 { 0x08c4_4e07_b566_fb7c }

    /// A control word: what every control word does first (bytes before it, `\*` destinations, a pending
    /// high surrogate), then its family's method.
    private mutating func handleWord(_ name: UInt64, _ parameter: Int?) {
        flushBytes()
        if state.destination == .skip {
            if name == Self.udKey { state.destination = stack.count >= 2 ? stack[stack.count - 2].destination : .normal }
            return
        }
        let starred = state.destination == .skipText
        guard let keyword = keywordTable[name] else {
            if starred { state.destination = .skip }
            return
        }
        if starred {
            // `{\*\word …}`: only the destinations we understand are read; everything else is skipped.
            switch keyword {
            case .list(.listtable), .list(.listoverridetable), .field(.fldinst), .list(.pn), .picture(.shppict),
                .footnote(.footnote), .destination(.ud), .picture(.pict), .table(.nesttableprops):
                state.destination = .normal
            default:
                state.destination = .skip
                return
            }
        }
        if pendingHighSurrogate != nil {
            switch keyword {
            case .unicode: break
            default: pendingHighSurrogate = nil
            }
        }
        switch keyword {
        case .document(let w): documentWord(w, parameter)
        case .unicode(let w): unicodeWord(w, parameter)
        case .font(let w): fontWord(w, parameter)
        case .style(let w): styleWord(w, parameter)
        case .character(let w): characterWord(w, parameter)
        case .paragraph(let w): paragraphWord(w, parameter)
        case .table(let w): tableWord(w, parameter)
        case .list(let w): listWord(w, parameter)
        case .field(let w): fieldWord(w)
        case .picture(let w): pictureWord(w)
        case .footnote(let w): footnoteWord(w)
        case .symbol(let c): emitText(String(c))
        case .destination(.skip): state.destination = .skip
        case .destination(.ud): state.destination = stack.count >= 2 ? stack[stack.count - 2].destination : .normal
        }
    }
}

extension RTFParser {
    enum Destination {
        case normal, skip, fontTable, styleSheet, listTable, listOverrideTable, listText, levelText, fieldInstruction,
            picture, legacyNumbering, skipText

        /// Whether text in this destination is used (document text, font and style names, list markers and
        /// list levels' labels, field instructions).
        var readsText: Bool {
            switch self {
            case .normal, .fontTable, .styleSheet, .listText, .levelText, .fieldInstruction: return true
            case .skip, .picture, .listTable, .listOverrideTable, .legacyNumbering, .skipText: return false
            }
        }
    }

    struct GroupState {
        var destination: Destination = .normal
        var style = RTFRunStyle()
        var hidden = false
        /// `\caps`: the text is shown in capitals (Word's "All caps").
        var caps = false
        var font = -1
        var fontSize = 24
        var uc = 1
        /// Code page for `\'hh` bytes in the current font (see ``CodePage/forNumber(_:)``).
        var codePageNumber = 1252
        /// Whether the current font is monospace (`\fmodern` or a known monospace family).
        var fontMonospace = false
        // paragraph properties
        var outlineLevel: Int? = nil
        var styleIndex: Int? = nil
        var list = 0
        var level = 0
        var inTable = false
        /// `\itapN`: 1 in a table, 2 in a table nested in one of its cells.
        var tableDepth = 0
        var leftIndent = 0
        var firstLineIndent = 0
        var borderBottom = false
        var legacyLevel: Int? = nil
        var legacyStart: Int? = nil
        var legacyStyle: MarkdownListStyle? = nil
        /// `\qr`, `\qc` (left and justified are the default).
        var alignment: MarkdownTableAlignment = .none
        var fieldIndex: Int? = nil
        var footnote = false
    }
}

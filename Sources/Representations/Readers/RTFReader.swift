import Pasteboard

/// Reads RTF into the readers' ``RichBlock`` model.
///
/// The reader is a state machine over ``RTFTokenizer`` tokens. Groups push and pop the whole character and
/// paragraph state (including `\ucN` and the current destination). Finished paragraphs are recorded with
/// their properties, then ``RTFBlockBuilder`` turns the flat paragraph list into headings, lists, tables,
/// code blocks and quotes. Nothing here throws: malformed input yields whatever could be recovered.
struct RTFReader {
    /// Limits that keep hostile input from using unbounded memory or time.
    static let maxGroupDepth = 1024

    /// The Markdown document for `bytes`, or nil when no block could be recovered.
    static func document(_ bytes: [UInt8]) -> MarkdownDocument? {
        var parser = RTFParser(bytes)
        parser.run()
        var builder = RTFBlockBuilder(
            items: parser.items, footnotes: parser.footnotes, lists: parser.listLevels, overrides: parser.listOverrides,
            bodyFontSize: parser.bodyFontSize(), text: parser.text, links: parser.fieldURLs, images: parser.images)
        return builder.build()
    }
}

struct RTFRunStyle: Equatable {
    var bold = false
    var italic = false
    var strike = false
    var underline = false
    var monospace = false
    var vertical: Int8 = 0  // 1 superscript, -1 subscript
}

/// A run of one paragraph: plain data (no references), so paragraphs cost one allocation and no reference
/// counting. Text lives in the parser's one UTF-8 buffer (``RTFParser/text``); `start..<start+count` is the run's
/// range there for `.text`, the image's index in ``RTFParser/images`` for `.image`, the note number for
/// `.footnoteReference`.
struct RTFRun {
    enum Kind: UInt8 { case text, lineBreak, image, footnoteReference }
    var kind: Kind
    var style: RTFRunStyle
    var size: Int32
    /// Index in ``RTFParser/fieldURLs`` of the HYPERLINK the run is in, or -1.
    var link: Int32
    var start: Int
    var count: Int
    var end: Int { start + count }
}

struct RTFParagraph {
    var runs: [RTFRun] = []
    var outlineLevel: Int? = nil
    var list: Int = 0  // \lsN (0 = none)
    var level: Int = 0  // \ilvlN
    var marker: String? = nil  // \listtext / \pntext content
    var legacyLevel: Int? = nil  // \pnlvlN, 10 = bullet, 11 = body (numbered)
    var legacyStart: Int? = nil
    var leftIndent: Int = 0
    var firstLineIndent: Int = 0  // \fiN, relative to leftIndent
    var borderBottom = false
    func hasText(_ text: [UInt8]) -> Bool { runs.contains { $0.kind != .text || !RTFText.isBlank(text, $0) } }
}

enum RTFItem {
    case paragraph(RTFParagraph)
    case table(rows: [[[RTFParagraph]]], headerRows: Int)
}

private enum Destination {
    case normal, skip, fontTable, styleSheet, listTable, listOverrideTable, listText, fieldInstruction, picture,
        legacyNumbering, skipText

    /// Whether text in this destination is used (document text, font and style names, list markers, field
    /// instructions).
    var readsText: Bool {
        switch self {
        case .normal, .fontTable, .styleSheet, .listText, .fieldInstruction: return true
        case .skip, .picture, .listTable, .listOverrideTable, .legacyNumbering, .skipText: return false
        }
    }
}

private struct GroupState {
    var destination: Destination = .normal
    var style = RTFRunStyle()
    var hidden = false
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
    var leftIndent = 0
    var firstLineIndent = 0
    var borderBottom = false
    var legacyLevel: Int? = nil
    var legacyStart: Int? = nil
    var fieldIndex: Int? = nil
    var footnote = false
}

private enum Keyword {
    case rtf, ansi, mac, pc, pca, ansicpg, deff, uc, u, fonttbl, f, fcharset, fmodern, fnil, colortbl, stylesheet, s
    case cs, outlinelevel, b, i, ul, ulnone, ulVariant, strike, striked, plain, fs, superscript, `subscript`, nosupersub, up, dn, v
    case pard, par, line, sect, page, tab, cell, row, nestcell, nestrow, trowd, trhdr, intbl, itap, li, fi, ls, ilvl
    case listtable, listoverridetable, list, listlevel, listid, levelnfc, levelstartat, listoverride
    case listtext, pntext, pn, pnlvl, pnlvlblt, pnlvlbody, pnlvlcont, pnstart, pndec, pnucrm, pnlcrm, pnucltr, pnlcltr
    case field, fldinst, fldrslt, pict, pngblip, jpegblip, otherBlip, shppict, nonshppict, footnote, chftn
    case emdash, endash, lquote, rquote, ldblquote, rdblquote, bullet, emspace, enspace, qmspace, zwj, zwnj
    case brdrb, skipDestination, upr, ud, cpg, htmltag, mhtmltag, nesttableprops
}

/// Control-word hash → keyword, as an open-addressing table indexed by the FNV hash itself: a look-up per
/// control word costs a few loads instead of hashing the key again through `Hasher`.
private struct KeywordTable: Sendable {
    private var keys: [UInt64]
    private var values: [Keyword]
    private let mask: Int

    init(_ names: [String: Keyword]) {
        var size = 16
        while size < names.count * 4 { size <<= 1 }
        mask = size - 1
        keys = Array(repeating: 0, count: size)
        values = Array(repeating: .rtf, count: size)
        for (name, keyword) in names {
            let key = RTFParser.hash(name.utf8)
            var k = Self.slot(key, mask)
            while keys[k] != 0 && keys[k] != key { k = (k + 1) & mask }
            keys[k] = key
            values[k] = keyword
        }
    }

    @inline(__always) private static func slot(_ key: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: key ^ (key >> 32)) & mask
    }

    @inline(__always) subscript(_ key: UInt64) -> Keyword? {
        guard key != 0 else { return nil }
        var k = Self.slot(key, mask)
        while true {
            let stored = keys[k]
            if stored == key { return values[k] }
            if stored == 0 { return nil }
            k = (k + 1) & mask
        }
    }
}

private let keywords = KeywordTable(keywordNames)

private let keywordNames: [String: Keyword] = {
    var k: [String: Keyword] = [
        "rtf": .rtf, "ansi": .ansi, "mac": .mac, "pc": .pc, "pca": .pca, "ansicpg": .ansicpg, "deff": .deff,
        "uc": .uc, "u": .u, "fonttbl": .fonttbl, "f": .f, "fcharset": .fcharset, "fmodern": .fmodern, "fnil": .fnil,
        "froman": .fnil, "fswiss": .fnil, "fscript": .fnil, "fdecor": .fnil, "ftech": .fnil, "fbidi": .fnil,
        "colortbl": .colortbl, "stylesheet": .stylesheet, "s": .s, "cs": .cs, "outlinelevel": .outlinelevel, "b": .b, "i": .i,
        "ul": .ul, "ulnone": .ulnone, "strike": .strike, "striked": .striked, "plain": .plain, "fs": .fs,
        "super": .superscript, "sub": .subscript, "nosupersub": .nosupersub, "up": .up, "dn": .dn, "v": .v,
        "pard": .pard, "par": .par, "line": .line, "sect": .sect, "page": .page, "tab": .tab, "cell": .cell,
        "row": .row, "nestcell": .nestcell, "nestrow": .nestrow, "trowd": .trowd, "trhdr": .trhdr, "intbl": .intbl,
        "itap": .itap, "li": .li, "fi": .fi, "ls": .ls, "ilvl": .ilvl, "listtable": .listtable,
        "listoverridetable": .listoverridetable, "list": .list, "listlevel": .listlevel, "listid": .listid,
        "levelnfc": .levelnfc, "levelstartat": .levelstartat, "listoverride": .listoverride, "listtext": .listtext,
        "pntext": .pntext, "pn": .pn, "pnlvl": .pnlvl, "pnlvlblt": .pnlvlblt, "pnlvlbody": .pnlvlbody,
        "pnlvlcont": .pnlvlcont, "pnstart": .pnstart, "pndec": .pndec, "pnucrm": .pnucrm, "pnlcrm": .pnlcrm,
        "pnucltr": .pnucltr, "pnlcltr": .pnlcltr, "field": .field, "fldinst": .fldinst, "fldrslt": .fldrslt,
        "pict": .pict, "pngblip": .pngblip, "jpegblip": .jpegblip, "emfblip": .otherBlip, "wmetafile": .otherBlip,
        "macpict": .otherBlip, "dibitmap": .otherBlip, "wbitmap": .otherBlip, "pmmetafile": .otherBlip,
        "shppict": .shppict, "nonshppict": .nonshppict, "footnote": .footnote, "chftn": .chftn, "emdash": .emdash,
        "endash": .endash, "lquote": .lquote, "rquote": .rquote, "ldblquote": .ldblquote, "rdblquote": .rdblquote,
        "bullet": .bullet, "emspace": .emspace, "enspace": .enspace, "qmspace": .qmspace, "zwj": .zwj, "zwnj": .zwnj,
        "brdrb": .brdrb, "upr": .upr, "ud": .ud, "cpg": .cpg, "htmltag": .htmltag, "mhtmltag": .mhtmltag,
        "nesttableprops": .nesttableprops,
    ]
    for u in ["uld", "uldb", "ulw", "ulwave", "ulth", "uldash", "uldashd", "uldashdd", "ulhwave", "ulldash",
        "ulthd", "ulthdash", "ulthdashd", "ulthdashdd", "ulthldash", "ululdbwave", "uldbwave"]
    {
        k[u] = .ulVariant
    }
    // Destinations whose content is never document text.
    for d in ["info", "header", "headerl", "headerr", "headerf", "footer", "footerl", "footerr", "footerf", "ftnsep",
        "ftnsepc", "aftnsep", "aftnsepc", "object", "objdata", "xe", "tc", "txe", "private", "generator",
        "themedata", "colorschememapping", "datastore", "latentstyles", "pgdsctbl", "rsidtbl", "listpicture",
        "filetbl", "revtbl", "userprops", "docvar", "nonesttables", "bkmkstart", "bkmkend", "fldtype", "comment",
        "annotation", "atnid", "atnauthor", "xmlnstbl", "mmathPr", "wgrffmtfilter", "pnseclvl", "expandedcolortbl",
        "listname", "author", "operator", "title", "subject", "keywords", "doccomm", "company", "category",
        "hlinkbase", "template", "printim", "creatim", "revtim", "buptim", "password", "falt", "panose",
        "fontemb", "fontfile", "leveltext", "levelnumbers", "background", "shpinst", "sp", "sn", "sv",
        "passwordhash", "protusertbl", "ftncn", "aftncn", "aftnsepc", "blipuid"]
    {
        k[d] = .skipDestination
    }
    return k
}()

struct RTFParser {
    private var tokenizer: RTFTokenizer
    private var state = GroupState()
    private var stack: [GroupState] = []
    private var documentCodePage = 1252
    private var defaultFont = 0

    // font table
    private struct Font {
        var monospace = false
        var charset: Int? = nil
        var name = ""
    }
    private var fonts: [Int: Font] = [:] {
        didSet { fontGeneration &+= 1 }
    }
    private var fontGeneration = 0
    private var fontCache: (index: Int, generation: Int, exists: Bool, monospace: Bool, charset: Int?) = (Int.min, 0, false, false, nil)
    private var fontEntry = -1
    private var styleOutline: [Int: Int] = [:]
    private var styleEntry: (index: Int, outline: Int?, name: String, character: Bool) = (0, nil, "", false)
    /// Character styles (`\csN`): their formatting, font and name.
    private var characterStyles: [Int: (style: RTFRunStyle, font: Int, name: String)] = [:]

    // list table: listid -> levels (nfc, start); override ls -> listid
    private(set) var listLevels: [Int: [(nfc: Int, start: Int)]] = [:]
    private(set) var listOverrides: [Int: Int] = [:]
    private var currentListID = 0
    private var currentListLevels: [(nfc: Int, start: Int)] = []
    private var currentOverrideList = 0

    // output
    private(set) var items: [RTFItem] = []
    private(set) var footnotes: [[RTFItem]] = []
    private var paragraph = RTFParagraph()
    private var markerText = ""
    private var pendingBytes: [UInt8] = []
    private var unicodeSkip = 0
    private var pendingHighSurrogate: UInt16? = nil
    private var sizeHistogram: [Int: Int] = [:]
    private var lastHistogramSize = 24
    private var lastHistogramCount = 0

    // tables
    private var rows: [[[RTFParagraph]]] = []
    private var headerRows = 0
    private var rowIsHeader = false
    private var currentRow: [[RTFParagraph]] = []
    private var currentCell: [RTFParagraph] = []

    // fields
    private var fields: [(instruction: String, depth: Int)] = []
    private(set) var fieldURLs: [String?] = []
    /// The UTF-8 text of every run, in reading order (runs hold ranges in it).
    private(set) var text: [UInt8] = []
    private(set) var images: [(data: [UInt8], type: String)] = []

    // pictures
    private var pictureHex: [UInt8] = []
    private var pictureNibble: UInt8? = nil
    private var pictureType: String? = nil
    private var pictureDepth = -1

    // footnotes
    private var savedOutput: (items: [RTFItem], paragraph: RTFParagraph, depth: Int)? = nil

    /// The global table, read once per document rather than once per control word.
    private let keywordTable = keywords
    private var codePage = CodePage.cp1252

    private let input: [UInt8]

    init(_ bytes: [UInt8]) {
        input = bytes
        tokenizer = RTFTokenizer(UnsafeBufferPointer(start: nil, count: 0))
    }

    /// The code page of the current font (cached: looking it up takes a `swift_once` and copies its tables).
    @inline(__always)
    private mutating func currentCodePage() -> CodePage {
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
        guard let outer = stack.popLast() else { return }
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
        case .picture where depth <= pictureDepth:
            finishPicture(outerStyle: outer)
        default:
            break
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

    // MARK: Text

    @inline(__always)
    private mutating func appendByte(_ b: UInt8) {
        if state.destination.readsText { pendingBytes.append(b) }  // other text is never decoded at all
    }

    private mutating func flushBytes() {
        guard !pendingBytes.isEmpty else { return }
        pendingHighSurrogate = nil
        if state.destination == .normal {
            if !state.hidden {
                let i = textRun()
                let leftover = currentCodePage().decodeUTF8(pendingBytes[...], into: &text)
                if leftover > 0 { text.append(contentsOf: [0xEF, 0xBF, 0xBD]) }
                grewText(i)
            }
            pendingBytes.removeAll(keepingCapacity: true)
            return
        }
        if !pendingBytes.contains(where: { $0 >= 0x80 }) {
            let ascii = String(decoding: pendingBytes, as: UTF8.self)
            pendingBytes.removeAll(keepingCapacity: true)
            emitText(ascii)
            return
        }
        var scalars = String.UnicodeScalarView()
        let leftover = currentCodePage().decode(pendingBytes[...], into: &scalars)
        if leftover > 0 { scalars.append("\u{FFFD}") }
        pendingBytes.removeAll(keepingCapacity: true)
        emitText(String(scalars))
    }

    private mutating func emitText(_ text: String) {
        switch state.destination {
        case .normal:
            if state.hidden { return }
            appendText(text.utf8)
        case .fontTable:
            for ch in text {
                if ch == ";" {
                    if fontEntry >= 0, let f = fonts[fontEntry], Self.isMonospaceName(f.name) { fonts[fontEntry]?.monospace = true }
                    fontEntry = -1
                } else if fontEntry >= 0 {
                    fonts[fontEntry, default: Font()].name.append(ch)
                }
            }
        case .styleSheet:
            for ch in text where ch != ";" { styleEntry.name.append(ch) }
        case .listText:
            markerText += text
        case .fieldInstruction:
            if !fields.isEmpty { fields[fields.count - 1].instruction += text }
        case .skip, .picture, .listTable, .listOverrideTable, .legacyNumbering, .skipText:
            break
        }
    }

    /// The index of a text run at the end of the paragraph that has the current style and ends where ``text``
    /// does (so bytes appended to ``text`` extend it), made if needed.
    @inline(__always)
    private mutating func textRun() -> Int {
        var style = state.style
        if state.fontMonospace { style.monospace = true }
        let link = Int32(state.fieldIndex.map { fieldURLs[$0] == nil ? -1 : $0 } ?? -1)
        let size = Int32(truncatingIfNeeded: state.fontSize)
        let last = paragraph.runs.count - 1
        if last >= 0, paragraph.runs[last].kind == .text, paragraph.runs[last].end == text.count,
            paragraph.runs[last].style == style, paragraph.runs[last].size == size, paragraph.runs[last].link == link
        {
            return last
        }
        if paragraph.runs.isEmpty { paragraph.runs.reserveCapacity(4) }  // one allocation for most paragraphs
        paragraph.runs.append(RTFRun(kind: .text, style: style, size: size, link: link, start: text.count, count: 0))
        return last + 1
    }

    /// Records the bytes appended to ``text`` since ``textRun()`` returned `i`.
    @inline(__always)
    private mutating func grewText(_ i: Int) {
        let added = text.count - paragraph.runs[i].end
        paragraph.runs[i].count += added
        if state.fontSize == lastHistogramSize {
            lastHistogramCount += added
        } else {
            sizeHistogram[lastHistogramSize, default: 0] += lastHistogramCount
            lastHistogramSize = state.fontSize
            lastHistogramCount = added
        }
    }

    private mutating func appendText<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        let i = textRun()
        text.append(contentsOf: bytes)
        grewText(i)
    }

    private mutating func appendRun(_ kind: RTFRun.Kind, start: Int = 0, count: Int = 0) {
        var style = state.style
        if state.fontMonospace { style.monospace = true }
        let link = Int32(state.fieldIndex.map { fieldURLs[$0] == nil ? -1 : $0 } ?? -1)
        paragraph.runs.append(RTFRun(kind: kind, style: style, size: Int32(truncatingIfNeeded: state.fontSize), link: link, start: start, count: count))
    }

    private mutating func appendScalar(_ value: UInt32) {
        guard let s = Unicode.Scalar(value) else { return }
        if state.destination == .normal {
            if state.hidden { return }
            let i = textRun()
            text.append(contentsOf: UTF8.encode(s)!)
            grewText(i)
        } else {
            emitText(String(Character(s)))
        }
    }

    private mutating func appendUnicode(_ parameter: Int) {
        var unit = parameter
        if unit < 0 { unit += 65536 }
        unit &= 0xFFFF
        let u16 = UInt16(unit)
        if UTF16.isLeadSurrogate(u16) {
            pendingHighSurrogate = u16
            return
        }
        if UTF16.isTrailSurrogate(u16) {
            if let high = pendingHighSurrogate {
                pendingHighSurrogate = nil
                let value = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(u16) - 0xDC00)
                appendScalar(value)
            } else {
                appendScalar(0xFFFD)
            }
            return
        }
        if pendingHighSurrogate != nil {
            pendingHighSurrogate = nil
            appendScalar(0xFFFD)
        }
        appendScalar(UInt32(u16))
    }

    // MARK: Control words

    private mutating func handleSymbol(_ c: UInt8) {
        switch c {
        case UInt8(ascii: "\\"), UInt8(ascii: "{"), UInt8(ascii: "}"):
            appendByte(c)
            return
        default:
            break
        }
        flushBytes()
        switch c {
        case UInt8(ascii: "*"):
            // An ignorable destination: skip unless the next word is one we handle (checked in handleWord).
            if state.destination == .normal || state.destination == .skipText { state.destination = .skipText }
        case 0x0A, 0x0D:
            if state.destination == .normal { endParagraph() }
        case UInt8(ascii: "~"):
            emitText("\u{00A0}")
        case UInt8(ascii: "_"):
            emitText("\u{2011}")
        case UInt8(ascii: "-"):
            break  // optional hyphen
        case 0x09:
            emitText("\t")
        default:
            break
        }
    }

    @inline(__always)
    static func hash<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 { RTFTokenizer.hash(bytes) }
    // Literals (checked by a test) rather than `static let`s, which cost a `swift_once` check on every use.
    static var rtfKey: UInt64 { 0x89b6_c219_60c9_6f4f }
    static var udKey: UInt64 { 0x08c4_4e07_b566_fb7c }

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
            case .listtable, .listoverridetable, .fldinst, .pn, .shppict, .footnote, .ud, .pict, .nesttableprops:
                state.destination = .normal
            default:
                state.destination = .skip
                return
            }
        }
        if keyword != .u && keyword != .uc, pendingHighSurrogate != nil {
            pendingHighSurrogate = nil
        }
        let p = parameter
        switch keyword {
        // document
        case .rtf: break
        case .ansi: setDocumentCodePage(1252)
        case .mac: setDocumentCodePage(10000)
        case .pc: setDocumentCodePage(437)
        case .pca: setDocumentCodePage(850)
        case .ansicpg: if let p { setDocumentCodePage(p) }
        case .deff:
            defaultFont = p ?? 0
            if state.font < 0 { state.font = defaultFont }
        case .uc: state.uc = max(0, min(p ?? 1, 16))
        case .u:
            if let p {
                appendUnicode(p)
                unicodeSkip = state.uc
            }
        // fonts
        case .fonttbl: state.destination = .fontTable
        case .f:
            let n = p ?? 0
            if state.destination == .fontTable {
                fontEntry = n
                if fonts[n] == nil { fonts[n] = Font() }
            } else {
                state.font = n
                updateCodePage()
            }
        case .fcharset, .cpg:
            if state.destination == .fontTable, fontEntry >= 0 {
                if keyword == .cpg { fonts[fontEntry]?.charset = p.map { -$0 } } else { fonts[fontEntry]?.charset = p }
            }
        case .fmodern:
            if state.destination == .fontTable, fontEntry >= 0 { fonts[fontEntry]?.monospace = true }
        case .fnil: break
        case .colortbl: state.destination = .skip
        case .stylesheet: state.destination = .styleSheet
        case .s:
            if state.destination == .styleSheet {
                styleEntry = (p ?? 0, nil, "", false)
            } else if state.destination == .normal {
                state.styleIndex = p
            }
        case .cs:
            if state.destination == .styleSheet {
                styleEntry = (p ?? 0, nil, "", true)
                state.style = RTFRunStyle()
                state.font = -1
            } else if state.destination == .normal, let cs = characterStyles[p ?? 0] {
                applyCharacterStyle(cs)
            }
        case .outlinelevel:
            if state.destination == .styleSheet { styleEntry.outline = p } else { state.outlineLevel = p }
        // character formatting
        case .b: state.style.bold = (p ?? 1) != 0
        case .i: state.style.italic = (p ?? 1) != 0
        case .ul, .ulVariant: state.style.underline = (p ?? 1) != 0
        case .ulnone: state.style.underline = false
        case .strike, .striked: state.style.strike = (p ?? 1) != 0
        case .plain:
            state.style = RTFRunStyle()
            state.hidden = false
            state.fontSize = 24
            state.font = defaultFont
            updateCodePage()
        case .fs: state.fontSize = max(1, p ?? 24)
        case .superscript: state.style.vertical = 1
        case .subscript: state.style.vertical = -1
        case .nosupersub: state.style.vertical = 0
        case .up: state.style.vertical = (p ?? 6) == 0 ? 0 : 1
        case .dn: state.style.vertical = (p ?? 6) == 0 ? 0 : -1
        case .v: state.hidden = (p ?? 1) != 0
        // paragraphs
        case .pard:
            state.outlineLevel = nil
            state.styleIndex = nil
            state.list = 0
            state.level = 0
            state.inTable = false
            state.leftIndent = 0
            state.firstLineIndent = 0
            state.borderBottom = false
            state.legacyLevel = nil
            state.legacyStart = nil
        case .par, .sect, .page:
            if state.destination == .normal { endParagraph() }
        case .line:
            if state.destination == .normal { appendRun(.lineBreak) }
        case .tab: emitText("\t")
        case .intbl: state.inTable = true
        case .itap: state.inTable = (p ?? 1) > 0
        case .cell:
            if state.destination == .normal { endCell() }
        case .nestcell: emitText(" ")
        case .nestrow: if state.destination == .normal { appendRun(.lineBreak) }
        case .row:
            if state.destination == .normal { endRow() }
        case .trowd: rowIsHeader = false
        case .trhdr: rowIsHeader = true
        case .li: if state.destination == .normal { state.leftIndent = p ?? 0 }
        case .fi: if state.destination == .normal { state.firstLineIndent = p ?? 0 }
        case .ls:
            if state.destination == .listOverrideTable { listOverrides[p ?? 0] = currentOverrideList } else { state.list = p ?? 0 }
        case .ilvl: state.level = max(0, min(p ?? 0, 8))
        case .brdrb: if state.destination == .normal { state.borderBottom = true }
        // list tables
        case .listtable: state.destination = .listTable
        case .listoverridetable: state.destination = .listOverrideTable
        case .list:
            if state.destination == .listTable {
                currentListID = 0
                currentListLevels = []
            }
        case .listlevel:
            if state.destination == .listTable { currentListLevels.append((nfc: 0, start: 1)) }
        case .levelnfc:
            if state.destination == .listTable, !currentListLevels.isEmpty {
                currentListLevels[currentListLevels.count - 1].nfc = p ?? 0
            }
        case .levelstartat:
            if state.destination == .listTable, !currentListLevels.isEmpty {
                currentListLevels[currentListLevels.count - 1].start = p ?? 1
            }
        case .listid:
            if state.destination == .listTable {
                currentListID = p ?? 0
                listLevels[currentListID] = currentListLevels
            } else if state.destination == .listOverrideTable {
                currentOverrideList = p ?? 0
            }
        case .listoverride: break
        case .listtext, .pntext:
            state.destination = .listText
            markerText = ""
        case .pn: state.destination = .legacyNumbering
        case .pnlvl: state.legacyLevel = p
        case .pnlvlblt: state.legacyLevel = 10
        case .pnlvlbody: state.legacyLevel = 11
        case .pnlvlcont: break
        case .pnstart: state.legacyStart = p
        case .pndec, .pnucrm, .pnlcrm, .pnucltr, .pnlcltr:
            if state.legacyLevel == nil || state.legacyLevel == 10 { state.legacyLevel = 11 }
        // fields
        case .field:
            fields.append((instruction: "", depth: stack.count))
        case .fldinst:
            state.destination = .fieldInstruction
        case .fldrslt:
            state.destination = .normal
            if let f = fields.last {
                fieldURLs.append(Self.hyperlinkTarget(f.instruction))
                state.fieldIndex = fieldURLs.count - 1
            }
        // pictures
        case .pict:
            state.destination = .picture
            pictureHex = []
            pictureNibble = nil
            pictureType = nil
            pictureDepth = stack.count
        case .pngblip: if state.destination == .picture { pictureType = "image/png" }
        case .jpegblip: if state.destination == .picture { pictureType = "image/jpeg" }
        case .otherBlip: if state.destination == .picture { pictureType = nil }
        case .shppict: break
        case .nonshppict: state.destination = .skip
        // footnotes
        case .footnote:
            guard savedOutput == nil else {
                state.destination = .skip
                return
            }
            footnoteStart()
        case .chftn: break
        // symbols
        case .emdash: emitText("\u{2014}")
        case .endash: emitText("\u{2013}")
        case .lquote: emitText("\u{2018}")
        case .rquote: emitText("\u{2019}")
        case .ldblquote: emitText("\u{201C}")
        case .rdblquote: emitText("\u{201D}")
        case .bullet: emitText("\u{2022}")
        case .emspace: emitText("\u{2003}")
        case .enspace: emitText("\u{2002}")
        case .qmspace: emitText("\u{2005}")
        case .zwj: emitText("\u{200D}")
        case .zwnj: emitText("\u{200C}")
        case .skipDestination, .htmltag, .mhtmltag: state.destination = .skip
        case .upr: state.destination = .skip
        case .nesttableprops:
            // A nested table's row ends with `{\*\nesttableprops … \nestrow}`. Nested tables are flattened into the
            // outer cell (their cells separated by spaces, see \nestcell): the row becomes a line break.
            if stack.last?.destination == .normal, !stack.last!.hidden {
                let last = paragraph.runs.count - 1
                if last >= 0, paragraph.runs[last].kind == .text, paragraph.runs[last].count > 0, paragraph.runs[last].end == text.count,
                    text.last == 0x20
                {
                    text.removeLast()  // the space \nestcell left after the row's last cell
                    paragraph.runs[last].count -= 1
                }
                appendRun(.lineBreak)
            }
            state.destination = .skip
        case .ud: state.destination = stack.count >= 2 ? stack[stack.count - 2].destination : .normal
        }
    }

    static func isMonospaceName(_ name: String) -> Bool {
        let n = name.lowercased().trimmingWhitespace()
        return n.contains("courier") || n.contains("mono") || n.hasPrefix("consolas") || n.hasPrefix("menlo")
            || n.hasPrefix("monaco") || n.contains("code") || n.hasPrefix("lucida console") || n.hasPrefix("fixedsys")
            || n.hasPrefix("inconsolata") || n.hasPrefix("sfmono")
    }

    private mutating func setDocumentCodePage(_ n: Int) {
        documentCodePage = n
        updateCodePage()
    }

    private mutating func updateCodePage() {
        // \plain and \f come with nearly every paragraph, mostly naming the same font: look it up once.
        if fontCache.index != state.font || fontCache.generation != fontGeneration {
            let font = fonts[state.font]
            fontCache = (state.font, fontGeneration, font != nil, font?.monospace ?? false, font?.charset)
        }
        state.fontMonospace = fontCache.monospace
        if fontCache.exists, let charset = fontCache.charset {
            if charset < 0 {
                state.codePageNumber = -charset
                return
            }
            if let n = CodePage.numberForCharset(charset) {
                // \fcharset0 means "ANSI": the document's own ANSI page unless that is not a Western one.
                state.codePageNumber = n == 1252 ? documentCodePage : n
                return
            }
        }
        state.codePageNumber = documentCodePage
    }

    private mutating func applyCharacterStyle(_ cs: (style: RTFRunStyle, font: Int, name: String)) {
        if cs.style.bold { state.style.bold = true }
        if cs.style.italic { state.style.italic = true }
        if cs.style.strike { state.style.strike = true }
        if cs.style.underline { state.style.underline = true }
        if cs.font >= 0 {
            state.font = cs.font
            updateCodePage()
        }
        // Styles that say what they are only by name (LibreOffice keeps HTML's <del> and <code> that way).
        let name = cs.name.lowercased().trimmingWhitespace()
        if ["del", "strike", "strikethrough", "strikeout", "deleted"].contains(name) { state.style.strike = true }
        if name == "source text" || name == "code" || name == "html code" || name == "teletype" || name == "verbatim char"
            || name.hasPrefix("html typewriter") || name == "inline code"
        {
            state.style.monospace = true
        }
    }

    private mutating func finishStyleEntry(_ inner: GroupState) {
        if styleEntry.character {
            characterStyles[styleEntry.index] = (inner.style, inner.font, styleEntry.name)
            styleEntry = (0, nil, "", false)
            return
        }
        var outline = styleEntry.outline
        if outline == nil {
            // "heading 1" … "heading 9" in any case
            let name = styleEntry.name.lowercased().trimmingWhitespace()
            if name.hasPrefix("heading "), let n = Int(name.dropFirst(8)), (1...9).contains(n) { outline = n - 1 }
        }
        if let outline { styleOutline[styleEntry.index] = outline }
        styleEntry = (0, nil, "", false)
    }

    /// The URL of a `HYPERLINK "url"` (or `HYPERLINK \l "anchor"`) field instruction.
    static func hyperlinkTarget(_ instruction: String) -> String? {
        var s = Substring(instruction.trimmingWhitespace())
        let head = s.utf8.prefix(10)  // the 10th byte too: a combining mark there would change the 9th character
        if head.count >= 9, head.allSatisfy({ $0 < 0x80 }) {
            // ASCII: compare case-insensitively without upper-casing the whole instruction.
            guard head.prefix(9).elementsEqual("hyperlink".utf8, by: { $0 | 0x20 == $1 }) else { return nil }
        } else {
            guard s.uppercased().hasPrefix("HYPERLINK") else { return nil }
        }
        s = s.dropFirst(9)
        var anchor = false
        var url: String? = nil
        while !s.isEmpty {
            let before = s.startIndex
            defer {
                // Every pass consumes at least one character: a separator that is whitespace but not a space
                // or tab (U+00A0 from a code page, say) once stopped this loop from advancing.
                if s.startIndex == before { s = s.dropFirst() }
            }
            s = s.drop { $0.isWhitespace }
            if s.hasPrefix("\\") {
                let sw = s.dropFirst().prefix { !$0.isWhitespace }
                if sw == "l" { anchor = true }
                s = s.dropFirst(1 + sw.count)
                if sw == "o" || sw == "t" || sw == "m" {  // switches with an argument
                    s = s.drop { $0 == " " }
                    if s.hasPrefix("\"") {
                        s = s.dropFirst()
                        s = s.drop { $0 != "\"" }.dropFirst()
                    } else {
                        s = s.drop { !$0.isWhitespace }
                    }
                }
                continue
            }
            if s.hasPrefix("\"") {
                s = s.dropFirst()
                let value = s.prefix { $0 != "\"" }
                s = s.dropFirst(value.count + 1)
                if url == nil { url = String(value) }
            } else {
                let value = s.prefix { !$0.isWhitespace }
                s = s.dropFirst(value.count)
                if url == nil, !value.isEmpty { url = String(value) }
            }
        }
        guard let url, !url.isEmpty else { return nil }
        return anchor ? "#" + url : url
    }

    // MARK: Pictures

    private mutating func pictureHexDigits<C: Collection>(_ digits: C) where C.Element == UInt8 {
        for d in digits {
            guard let v = RTFTokenizer.hexValue(d) else { continue }
            if let high = pictureNibble {
                pictureHex.append(high << 4 | v)
                pictureNibble = nil
            } else {
                pictureNibble = v
            }
        }
    }

    private mutating func finishPicture(outerStyle: GroupState) {
        pictureDepth = -1
        guard outerStyle.destination == .normal || outerStyle.destination == .skipText else { return }
        var data = pictureHex
        var type = pictureType
        if type == nil {  // sniff: Word sometimes omits the blip type
            if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { type = "image/png" } else if data.starts(with: [0xFF, 0xD8, 0xFF]) { type = "image/jpeg" }
        }
        if type == nil { data = [] }
        pictureHex = []
        let saved = state
        state = outerStyle
        if let type, !data.isEmpty {
            images.append((data, type))
            paragraph.runs.append(RTFRun(kind: .image, style: state.style, size: Int32(truncatingIfNeeded: state.fontSize), link: -1, start: images.count - 1, count: 0))
        }
        state = saved
    }

    // MARK: Footnotes

    private mutating func footnoteStart() {
        if !state.inTable { closeTable() }
        // Record the reference in the running paragraph, then collect the note's own paragraphs separately.
        paragraph.runs.append(RTFRun(kind: .footnoteReference, style: RTFRunStyle(), size: Int32(truncatingIfNeeded: state.fontSize), link: -1, start: footnotes.count + 1, count: 0))
        savedOutput = (items, paragraph, stack.count - 1)
        items = []
        paragraph = RTFParagraph()
        state.footnote = true
        state.destination = .normal
    }

    // MARK: Paragraphs and tables

    private mutating func currentParagraphProperties() {
        paragraph.outlineLevel = state.outlineLevel ?? state.styleIndex.flatMap { styleOutline[$0] }
        paragraph.list = state.list
        paragraph.level = state.level
        paragraph.leftIndent = state.leftIndent
        paragraph.firstLineIndent = state.firstLineIndent
        paragraph.borderBottom = state.borderBottom
        paragraph.legacyLevel = state.legacyLevel
        paragraph.legacyStart = state.legacyStart
    }

    private mutating func endParagraph() {
        currentParagraphProperties()
        if state.inTable {
            currentCell.append(paragraph)
            paragraph = RTFParagraph()
        } else {
            finishParagraph(force: true)
        }
    }

    private mutating func finishParagraph(force: Bool) {
        if !force && paragraph.runs.isEmpty && paragraph.marker == nil { return }
        if !force { currentParagraphProperties() }
        closeTable()
        items.append(.paragraph(paragraph))
        paragraph = RTFParagraph()
    }

    private mutating func endCell() {
        if !paragraph.runs.isEmpty {
            currentParagraphProperties()
            currentCell.append(paragraph)
            paragraph = RTFParagraph()
        }
        currentRow.append(currentCell)
        currentCell = []
    }

    private mutating func endRow() {
        if !currentCell.isEmpty { endCell() }
        if !currentRow.isEmpty {
            if rowIsHeader && rows.count == headerRows { headerRows += 1 }
            rows.append(currentRow)
        }
        currentRow = []
        state.inTable = false
    }

    private mutating func closeTable() {
        if !currentCell.isEmpty { endCell() }
        if !currentRow.isEmpty {
            rows.append(currentRow)
            currentRow = []
        }
        if !rows.isEmpty {
            items.append(.table(rows: rows, headerRows: headerRows))
            rows = []
            headerRows = 0
        }
    }
}

extension String {
    /// Only spaces, tabs, line breaks and no-break spaces (checked on UTF-8, without decoding characters).
    var isBlank: Bool {
        var previousC2 = false
        for b in utf8 {
            if previousC2 {
                if b != 0xA0 { return false }
                previousC2 = false
                continue
            }
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case 0xC2: previousC2 = true
            default: return false
            }
        }
        return !previousC2
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        // Fast path: trim ASCII white space on UTF-8; fall back to Unicode properties when a non-ASCII byte
        // sits at either end (it may be white space such as U+00A0 or U+2003).
        let fast: String?? = utf8.withContiguousStorageIfAvailable { buf -> String? in
            var start = 0
            var end = buf.count
            while start < end, buf[start] == 0x20 || (buf[start] >= 0x09 && buf[start] <= 0x0D) { start += 1 }
            while end > start, buf[end - 1] == 0x20 || (buf[end - 1] >= 0x09 && buf[end - 1] <= 0x0D) { end -= 1 }
            if start < end, buf[start] >= 0x80 || buf[end - 1] >= 0x80 { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: buf[start..<end]), as: UTF8.self)
        }
        if let fast, let fast { return fast }
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, scalars[start].properties.isWhitespace { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace { end = scalars.index(before: end) }
        return String(String.UnicodeScalarView(scalars[start..<end]))
    }
}

import Markdown

/// Renders a ``MarkdownDocument`` as RTF 1.9 that LibreOffice, Word, WordPad and TextEdit open with the
/// structure intact.
///
/// - Headings: bold, a larger `\fs`, `\outlinelevel` and a `heading N` style (`\sN`); the heading's text also in
///   a `Heading N Char` character style (`\csN`) with the same look, so that the look survives where a reader
///   drops the paragraph style's (see ``RTFWriter/headingCharacterStyle(_:)``).
/// - Lists: real lists (`\listtable` / `\listoverridetable`, `\lsN\ilvlK`) with `\listtext` markers for
///   readers without list support. Every Markdown list gets its own list definition, so numbering restarts
///   and start numbers are kept.
/// - Code: the `\fmodern` font `\f1`; code blocks keep their lines with `\line`.
/// - Links: `HYPERLINK` fields. Tables: `\trowd … \cell … \row`, the header row marked `\trhdr` and bold.
/// - Text: 7-bit ASCII only; other characters as `\uN` (negative above 32767, surrogate pairs above the
///   BMP) followed by one fallback character (`\uc1`).
///
/// The writer walks the document without recursion (except into footnotes), so deeply nested input cannot
/// overflow the stack.
public enum RTFWriter {
    /// Supplies the bytes of an image destination (a file path or URL), when the caller has them.
    public typealias ImageLoader = @Sendable (String) -> [UInt8]?

    public static func render(_ document: MarkdownDocument, imageLoader: ImageLoader? = nil) -> [UInt8] {
        var w = RTFRenderer(document: document, imageLoader: imageLoader)
        return w.render()
    }

    public static func renderString(_ document: MarkdownDocument, imageLoader: ImageLoader? = nil) -> String {
        String(decoding: render(document, imageLoader: imageLoader), as: UTF8.self)
    }

    /// Font size (half-points) of heading levels 1...6; the body is `\fs24` (12 pt).
    static let headingSizes = [36, 32, 28, 26, 24, 22]
    static let bodySize = 24

    /// The character style of a heading level's text (Word's linked "Heading N Char"), numbered after the
    /// paragraph styles and `\cs10`, "Default Paragraph Font".
    ///
    /// Why: LibreOffice Writer drops direct formatting equal to the paragraph style's, and when it inserts RTF
    /// into a document (a paste) it keeps that document's "Heading N" and resets the style's look, so the
    /// heading showed as body text. A character style is not the paragraph style: the runs keep it, and
    /// with it bold and the heading's size, whichever way Writer reads the RTF.
    static func headingCharacterStyle(_ level: Int) -> Int { 10 + level }
}

struct RTFRenderer {
    let doc: MarkdownDocument
    let imageLoader: RTFWriter.ImageLoader?
    var out: [UInt8] = []

    private enum Frame {
        case quote
        case list(id: Int, level: Int, ordered: Bool, next: Int)
        case item(marker: String, task: MarkdownTaskState?, first: Bool)
        case table(columns: Int, alignments: [MarkdownTableAlignment])
        case other
    }
    /// The open containers, with what the writer asks of them at every paragraph kept up to date on each
    /// push and pop, so that no query walks the stack: the work per block is O(1) at any nesting depth
    /// (64,000 nested block quotes once took 25 s, quadratic in the depth).
    private struct FrameStack {
        private(set) var frames: [Frame] = []
        private(set) var quoteCount = 0
        private(set) var listCount = 0
        private(set) var tableCount = 0
        /// Positions in `frames` of the open lists, outermost first.
        private var listPositions: [Int] = []
        /// The open quotes and lists, innermost last: true for a list.
        private var containers: [Bool] = []

        var last: Frame? { frames.last }

        mutating func push(_ frame: Frame) {
            switch frame {
            case .quote:
                quoteCount += 1
                containers.append(false)
            case .list:
                listCount += 1
                listPositions.append(frames.count)
                containers.append(true)
            case .table: tableCount += 1
            default: break
            }
            frames.append(frame)
        }

        mutating func pop() {
            guard let frame = frames.popLast() else { return }
            switch frame {
            case .quote:
                quoteCount -= 1
                containers.removeLast()
            case .list:
                listCount -= 1
                listPositions.removeLast()
                containers.removeLast()
            case .table: tableCount -= 1
            default: break
            }
        }

        /// Replaces the innermost frame by one of the same kind (a list's next number, an item's first flag).
        mutating func replaceLast(_ frame: Frame) { frames[frames.count - 1] = frame }

        /// The list definition of the outermost open list, 0 when no list is open.
        var outermostListID: Int {
            guard let position = listPositions.first, case .list(let id, _, _, _) = frames[position] else { return 0 }
            return id
        }

        /// The innermost open list's definition and level.
        var innermostList: (id: Int, level: Int)? {
            guard let position = listPositions.last, case .list(let id, let level, _, _) = frames[position] else { return nil }
            return (id, level)
        }

        /// Whether the innermost quote or list is a list (its paragraphs are tight).
        var innermostContainerIsList: Bool { containers.last ?? false }
    }
    private var frames = FrameStack()
    private var quoteCount: Int { frames.quoteCount }
    private var listCount: Int { frames.listCount }
    private var tableCount: Int { frames.tableCount }
    /// One entry per Markdown list: its nesting level and whether it is ordered, plus its start number.
    private struct ListDefinition {
        var levels: [(ordered: Bool, start: Int, style: MarkdownListStyle, paren: Bool)?] = Array(repeating: nil, count: 9)
    }
    private var lists: [ListDefinition] = []
    private var footnotes: [String: MarkdownDocument.NodeID] = [:]
    private var activeFootnotes: Set<String> = []
    private var headerRow = false
    /// `{\super`/`{\sub` groups opened by raw `<sup>`/`<sub>` and not closed yet (closed at the block's end).
    private var openHTMLGroups = 0

    private mutating func closeHTMLGroups() {
        while openHTMLGroups > 0 {
            w("}")
            openHTMLGroups -= 1
        }
    }
    private var cellIndex = 0

    init(document: MarkdownDocument, imageLoader: RTFWriter.ImageLoader?) {
        self.doc = document
        self.imageLoader = imageLoader
    }

    mutating func render() -> [UInt8] {
        for child in doc.children(of: doc.root) where doc.kind(child) == .footnoteDefinition {
            let label = doc.label(child).lowercased()
            if footnotes[label] == nil { footnotes[label] = child }
        }
        out.reserveCapacity(1024)
        writeBlocks(from: doc.root)
        let body = out
        out = []
        out.reserveCapacity(body.count + 4096)
        header()
        out += body
        w("}\n")
        return out
    }

    // MARK: Output helpers

    @inline(__always) private mutating func w(_ s: StaticString) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }
    @inline(__always) private mutating func w(_ s: String) {
        out.append(contentsOf: s.utf8)
    }
    private mutating func number(_ n: Int) {
        if n < 0 {
            out.append(UInt8(ascii: "-"))
            number(-n)
            return
        }
        if n >= 10 { number(n / 10) }
        out.append(UInt8(ascii: "0") + UInt8(n % 10))
    }
    private mutating func word(_ s: StaticString, _ n: Int) {
        w(s)
        number(n)
    }

    private mutating func header() {
        w("{\\rtf1\\ansi\\ansicpg1252\\deff0\\uc1\n")
        w("{\\fonttbl{\\f0\\fswiss\\fprq2\\fcharset0 Helvetica;}{\\f1\\fmodern\\fprq1\\fcharset0 Courier New;}}\n")
        w("{\\colortbl;\\red5\\green99\\blue193;\\red242\\green242\\blue242;\\red128\\green128\\blue128;\\red255\\green255\\blue0;}\n")
        w("{\\stylesheet{\\ql\\f0\\fs24\\snext0 Normal;}")
        for level in 1...6 {
            word("{\\s", level)
            word("\\ql\\keepn\\sb240\\sa120\\outlinelevel", level - 1)
            word("\\b\\f0\\fs", RTFWriter.headingSizes[level - 1])
            word("\\sbasedon0\\snext0 heading ", level)
            w(";}")
        }
        w("{\\*\\cs10\\additive Default Paragraph Font;}")
        for level in 1...6 {
            word("{\\*\\cs", RTFWriter.headingCharacterStyle(level))
            word("\\additive\\b\\f0\\fs", RTFWriter.headingSizes[level - 1])
            word("\\sbasedon10\\slink", level)
            word(" Heading ", level)
            w(" Char;}")
        }
        w("}\n")
        if !lists.isEmpty {
            w("{\\*\\listtable\n")
            for (index, list) in lists.enumerated() {
                let id = index + 1
                word("{\\list\\listtemplateid", 1000 + id)
                w("\\listhybrid")
                for level in 0..<9 {
                    let ordered = list.levels[level]?.ordered ?? false
                    let start = list.levels[level]?.start ?? 1
                    // \levelnfc: 0 decimal, 1 upper roman, 2 lower roman, 3 upper letter, 4 lower letter, 23 bullet.
                    let format: Int
                    switch list.levels[level]?.style ?? .decimal {
                    case _ where !ordered: format = 23
                    case .decimal: format = 0
                    case .upperRoman: format = 1
                    case .lowerRoman: format = 2
                    case .upperAlpha: format = 3
                    case .lowerAlpha: format = 4
                    }
                    word("{\\listlevel\\levelnfc", format)
                    word("\\levelnfcn", format)
                    word("\\leveljc0\\leveljcn0\\levelfollow0\\levelstartat", start)
                    w("\\levelspace0\\levelindent0")
                    if ordered {
                        word("{\\leveltext\\'02\\'0", level)
                        w(list.levels[level]?.paren == true ? ");}{\\levelnumbers\\'01;}" : ".;}{\\levelnumbers\\'01;}")
                    } else {
                        w("{\\leveltext\\'01")
                        w(level % 3 == 0 ? "\\u8226 ?" : level % 3 == 1 ? "\\u9702 ?" : "\\u9642 ?")
                        w(";}{\\levelnumbers;}")
                    }
                    word("\\fi-360\\li", 720 * (level + 1))
                    word("\\lin", 720 * (level + 1))
                    w("}")
                }
                word("{\\listname ;}\\listid", id)
                w("}\n")
            }
            w("}\n{\\*\\listoverridetable")
            for index in lists.indices {
                word("{\\listoverride\\listid", index + 1)
                word("\\listoverridecount0\\ls", index + 1)
                w("}")
            }
            w("}\n")
        }
        w("\\paperw12240\\paperh15840\\margl1440\\margr1440\\margt1440\\margb1440\\deftab720\\widowctrl\n")
    }

    // MARK: Context

    private var quoteIndent: Int { 720 * quoteCount }
    private var listDepth: Int { listCount }
    /// Left indent of text at the current position.
    private var leftIndent: Int { quoteIndent + 720 * listDepth }
    private var inTable: Bool { tableCount > 0 }

    // MARK: Blocks

    private mutating func writeBlocks(from start: MarkdownDocument.NodeID) {
        doc.walk(from: start) { event in
            let node = event.node
            if event.phase == .enter {
                return enter(node, event.kind)
            }
            exit(node, event.kind)
            return .continue
        }
    }

    private mutating func enter(_ node: MarkdownDocument.NodeID, _ kind: MarkdownNodeKind) -> MarkdownDocument.WalkAction {
        switch kind {
        case .document:
            break
        case .blockQuote:
            frames.push(.quote)
        case .list:
            let attrs = doc.listAttributes(node)
            let level = min(listDepth, 8)
            let ordered = attrs.type == .ordered
            // A nested list shares the definition of its outermost list (readers such as pandoc and Word
            // tell nesting by `\ilvl` within one `\ls`); its level takes this list's type and start unless an
            // earlier list at the same depth of the same tree set them.
            var id = frames.outermostListID
            if id == 0 || level == 0 {
                lists.append(ListDefinition())
                id = lists.count
            }
            if lists[id - 1].levels[level] == nil { lists[id - 1].levels[level] = (ordered, attrs.start, attrs.style, attrs.delimiter == .paren) }
            frames.push(.list(id: id, level: level, ordered: ordered, next: attrs.start))
        case .item:
            var marker = "\u{2022}"
            if case .list(let id, let level, let ordered, let next)? = frames.last {
                if ordered {
                    let definition = lists[id - 1].levels[level]
                    marker = (definition?.style ?? .decimal).marker(next) + (definition?.paren == true ? ")" : ".")
                    frames.replaceLast(.list(id: id, level: level, ordered: ordered, next: next + 1))
                } else {
                    marker = level % 3 == 0 ? "\u{2022}" : level % 3 == 1 ? "\u{25E6}" : "\u{25AA}"
                }
            }
            frames.push(.item(marker: marker, task: doc.taskState(node), first: true))
            if let first = doc.firstChild(node), doc.kind(first) == .paragraph {
                // the paragraph writes the marker
            } else {
                startParagraph()
                w("\\par\n")
            }
        case .paragraph:
            if inTable { break }
            startParagraph()
        case .heading:
            let level = doc.headingLevel(node)
            w("\\pard\\plain")
            word("\\s", level)
            // The heading's runs in its character style too, its look restated as direct formatting below.
            word("\\cs", RTFWriter.headingCharacterStyle(level))
            w("\\ql\\keepn\\sb240\\sa120")
            word("\\outlinelevel", level - 1)
            if leftIndent > 0 { word("\\li", leftIndent) }
            word("\\b\\f0\\fs", RTFWriter.headingSizes[level - 1])
            w(" ")
            itemMarkerIfNeeded()
        case .codeBlock:
            writeCodeBlock(node)
        case .htmlBlock:
            let stripped = HTMLText.strip(doc.literal(node)).trimmingWhitespace()
            if !stripped.isEmpty {
                startParagraph()
                text(stripped, code: false)
                w("\\par\n")
            }
        case .thematicBreak:
            w("\\pard\\plain\\qc\\sb120\\sa120")
            if leftIndent > 0 { word("\\li", leftIndent) }
            w("\\brdrb\\brdrs\\brdrw10\\brsp20\\brdrcf3\\f0\\fs24\\par\n")
        case .table:
            if let previous = doc.previousSibling(node), doc.kind(previous) == .list || doc.kind(previous) == .thematicBreak {
                // pandoc 2.17 pours a list that a table follows into the table's first cell (LibreOffice's own
                // RTF too); a one-point paragraph between them ends the list for it.
                w("\\pard\\plain\\sa0\\sl-20\\slmult0\\f0\\fs2 \\~\\par\n")
            }
            let aligns = doc.tableAlignments(node)
            frames.push(.table(columns: max(1, aligns.count), alignments: aligns))
        case .tableRow:
            headerRow = doc.isTableHeaderRow(node)
            cellIndex = 0
            if case .table(let columns, _)? = frames.last {
                let width = max(1, (9360 - leftIndent) / columns)
                w("\\trowd\\trgaph108")
                word("\\trleft", leftIndent)
                if headerRow { w("\\trhdr") }
                for c in 0..<columns {
                    w("\\clbrdrt\\brdrs\\brdrw10\\clbrdrl\\brdrs\\brdrw10\\clbrdrb\\brdrs\\brdrw10\\clbrdrr\\brdrs\\brdrw10")
                    if headerRow { w("\\clcbpat2") }
                    word("\\cellx", leftIndent + width * (c + 1))
                }
                w("\n")
            }
        case .tableCell:
            var align = MarkdownTableAlignment.none
            if case .table(_, let aligns)? = frames.last, cellIndex < aligns.count { align = aligns[cellIndex] }
            w("\\pard\\plain\\intbl")
            switch align {
            case .center: w("\\qc")
            case .right: w("\\qr")
            default: w("\\ql")
            }
            w("\\f0\\fs24")
            if headerRow { w("\\b") }
            w(" ")
        case .footnoteDefinition:
            return .skipChildren
        default:
            return enterInline(node, kind)
        }
        return .continue
    }

    private mutating func exit(_ node: MarkdownDocument.NodeID, _ kind: MarkdownNodeKind) {
        switch kind {
        case .blockQuote, .list, .item, .table:
            frames.pop()
        case .paragraph:
            closeHTMLGroups()
            if !inTable { w("\\par\n") }
        case .heading:
            closeHTMLGroups()
            w("\\par\n")
        case .tableRow:
            w("\\row\n")
        case .tableCell:
            closeHTMLGroups()
            w("\\cell\n")
            cellIndex += 1
        default:
            exitInline(node, kind)
        }
    }

    /// `\pard` with the paragraph properties of the current context; writes the list marker for the first
    /// paragraph of an item.
    private mutating func startParagraph() {
        w("\\pard\\plain\\ql")
        let inItem: Bool = { if case .item? = frames.last { return true } else { return false } }()
        if inItem, case .item(_, _, let first)? = frames.last, first {
            // written by itemMarkerIfNeeded
        } else {
            w(tightParagraph ? "\\sa60" : "\\sa120")
            if leftIndent > 0 { word("\\li", leftIndent) }
            if quoteCount > 0 && listDepth == 0 {
                w("\\brdrl\\brdrs\\brdrw15\\brsp80\\brdrcf3")
            }
        }
        w("\\f0\\fs24 ")
        itemMarkerIfNeeded()
    }

    private var tightParagraph: Bool { frames.innermostContainerIsList }

    /// For the first paragraph of a list item: the list properties and the `\listtext` marker.
    private mutating func itemMarkerIfNeeded() {
        guard case .item(let marker, let task, true)? = frames.last else { return }
        frames.replaceLast(.item(marker: marker, task: task, first: false))
        let (listID, level) = frames.innermostList ?? (1, 0)
        let indent = leftIndent
        // Properties go before the marker (a `\pard` after the text would reset them): RTF readers take the
        // paragraph properties in force at `\par`, and these have not changed since `\pard`.
        word("\\ls", listID)
        word("\\ilvl", level)
        word("\\fi-360\\li", indent)
        word("\\tx", indent)
        w("\\sa60 {\\listtext\\pard\\plain\\f0\\fs24 ")
        text(marker, code: false)
        w("\\tab}")
        if let task {
            w(task == .checked ? "\\u9745\\'3f" : "\\u9744\\'3f")
            w(" ")
        }
    }

    private mutating func writeCodeBlock(_ node: MarkdownDocument.NodeID) {
        w("\\pard\\plain\\ql\\sa120")
        if leftIndent > 0 { word("\\li", leftIndent) }
        w("\\cbpat2\\f1\\fs20 ")
        itemMarkerIfNeeded()
        var lit = doc.literalBytes(node)
        if lit.last == 0x0A { lit = lit.dropLast() }
        var lineStart = lit.startIndex
        var i = lit.startIndex
        while i < lit.endIndex {
            if lit[i] == 0x0A {
                escape(lit[lineStart..<i], code: true)
                w("\\line\n")
                lineStart = i + 1
            }
            i += 1
        }
        escape(lit[lineStart..<lit.endIndex], code: true)
        w("\\par\n")
    }

    /// RTF groups opened by inline HTML tags (closed by the matching end tag).
    static let inlineHTMLGroups: [String: String] = [
        "u": "{\\ul ", "ins": "{\\ul ", "sup": "{\\super ", "sub": "{\\sub ", "s": "{\\strike ",
        "del": "{\\strike ", "strike": "{\\strike ", "b": "{\\b ", "strong": "{\\b ", "i": "{\\i ",
        "em": "{\\i ", "kbd": "{\\f1 ", "code": "{\\f1 ", "tt": "{\\f1 ", "samp": "{\\f1 ",
        "mark": "{\\highlight4 ", "small": "{\\fs20 ",
    ]

    /// The lowercased element name of an inline HTML tag and whether it is an end tag ("" for comments,
    /// declarations and the like).
    static func htmlTag(_ literal: String) -> (name: String, closing: Bool) {
        var bytes = Substring(literal).utf8.dropFirst()  // "<"
        let closing = bytes.first == UInt8(ascii: "/")
        if closing { bytes = bytes.dropFirst() }
        let name = bytes.prefix { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") }
        return (String(decoding: name, as: UTF8.self).lowercased(), closing)
    }

    // MARK: Inlines

    private mutating func enterInline(_ node: MarkdownDocument.NodeID, _ kind: MarkdownNodeKind) -> MarkdownDocument.WalkAction {
        switch kind {
        case .text:
            escape(doc.literalBytes(node), code: false)
        case .softBreak:
            w(" ")
        case .lineBreak:
            w("\\line ")
        case .code:
            w("{\\f1 ")
            escape(doc.literalBytes(node), code: true)
            w("}")
        case .htmlInline:
            // Inline HTML that Markdown has no syntax for (what our readers and pandoc write for underline,
            // superscript, …) becomes the RTF formatting it stands for; other tags are dropped.
            let (name, closing) = RTFRenderer.htmlTag(doc.literal(node))
            if name == "br" {
                w("\\line ")
            } else if let group = RTFRenderer.inlineHTMLGroups[name] {
                if !closing {
                    w(group)
                    openHTMLGroups += 1
                } else if openHTMLGroups > 0 {
                    w("}")
                    openHTMLGroups -= 1
                }
            }
        case .emphasis:
            w("{\\i ")
        case .strong:
            w("{\\b ")
        case .strikethrough:
            w("{\\strike ")
        case .link:
            w("{\\field{\\*\\fldinst{HYPERLINK \"")
            fieldURL(doc.destination(node))
            w("\"}}{\\fldrslt{\\cf1 ")
        case .image:
            if writePicture(node) { return .skipChildren }
            w("{")
        case .footnoteReference:
            footnote(doc.label(node))
        default:
            break
        }
        return .continue
    }

    private mutating func exitInline(_ node: MarkdownDocument.NodeID, _ kind: MarkdownNodeKind) {
        switch kind {
        case .emphasis, .strong, .strikethrough, .image:
            w("}")
        case .link:
            w("}}}")
        default:
            break
        }
    }

    private mutating func footnote(_ label: String) {
        let key = label.lowercased()
        guard let def = footnotes[key], !activeFootnotes.contains(key) else {
            text("[^" + label + "]", code: false)
            return
        }
        activeFootnotes.insert(key)
        let savedFrames = frames
        let savedGroups = openHTMLGroups
        openHTMLGroups = 0
        frames = FrameStack()
        w("{\\super\\chftn}{\\*\\footnote\\pard\\plain\\f0\\fs20 {\\super\\chftn} ")
        var first = true
        for child in doc.children(of: def) {
            if first, doc.kind(child) == .paragraph {
                // the first paragraph continues the note's own paragraph
                for inline in doc.children(of: child) {
                    doc.walk(from: inline) { event in
                        if event.phase == .enter { return enterInline(event.node, event.kind) }
                        exitInline(event.node, event.kind)
                        return .continue
                    }
                }
            } else {
                // Later blocks start new paragraphs; the note's last paragraph ends with the group, not with
                // a `\par` (which would add an empty paragraph).
                w("\\par\n")
                writeBlocks(from: child)
                if out.suffix(5) == Array("\\par\n".utf8) { out.removeLast(5) }
            }
            first = false
        }
        closeHTMLGroups()
        w("}")
        frames = savedFrames
        openHTMLGroups = savedGroups
        activeFootnotes.remove(key)
    }

    private mutating func fieldURL(_ url: String) {
        for b in url.utf8 {
            switch b {
            case UInt8(ascii: "\""): w("%22")
            case UInt8(ascii: "\\"): w("\\\\")
            case UInt8(ascii: "{"): w("\\{")
            case UInt8(ascii: "}"): w("\\}")
            case 0..<0x21, 0x7F...:
                out.append(UInt8(ascii: "%"))
                let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 15)])
            default:
                out.append(b)
            }
        }
    }

    /// Embeds a PNG or JPEG image as `\pict` when its bytes are at hand (a `data:` URL or the image loader).
    private mutating func writePicture(_ node: MarkdownDocument.NodeID) -> Bool {
        let destination = doc.destination(node)
        var data: [UInt8]? = nil
        if destination.hasPrefix("data:"), let comma = destination.firstIndex(of: ","),
            destination[..<comma].hasSuffix(";base64")
        {
            data = Base64.decode(destination[destination.index(after: comma)...])
        } else if let imageLoader {
            data = imageLoader(destination)
        }
        guard let data, let info = ImageInfo(data) else { return false }
        w("{\\pict")
        w(info.isPNG ? "\\pngblip" : "\\jpegblip")
        word("\\picw", info.width)
        word("\\pich", info.height)
        // 96 dpi → 15 twips per pixel, scaled down to fit a 6.5 inch text width.
        var goalW = info.width * 15
        var goalH = info.height * 15
        if goalW > 9360 {
            goalH = goalH * 9360 / goalW
            goalW = 9360
        }
        word("\\picwgoal", goalW)
        word("\\pichgoal", goalH)
        w("\n")
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for (i, b) in data.enumerated() {
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 15)])
            if i % 64 == 63 { out.append(0x0A) }
        }
        w("}")
        return true
    }

    private mutating func text(_ s: String, code: Bool) {
        escape(Array(s.utf8)[...], code: code)
    }

    /// Writes UTF-8 text as 7-bit RTF: `\\ \{ \}` escaped, tabs as `\tab`, other characters as `\uN` with a
    /// one-character fallback (the cp1252 byte for Latin-1 letters, else `?`).
    private mutating func escape(_ bytes: ArraySlice<UInt8>, code: Bool) {
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i < end {
            // Fast path: a run of plain ASCII.
            let runStart = i
            while i < end {
                let b = bytes[i]
                if b >= 0x80 || b == UInt8(ascii: "\\") || b == UInt8(ascii: "{") || b == UInt8(ascii: "}") || b < 0x20 { break }
                i += 1
            }
            if i > runStart { out.append(contentsOf: bytes[runStart..<i]) }
            if i >= end { break }
            let b = bytes[i]
            if b < 0x80 {
                switch b {
                case UInt8(ascii: "\\"): w("\\\\")
                case UInt8(ascii: "{"): w("\\{")
                case UInt8(ascii: "}"): w("\\}")
                case 0x09: w("\\tab ")
                case 0x0A: w(code ? "\\line\n" : " ")
                default: break  // other control characters have no RTF meaning
                }
                i += 1
                continue
            }
            // Decode one UTF-8 scalar (invalid sequences become U+FFFD).
            var scalar: UInt32 = 0xFFFD
            var length = 1
            if b >= 0xC2 && b < 0xE0, i + 1 < end, bytes[i + 1] & 0xC0 == 0x80 {
                scalar = UInt32(b & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F)
                length = 2
            } else if b >= 0xE0 && b < 0xF0, i + 2 < end, bytes[i + 1] & 0xC0 == 0x80, bytes[i + 2] & 0xC0 == 0x80 {
                scalar = UInt32(b & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F)
                length = 3
            } else if b >= 0xF0 && b < 0xF5, i + 3 < end, bytes[i + 1] & 0xC0 == 0x80, bytes[i + 2] & 0xC0 == 0x80,
                bytes[i + 3] & 0xC0 == 0x80
            {
                scalar = UInt32(b & 0x07) << 18 | UInt32(bytes[i + 1] & 0x3F) << 12 | UInt32(bytes[i + 2] & 0x3F) << 6
                    | UInt32(bytes[i + 3] & 0x3F)
                length = 4
            }
            i += length
            unicode(scalar)
        }
    }

    private mutating func unicode(_ scalar: UInt32) {
        if scalar >= 0x10000 {
            let v = scalar - 0x10000
            unit(UInt16(0xD800 + (v >> 10)), fallback: false)
            unit(UInt16(0xDC00 + (v & 0x3FF)), fallback: true)
        } else {
            unit(UInt16(scalar), fallback: true)
        }
    }

    private mutating func unit(_ u: UInt16, fallback: Bool) {
        w("\\u")
        number(u > 0x7FFF ? Int(u) - 65536 : Int(u))
        if u >= 0xA0 && u <= 0xFF {
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            w("\\'")
            out.append(hex[Int(u >> 4)])
            out.append(hex[Int(u & 15)])
        } else {
            // `\'3f` rather than a literal `?`: pandoc 2.17 skips one character too many after a text fallback.
            w("\\'3f")
        }
        _ = fallback
    }
}

/// Width and height of a PNG or JPEG image, read from its header.
struct ImageInfo {
    let isPNG: Bool
    let width: Int
    let height: Int

    init?(_ d: [UInt8]) {
        if d.count >= 24, d.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            isPNG = true
            width = Int(d[16]) << 24 | Int(d[17]) << 16 | Int(d[18]) << 8 | Int(d[19])
            height = Int(d[20]) << 24 | Int(d[21]) << 16 | Int(d[22]) << 8 | Int(d[23])
            if width <= 0 || height <= 0 || width > 100_000 || height > 100_000 { return nil }
            return
        }
        guard d.count >= 4, d[0] == 0xFF, d[1] == 0xD8 else { return nil }
        var i = 2
        while i + 9 < d.count {
            guard d[i] == 0xFF else { return nil }
            let marker = d[i + 1]
            if marker == 0xFF {
                i += 1
                continue
            }
            let length = Int(d[i + 2]) << 8 | Int(d[i + 3])
            if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                isPNG = false
                height = Int(d[i + 5]) << 8 | Int(d[i + 6])
                width = Int(d[i + 7]) << 8 | Int(d[i + 8])
                if width <= 0 || height <= 0 { return nil }
                return
            }
            i += 2 + length
        }
        return nil
    }
}

import Markdown

/// Renders a ``MarkdownDocument`` as what "paste as plain text" should give.
///
/// No markup characters: headings are their text, emphasis is dropped, paragraphs are separated by blank
/// lines, list items keep a marker ("• ", "1. ", "☐ "/"☑ " for tasks) and nest by indentation, block quotes
/// are indented, code blocks are kept as they are, a link's URL follows its text in angle brackets only
/// when the two differ, and tables become aligned columns.
public enum PlainTextWriter {
    public static func render(_ document: MarkdownDocument) -> [UInt8] {
        var r = PlainTextRenderer(doc: document)
        return r.render()
    }

    public static func renderString(_ document: MarkdownDocument) -> String {
        String(decoding: render(document), as: UTF8.self)
    }
}

struct PlainTextRenderer {
    let doc: MarkdownDocument
    var lw = LineWriter()

    private enum Frame {
        case list(tight: Bool, ordered: Bool, next: Int, style: MarkdownListStyle, paren: Bool)
        case item(indent: Int)
        case quote
        case other
    }
    private var frames: [Frame] = []
    private var footnoteOrder: [String] = []
    /// Each label's place in `footnoteOrder` (a linear search per reference made many notes quadratic).
    private var footnoteNumber: [String: Int] = [:]
    private var footnotes: [String: MarkdownDocument.NodeID] = [:]

    init(doc: MarkdownDocument) {
        self.doc = doc
        lw = LineWriter(capacity: 1024)
    }

    mutating func render() -> [UInt8] {
        for child in doc.children(of: doc.root) where doc.kind(child) == .footnoteDefinition {
            footnotes[doc.label(child).lowercased()] = child
        }
        doc.walk { event in
            if event.phase == .enter { return enter(event.node, event.kind) }
            exit(event.node, event.kind)
            return .continue
        }
        // Notes at the end, in order of first reference.
        for (n, label) in footnoteOrder.enumerated() {
            guard let def = footnotes[label] else { continue }
            lw.breaks(2)
            lw.write("[\(n + 1)] ")
            lw.prefix += Array(repeating: 0x20, count: "[\(n + 1)] ".utf8.count)
            doc.walk(from: def) { event in
                if event.kind == .footnoteDefinition { return .continue }
                if event.phase == .enter { return enter(event.node, event.kind) }
                exit(event.node, event.kind)
                return .continue
            }
            lw.prefix = []
        }
        return lw.finish()
    }

    private var blockBreaks: Int {
        if case .item? = frames.last, frames.count >= 2, case .list(let tight, _, _, _, _) = frames[frames.count - 2], tight { return 1 }
        return 2
    }

    private mutating func enter(_ node: MarkdownDocument.NodeID, _ kind: MarkdownNodeKind) -> MarkdownDocument.WalkAction {
        switch kind {
        case .document:
            break
        case .blockQuote:
            lw.prefix += [0x20, 0x20, 0x20, 0x20]
            frames.append(.quote)
        case .list:
            let a = doc.listAttributes(node)
            frames.append(.list(tight: a.tight, ordered: a.type == .ordered, next: a.start, style: a.style, paren: a.delimiter == .paren))
        case .item:
            var marker = "\u{2022} "
            if case .list(let tight, let ordered, let next, let style, let paren)? = frames.last, ordered {
                // The markers the document shows: `3.`, `c)`, `iv.`.
                marker = style.marker(next) + (paren ? ") " : ". ")
                frames[frames.count - 1] = .list(tight: tight, ordered: ordered, next: next + 1, style: style, paren: paren)
            }
            if let task = doc.taskState(node) { marker += task == .checked ? "\u{2611} " : "\u{2610} " }
            lw.write(marker)
            let width = marker.unicodeScalars.count
            lw.prefix += Array(repeating: 0x20, count: width)
            frames.append(.item(indent: width))
        case .paragraph, .heading:
            frames.append(.other)
        case .codeBlock:
            var lit = doc.literalBytes(node)
            if lit.last == 0x0A { lit = lit.dropLast() }
            lw.writeLines(lit)
            lw.breaks(blockBreaks)
        case .htmlBlock:
            let text = HTMLText.strip(doc.literal(node)).trimmingWhitespace()
            if !text.isEmpty {
                lw.writeLines(Array(text.utf8)[...])
                lw.breaks(blockBreaks)
            }
        case .thematicBreak:
            lw.write("\u{2014}\u{2014}\u{2014}")
            lw.breaks(blockBreaks)
        case .table:
            table(node)
            lw.breaks(2)
            return .skipChildren
        case .footnoteDefinition:
            return .skipChildren
        case .text:
            lw.writeLines(doc.literalBytes(node))
        case .code:
            lw.writeLines(doc.literalBytes(node))
        case .softBreak:
            lw.write(" ")
        case .lineBreak:
            lw.newline()
        case .htmlInline:
            if doc.literal(node).lowercased().hasPrefix("<br") { lw.newline() }
        case .image:
            // the alt text (the children) stands for the image; images side by side stay apart
            if Self.followsImage(doc, node) { lw.write(" ") }
        case .footnoteReference:
            let label = doc.label(node).lowercased()
            var n = footnoteNumber[label]
            if n == nil, footnotes[label] != nil {
                footnoteOrder.append(label)
                n = footnoteOrder.count - 1
                footnoteNumber[label] = n
            }
            lw.write(n.map { "[\($0 + 1)]" } ?? "[^\(doc.label(node))]")
        default:
            break
        }
        return .continue
    }

    private mutating func exit(_ node: MarkdownDocument.NodeID, _ kind: MarkdownNodeKind) {
        switch kind {
        case .blockQuote:
            frames.removeLast()
            lw.prefix.removeLast(4)
            lw.breaks(blockBreaks)
        case .list:
            frames.removeLast()
            lw.breaks(blockBreaks)
        case .item:
            if case .item(let indent)? = frames.last { lw.prefix.removeLast(indent) }
            frames.removeLast()
            if case .list(let tight, _, _, _, _)? = frames.last { lw.breaks(tight ? 1 : 2) } else { lw.breaks(2) }
        case .paragraph, .heading:
            frames.removeLast()
            lw.breaks(blockBreaks)
        case .link:
            let url = doc.destination(node)
            let text = Self.inlineText(doc, node)
            if !url.isEmpty && url != text && url != "mailto:" + text && !url.hasPrefix("#") {
                lw.write(" <\(url)>")
            }
        default:
            break
        }
    }

    private mutating func table(_ node: MarkdownDocument.NodeID) {
        var rows: [[String]] = []
        for row in doc.children(of: node) {
            rows.append(doc.children(of: row).map { Self.inlineText(doc, $0).replacingNewlinesWithSpaces() })
        }
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for r in rows { for (c, cell) in r.enumerated() { widths[c] = max(widths[c], Self.displayWidth(cell)) } }
        let aligns = doc.tableAlignments(node)
        for r in rows {
            var line = ""
            for c in 0..<columns {
                let cell = c < r.count ? r[c] : ""
                let pad = widths[c] - Self.displayWidth(cell)
                let right = c < aligns.count && aligns[c] == .right
                let center = c < aligns.count && aligns[c] == .center
                var left = right ? pad : center ? pad / 2 : 0
                var after = pad - left
                if c == columns - 1 { after = 0 }
                if c > 0 { line += "  " }
                while left > 0 { line += " "; left -= 1 }
                line += cell
                line += String(repeating: " ", count: after)
            }
            while line.hasSuffix(" ") { line.removeLast() }
            lw.write(line)
            lw.newline()
        }
    }

    /// Columns a string takes in a monospace rendering (East Asian wide and emoji count 2, marks 0).
    static func displayWidth(_ s: String) -> Int {
        var w = 0
        for u in s.unicodeScalars {
            let v = u.value
            switch u.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: continue
            default: break
            }
            if (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
                || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
                || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v)
            {
                w += 2
            } else {
                w += 1
            }
        }
        return w
    }

    /// Whether the inline just before `image` (looking out of links it starts) ends with an image: their
    /// alt texts are two words, as a browser shows two pictures ("GNOME logo" "W3C logo"), not one.
    static func followsImage(_ doc: MarkdownDocument, _ image: MarkdownDocument.NodeID) -> Bool {
        var node = image
        while doc.previousSibling(node) == nil, let parent = doc.parent(node), doc.kind(parent) == .link { node = parent }
        guard var previous = doc.previousSibling(node) else { return false }
        while doc.kind(previous) == .link, let last = doc.lastChild(previous) { previous = last }
        return doc.kind(previous) == .image
    }

    /// The plain text of an inline subtree (link text, table cell, image alt).
    static func inlineText(_ doc: MarkdownDocument, _ node: MarkdownDocument.NodeID) -> String {
        var s = ""
        doc.walk(from: node) { event in
            guard event.phase == .enter else { return .continue }
            switch event.kind {
            case .text, .code: s += doc.literal(event.node)
            case .image: if !s.isEmpty, Self.followsImage(doc, event.node) { s += " " }
            case .softBreak: s += " "
            case .lineBreak: s += "\n"
            default: break
            }
            return .continue
        }
        return s
    }
}

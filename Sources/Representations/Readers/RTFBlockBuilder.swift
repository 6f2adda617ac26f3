import Markdown

/// Turns the RTF reader's flat paragraph list into Markdown blocks, written straight into the AST's builder:
/// headings (by `\outlinelevel`, or by a bold, larger font when the document has no outline levels), lists
/// (by `\ls`/`\ilvl` or legacy `\pn`, with `\listtext` markers telling new items from continuation
/// paragraphs), code blocks (runs of monospace paragraphs), tables, thematic breaks and indented quotes.
///
/// Run text stays in the parser's UTF-8 buffer until it is copied into the document: plain paragraphs and
/// code blocks never become Swift strings; styled ones go through ``InlineAssembler``.
struct RTFBlockBuilder {
    let items: [RTFItem]
    let footnotes: [[RTFItem]]
    let lists: [Int: [RTFListLevel]]
    let overrides: [Int: Int]
    let bodyFontSize: Int
    let text: [UInt8]
    let links: [String?]
    let images: [(data: [UInt8], type: String)]
    private var headingSizes: [Int] = []
    private var useOutline = false

    init(
        items: [RTFItem], footnotes: [[RTFItem]], lists: [Int: [RTFListLevel]], overrides: [Int: Int], bodyFontSize: Int,
        text: [UInt8], links: [String?], images: [(data: [UInt8], type: String)]
    ) {
        self.items = items
        self.footnotes = footnotes
        self.lists = lists
        self.overrides = overrides
        self.bodyFontSize = bodyFontSize
        self.text = text
        self.links = links
        self.images = images
    }

    /// What a paragraph is. Paragraphs other than list items are referred to by their index in the items (a
    /// copy of a paragraph costs reference counting on its runs).
    private enum Line {
        case blank
        case paragraph(Int, quoteDepth: Int)
        case heading(Int, Int)
        case code(Int, quoteDepth: Int)
        case rule
        case listItem(RTFParagraph, level: Int, ordered: Bool, newItem: Bool)
        case table([[[RTFParagraph]]])
    }

    /// The document, or nil when there is no block at all.
    mutating func build() -> MarkdownDocument? {
        useOutline = items.contains {
            if case .paragraph(let p) = $0, let o = p.outlineLevel, o < 6, p.hasText(text) { return true }
            return false
        }
        if !useOutline {
            var sizes = Set<Int>()
            for case .paragraph(let p) in items { if let s = sizeHeadingCandidate(p) { sizes.insert(s) } }
            headingSizes = sizes.sorted(by: >)
        }
        var b = MarkdownDocument.Builder()
        // Most text is copied once, in order; most runs and paragraphs become a node or two.
        b.doc.bytes.reserveCapacity(text.count + text.count / 4)
        var runCount = 0
        for case .paragraph(let p) in items { runCount += p.runs.count }
        b.doc.nodes.reserveCapacity(2 * items.count + runCount)
        var any = assemble(items, into: &b)
        for (i, note) in footnotes.enumerated() {
            b.open(.footnoteDefinition(label: String(i + 1)))
            _ = assemble(note, into: &b)
            b.close()
            any = true
        }
        return any ? b.finish() : nil
    }

    /// Writes the blocks of `items` into `b`; false when there were none.
    private func assemble(_ items: [RTFItem], into b: inout MarkdownDocument.Builder) -> Bool {
        var lines: [Line] = []
        lines.reserveCapacity(items.count)
        var listHasMarkers: [Int: Bool] = [:]
        for case .paragraph(let p) in items where p.list > 0 && p.marker != nil { listHasMarkers[p.list] = true }
        for index in items.indices {
            switch items[index] {
            case .table(let rows, _):
                lines.append(.table(rows))
            case .paragraph(let p):
                lines.append(classify(p, index, listHasMarkers: listHasMarkers))
            }
        }
        return emit(lines, items, into: &b)
    }

    // MARK: Text

    private func string(_ run: RTFRun) -> String {
        run.kind == .text ? String(decoding: text[run.start..<run.end], as: UTF8.self) : ""
    }

    // MARK: Classification

    private func sizeHeadingCandidate(_ p: RTFParagraph) -> Int? {
        guard p.list == 0, p.marker == nil else { return nil }
        var size = 0
        var count = 0
        var allBold = true
        for run in p.runs {
            switch run.kind {
            case .text:
                if RTFText.isBlank(text, run) { continue }
                size = max(size, Int(run.size))
                count += run.count
                if !run.style.bold { allBold = false }
            case .lineBreak: return nil
            default: continue
            }
        }
        guard count > 0, count <= 400 else { return nil }
        if size >= bodyFontSize + 4 && (allBold || size >= bodyFontSize * 3 / 2) { return size }
        return nil
    }

    private func classify(_ paragraph: RTFParagraph, _ index: Int, listHasMarkers: [Int: Bool]) -> Line {
        var p = paragraph
        if !p.hasText(text) && p.marker == nil {
            return p.borderBottom ? .rule : .blank
        }
        // A heading in a list that shows no label (LibreOffice's outline list) is a heading.
        if useOutline, let o = p.outlineLevel, o < 6, p.list > 0 || p.marker != nil, !showsLabel(p) { return .heading(o + 1, index) }
        if p.marker == nil, p.list == 0, p.legacyLevel == nil, let marker = textMarker(&p) {
            // "•<TAB>text" or "1.<TAB>text" typed as text (pandoc 2.17, WordPad): a list item all the same.
            p.marker = marker
            p.legacyLevel = 0
            let level = max(0, (p.leftIndent - 1) / 720)
            let ordered = Self.markerNumber(marker) != nil
            p.legacyStart = Self.markerNumber(marker)
            return .listItem(p, level: level, ordered: ordered, newItem: true)
        }
        let isList = p.list > 0 || p.legacyLevel != nil || (p.marker.map { !$0.isEmpty } ?? false)
        if isList {
            var level = p.level
            if p.list == 0, let l = p.legacyLevel, (1...9).contains(l) { level = l - 1 }
            let ordered = isOrdered(p, level: level)
            // Word 95 numbering (`\pn`) numbers or bullets every paragraph that carries it, marker or not:
            // its properties last until `\pard`, so "A\par B\par" after one `\pntext` is two items.
            let newItem = p.marker != nil || (p.list > 0 && listHasMarkers[p.list] != true) || p.list == 0
                || (p.legacyLevel != nil && (overrides[p.list].flatMap { lists[$0] } == nil))
            return .listItem(p, level: level, ordered: ordered, newItem: newItem)
        }
        if useOutline, let o = p.outlineLevel, o < 6 { return .heading(o + 1, index) }
        if !useOutline, let size = sizeHeadingCandidate(p), let rank = headingSizes.firstIndex(of: size) {
            return .heading(min(6, rank + 1), index)
        }
        // A quote indents every line; a hanging indent (\fi pulling the first line back out) is not a quote.
        let quote = p.leftIndent >= 360 && p.leftIndent + min(0, p.firstLineIndent) >= 360 ? max(1, (p.leftIndent + 360) / 720) : 0
        if isCode(p) { return .code(index, quoteDepth: quote) }
        if p.runs.count <= 2, p.runs.reduce(0, { $0 + ($1.kind == .text ? $1.count : 0) }) <= 64, mayBeRule(p) {
            let text = p.runs.filter { $0.kind == .text }.map(string).joined().filter { !$0.isWhitespace }
            if text.count >= 3, let c = text.first, "—–-_*=".contains(c), text.allSatisfy({ $0 == c }) { return .rule }
        }
        return .paragraph(index, quoteDepth: quote)
    }

    /// False when the first character that is not white space cannot start a typed rule ("---", "***"…):
    /// checked on UTF-8 so that ordinary paragraphs skip the Character-level test.
    private func mayBeRule(_ p: RTFParagraph) -> Bool {
        for run in p.runs where run.kind == .text {
            for b in text[run.start..<run.end] {
                if b == 0x20 || (b >= 0x09 && b <= 0x0D) { continue }
                return b >= 0x80 || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b == UInt8(ascii: "*") || b == UInt8(ascii: "=")
            }
        }
        return false
    }

    private func isCode(_ p: RTFParagraph) -> Bool {
        var any = false
        for run in p.runs {
            switch run.kind {
            case .text:
                if run.link >= 0 { return false }
                if run.style.monospace { any = true } else if !RTFText.isBlank(text, run) { return false }
            case .lineBreak: continue
            default: return false
            }
        }
        return any
    }

    /// Whether a list paragraph shows a label: its `\listtext` when it has one (LibreOffice writes only a tab
    /// for a heading in its outline list), else its list level's label (``RTFListLevel/showsLabel(_:)``).
    private func showsLabel(_ p: RTFParagraph) -> Bool {
        if let marker = p.marker { return !marker.isEmpty }
        guard p.list > 0, let id = overrides[p.list], let levels = lists[id], p.level < levels.count else { return true }
        return levels[p.level].showsLabel(levels)
    }

    private func isOrdered(_ p: RTFParagraph, level: Int) -> Bool {
        if p.list > 0, let id = overrides[p.list], let levels = lists[id], level < levels.count {
            let nfc = levels[level].nfc
            return !(nfc == 23 || nfc == 255)
        }
        if let l = p.legacyLevel { return l != 10 }
        if let m = p.marker { return Self.markerNumber(m) != nil }
        return false
    }

    /// Removes a list marker typed as text ("•\t", "1.\t", "a)\t") from the start of the paragraph.
    private func textMarker(_ p: inout RTFParagraph) -> String? {
        guard let first = p.runs.first, first.kind == .text else { return nil }
        // A marker is short: look for the tab in the first bytes only.
        let head = text[first.start..<first.start + min(first.count, 24)]
        guard let tab = head.firstIndex(of: 0x09) else { return nil }
        // "-<TAB><TAB>…" is a row of tab-separated columns, not a marker before its text.
        if tab + 1 < first.end, text[tab + 1] == 0x09 { return nil }
        var markerStart = first.start
        while markerStart < tab, text[markerStart] == 0x20 { markerStart += 1 }
        let marker = String(decoding: text[markerStart..<tab], as: UTF8.self).trimmingWhitespace()
        guard !marker.isEmpty, marker.count <= 6 else { return nil }
        let bullets: Set<Character> = ["•", "·", "◦", "▪", "■", "○", "●", "-", "*", "–", "—", "\u{F0B7}", "o", "§"]
        let isBullet = marker.count == 1 && bullets.contains(marker.first!)
        let isNumber = (marker.hasSuffix(".") || marker.hasSuffix(")")) && Self.markerNumber(marker) != nil
        guard isBullet || isNumber else { return nil }
        p.runs[0].count = first.end - (tab + 1)
        p.runs[0].start = tab + 1
        return marker
    }

    /// The number of an ordered-list marker such as "3.", "(iv)" or "b)"; nil for bullets.
    static func markerNumber(_ marker: String) -> Int? {
        // Fast path for "12." / "(3)" and bullets, without building strings: the closure answers a number, a
        // definite nil (no ASCII letter or digit at all), or nil when the slow path below must decide.
        let fast: Int??? = marker.utf8.withContiguousStorageIfAvailable { u -> Int?? in
            var lo = 0
            var hi = u.count
            @inline(__always) func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
            @inline(__always) func isPunct(_ b: UInt8) -> Bool {
                b == UInt8(ascii: "(") || b == UInt8(ascii: ")") || b == UInt8(ascii: "[") || b == UInt8(ascii: "]")
                    || b == UInt8(ascii: ".") || b == UInt8(ascii: ":")
            }
            while lo < hi, isSpace(u[lo]) { lo += 1 }
            while hi > lo, isSpace(u[hi - 1]) { hi -= 1 }
            while lo < hi, isPunct(u[lo]) { lo += 1 }
            while hi > lo, isPunct(u[hi - 1]) { hi -= 1 }
            // No ASCII letter or digit: a bullet ("•", "–"), never a number.
            if !u[lo..<hi].contains(where: { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }) { return .some(nil) }
            guard hi > lo, hi - lo <= 18 else { return nil }
            var n = 0
            for k in lo..<hi {
                guard u[k] >= 0x30, u[k] <= 0x39 else { return nil }
                n = n * 10 + Int(u[k] - 0x30)
            }
            return n
        }
        if let fast, let fast { return fast }  // nil here: the slow path decides
        let trimmed = marker.trimmingWhitespace()
        let m = trimmed.trimmingCharacters("()[].:")
        if let n = Int(m) { return n }
        // A letter counts only with its delimiter ("a." or "b)"): Word's "o" is a bullet.
        if m.count == 1, trimmed.count > 1, let c = m.unicodeScalars.first, c.isASCII, c.properties.isAlphabetic {
            return Int((c.value | 0x20) - 0x60)
        }
        return nil
    }

    /// The first number of a list, in its own style: the marker as shown (`i.` is 1 in a roman list, 9 in a
    /// letter one), else the list table's or `\pnstart`'s start.
    private func startNumber(_ p: RTFParagraph, level: Int) -> Int {
        let style = listStyle(p, level: level)
        if let m = p.marker, let n = Self.markerValue(m, style) { return n }
        if p.list > 0, let id = overrides[p.list], let levels = lists[id], level < levels.count { return levels[level].start }
        return p.legacyStart ?? 1
    }

    /// How a list level numbers: the list table's `\levelnfc`, else `\pn…`'s style, else the marker's look.
    private func listStyle(_ p: RTFParagraph, level: Int) -> MarkdownListStyle {
        if p.list > 0, let id = overrides[p.list], let levels = lists[id], level < levels.count {
            switch levels[level].nfc {
            case 1: return .upperRoman
            case 2: return .lowerRoman
            case 3: return .upperAlpha
            case 4: return .lowerAlpha
            default: return .decimal
            }
        }
        if let style = p.legacyStyle { return style }
        if let m = p.marker { return Self.markerStyle(m) }
        return .decimal
    }

    /// The style a marker shows: digits decimal; `ii`, `iv`, `xi`… (and a lone `i`) roman; other letters
    /// alphabetic; the case as written.
    static func markerStyle(_ marker: String) -> MarkdownListStyle {
        let core = marker.trimmingWhitespace().trimmingCharacters("()[].:")
        guard let first = core.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return .decimal }
        let upper = first.properties.isUppercase
        let lowered = core.lowercased()
        if lowered.allSatisfy({ "ivxlcdm".contains($0) }), lowered.count > 1 || lowered == "i",
            MarkdownListStyle.lowerRoman.value(of: lowered) != nil
        {
            return upper ? .upperRoman : .lowerRoman
        }
        return upper ? .upperAlpha : .lowerAlpha
    }

    /// The number a marker stands for in `style` (`c)` → 3, `iv.` → 4, `12.` → 12); nil when it is none.
    static func markerValue(_ marker: String, _ style: MarkdownListStyle) -> Int? {
        let core = marker.trimmingWhitespace().trimmingCharacters("()[].:")
        return style.value(of: core) ?? (style == .decimal ? markerNumber(marker) : nil)
    }

    // MARK: Assembly

    /// Opens or closes block quotes so that `depth` are open (adjacent quoted blocks share their quotes).
    private func setQuoteDepth(_ depth: Int, _ open: inout Int, _ b: inout MarkdownDocument.Builder) {
        let depth = min(depth, 8)
        while open > depth {
            b.close()
            open -= 1
        }
        while open < depth {
            b.open(.blockQuote)
            open += 1
        }
    }

    @inline(__always)
    private func runs(_ items: [RTFItem], _ index: Int) -> [RTFRun] {
        if case .paragraph(let p) = items[index] { return p.runs }
        return []
    }

    private func emit(_ lines: [Line], _ items: [RTFItem], into b: inout MarkdownDocument.Builder) -> Bool {
        var any = false
        var quotes = 0
        var i = 0
        while i < lines.count {
            switch lines[i] {
            case .blank:
                i += 1
            case .rule:
                setQuoteDepth(0, &quotes, &b)
                b.append(.thematicBreak)
                any = true
                i += 1
            case .table(let rows):
                setQuoteDepth(0, &quotes, &b)
                table(rows, &b)
                any = true
                i += 1
            case .heading(let level, let index):
                setQuoteDepth(0, &quotes, &b)
                b.open(.heading(level: level))
                // A heading's weight is the heading's, not emphasis.
                emitInlines(runs(items, index), ignoringBold: true, &b)
                b.close()
                any = true
                i += 1
            case .paragraph(let index, let q):
                any = true
                i += 1
                let runs = runs(items, index)
                guard let span = trimmed(runs) else { continue }
                setQuoteDepth(q, &quotes, &b)
                b.open(.paragraph)
                emitInlines(runs, span, ignoringBold: false, &b)
                b.close()
            case .code(_, let q):
                var code: [UInt8] = []
                while i < lines.count, case .code(let index, let q2) = lines[i], q2 == q {
                    for run in runs(items, index) {
                        if run.kind == .lineBreak { code.append(0x0A) } else if run.kind == .text { code += text[run.start..<run.end] }
                    }
                    code.append(0x0A)
                    i += 1
                }
                setQuoteDepth(q, &quotes, &b)
                b.append(.codeBlock(info: "", fenced: true), literal: String(decoding: code, as: UTF8.self))
                any = true
            case .listItem:
                setQuoteDepth(0, &quotes, &b)
                var entries: [ListEntry] = []
                while i < lines.count {
                    if case .listItem(let p, let level, let ordered, let newItem) = lines[i] {
                        entries.append(ListEntry(level: level, ordered: ordered, newItem: newItem, p: p))
                        i += 1
                    } else if case .blank = lines[i], i + 1 < lines.count, case .listItem = lines[i + 1] {
                        i += 1
                    } else {
                        break
                    }
                }
                var j = 0
                while j < entries.count {
                    let base = entries[j].level
                    emitList(list(entries, &j, level: base), entries, &b)
                }
                any = true
            }
        }
        setQuoteDepth(0, &quotes, &b)
        return any
    }

    // MARK: Lists

    private struct ListEntry {
        var level: Int
        var ordered: Bool
        var newItem: Bool
        var p: RTFParagraph
    }
    private indirect enum ListChild {
        case paragraph(Int)  // index in the entries
        case list(ListNode)
    }
    private struct ListItemNode {
        /// Whether the first child is the item's own first paragraph (which may carry a task box).
        var mayBeTask: Bool
        var children: [ListChild]
    }
    private struct ListNode {
        var ordered: Bool
        var style: MarkdownListStyle
        /// `a)` rather than `a.`: what the markers show.
        var paren: Bool
        var start: Int
        var tight: Bool
        var items: [ListItemNode]
    }

    private func list(_ entries: [ListEntry], _ j: inout Int, level: Int) -> ListNode {
        let ordered = entries[j].ordered
        let style = ordered ? listStyle(entries[j].p, level: level) : .decimal
        var node = ListNode(
            ordered: ordered, style: style, paren: entries[j].p.marker?.trimmingWhitespace().hasSuffix(")") == true,
            start: startNumber(entries[j].p, level: level), tight: true, items: [])
        let listID = entries[j].p.list
        while j < entries.count {
            let e = entries[j]
            if e.level < level { break }
            if e.level > level {
                let nested = list(entries, &j, level: e.level)
                if node.items.isEmpty { node.items.append(ListItemNode(mayBeTask: false, children: [])) }
                node.items[node.items.count - 1].children.append(.list(nested))
                continue
            }
            if e.ordered != ordered && !node.items.isEmpty { break }
            // Another numbering style at the same level is another list (Word 95 `\pn` lists in a row).
            if ordered, e.newItem, !node.items.isEmpty, listStyle(e.p, level: level) != style { break }
            // Another `\ls` at the same level is another list (RTF's way of starting one: TextEdit, Word).
            if e.newItem, !node.items.isEmpty, e.p.list > 0, listID > 0, e.p.list != listID { break }
            if e.newItem || node.items.isEmpty {
                node.items.append(ListItemNode(mayBeTask: true, children: [.paragraph(j)]))
            } else {
                node.items[node.items.count - 1].children.append(.paragraph(j))
                node.tight = false
            }
            j += 1
        }
        return node
    }

    private func emitList(_ node: ListNode, _ entries: [ListEntry], _ b: inout MarkdownDocument.Builder) {
        b.open(.list(node.ordered
            ? .ordered(start: max(0, min(node.start, 999_999_999)), delimiter: node.paren ? .paren : .period, tight: node.tight, style: node.style)
            : .bullet(tight: node.tight)))
        for item in node.items {
            var children = item.children[...]
            var task: MarkdownTaskState? = nil
            var first: [RichInline]? = nil
            if item.mayBeTask, case .paragraph(let k)? = children.first, mayBeTask(entries[k].p.runs) {
                var content = inlines(entries[k].p.runs)
                if case .text(let t)? = content.first, let c = t.first, "☐☑☒".contains(c) {
                    task = c != "☐" ? .checked : .unchecked
                    let rest = String(t.dropFirst()).trimmingLeadingSpaces()
                    if rest.isEmpty { content.removeFirst() } else { content[0] = .text(rest) }
                }
                first = content
                children = children.dropFirst()
            }
            b.open(.item(task: task))
            if let first, !first.isEmpty {
                b.open(.paragraph)
                RichInline.append(first, to: &b)
                b.close()
            }
            for child in children {
                switch child {
                case .paragraph(let k):
                    let runs = entries[k].p.runs
                    if let span = trimmed(runs) {
                        b.open(.paragraph)
                        emitInlines(runs, span, ignoringBold: false, &b)
                        b.close()
                    }
                case .list(let nested):
                    emitList(nested, entries, &b)
                }
            }
            b.close()
        }
        b.close()
    }

    /// Whether the first text of the runs may be a task box (☐ U+2610, ☑ U+2611, ☒ U+2612).
    private func mayBeTask(_ runs: [RTFRun]) -> Bool {
        guard let span = trimmed(runs), runs[span.range.lowerBound].kind == .text else { return false }
        let run = runs[span.range.lowerBound]
        let start = run.start + span.skip
        return run.end - start >= 3 && text[start] == 0xE2 && text[start + 1] == 0x98 && (0x90...0x92).contains(text[start + 2])
    }

    // MARK: Tables

    private func table(_ rows: [[[RTFParagraph]]], _ b: inout MarkdownDocument.Builder) {
        // A cell holding a table, or several paragraphs, has no pipe-table form: the table is written as
        // one HTML table (which Markdown keeps as a raw block), nested tables inside their cells.
        if rows.contains(where: { $0.contains { cell in cell.contains { $0.nested != nil } || cell.filter { $0.hasText(text) }.count > 1 } }) {
            b.append(.htmlBlock, literal: htmlTable(rows, depth: 0) + "\n")
            return
        }
        let width = rows.map(\.count).max() ?? 0
        // A column is right- or center-aligned when every cell with text in it is (`\qr`, `\qc`).
        let alignments = (0..<width).map { column -> MarkdownTableAlignment in
            let seen = Set(rows.compactMap { $0.count > column ? $0[column] : nil }.flatMap { $0 }.filter { $0.hasText(text) }.map(\.alignment))
            return seen.count == 1 ? seen.first! : .none
        }
        b.open(.table(alignments: alignments))
        for (r, row) in rows.enumerated() {
            b.open(.tableRow(header: r == 0))
            for column in 0..<width {
                b.open(.tableCell)
                if column < row.count {
                    var cell: [RichInline] = []
                    for p in row[column] where p.hasText(text) {
                        if !cell.isEmpty { cell.append(.lineBreak) }
                        cell += inlines(p.runs)
                    }
                    Self.trimSpaces(&cell)
                    // Header cells are bold by presentation; the header row says as much.
                    if r == 0, cell.count == 1, case .strong(let inner) = cell[0] { cell = inner }
                    RichInline.append(cell, to: &b)
                }
                b.close()
            }
            b.close()
        }
        b.close()
    }

    /// Spaces around a cell's text ("\intbl A \cell") are not part of it.
    private static func trimSpaces(_ cell: inout [RichInline]) {
        if case .text(let t)? = cell.first {
            let trimmed = t.trimmingLeadingSpaces()
            if trimmed.isEmpty { cell.removeFirst() } else { cell[0] = .text(trimmed) }
        }
        if case .text(var t)? = cell.last {
            t.trimTrailingSpaces()
            if t.isEmpty { cell.removeLast() } else { cell[cell.count - 1] = .text(t) }
        }
    }

    /// A table as one line-broken HTML block: no blank line, no indentation (a Markdown reader keeps it
    /// whole); the first row as header cells; each cell's paragraphs, and tables nested in it.
    private func htmlTable(_ rows: [[[RTFParagraph]]], depth: Int) -> String {
        var out = "<table>"
        for (r, row) in rows.enumerated() {
            out += "<tr>"
            let tag = r == 0 && depth == 0 && rows.count > 1 ? "th" : "td"
            for cell in row {
                let alignment = Set(cell.filter { $0.hasText(text) && $0.nested == nil }.map(\.alignment))
                let align = alignment.count == 1 ? [MarkdownTableAlignment.right: " align=\"right\"", .center: " align=\"center\""][alignment.first!] ?? "" : ""
                out += "<\(tag)\(align)>"
                let paragraphs = cell.filter { $0.hasText(text) }
                for p in paragraphs {
                    if let nested = p.nested {
                        out += depth < 8 ? htmlTable(nested, depth: depth + 1) : ""
                        continue
                    }
                    var inline = inlines(p.runs)
                    Self.trimSpaces(&inline)
                    if tag == "th", inline.count == 1, case .strong(let inner) = inline[0] { inline = inner }
                    let html = inlineHTML(inline)
                    out += paragraphs.count > 1 ? "<p>\(html)</p>" : html
                }
                out += "</\(tag)>"
            }
            out += "</tr>\n"
        }
        return out + "</table>"
    }

    /// Inline content as HTML, on one line.
    private func inlineHTML(_ inlines: [RichInline]) -> String {
        var b = MarkdownDocument.Builder()
        b.open(.paragraph)
        RichInline.append(inlines, to: &b)
        b.close()
        var html = String(decoding: HTMLWriter.render(b.finish(), options: .gfm), as: UTF8.self)
        if html.hasPrefix("<p>") { html.removeFirst(3) }
        while html.hasSuffix("\n") { html.removeLast() }
        if html.hasSuffix("</p>") { html.removeLast(4) }
        return html.replacingNewlines().split(separator: "\n").joined(separator: " ")
    }

    // MARK: Inlines

    /// The runs of a paragraph that are content: blank runs at either end (and trailing line breaks) left out,
    /// and the number of leading spaces and tabs to skip in the first one. Nil when nothing is left.
    private func trimmed(_ runs: [RTFRun]) -> (range: Range<Int>, skip: Int)? {
        var lo = 0
        var hi = runs.count
        while lo < hi, runs[lo].kind == .text, RTFText.isBlank(text, runs[lo]) { lo += 1 }
        while hi > lo, runs[hi - 1].kind == .text || runs[hi - 1].kind == .lineBreak, RTFText.isBlank(text, runs[hi - 1]) { hi -= 1 }
        guard lo < hi else { return nil }
        var skip = 0
        let first = runs[lo]
        if first.kind == .text {
            while skip < first.count, text[first.start + skip] == 0x20 || text[first.start + skip] == 0x09 { skip += 1 }
            if skip > 0, skip < first.count, text[first.start + skip] >= 0x80 {
                // A combining mark may make the space part of a larger character: decide on characters.
                skip = first.count - string(first).trimmingLeadingSpaces().utf8.count
            }
        }
        return (lo..<hi, skip)
    }

    private func emitInlines(_ runs: [RTFRun], ignoringBold: Bool, _ b: inout MarkdownDocument.Builder) {
        if let span = trimmed(runs) { emitInlines(runs, span, ignoringBold: ignoringBold, &b) }
    }

    private func emitInlines(_ runs: [RTFRun], _ span: (range: Range<Int>, skip: Int), ignoringBold: Bool, _ b: inout MarkdownDocument.Builder) {
        // The common cases: text, line breaks, monospace text and links over them, written straight into the
        // document the way ``InlineAssembler`` would (it is needed only for emphasis, images and notes).
        var simple = true
        for k in span.range {
            var style = runs[k].style
            if ignoringBold { style.bold = false }
            style.monospace = false
            if runs[k].link >= 0 { style.underline = false }  // as in `inlines`: links are underlined by style
            if style != RTFRunStyle() || (runs[k].kind != .text && runs[k].kind != .lineBreak) {
                simple = false
                break
            }
        }
        if simple {
            text.withUnsafeBufferPointer { buf in
                var k = span.range.lowerBound
                while k < span.range.upperBound {
                    // A stretch of runs with the same link (by URL, as InlineAssembler groups them), or with none.
                    let url = runs[k].link >= 0 ? links[Int(runs[k].link)] : nil
                    var end = k + 1
                    while end < span.range.upperBound,
                        runs[end].link == runs[k].link || (runs[end].link >= 0 ? links[Int(runs[end].link)] : nil) == url
                    {
                        end += 1
                    }
                    if let url { b.open(.link(destination: url, title: "")) }
                    emitSimple(runs, k..<end, skip: k == span.range.lowerBound ? span.skip : 0, buf, &b)
                    if url != nil { b.close() }
                    k = end
                }
            }
            return
        }
        RichInline.append(inlines(runs, span, ignoringBold: ignoringBold), to: &b)
    }

    /// Text, line breaks and monospace runs (adjacent ones joined into one code span, its outer white space
    /// left as text), as ``InlineAssembler`` writes them.
    private func emitSimple(
        _ runs: [RTFRun], _ range: Range<Int>, skip: Int, _ buf: UnsafeBufferPointer<UInt8>, _ b: inout MarkdownDocument.Builder
    ) {
        var k = range.lowerBound
        while k < range.upperBound {
            let run = runs[k]
            let skip = k == range.lowerBound ? skip : 0
            if run.kind == .lineBreak {
                b.appendLineBreak()
                k += 1
            } else if !run.style.monospace {
                b.appendTextBytes(UnsafeBufferPointer(rebasing: buf[run.start + skip..<run.end]))
                k += 1
            } else {
                var code = String(decoding: buf[run.start + skip..<run.end], as: UTF8.self)
                k += 1
                while k < range.upperBound, runs[k].kind == .text, runs[k].style.monospace {
                    code += String(decoding: buf[runs[k].start..<runs[k].end], as: UTF8.self)
                    k += 1
                }
                let (lead, body, trail) = InlineAssembler.splitSpaces([.text(code)])
                if !lead.isEmpty { b.appendText(lead) }
                if case .text(let t)? = body.first { b.append(.code, literal: t) }
                if !trail.isEmpty { b.appendText(trail) }
            }
        }
    }

    func inlines(_ runs: [RTFRun]) -> [RichInline] {
        guard let span = trimmed(runs) else { return [] }
        return inlines(runs, span, ignoringBold: false)
    }

    private func inlines(_ runs: [RTFRun], _ span: (range: Range<Int>, skip: Int), ignoringBold: Bool) -> [RichInline] {
        var segments: [InlineAssembler.Segment] = []
        segments.reserveCapacity(span.range.count)
        var underline = false
        for k in span.range {
            var run = runs[k]
            if k == span.range.lowerBound, run.kind == .text {
                run.start += span.skip
                run.count -= span.skip
            }
            if ignoringBold { run.style.bold = false }
            let link = run.link >= 0 ? links[Int(run.link)] : nil
            // Links are underlined by presentation (Word's and LibreOffice's link character styles say so).
            if link != nil { run.style.underline = false }
            underline = underline || run.style.underline
            switch run.kind {
            case .text: segments.append(.init(inline: nil, text: string(run), style: run.style, link: link))
            case .lineBreak: segments.append(.init(inline: .lineBreak, text: "", style: run.style, link: link))
            case .image:
                let image = images[run.start]
                segments.append(.init(inline: .image(source: "", title: "", alt: "", data: image.data, mediaType: image.type),
                    text: "", style: run.style, link: link))
            case .footnoteReference:
                segments.append(.init(inline: .footnoteReference(String(run.start)), text: "", style: RTFRunStyle(), link: nil))
            }
        }
        // The common case: one plain run.
        if segments.count == 1, segments[0].inline == nil, segments[0].link == nil, segments[0].style == RTFRunStyle() {
            return [.text(segments[0].text)]
        }
        let inlines = InlineAssembler.assemble(segments)
        return underline ? Self.underlineAsHTML(inlines) : inlines
    }

    /// Underline has no Markdown form. pandoc (`-f rtf -t gfm`) keeps it as raw HTML, `<u>…</u>`; so do we.
    static func underlineAsHTML(_ inlines: [RichInline]) -> [RichInline] {
        var out: [RichInline] = []
        for x in inlines {
            switch x {
            case .underline(let c):
                out.append(.html("<u>"))
                out += underlineAsHTML(c)
                out.append(.html("</u>"))
            case .emphasis(let c): out.append(.emphasis(underlineAsHTML(c)))
            case .strong(let c): out.append(.strong(underlineAsHTML(c)))
            case .strikethrough(let c): out.append(.strikethrough(underlineAsHTML(c)))
            case .superscript(let c): out.append(.superscript(underlineAsHTML(c)))
            case .subscript(let c): out.append(.subscript(underlineAsHTML(c)))
            case .link(let destination, let title, let c): out.append(.link(destination: destination, title: title, underlineAsHTML(c)))
            default: out.append(x)
            }
        }
        return out
    }
}

/// Byte-level tests on the parser's text buffer.
enum RTFText {
    /// A line break, or a text run of only spaces, tabs, line breaks and no-break spaces (``BlankText``).
    static func isBlank(_ text: [UInt8], _ run: RTFRun) -> Bool {
        guard run.kind == .text else { return run.kind == .lineBreak }
        // Through a buffer pointer: an ArraySlice would retain and release the buffer on every call.
        return text.withUnsafeBufferPointer { buf in
            precondition(run.start >= 0 && run.end <= buf.count, "run outside the text buffer")
            return BlankText.isBlank(UnsafeBufferPointer(rebasing: buf[run.start..<run.end]))
        }
    }
}

/// Builds nested inlines from flat, styled runs (RTF runs, HTML text with computed styles).
enum InlineAssembler {
    struct Segment {
        /// A finished inline (break, image…), or nil for text.
        var inline: RichInline?
        var text: String
        var style: RTFRunStyle
        var link: String?
    }

    private enum Flag: CaseIterable { case bold, italic, strike, underline, superscript, `subscript` }

    private static func has(_ s: RTFRunStyle, _ f: Flag) -> Bool {
        switch f {
        case .bold: return s.bold
        case .italic: return s.italic
        case .strike: return s.strike
        case .underline: return s.underline
        case .superscript: return s.vertical > 0
        case .subscript: return s.vertical < 0
        }
    }
    private static func clear(_ s: inout RTFRunStyle, _ f: Flag) {
        switch f {
        case .bold: s.bold = false
        case .italic: s.italic = false
        case .strike: s.strike = false
        case .underline: s.underline = false
        case .superscript, .subscript: s.vertical = 0
        }
    }

    static func assemble(_ segments: [Segment]) -> [RichInline] {
        var out: [RichInline] = []
        var i = 0
        while i < segments.count {
            if let link = segments[i].link {
                var j = i
                var inner: [Segment] = []
                while j < segments.count, segments[j].link == link {
                    var s = segments[j]
                    s.link = nil
                    inner.append(s)
                    j += 1
                }
                out.append(.link(destination: link, title: "", styled(inner)))
                i = j
            } else {
                var j = i
                while j < segments.count, segments[j].link == nil { j += 1 }
                out += styled(Array(segments[i..<j]))
                i = j
            }
        }
        return merged(out)
    }

    private static func styled(_ segments: [Segment]) -> [RichInline] {
        var out: [RichInline] = []
        var i = 0
        while i < segments.count {
            let s = segments[i]
            // Pick the formatting flag that spans the most segments from here: it becomes the outer node.
            var best: (Flag, Int)? = nil
            for f in Flag.allCases where has(s.style, f) {
                var j = i
                while j < segments.count, has(segments[j].style, f) { j += 1 }
                if best == nil || j - i > best!.1 { best = (f, j - i) }
            }
            if let (flag, length) = best {
                var inner = Array(segments[i..<i + length])
                for k in inner.indices { clear(&inner[k].style, flag) }
                let content = styled(inner)
                // Emphasis cannot begin or end with white space in Markdown: move it outside.
                let (lead, body, trail) = splitSpaces(content)
                if !lead.isEmpty { out.append(.text(lead)) }
                if !body.isEmpty {
                    switch flag {
                    case .bold: out.append(.strong(body))
                    case .italic: out.append(.emphasis(body))
                    case .strike: out.append(.strikethrough(body))
                    case .underline: out.append(.underline(body))
                    case .superscript: out.append(.superscript(body))
                    case .subscript: out.append(.subscript(body))
                    }
                }
                if !trail.isEmpty { out.append(.text(trail)) }
                i += length
            } else if let inline = s.inline {
                out.append(inline)
                i += 1
            } else if s.style.monospace {
                var text = ""
                var j = i
                while j < segments.count, segments[j].inline == nil, segments[j].style == s.style {
                    text += segments[j].text
                    j += 1
                }
                let (lead, body, trail) = splitSpaces([.text(text)])
                if !lead.isEmpty { out.append(.text(lead)) }
                if case .text(let t)? = body.first { out.append(.code(t)) }
                if !trail.isEmpty { out.append(.text(trail)) }
                i = j
            } else {
                out.append(.text(s.text))
                i += 1
            }
        }
        return out
    }

    /// Leading and trailing white space of a run of inlines, split off.
    static func splitSpaces(_ content: [RichInline]) -> (String, [RichInline], String) {
        var body = content
        // Fast path on UTF-8: spaces, tabs and U+00A0 at either end, when the bytes next to them are ASCII
        // (so the cut is a character boundary); anything else takes the Character-based path below.
        @inline(__always) func leadCut(_ t: String) -> Int? {
            var t = t
            return t.withUTF8 { buf -> Int? in
                var k = 0
                while k < buf.count {
                    if buf[k] == 0x20 || buf[k] == 0x09 { k += 1 } else if buf[k] == 0xC2, k + 1 < buf.count, buf[k + 1] == 0xA0 { k += 2 } else { break }
                }
                if k < buf.count, buf[k] >= 0x80 { return nil }
                return k
            }
        }
        @inline(__always) func trailCut(_ t: String) -> Int? {
            var t = t
            return t.withUTF8 { buf -> Int? in
                var k = buf.count
                while k > 0 {
                    if buf[k - 1] == 0x20 || buf[k - 1] == 0x09 { k -= 1 } else if k >= 2, buf[k - 1] == 0xA0, buf[k - 2] == 0xC2 { k -= 2 } else { break }
                }
                if k > 0, buf[k - 1] >= 0x80 { return nil }
                if k < buf.count, k > 0, buf[k] == 0xC2 { return nil }  // keep U+00A0 after a combining sequence exact
                return k
            }
        }
        var fastLead = ""
        var fastTrail = ""
        var fast = true
        if case .text(let t)? = body.first {
            if let k = leadCut(t) {
                if k > 0 {
                    let u = t.utf8
                    fastLead = String(Substring(u[u.startIndex..<u.index(u.startIndex, offsetBy: k)]))
                    let rest = String(Substring(u[u.index(u.startIndex, offsetBy: k)...]))
                    if rest.isEmpty { body.removeFirst() } else { body[0] = .text(rest) }
                }
            } else {
                fast = false
            }
        }
        if fast, case .text(let t)? = body.last {
            if let k = trailCut(t) {
                if k < t.utf8.count {
                    let u = t.utf8
                    let cut = u.index(u.startIndex, offsetBy: k)
                    fastTrail = String(Substring(u[cut...]))
                    let kept = String(Substring(u[..<cut]))
                    if kept.isEmpty { body.removeLast() } else { body[body.count - 1] = .text(kept) }
                }
                return (fastLead, body, fastTrail)
            }
            body = content  // redo both ends the slow way
        } else if fast {
            return (fastLead, body, fastTrail)
        }
        var lead = ""
        var trail = ""
        if case .text(let t)? = body.first {
            let stripped = String(t.drop { $0 == " " || $0 == "\t" || $0 == "\u{A0}" })
            lead = String(t.prefix(t.count - stripped.count))
            if stripped.isEmpty { body.removeFirst() } else { body[0] = .text(stripped) }
        }
        if case .text(let t)? = body.last {
            var end = t.endIndex
            while end > t.startIndex, case let c = t[t.index(before: end)], c == " " || c == "\t" || c == "\u{A0}" { end = t.index(before: end) }
            trail = String(t[end...])
            let kept = String(t[..<end])
            if kept.isEmpty { body.removeLast() } else { body[body.count - 1] = .text(kept) }
        }
        return (lead, body, trail)
    }

    /// Adjacent text nodes joined.
    static func merged(_ inlines: [RichInline]) -> [RichInline] {
        var out: [RichInline] = []
        for x in inlines {
            if case .text(let b) = x, case .text? = out.last, case .text(var a) = out.removeLast() {
                a += b  // `a` is the only reference once removed: appended in place
                out.append(.text(a))
            } else {
                out.append(x)
            }
        }
        return out
    }
}

/// Turns the RTF reader's flat paragraph list into blocks: headings (by `\outlinelevel`, or by a bold, larger
/// font when the document has no outline levels), lists (by `\ls`/`\ilvl` or legacy `\pn`, with `\listtext`
/// markers telling new items from continuation paragraphs), code blocks (runs of monospace paragraphs),
/// tables, thematic breaks and indented quotes.
struct RTFBlockBuilder {
    let items: [RTFItem]
    let footnotes: [[RTFItem]]
    let lists: [Int: [(nfc: Int, start: Int)]]
    let overrides: [Int: Int]
    let bodyFontSize: Int
    private var headingSizes: [Int] = []
    private var useOutline = false

    init(items: [RTFItem], footnotes: [[RTFItem]], lists: [Int: [(nfc: Int, start: Int)]], overrides: [Int: Int], bodyFontSize: Int) {
        self.items = items
        self.footnotes = footnotes
        self.lists = lists
        self.overrides = overrides
        self.bodyFontSize = bodyFontSize
    }

    private enum Line {
        case blank
        case paragraph(RTFParagraph, quoteDepth: Int)
        case heading(Int, RTFParagraph)
        case code(String, quoteDepth: Int)
        case rule
        case listItem(RTFParagraph, level: Int, ordered: Bool, newItem: Bool)
        case table(RichBlock)
    }

    mutating func build() -> [RichBlock] {
        useOutline = items.contains {
            if case .paragraph(let p) = $0, let o = p.outlineLevel, o < 6, p.hasText { return true }
            return false
        }
        if !useOutline {
            var sizes = Set<Int>()
            for case .paragraph(let p) in items where sizeHeadingCandidate(p) != nil { sizes.insert(sizeHeadingCandidate(p)!) }
            headingSizes = sizes.sorted(by: >)
        }
        var blocks = assemble(items)
        for (i, note) in footnotes.enumerated() {
            blocks.append(.footnoteDefinition(label: String(i + 1), assemble(note)))
        }
        return blocks
    }

    private func assemble(_ items: [RTFItem]) -> [RichBlock] {
        var lines: [Line] = []
        var listHasMarkers: [Int: Bool] = [:]
        for case .paragraph(let p) in items where p.list > 0 && p.marker != nil { listHasMarkers[p.list] = true }
        for item in items {
            switch item {
            case .table(let rows, _):
                lines.append(.table(table(rows)))
            case .paragraph(let p):
                lines.append(classify(p, listHasMarkers: listHasMarkers))
            }
        }
        return blocks(lines)
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
                if run.text.isBlank { continue }
                size = max(size, run.size)
                count += run.text.utf8.count
                if !run.style.bold { allBold = false }
            case .lineBreak: return nil
            default: continue
            }
        }
        guard count > 0, count <= 400 else { return nil }
        if size >= bodyFontSize + 4 && (allBold || size >= bodyFontSize * 3 / 2) { return size }
        return nil
    }

    private func classify(_ paragraph: RTFParagraph, listHasMarkers: [Int: Bool]) -> Line {
        var p = paragraph
        if !p.hasText && p.marker == nil {
            return p.borderBottom ? .rule : .blank
        }
        if p.marker == nil, p.list == 0, p.legacyLevel == nil, let marker = Self.textMarker(&p) {
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
            let newItem = p.marker != nil || (p.list > 0 && listHasMarkers[p.list] != true) || (p.list == 0)
            return .listItem(p, level: level, ordered: ordered, newItem: newItem)
        }
        if useOutline, let o = p.outlineLevel, o < 6 { return .heading(o + 1, p) }
        if !useOutline, let size = sizeHeadingCandidate(p), let rank = headingSizes.firstIndex(of: size) {
            return .heading(min(6, rank + 1), p)
        }
        let quote = p.leftIndent >= 360 ? max(1, (p.leftIndent + 360) / 720) : 0
        if isCode(p) { return .code(codeText(p), quoteDepth: quote) }
        if p.runs.count <= 2, p.runs.reduce(0, { $0 + $1.text.utf8.count }) <= 64, Self.mayBeRule(p) {
            let text = p.runs.filter { $0.kind == .text }.map(\.text).joined().filter { !$0.isWhitespace }
            if text.count >= 3, let c = text.first, "—–-_*=".contains(c), text.allSatisfy({ $0 == c }) { return .rule }
        }
        return .paragraph(p, quoteDepth: quote)
    }

    /// False when the first character that is not white space cannot start a typed rule ("---", "***"…):
    /// checked on UTF-8 so that ordinary paragraphs skip the Character-level test.
    private static func mayBeRule(_ p: RTFParagraph) -> Bool {
        for run in p.runs where run.kind == .text {
            for b in run.text.utf8 {
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
                if run.link != nil { return false }
                if run.style.monospace { any = true } else if !run.text.isBlank { return false }
            case .lineBreak: continue
            default: return false
            }
        }
        return any
    }

    private func codeText(_ p: RTFParagraph) -> String {
        var s = ""
        for run in p.runs {
            if run.kind == .lineBreak { s += "\n" } else if run.kind == .text { s += run.text }
        }
        return s
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
    static func textMarker(_ p: inout RTFParagraph) -> String? {
        guard let first = p.runs.first, first.kind == .text else { return nil }
        // A marker is short: look for the tab in the first bytes only.
        guard first.text.utf8.prefix(24).contains(0x09) else { return nil }
        let text = first.text.drop { $0 == " " }
        guard let tab = text.firstIndex(of: "\t") else { return nil }
        let marker = String(text[..<tab]).trimmingWhitespace()
        guard !marker.isEmpty, marker.count <= 6 else { return nil }
        let bullets: Set<Character> = ["•", "·", "◦", "▪", "■", "○", "●", "-", "*", "–", "—", "\u{F0B7}", "o", "§"]
        let isBullet = marker.count == 1 && bullets.contains(marker.first!)
        let isNumber = (marker.hasSuffix(".") || marker.hasSuffix(")")) && markerNumber(marker) != nil
        guard isBullet || isNumber else { return nil }
        p.runs[0].text = String(text[text.index(after: tab)...])
        return marker
    }

    /// The number of an ordered-list marker such as "3.", "(iv)" or "b)"; nil for bullets.
    static func markerNumber(_ marker: String) -> Int? {
        let trimmed = marker.trimmingWhitespace()
        let m = trimmed.trimmingCharacters("()[].:")
        if let n = Int(m) { return n }
        // A letter counts only with its delimiter ("a." or "b)"): Word's "o" is a bullet.
        if m.count == 1, trimmed.count > 1, let c = m.unicodeScalars.first, c.isASCII, c.properties.isAlphabetic {
            return Int((c.value | 0x20) - 0x60)
        }
        return nil
    }

    private func startNumber(_ p: RTFParagraph, level: Int) -> Int {
        if let m = p.marker, let n = Self.markerNumber(m) { return n }
        if p.list > 0, let id = overrides[p.list], let levels = lists[id], level < levels.count { return levels[level].start }
        return p.legacyStart ?? 1
    }

    // MARK: Assembly

    private func blocks(_ lines: [Line]) -> [RichBlock] {
        var out: [RichBlock] = []
        var i = 0
        while i < lines.count {
            switch lines[i] {
            case .blank:
                i += 1
            case .rule:
                out.append(.thematicBreak)
                i += 1
            case .table(let t):
                out.append(t)
                i += 1
            case .heading(let level, let p):
                // A heading's weight is the heading's, not emphasis.
                var runs = p.runs
                for k in runs.indices { runs[k].style.bold = false }
                out.append(.heading(level: level, inlines(runs)))
                i += 1
            case .paragraph(let p, let q):
                out.append(quoted(.paragraph(inlines(p.runs)), depth: q))
                i += 1
            case .code(_, let q):
                var code = ""
                while i < lines.count, case .code(let text, let q2) = lines[i], q2 == q {
                    code += text
                    code += "\n"
                    i += 1
                }
                out.append(quoted(.codeBlock(info: "", code: code), depth: q))
            case .listItem:
                var entries: [(level: Int, ordered: Bool, newItem: Bool, p: RTFParagraph)] = []
                while i < lines.count {
                    if case .listItem(let p, let level, let ordered, let newItem) = lines[i] {
                        entries.append((level, ordered, newItem, p))
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
                    out.append(list(entries, &j, level: base))
                }
            }
        }
        return mergeQuotes(out)
    }

    private func quoted(_ block: RichBlock, depth: Int) -> RichBlock {
        var b = block
        for _ in 0..<min(depth, 8) { b = .blockQuote([b]) }
        return b
    }

    /// Adjacent block quotes become one quote.
    private func mergeQuotes(_ blocks: [RichBlock]) -> [RichBlock] {
        var out: [RichBlock] = []
        for b in blocks {
            if case .blockQuote(let inner) = b, case .blockQuote(let previous)? = out.last {
                out[out.count - 1] = .blockQuote(mergeQuotes(previous + inner))
            } else {
                out.append(b)
            }
        }
        return out
    }

    private func list(_ entries: [(level: Int, ordered: Bool, newItem: Bool, p: RTFParagraph)], _ j: inout Int, level: Int) -> RichBlock {
        let ordered = entries[j].ordered
        let start = startNumber(entries[j].p, level: level)
        var items: [RichListItem] = []
        var tight = true
        while j < entries.count {
            let e = entries[j]
            if e.level < level { break }
            if e.level > level {
                let nested = list(entries, &j, level: e.level)
                if items.isEmpty { items.append(RichListItem(task: nil, blocks: [])) }
                items[items.count - 1].blocks.append(nested)
                continue
            }
            if e.ordered != ordered && !items.isEmpty { break }
            var content = inlines(e.p.runs)
            if e.newItem || items.isEmpty {
                var task: Bool? = nil
                if case .text(let t)? = content.first, let c = t.first, "☐☑☒".contains(c) {
                    task = c != "☐"
                    let rest = String(t.dropFirst()).trimmingLeadingSpaces()
                    if rest.isEmpty { content.removeFirst() } else { content[0] = .text(rest) }
                }
                items.append(RichListItem(task: task, blocks: [.paragraph(content)]))
            } else {
                items[items.count - 1].blocks.append(.paragraph(content))
                tight = false
            }
            j += 1
        }
        return .list(ordered: ordered, start: start, tight: tight, items: items)
    }

    private func table(_ rows: [[[RTFParagraph]]]) -> RichBlock {
        let width = rows.map(\.count).max() ?? 0
        func cell(_ paragraphs: [RTFParagraph]) -> [RichInline] {
            var out: [RichInline] = []
            for p in paragraphs where p.hasText {
                if !out.isEmpty { out.append(.lineBreak) }
                out += inlines(p.runs)
            }
            return out
        }
        var cells = rows.map { row -> [[RichInline]] in
            var r = row.map(cell)
            while r.count < width { r.append([]) }
            return r
        }
        var header = cells.isEmpty ? [] : cells.removeFirst()
        // Header cells are bold by presentation; the header row says as much.
        header = header.map { cell in
            if cell.count == 1, case .strong(let inner) = cell[0] { return inner }
            return cell
        }
        return .table(alignments: Array(repeating: .none, count: width), header: header, rows: cells)
    }

    // MARK: Inlines

    func inlines(_ runs: [RTFRun]) -> [RichInline] {
        var trimmed = runs
        // Leading and trailing white space of a paragraph is not content.
        while let f = trimmed.first, f.kind == .text, f.text.isBlank { trimmed.removeFirst() }
        while let l = trimmed.last, l.kind == .text || l.kind == .lineBreak, l.text.isBlank { trimmed.removeLast() }
        if let f = trimmed.first, f.kind == .text, f.text.utf8.first == 0x20 || f.text.utf8.first == 0x09 {
            trimmed[0].text = f.text.trimmingLeadingSpaces()
        }
        // The common case: one plain run.
        if trimmed.count == 1, trimmed[0].kind == .text, trimmed[0].link == nil, trimmed[0].style == RTFRunStyle() {
            return [.text(trimmed[0].text)]
        }
        return InlineAssembler.assemble(trimmed.map { run in
            switch run.kind {
            case .text: return .init(inline: nil, text: run.text, style: run.style, link: run.link)
            case .lineBreak: return .init(inline: .lineBreak, text: "", style: run.style, link: run.link)
            case .image:
                return .init(inline: .image(source: "", title: "", alt: "", data: run.imageData, mediaType: run.imageType),
                    text: "", style: run.style, link: run.link)
            case .footnoteReference:
                return .init(inline: .footnoteReference(run.text), text: "", style: RTFRunStyle(), link: nil)
            }
        })
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

extension String {
    func trimmingLeadingSpaces() -> String { String(drop { $0 == " " || $0 == "\t" }) }
    func trimmingCharacters(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

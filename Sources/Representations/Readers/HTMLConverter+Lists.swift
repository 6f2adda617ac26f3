import Markdown

// The converter's lists: HTML lists (Google Docs' sibling nesting, task checkboxes, tight or loose) and
// Microsoft Word's `MsoListParagraph` paragraphs (`mso-list:lN levelM`) assembled into nested lists.

extension HTMLConverter {
    mutating func list(_ node: HTMLNode, _ inherited: Inherited) -> RichBlock {
        let ordered = node.tag == .ol
        var start = 1
        if ordered, let s = node.attribute("start"), let n = Int(s.trimmingWhitespace()) { start = n }
        // `<ol type="a">`, or CSS `list-style-type: lower-roman` (LibreOffice and Word write the latter).
        var style = MarkdownListStyle.decimal
        if ordered {
            if let type = node.attribute("type")?.trimmingWhitespace() {
                style = MarkdownListStyle.allCases.first { $0.htmlType == type } ?? .decimal
            }
            if let css = node.attribute("style")?.lowercased(), let found = Self.cssListStyle(css) { style = found }
        }
        return list(ordered: ordered, start: start, children: node.children, inherited, style: style)
    }

    /// `list-style-type` (or the `list-style` shorthand) in a style attribute.
    static func cssListStyle(_ css: String) -> MarkdownListStyle? {
        let names: [(String, MarkdownListStyle)] = [
            ("lower-alpha", .lowerAlpha), ("lower-latin", .lowerAlpha), ("upper-alpha", .upperAlpha), ("upper-latin", .upperAlpha),
            ("lower-roman", .lowerRoman), ("upper-roman", .upperRoman), ("decimal", .decimal),
        ]
        guard css.contains("list-style") else { return nil }
        return names.first { css.contains($0.0) }?.1
    }

    mutating func list(
        ordered: Bool, start: Int, children: some Sequence<HTMLNode>, _ inherited: Inherited, style: MarkdownListStyle = .decimal
    ) -> RichBlock {
        var items: [RichListItem] = []
        var tight = true
        for child in children {
            if child.kind == .text && child.isBlankText { continue }
            if child.kind == .comment { continue }
            if child.kind == .element && (child.name == "ul" || child.name == "ol") {
                // Google Docs nests lists as siblings of the items.
                let nested = list(child, inherited)
                if items.isEmpty { items.append(RichListItem(task: nil, blocks: [])) }
                items[items.count - 1].blocks.append(nested)
                continue
            }
            let isItem = child.kind == .element && child.tag == .li
            if !isItem && !items.isEmpty {
                // stray content: belongs to the previous item, or a new one
                let extra = collect { $0.visit(child, inherited) }
                items[items.count - 1].blocks += extra
                continue
            }
            var content = isItem ? collect { $0.blockChildren(child, inherited) } : collect { $0.visit(child, inherited) }
            var task: Bool? = nil
            if case .paragraph(var p)? = content.first, case .text(let t)? = p.first, let c = t.first, c == "\u{2610}" || c == "\u{2611}" {
                task = c == "\u{2611}"
                let rest = String(t.dropFirst()).trimmingLeadingSpaces()
                if rest.isEmpty { p.removeFirst() } else { p[0] = .text(rest) }
                content[0] = .paragraph(p)
            }
            var paragraphs = 0
            for b in content { if case .paragraph = b { paragraphs += 1 } }
            if paragraphs > 1 { tight = false }
            // <li><p>…</p></li> is a loose item (unless the <p> is presentational, as Google Docs and
            // LibreOffice write it).
            func plainParagraph(_ n: HTMLNode) -> Bool {
                n.kind == .element && n.tag == .p && n.attribute("role") == nil && n.attribute("style") == nil && n.attribute("class") == nil
            }
            if isItem ? child.children.contains(where: plainParagraph) : plainParagraph(child) {
                tight = false
            }
            items.append(RichListItem(task: task, blocks: content))
        }
        return .list(ordered: ordered, start: start, tight: tight, items: items, style: style)
    }

    /// `mso-list:l0 level2 lfo1` → ("l0", 1).
    func wordListInfo(_ node: HTMLNode) -> (String, Int)? {
        guard let raw = node.attribute("style"), ASCIICSS.contains(raw, lowercased: "mso-list:") != false else { return nil }
        let style = raw.lowercased()
        guard let r = style.firstRange(of: "mso-list:") else { return nil }
        let value = style[r.upperBound...].prefix { $0 != ";" }.trimmingWhitespace()
        if value.hasPrefix("ignore") || value.hasPrefix("none") { return nil }
        let parts = value.split(separator: " ")
        guard let list = parts.first, list.hasPrefix("l") else { return nil }
        var level = 0
        for p in parts where p.hasPrefix("level") { level = max(0, (Int(p.dropFirst(5)) ?? 1) - 1) }
        return (String(list), min(level, 8))
    }

    /// The marker text of a Word list paragraph (inside `mso-list:Ignore`), removing it from the tree.
    func wordMarker(_ node: HTMLNode) -> String? {
        var found: String? = nil
        func walk(_ n: HTMLNode, depth: Int) -> Bool {
            guard depth < 64 else { return false }
            for c in n.children where c.kind == .element {
                if let raw = c.attribute("style"),
                    ASCIICSS.contains(String(decoding: raw.utf8.filter { $0 != 0x20 }, as: UTF8.self), lowercased: "mso-list:ignore")
                        ?? raw.lowercased().replacingOccurrences(" ", "").contains("mso-list:ignore")
                {
                    found = plainText(c).trimmingWhitespace()
                    n.tree.remove(c)
                    return true
                }
                if walk(c, depth: depth + 1) { return true }
            }
            return false
        }
        _ = walk(node, depth: 0)
        if let f = found {
            return String(f.filter { $0 != "\u{A0}" })
        }
        return nil
    }

    mutating func flushWordList() {
        guard !wordList.isEmpty else { return }
        let entries = wordList
        wordList = []
        var j = 0
        while j < entries.count {
            blocks.append(wordListBlock(entries, &j, level: entries[j].level))
        }
    }

    private func wordListBlock(
        _ entries: [(list: String, level: Int, ordered: Bool, start: Int, style: MarkdownListStyle, content: [RichInline])], _ j: inout Int,
        level: Int
    ) -> RichBlock {
        let ordered = entries[j].ordered
        let start = entries[j].start
        let style = entries[j].style
        var items: [RichListItem] = []
        while j < entries.count {
            let e = entries[j]
            if e.level < level { break }
            if e.level > level {
                let nested = wordListBlock(entries, &j, level: e.level)
                if items.isEmpty { items.append(RichListItem(task: nil, blocks: [])) }
                items[items.count - 1].blocks.append(nested)
                continue
            }
            if e.ordered != ordered && !items.isEmpty { break }
            items.append(RichListItem(task: nil, blocks: e.content.isEmpty ? [] : [.paragraph(e.content)]))
            j += 1
        }
        return .list(ordered: ordered, start: start, tight: true, items: items, style: style)
    }
}

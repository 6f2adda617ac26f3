// The converter's tables: GFM tables when every cell is inline content, else the table as HTML.

extension HTMLConverter {
    mutating func table(_ node: HTMLNode, _ inherited: Inherited) -> RichBlock {
        var rows: [(header: Bool, cells: [HTMLNode])] = []
        var fits = true
        func collectRows(_ n: HTMLNode, inHead: Bool, depth: Int) {
            for c in n.children where c.kind == .element {
                switch c.name {
                case "thead": collectRows(c, inHead: true, depth: depth + 1)
                case "tbody", "tfoot": collectRows(c, inHead: false, depth: depth + 1)
                case "tr":
                    let cells = c.children.filter { $0.kind == .element && ($0.name == "td" || $0.name == "th") }
                    rows.append((inHead || (!cells.isEmpty && cells.allSatisfy { $0.name == "th" }), cells))
                case "caption", "colgroup", "col": break
                default: if depth < 4 { collectRows(c, inHead: inHead, depth: depth + 1) }
                }
            }
        }
        collectRows(node, inHead: false, depth: 0)
        guard !rows.isEmpty else { return .paragraph([]) }
        // Cells with block content or spans cannot be GFM cells: keep the table as HTML without converting
        // its cells first (that would convert nested tables once per level).
        func hasBlock(_ n: HTMLNode, _ depth: Int) -> Bool {
            if depth > 64 { return true }
            for c in n.children where c.kind == .element {
                switch c.name {
                case "table", "ul", "ol", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "dl": return true
                default: if hasBlock(c, depth + 1) { return true }
                }
            }
            return false
        }
        for row in rows {
            for cell in row.cells {
                if (cell.attribute("colspan").flatMap { Int($0) } ?? 1) > 1 || (cell.attribute("rowspan").flatMap { Int($0) } ?? 1) > 1
                    || hasBlock(cell, 0)
                {
                    return .html(HTMLSerializer.serialize(node))
                }
            }
        }
        var cells: [[[RichInline]]] = []
        var alignments: [RichAlignment] = []
        for row in rows {
            var r: [[RichInline]] = []
            for cell in row.cells {
                if let span = cell.attribute("colspan").flatMap({ Int($0) }), span > 1 { fits = false }
                if let span = cell.attribute("rowspan").flatMap({ Int($0) }), span > 1 { fits = false }
                let content = collect { $0.blockChildren(cell, inherited) }
                var inlines: [RichInline] = []
                for b in content {
                    switch b {
                    case .paragraph(let p):
                        if !inlines.isEmpty { inlines.append(.lineBreak) }
                        inlines += p
                    default:
                        fits = false
                    }
                }
                r.append(inlines)
                if cells.isEmpty {
                    switch (cell.attribute("align") ?? cell.attribute("style").flatMap(Self.textAlign) ?? "").lowercased() {
                    case "left": alignments.append(.left)
                    case "center": alignments.append(.center)
                    case "right": alignments.append(.right)
                    default: alignments.append(.none)
                    }
                }
            }
            cells.append(r)
        }
        let width = cells.map(\.count).max() ?? 0
        guard fits, width > 0 else { return .html(HTMLSerializer.serialize(node)) }
        while alignments.count < width { alignments.append(.none) }
        cells = cells.map { r in r + Array(repeating: [], count: width - r.count) }
        // A caption has no place in a pipe table: it stands as a paragraph just before the table, as
        // browsers show it above (in HTML kept raw, the <caption> itself stays).
        if let caption = node.children.first(where: { $0.kind == .element && $0.name == "caption" }) {
            let inlines = inlineContent(caption, inherited)
            if !inlines.isEmpty { emit(.paragraph(inlines)) }
        }
        // Header cells are bold by presentation (LibreOffice, Word); the header row says as much.
        let header = cells.removeFirst().map { cell -> [RichInline] in
            if cell.count == 1, case .strong(let inner) = cell[0] { return inner }
            return cell
        }
        return .table(alignments: alignments, header: header, rows: cells)
    }
}

// The converter's tables: GFM tables when every cell is inline content, else the table as HTML; captions
// as paragraphs beside the table.

extension HTMLConverter {
    /// Emits a table with its caption: a pipe table has no place for one, so the caption stands as a
    /// paragraph where browsers show it, above the table (below for `<caption align="bottom">` or
    /// `caption-side: bottom`). A table HTML keeps holds its `<caption>` itself. Without a caption, the
    /// HTML 4 `summary` attribute (which said what the table is, for readers that cannot see it) is one.
    mutating func table(_ node: HTMLNode, _ inherited: Inherited) {
        var rows: [(header: Bool, cells: [HTMLNode])] = []
        var captions: [HTMLNode] = []
        func collectRows(_ n: HTMLNode, inHead: Bool, depth: Int) {
            for c in n.children where c.kind == .element {
                switch c.name {
                case "thead": collectRows(c, inHead: true, depth: depth + 1)
                case "tbody", "tfoot": collectRows(c, inHead: false, depth: depth + 1)
                case "tr":
                    let cells = c.children.filter { $0.kind == .element && ($0.name == "td" || $0.name == "th") }
                    rows.append((inHead || (!cells.isEmpty && cells.allSatisfy { $0.name == "th" }), cells))
                // Anywhere in the table's structure: not first (HTML allows it only first, clipboard HTML and
                // old pages do not care), or inside a `<tbody>` (where a browser takes it out to the table).
                case "caption": captions.append(c)
                case "colgroup", "col": break
                default: if depth < 4 { collectRows(c, inHead: inHead, depth: depth + 1) }
                }
            }
        }
        collectRows(node, inHead: false, depth: 0)
        let (block, keepsCaption) = tableBlock(node, rows, inherited)
        // A table kept as HTML holds its captions: they are not converted (converting each level's
        // captions, and the tables inside them, made nested captions quadratic).
        let contents = keepsCaption ? [] : captions.map { captionContent($0, inherited) }
        var above: [RichInline] = []
        var below: [RichInline] = []
        for (caption, inlines) in zip(captions, contents) where !inlines.isEmpty {
            if Self.isBottomCaption(caption) { Self.appendLine(inlines, to: &below) } else { Self.appendLine(inlines, to: &above) }
        }
        let captioned = keepsCaption ? captions.contains { !plainText($0).isBlank } : !contents.allSatisfy(\.isEmpty)
        if !captioned, let summary = node.attribute("summary")?.trimmingWhitespace(), !summary.isEmpty {
            above = [.text(Self.collapse(summary))]
        }
        if !above.isEmpty { emit(.paragraph(above)) }
        if let block { emit(block) }
        if !below.isEmpty { emit(.paragraph(below)) }
    }

    /// A caption's text as the inlines of one paragraph, whatever markup holds it: inline elements, or
    /// blocks (`<p>`, `<div>`, a heading, a list, a quote, `<pre>`, a `<details>`, a table) flattened to
    /// their text (see ``flatten(_:into:)``). Read as in default mode also when keeping raw HTML: the
    /// caption of a pipe table is converted, not kept (it has no place in one), and a `<div>` kept as an
    /// HTML block inside it would leave no text in the paragraph.
    mutating func captionContent(_ caption: HTMLNode, _ inherited: Inherited) -> [RichInline] {
        let raw = keepRaw
        keepRaw = false
        defer { keepRaw = raw }
        return inlineContent(caption, inherited)
    }

    /// Another line of a caption paragraph (a table may have several captions).
    private static func appendLine(_ inlines: [RichInline], to paragraph: inout [RichInline]) {
        if !paragraph.isEmpty { paragraph.append(.lineBreak) }
        paragraph += inlines
    }

    /// `<caption align="bottom">` (HTML 4) or `caption-side: bottom`: shown below the table.
    static func isBottomCaption(_ caption: HTMLNode) -> Bool {
        if caption.attribute("align")?.trimmingWhitespace().lowercased() == "bottom" { return true }
        guard let style = caption.attribute("style")?.lowercased(), style.contains("caption-side") else { return false }
        for declaration in style.split(separator: ";") {
            let parts = declaration.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingWhitespace() == "caption-side" { return parts[1].trimmingWhitespace().hasPrefix("bottom") }
        }
        return false
    }

    /// The table as a GFM table, or as HTML when it does not fit one (then it holds its captions: true);
    /// nil when it has no rows.
    private mutating func tableBlock(_ node: HTMLNode, _ rows: [(header: Bool, cells: [HTMLNode])], _ inherited: Inherited)
        -> (RichBlock?, keepsCaption: Bool)
    {
        var fits = true
        guard !rows.isEmpty else { return (nil, false) }
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
                    return (.html(HTMLSerializer.serialize(node)), true)
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
        guard fits, width > 0 else { return (.html(HTMLSerializer.serialize(node)), true) }
        while alignments.count < width { alignments.append(.none) }
        cells = cells.map { r in r + Array(repeating: [], count: width - r.count) }
        // Header cells are bold by presentation (LibreOffice, Word); the header row says as much.
        let header = cells.removeFirst().map { cell -> [RichInline] in
            if cell.count == 1, case .strong(let inner) = cell[0] { return inner }
            return cell
        }
        return (.table(alignments: alignments, header: header, rows: cells), false)
    }
}

// The converter's inline content: text runs (white space collapsed as a browser renders it), links,
// images, quotes, checkboxes, and the inline content of a block element.

extension HTMLConverter {
    mutating func text(_ raw: String, _ inherited: Inherited) {
        var t = raw
        let code = inherited.wrappers.contains { $0.kind == .code }
        if code {
            t = raw.replacingNewlines()
            // "\n" is always a character of its own, so without a LF byte there is nothing to replace.
            if t.withUTF8({ $0.contains(0x0A) }) { t = t.replacingNewlinesWithSpaces() }
        } else if !inherited.preformatted {
            appendCollapsed(Self.collapse(raw), inherited)
            return
        } else {
            t = raw.replacingNewlines()
        }
        if let last = segments.last, last.inline == nil, last.wrappers == inherited.wrappers {
            segments[segments.count - 1].text += t  // in place: no copy of the string
        } else {
            segments.append(HTMLSegment(inline: nil, text: t, wrappers: inherited.wrappers))
        }
    }

    mutating func appendCollapsed(_ t: String, _ inherited: Inherited) {
        // Nothing yet, or a lone space at the start of a block (it would vanish there): nothing to add.
        if t.isEmpty || (segments.isEmpty && t.utf8.count == 1 && t.utf8.first == 0x20) { return }
        if let last = segments.last, last.inline == nil, last.wrappers == inherited.wrappers {
            segments[segments.count - 1].text += t
        } else {
            segments.append(HTMLSegment(inline: nil, text: t, wrappers: inherited.wrappers))
        }
    }

    /// Runs of ASCII white space in UTF-8 text become one space.
    static func collapse(_ buf: UnsafeBufferPointer<UInt8>) -> String {
        isCollapsed(buf) ? String(decoding: buf, as: UTF8.self) : collapsed(buf)
    }

    /// Runs of ASCII white space become one space.
    static func collapse(_ s: String) -> String {
        var s = s
        let changed: String? = s.withUTF8 { buf in isCollapsed(buf) ? nil : collapsed(buf) }
        return changed ?? s
    }

    /// Most text needs no change: no white space other than single spaces between words.
    @inline(__always)
    private static func isCollapsed(_ buf: UnsafeBufferPointer<UInt8>) -> Bool {
        var previousSpace = false
        for b in buf {
            if b == 0x20 {
                if previousSpace { return false }
                previousSpace = true
            } else if b == 0x0A || b == 0x09 || b == 0x0D || b == 0x0C {
                return false
            } else {
                previousSpace = false
            }
        }
        return true
    }

    private static func collapsed(_ buf: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: buf.count) { out in
            var n = 0
            var space = false
            for b in buf {
                if b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D || b == 0x0C {
                    space = true
                } else {
                    if space { out[n] = 0x20; n += 1 }
                    space = false
                    out[n] = b
                    n += 1
                }
            }
            if space { out[n] = 0x20; n += 1 }
            return n
        }
    }


    mutating func inline(_ node: HTMLNode, _ inherited: Inherited) {
        var inner = inherited
        let tag = node.tag
        if node.hasAttributes, let pre = Self.preservesWhiteSpace(node) { inner.preformatted = pre }
        switch tag {
        case .a:
            // GitHub heading anchors and other empty, icon-only links carry nothing.
            if node.attribute("class")?.contains("anchor") == true, node.attribute("aria-hidden") != nil || plainText(node).trimmingWhitespace().isEmpty { return }
            if let href = node.attribute("href"), !inherited.wrappers.contains(where: { if case .link = $0.kind { return true } else { return false } }) {
                push(.link(href.trimmingWhitespace(), node.attribute("title") ?? ""), &inner.wrappers)
                if node.children.isEmpty {
                    segments.append(HTMLSegment(inline: .text(""), text: "", wrappers: inner.wrappers))
                }
            }
        case .img:
            let src = node.attribute("src") ?? ""
            let alt = node.attribute("alt") ?? ""
            let title = node.attribute("title") ?? ""
            if node.attribute("width") != nil || node.attribute("height") != nil {
                // A sized image has no Markdown form (GitHub READMEs size logos and screenshots this way).
                var html = "<img src=\"\(HTMLSerializer.escape(src, attribute: true))\" alt=\"\(HTMLSerializer.escape(alt, attribute: true))\""
                for name in ["title", "width", "height"] {
                    if let v = node.attribute(name) { html += " \(name)=\"\(HTMLSerializer.escape(v, attribute: true))\"" }
                }
                segments.append(HTMLSegment(inline: .html(html + ">"), text: "", wrappers: inner.wrappers))
                return
            }
            segments.append(HTMLSegment(inline: .image(source: src, title: title, alt: alt, data: nil, mediaType: nil), text: "", wrappers: inner.wrappers))
            return
        case .q:
            text("\u{201C}", inner)
            for child in node.children { visit(child, inner) }
            text("\u{201D}", inner)
            return
        default:
            break
        }
        applyStyle(node, &inner.wrappers)
        if tag == .code || tag == .kbd || tag == .samp || tag == .tt, inner.wrappers.last?.kind == .code,
            !inherited.wrappers.contains(where: { $0.kind == .code }), node.children.isEmpty
        {
            segments.append(HTMLSegment(inline: nil, text: "", wrappers: inner.wrappers))
        }
        for child in node.children { visit(child, inner) }
    }

    /// The inline content of a block element (block children are flattened into it).
    mutating func inlineContent(_ node: HTMLNode, _ inherited: Inherited, ownStyle: Bool = true) -> [RichInline] {
        flush()
        let saved = segments
        segments = []
        var inner = inherited
        if ownStyle { applyStyle(node, &inner.wrappers) }
        let savedBlocks = blocks
        for child in node.children { visit(child, inner) }
        let produced = blocks.count > savedBlocks.count ? Array(blocks[savedBlocks.count...]) : []
        blocks = savedBlocks
        var content = Self.finishInlines(segments)
        // Block content inside (<p> in <h1>; a heading, list, quote, code or table in a <caption>): keep its text.
        Self.flatten(produced, into: &content)
        segments = saved
        return content
    }

    /// The text of blocks as inlines of one paragraph, a space between blocks: paragraphs and headings with
    /// their formatting, code as code, lists, quotes and tables by their text, HTML blocks (a `<details>`, a
    /// table kept as HTML) by the text they show.
    static func flatten(_ blocks: [RichBlock], into content: inout [RichInline]) {
        for block in blocks {
            var piece: [RichInline] = []
            switch block {
            case .paragraph(let p), .heading(_, let p):
                piece = p
            case .codeBlock(_, let code):
                let text = code.split(separator: "\n").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }.joined(separator: " ")
                if !text.isEmpty { piece = [.code(text)] }
            case .blockQuote(let inner), .footnoteDefinition(_, let inner):
                flatten(inner, into: &piece)
            case .list(_, _, _, let items, _):
                for item in items { flatten(item.blocks, into: &piece) }
            case .table(_, let header, let rows):
                for cell in ([header] + rows).joined() where !cell.isEmpty {
                    if !piece.isEmpty { piece.append(.text(" ")) }
                    piece += cell
                }
            case .html(let html):
                let tree = HTMLTreeBuilder.parse(Array(html.utf8)[...])
                var text = ""
                var stack = [tree.root]
                while let n = stack.popLast() {
                    if n.kind == .text { text += n.text + " " }
                    if n.kind == .element, !n.flags.contains(.dropped) { stack.append(contentsOf: n.children.reversed()) }
                }
                let collapsed = collapse(text).trimmingWhitespace()
                if !collapsed.isEmpty { piece = [.text(collapsed)] }
            case .thematicBreak:
                break
            }
            guard !piece.isEmpty else { continue }
            if !content.isEmpty { content.append(.text(" ")) }
            content += piece
        }
    }

    mutating func checkbox(_ node: HTMLNode, _ inherited: Inherited) {
        let checked = node.attribute("checked") != nil
        segments.append(HTMLSegment(inline: nil, text: checked ? "\u{2611} " : "\u{2610} ", wrappers: inherited.wrappers))
    }

    func plainText(_ node: HTMLNode) -> String {
        var s = ""
        var stack = [node]
        while let n = stack.popLast() {
            if n.kind == .text { s += n.text }
            if n.kind == .element, !n.flags.contains(.dropped) { stack.append(contentsOf: n.children.reversed()) }
        }
        return s
    }
}

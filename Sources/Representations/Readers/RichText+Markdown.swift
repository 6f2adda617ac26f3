import Markdown

extension RichBlock {
    /// Builds a Markdown document from reader blocks.
    static func makeDocument(_ blocks: [RichBlock]) -> MarkdownDocument {
        var b = MarkdownDocument.Builder()
        for block in blocks { append(block, to: &b) }
        return b.finish()
    }

    private static func append(_ block: RichBlock, to b: inout MarkdownDocument.Builder) {
        switch block {
        case .paragraph(let inlines):
            guard !inlines.isEmpty else { return }
            if let html = htmlBlockInstead(inlines) {
                append(.html(html), to: &b)
                return
            }
            appendParagraph(inlines, to: &b)
        case .heading(let level, let inlines):
            b.open(.heading(level: level))
            RichInline.append(inlines, to: &b)
            b.close()
        case .codeBlock(let info, let code):
            var literal = code
            if !literal.isEmpty && !literal.hasSuffix("\n") { literal += "\n" }
            b.append(.codeBlock(info: info, fenced: true), literal: literal)
        case .blockQuote(let blocks):
            b.open(.blockQuote)
            for x in blocks { append(x, to: &b) }
            b.close()
        case .list(let ordered, let start, var tight, let items, let style):
            if tight, items.contains(where: { Self.needsBlankLineInside($0.blocks) }) || Self.readsAsLoose(items) { tight = false }
            // Markdown makes a list loose with a blank line between items or between two blocks of an item
            // (one after a thematic break does not count): one item of one block, or of blocks that follow
            // only thematic breaks, is always tight (`<ol><li><p>x</p></li></ol>`).
            if !tight, items.count == 1, !items[0].blocks.dropLast().contains(where: { $0 != .thematicBreak }) { tight = true }
            b.open(.list(ordered ? .ordered(start: max(0, min(start, 999_999_999)), tight: tight, style: style) : .bullet(tight: tight)))
            for item in items {
                b.open(.item(task: item.task.map { $0 ? .checked : .unchecked }))
                for x in item.blocks { append(x, to: &b) }
                b.close()
            }
            b.close()
        case .thematicBreak:
            b.append(.thematicBreak)
        case .table(let alignments, let header, let rows):
            b.open(.table(alignments: alignments.map {
                switch $0 {
                case .none: return .none
                case .left: return .left
                case .center: return .center
                case .right: return .right
                }
            }))
            for (i, row) in ([header] + rows).enumerated() {
                b.open(.tableRow(header: i == 0))
                for column in 0..<alignments.count {
                    b.open(.tableCell)
                    if column < row.count { RichInline.append(row[column], to: &b) }
                    b.close()
                }
                b.close()
            }
            b.close()
        case .html(let html):
            var literal = html
            if !literal.hasSuffix("\n") { literal += "\n" }
            b.append(.htmlBlock, literal: literal)
        case .footnoteDefinition(let label, let blocks):
            b.open(.footnoteDefinition(label: label))
            for x in blocks { append(x, to: &b) }
            b.close()
        }
    }
}

extension RichBlock {
    private static func appendParagraph(_ inlines: [RichInline], to b: inout MarkdownDocument.Builder) {
        b.open(.paragraph)
        RichInline.append(inlines, to: &b)
        b.close()
    }

    /// The HTML block to write instead of a paragraph that Markdown cannot give back as one: its Markdown
    /// would start with raw HTML that starts an HTML block (a lone sized `<img>`, a comment first, a
    /// `<script>`), so it would be read as that block. It becomes the block: its inline HTML alone when it
    /// holds nothing else, else the paragraph as HTML (`<p>…</p>`), which renders as the paragraph did.
    /// Nil for every other paragraph (those that do not start with raw HTML are not looked at further).
    static func htmlBlockInstead(_ inlines: [RichInline]) -> String? {
        func startsWithHTML(_ x: RichInline) -> Bool {
            switch x {
            case .html(let s): return s.utf8.first == UInt8(ascii: "<")
            case .underline, .superscript, .subscript: return true
            default: return false
            }
        }
        guard let first = inlines.first, startsWithHTML(first) else { return nil }
        // Inline HTML is written as it is: a paragraph of nothing else is written as its HTML, and the
        // start of its first piece says the type of block, except type 7, which depends on what follows
        // on the line (then the paragraph is written to see).
        var html: [UInt8] = []
        for x in inlines {
            guard case .html(let s) = x else {
                html = []
                break
            }
            html += s.utf8
        }
        if !html.isEmpty {
            if HTMLBlockShape.type(html) == 0 { return nil }
            if HTMLBlockShape.readsAsOneBlock(html) { return String(decoding: html, as: UTF8.self) }
        } else if case .html(let s) = first, HTMLBlockShape.type(s.utf8) == 0 {
            return nil
        }
        var paragraph = MarkdownDocument.Builder()
        appendParagraph(inlines, to: &paragraph)
        let document = paragraph.finish()
        if html.isEmpty, !(1...6).contains(HTMLBlockShape.type(first.htmlPrefix.utf8)),
            HTMLBlockShape.type(MarkdownWriter.render(document, gfm: true)) == 0
        {
            return nil
        }
        var rendered = HTMLWriter.render(document, options: .gfm)[...]
        while rendered.last == 0x0A { rendered = rendered.dropLast() }
        return String(decoding: HTMLConverter.withoutBlankLines(rendered), as: UTF8.self)
    }

    /// Whether Markdown reads a list of these items as loose whatever the line breaks: cmark-gfm takes a
    /// table without body rows for a block that ends with a blank line (the rest of its delimiter row's
    /// line is blank), so such a table followed by anything in the list (a block after it in its item,
    /// another item) makes the list loose, directly in an item or at the end of a list that ends one.
    static func readsAsLoose(_ items: [RichListItem]) -> Bool {
        func endsWithHeaderOnlyTable(_ blocks: ArraySlice<RichBlock>) -> Bool {
            switch blocks.last {
            case .table(_, _, let rows)?: return rows.isEmpty
            case .list(_, _, _, let items, _)?: return items.last.map { endsWithHeaderOnlyTable($0.blocks[...]) } ?? false
            default: return false
            }
        }
        for (k, item) in items.enumerated() {
            if k < items.count - 1, endsWithHeaderOnlyTable(item.blocks[...]) { return true }
            for j in item.blocks.indices.dropLast() where endsWithHeaderOnlyTable(item.blocks[j...j]) { return true }
        }
        return false
    }

    /// Whether an item's blocks can only be written with a blank line between two of them, which makes a
    /// Markdown list loose: an HTML block that ends only at a blank line (types 6 and 7) followed by
    /// another block. Such a list is made loose, so that it reads back as written.
    static func needsBlankLineInside(_ blocks: [RichBlock]) -> Bool {
        for block in blocks.dropLast() {
            switch block {
            case .html(let html):
                if HTMLBlockShape.endsAtBlankLine(html.utf8) { return true }
            case .paragraph(let inlines):
                if let html = htmlBlockInstead(inlines), HTMLBlockShape.endsAtBlankLine(html.utf8) { return true }
            default:
                break
            }
        }
        return false
    }
}

extension RichInline {
    /// The raw HTML an inline starts with when written (`.html` as it is; `<u>`, `<sup>`, `<sub>`).
    var htmlPrefix: String {
        switch self {
        case .html(let s): return s
        case .underline: return "<u>"
        case .superscript: return "<sup>"
        case .subscript: return "<sub>"
        default: return ""
        }
    }

    static func append(_ inlines: [RichInline], to b: inout MarkdownDocument.Builder) {
        for x in inlines { x.append(to: &b) }
    }

    private func append(to b: inout MarkdownDocument.Builder) {
        switch self {
        case .text(let s): b.appendText(s)
        case .code(let s): b.append(.code, literal: s)
        case .emphasis(let c): container(.emphasis, c, &b)
        case .strong(let c): container(.strong, c, &b)
        case .strikethrough(let c): container(.strikethrough, c, &b)
        case .underline(let c):
            // No Markdown form; pandoc (`-t gfm`) keeps it as raw HTML, and so do we.
            b.append(.htmlInline, literal: "<u>")
            Self.append(c, to: &b)
            b.append(.htmlInline, literal: "</u>")
        case .superscript(let c):
            b.append(.htmlInline, literal: "<sup>")
            Self.append(c, to: &b)
            b.append(.htmlInline, literal: "</sup>")
        case .subscript(let c):
            b.append(.htmlInline, literal: "<sub>")
            Self.append(c, to: &b)
            b.append(.htmlInline, literal: "</sub>")
        case .link(let destination, let title, let c):
            // Links are underlined by presentation (browsers, Google Docs' spans, Word's link style).
            container(.link(destination: destination, title: title), Self.withoutUnderline(c), &b)
        case .image(let source, let title, let alt, let data, let mediaType):
            var destination = source
            if let data, let mediaType, destination.isEmpty {
                destination = "data:" + mediaType + ";base64," + Base64.encode(data)
            }
            b.open(.image(destination: destination, title: title))
            if !alt.isEmpty { b.appendText(alt) }
            b.close()
        case .lineBreak: b.appendLineBreak()
        case .softBreak: b.appendSoftBreak()
        case .html(let s): b.append(.htmlInline, literal: s)
        case .footnoteReference(let label): b.append(.footnoteReference(label: label))
        }
    }

    private static func withoutUnderline(_ inlines: [RichInline]) -> [RichInline] {
        guard inlines.contains(where: { if case .underline = $0 { return true } else { return false } }) else { return inlines }
        return inlines.flatMap { x -> [RichInline] in
            if case .underline(let c) = x { return withoutUnderline(c) }
            return [x]
        }
    }

    private func container(_ element: MarkdownElement, _ children: [RichInline], _ b: inout MarkdownDocument.Builder) {
        b.open(element)
        Self.append(children, to: &b)
        b.close()
    }
}

enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ data: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((data.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < data.count {
            let n = UInt32(data[i]) << 16 | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2])
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        if data.count - i == 1 {
            let n = UInt32(data[i]) << 16
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], 61, 61]
        } else if data.count - i == 2 {
            let n = UInt32(data[i]) << 16 | UInt32(data[i + 1]) << 8
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], 61]
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for c in text.utf8 {
            let v: UInt32
            switch c {
            case 0x41...0x5A: v = UInt32(c - 0x41)
            case 0x61...0x7A: v = UInt32(c - 0x61 + 26)
            case 0x30...0x39: v = UInt32(c - 0x30 + 52)
            case 0x2B, 0x2D: v = 62
            case 0x2F, 0x5F: v = 63
            case 0x3D, 0x20, 0x0A, 0x0D, 0x09: continue
            default: return nil
            }
            buffer = buffer << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }
}

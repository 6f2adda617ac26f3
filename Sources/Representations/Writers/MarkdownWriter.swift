import Markdown

/// Renders a ``MarkdownDocument`` as canonical Markdown that parses back to the same tree.
///
/// ATX headings (setext only for multi-line level-1/2 headings), fenced code blocks, `-`/`1.` list
/// markers as the tree records them, `*`/`**` emphasis (`_` for emphasis directly inside emphasis),
/// backslash hard breaks, `<url>` for autolinks. Characters are escaped only where the parser could read
/// them as markup: emphasis and code delimiters, brackets, `<` before a tag or autolink, `&` before a real
/// character reference, and block markers (`#`, `>`, `-`, `+`, `=`, `1.`) at the start of a line.
/// With `gfm` off, strikethrough is written as `<del>` and tables as HTML, so the output stays CommonMark.
public enum MarkdownWriter {
    public static func render(_ document: MarkdownDocument, gfm: Bool = true) -> [UInt8] {
        var r = MarkdownRenderer(doc: document, gfm: gfm)
        return r.render()
    }

    public static func renderString(_ document: MarkdownDocument, gfm: Bool = true) -> String {
        String(decoding: render(document, gfm: gfm), as: UTF8.self)
    }
}

struct MarkdownRenderer {
    let doc: MarkdownDocument
    let gfm: Bool
    var lw = LineWriter()

    private enum Frame {
        case list(tight: Bool, bullet: UInt8, delimiter: UInt8, next: Int)
        case item(indent: Int)
        case quote
        case heading(setext: Bool, level: Int)
        case emphasis([UInt8])
        case link
        case tableCell
        case footnote
        case other
    }
    private var frames: [Frame] = []
    /// The bullet or delimiter each list was written with, so the next adjacent list picks another.
    private var writtenListMarkers: [Int32: (bullet: UInt8, delimiter: UInt8)] = [:]
    private var inTableCell = 0
    private var inATXHeading = 0
    private var tableAlignments: [MarkdownTableAlignment] = []
    private var skipTexts = 0

    init(doc: MarkdownDocument, gfm: Bool) {
        self.doc = doc
        self.gfm = gfm
        lw = LineWriter(capacity: 1024)
    }

    mutating func render() -> [UInt8] {
        doc.walk { event in
            if event.phase == .enter { return enter(event.node, event.kind) }
            exit(event.node, event.kind)
            return .continue
        }
        return lw.finish()
    }

    // MARK: Context

    /// Line breaks between the blocks of the current container: 1 inside a tight list item, else 2.
    private var blockBreaks: Int {
        if case .item? = frames.last, frames.count >= 2, case .list(let tight, _, _, _) = frames[frames.count - 2], tight {
            return 1
        }
        return 2
    }

    // MARK: Blocks

    private mutating func enter(_ node: MarkdownDocument.NodeID, _ kind: MarkdownNodeKind) -> MarkdownDocument.WalkAction {
        switch kind {
        case .document:
            break
        case .blockQuote:
            lw.write(">")
            lw.write(" ")
            lw.prefix += [UInt8(ascii: ">"), 0x20]
            lw.beginContent = true
            frames.append(.quote)
        case .list:
            let a = doc.listAttributes(node)
            var bullet = a.type == .bullet ? (a.bulletChar == 0 ? UInt8(ascii: "-") : a.bulletChar) : 0
            var delimiter: UInt8 = a.delimiter == .paren ? UInt8(ascii: ")") : UInt8(ascii: ".")
            // Two adjacent lists with the same marker would merge when parsed: switch from the marker the
            // previous one was written with.
            if let previous = doc.previousSibling(node), doc.kind(previous) == .list, let written = writtenListMarkers[previous.rawValue] {
                let p = doc.listAttributes(previous)
                if p.type == a.type {
                    if a.type == .bullet, written.bullet == bullet {
                        bullet = bullet == UInt8(ascii: "-") ? UInt8(ascii: "*") : UInt8(ascii: "-")
                    } else if a.type == .ordered, written.delimiter == delimiter {
                        delimiter = delimiter == UInt8(ascii: ".") ? UInt8(ascii: ")") : UInt8(ascii: ".")
                    }
                }
            }
            writtenListMarkers[node.rawValue] = (bullet, delimiter)
            // An ordered list that does not start at 1 cannot interrupt a paragraph (CommonMark): right
            // after one in a tight item it would read as more of its text. An empty comment ends the
            // paragraph without a blank line, so the item stays tight (what pandoc writes too).
            // So can a list whose first item is empty (a lone `-` would even underline the paragraph as a
            // heading).
            let firstItemEmpty = doc.firstChild(node).map { doc.firstChild($0) == nil } ?? false
            if a.type == .ordered && a.start != 1 || firstItemEmpty, let previous = doc.previousSibling(node),
                doc.kind(previous) == .paragraph, blockBreaks == 1
            {
                lw.write("<!-- -->")
                lw.newline()
            }
            frames.append(.list(tight: a.tight, bullet: bullet, delimiter: delimiter, next: a.start))
        case .item:
            var marker: [UInt8]
            guard case .list(let tight, let bullet, let delimiter, let next)? = frames.last else {
                frames.append(.other)
                break
            }
            if bullet != 0 {
                marker = [bullet, 0x20]
            } else {
                marker = Array(String(next).utf8) + [delimiter, 0x20]
                frames[frames.count - 1] = .list(tight: tight, bullet: bullet, delimiter: delimiter, next: next + 1)
            }
            lw.write(marker)
            lw.prefix += Array(repeating: 0x20, count: marker.count)
            lw.beginContent = true
            frames.append(.item(indent: marker.count))
            if let task = doc.taskState(node), gfm {
                lw.write(task == .checked ? "[x] " : "[ ] ")
                lw.beginContent = false
            }
        case .paragraph:
            frames.append(.other)
        case .heading:
            let level = doc.headingLevel(node)
            var multiline = false
            for c in doc.children(of: node) where doc.kind(c) == .softBreak || doc.kind(c) == .lineBreak { multiline = true }
            let setext = multiline && level <= 2
            if !setext {
                lw.write(String(repeating: "#", count: level))
                // an empty heading is just the marker
                if doc.firstChild(node) != nil { lw.write(" ") }
                lw.beginContent = false
                inATXHeading += 1
            }
            frames.append(.heading(setext: setext, level: level))
        case .codeBlock:
            codeBlock(node)
            lw.breaks(blockBreaks)
        case .htmlBlock:
            var lit = doc.literalBytes(node)
            while lit.last == 0x0A { lit = lit.dropLast() }
            lw.writeLines(lit)
            lw.breaks(blockBreaks)
            // An HTML block of type 6 or 7 ends only at a blank line: without one, the next block (a table
            // after a `<div>` in a tight list item) would be read as more of its HTML. The readers make such
            // a list loose (``RichBlock/makeDocument(_:)``), so this blank line is what the document says.
            if doc.nextSibling(node) != nil, HTMLBlockShape.endsAtBlankLine(lit) { lw.breaks(2) }
        case .thematicBreak:
            if case .item? = frames.last, doc.previousSibling(node) == nil { lw.write("___") } else { lw.write("***") }
            lw.breaks(blockBreaks)
        case .table:
            if !gfm {
                htmlTable(node)
                lw.breaks(2)
                return .skipChildren
            }
            tableAlignments = doc.tableAlignments(node)
            frames.append(.other)
        case .tableRow:
            lw.write("|")
        case .tableCell:
            lw.write(" ")
            lw.beginContent = false
            inTableCell += 1
        case .footnoteDefinition:
            lw.write("[^")
            lw.write(doc.label(node))
            lw.write("]: ")
            lw.prefix += [0x20, 0x20, 0x20, 0x20]
            lw.beginContent = true
            frames.append(.footnote)
        default:
            return enterInline(node, kind)
        }
        return .continue
    }

    private mutating func exit(_ node: MarkdownDocument.NodeID, _ kind: MarkdownNodeKind) {
        switch kind {
        case .blockQuote:
            frames.removeLast()
            if blockBreaks == 1, let next = doc.nextSibling(node), continuesLazily(next) {
                // In a tight item, a paragraph (or a table's header row, or raw HTML that cannot interrupt a
                // paragraph) after the quote would continue the quote's paragraph lazily: close the quote
                // with an empty quote line.
                lw.pendingBreaks = 1
                lw.newline()
            }
            lw.prefix.removeLast(2)
            // What separates the quote from what follows depends on the enclosing container only.
            lw.pendingBreaks = blockBreaks
            // In a tight item, a quote right after another would be read as more of it.
            if blockBreaks == 1, let next = doc.nextSibling(node), doc.kind(next) == .blockQuote { separateWithComment() }
        case .list:
            frames.removeLast()
            lw.pendingBreaks = blockBreaks
            // In a tight item, what follows a list on the next line would continue its last paragraph lazily.
            if blockBreaks == 1, let next = doc.nextSibling(node), continuesLazily(next) { separateWithComment() }
        case .item:
            if case .item(let indent)? = frames.last { lw.prefix.removeLast(indent) }
            frames.removeLast()
            if case .list(let tight, _, _, _)? = frames.last { lw.breaks(tight ? 1 : 2) } else { lw.breaks(2) }
        case .paragraph:
            frames.removeLast()
            lw.breaks(blockBreaks)
            // In a tight item, a paragraph or raw HTML that cannot interrupt a paragraph (a lone `<img>`,
            // an unknown element) on the next line would be read as more of this paragraph.
            if blockBreaks == 1, let next = doc.nextSibling(node),
                doc.kind(next) == .paragraph || doc.kind(next) == .htmlBlock && !interruptsParagraph(next)
            {
                separateWithComment()
            }
        case .heading:
            if case .heading(let setext, let level)? = frames.last {
                if setext {
                    lw.newline()
                    lw.write(level == 1 ? "===" : "---")
                } else {
                    inATXHeading -= 1
                }
            }
            frames.removeLast()
            lw.breaks(blockBreaks)
        case .table:
            frames.removeLast()
            lw.breaks(blockBreaks)
            // A table ends at a blank line or where another block starts: in a tight item, a paragraph (or
            // another table's header row) on the next line would be read as one more row.
            if blockBreaks == 1, let next = doc.nextSibling(node), doc.kind(next) == .paragraph || doc.kind(next) == .table {
                separateWithComment()
            }
        case .tableRow:
            lw.newline()
            if doc.isTableHeaderRow(node) {
                lw.write("|")
                let columns = max(tableAlignments.count, doc.children(of: node).reduce(0) { n, _ in n + 1 })
                for c in 0..<columns {
                    let a = c < tableAlignments.count ? tableAlignments[c] : .none
                    switch a {
                    case .none: lw.write(" --- |")
                    case .left: lw.write(" :-- |")
                    case .center: lw.write(" :-: |")
                    case .right: lw.write(" --: |")
                    }
                }
                lw.newline()
            }
        case .tableCell:
            inTableCell -= 1
            lw.write(" |")
        case .footnoteDefinition:
            frames.removeLast()
            lw.prefix.removeLast(4)
            lw.breaks(2)
        default:
            exitInline(node, kind)
        }
    }

    /// Whether a block's first line, right after a paragraph that is still open, would be read as more of
    /// that paragraph: a paragraph, a table (its header row), raw HTML of type 7.
    private func continuesLazily(_ node: MarkdownDocument.NodeID) -> Bool {
        switch doc.kind(node) {
        case .paragraph, .table: return true
        case .htmlBlock: return !interruptsParagraph(node)
        default: return false
        }
    }

    private func interruptsParagraph(_ node: MarkdownDocument.NodeID) -> Bool {
        HTMLBlockShape.type(doc.literalBytes(node), interrupting: true) > 0
    }

    /// Ends the block just written without a blank line (which would make a tight list loose): an empty
    /// comment on a line of its own is an HTML block that ends on that line, renders nothing, and can
    /// interrupt a paragraph, a table or a list's lazy continuation (what pandoc writes too).
    private mutating func separateWithComment() {
        lw.pendingBreaks = 1
        lw.write("<!-- -->")
        lw.pendingBreaks = 1
    }

    private mutating func codeBlock(_ node: MarkdownDocument.NodeID) {
        let lit = doc.literalBytes(node)
        let info = doc.codeInfoBytes(node)
        var fenceChar = UInt8(ascii: "`")
        if info.contains(UInt8(ascii: "`")) { fenceChar = UInt8(ascii: "~") }
        // The fence must be longer than any run of the fence character at the start of a line of the code.
        var longest = 0
        var run = 0
        for b in lit {
            if b == fenceChar {
                run += 1
                longest = max(longest, run)
            } else {
                run = 0
            }
        }
        let fence = [UInt8](repeating: fenceChar, count: max(3, longest + 1))
        lw.write(fence)
        if !info.isEmpty { lw.write(info) }
        lw.newline()
        var body = lit
        if body.last == 0x0A { body = body.dropLast() }
        if !lit.isEmpty {
            lw.writeLines(body)
            lw.newline()
        }
        lw.write(fence)
    }

    private mutating func htmlTable(_ node: MarkdownDocument.NodeID) {
        lw.write("<table>")
        lw.newline()
        let aligns = doc.tableAlignments(node)
        for row in doc.children(of: node) {
            let header = doc.isTableHeaderRow(row)
            lw.write("<tr>")
            for (c, cell) in doc.children(of: row).enumerated() {
                let tag = header ? "th" : "td"
                var open = "<" + tag
                if c < aligns.count, aligns[c] != .none { open += " align=\"\(aligns[c] == .left ? "left" : aligns[c] == .center ? "center" : "right")\"" }
                lw.write(open + ">")
                lw.write(HTMLSerializer.escape(PlainTextRenderer.inlineText(doc, cell), attribute: false))
                lw.write("</\(tag)>")
            }
            lw.write("</tr>")
            lw.newline()
        }
        lw.write("</table>")
    }

    // MARK: Inlines

    private mutating func enterInline(_ node: MarkdownDocument.NodeID, _ kind: MarkdownNodeKind) -> MarkdownDocument.WalkAction {
        switch kind {
        case .text:
            if skipTexts > 0 {
                skipTexts -= 1
                break
            }
            // Adjacent text nodes are escaped as one run, so look-ahead sees across them.
            var run = Array(doc.literalBytes(node))
            var next = doc.nextSibling(node)
            while let n = next, doc.kind(n) == .text {
                run += doc.literalBytes(n)
                skipTexts += 1
                next = doc.nextSibling(n)
            }
            escapeText(run[...], followedBy: next.map { doc.kind($0) })
        case .softBreak:
            if inTableCell > 0 || inATXHeading > 0 { lw.write(" ") } else { lw.newline() }
        case .lineBreak:
            if inTableCell > 0 { lw.write("<br>") } else if inATXHeading > 0 { lw.write(" ") } else {
                lw.write("\\")
                lw.newline()
            }
        case .code:
            codeSpan(doc.literalBytes(node))
        case .htmlInline:
            lw.writeLines(doc.literalBytes(node))
        case .emphasis:
            var delimiter: [UInt8] = [UInt8(ascii: "*")]
            if case .emphasis(let outer)? = frames.last, outer == [UInt8(ascii: "*")], !intraword(node) {
                delimiter = [UInt8(ascii: "_")]
            }
            lw.write(delimiter)
            lw.beginContent = false
            frames.append(.emphasis(delimiter))
        case .strong:
            lw.write("**")
            lw.beginContent = false
            frames.append(.emphasis([UInt8(ascii: "*"), UInt8(ascii: "*")]))
        case .strikethrough:
            let delimiter: [UInt8] = gfm ? [UInt8(ascii: "~"), UInt8(ascii: "~")] : Array("<del>".utf8)
            lw.write(delimiter)
            lw.beginContent = false
            frames.append(.emphasis(gfm ? delimiter : Array("</del>".utf8)))
        case .link:
            if let auto = autolink(node) {
                lw.write("<")
                lw.write(auto)
                lw.write(">")
                lw.beginContent = false
                return .skipChildren
            }
            lw.write("[")
            lw.beginContent = false
            frames.append(.link)
        case .image:
            lw.write("![")
            lw.beginContent = false
            frames.append(.link)
        case .footnoteReference:
            lw.write("[^")
            lw.write(doc.label(node))
            lw.write("]")
            lw.beginContent = false
        default:
            break
        }
        return .continue
    }

    private mutating func exitInline(_ node: MarkdownDocument.NodeID, _ kind: MarkdownNodeKind) {
        switch kind {
        case .emphasis, .strong, .strikethrough:
            if case .emphasis(let delimiter)? = frames.last { lw.write(delimiter) }
            frames.removeLast()
        case .link, .image:
            frames.removeLast()
            lw.write("](")
            destination(doc.destination(node))
            let title = doc.title(node)
            if !title.isEmpty {
                lw.write(" \"")
                var t: [UInt8] = []
                for b in title.utf8 {
                    if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { t.append(UInt8(ascii: "\\")) }
                    t.append(b)
                }
                lw.writeLines(t[...])
                lw.write("\"")
            }
            lw.write(")")
        default:
            break
        }
    }

    /// Whether an emphasis node sits inside a word (then `_` would not work as its delimiter).
    private func intraword(_ node: MarkdownDocument.NodeID) -> Bool {
        func alnum(_ b: UInt8?) -> Bool {
            guard let b else { return false }
            return b >= 0x80 || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || (b >= 0x30 && b <= 0x39)
        }
        let before = lw.out.last
        var after: UInt8? = nil
        if let next = doc.nextSibling(node), doc.kind(next) == .text { after = doc.literalBytes(next).first }
        return alnum(before) || alnum(after)
    }

    private func autolink(_ node: MarkdownDocument.NodeID) -> String? {
        guard let child = doc.firstChild(node), doc.nextSibling(child) == nil, doc.kind(child) == .text, doc.title(node).isEmpty
        else { return nil }
        let text = doc.literal(child)
        let dest = doc.destination(node)
        func plain(_ s: String) -> Bool {
            !s.isEmpty && !s.utf8.contains { $0 <= 0x20 || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == 0x7F }
        }
        guard plain(dest) else { return nil }
        if text == dest, Self.hasScheme(dest) { return dest }
        if dest == "mailto:" + text, text.contains("@"), !text.contains("\\") { return text }
        return nil
    }

    static func hasScheme(_ s: String) -> Bool {
        guard let colon = s.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let scheme = s.utf8[..<colon]
        guard scheme.count >= 2, scheme.count <= 32, let f = scheme.first, (f | 0x20) >= 0x61, (f | 0x20) <= 0x7A else { return false }
        return scheme.allSatisfy { ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2E || $0 == 0x2D }
    }

    private mutating func destination(_ url: String) {
        let bytes = Array(url.utf8)
        var depth = 0
        var balanced = true
        var needsAngle = bytes.isEmpty
        for b in bytes {
            if b <= 0x20 || b == 0x7F || b == UInt8(ascii: "<") || b == UInt8(ascii: ">") { needsAngle = true }
            if b == UInt8(ascii: "(") { depth += 1 }
            if b == UInt8(ascii: ")") {
                depth -= 1
                if depth < 0 { balanced = false }
            }
        }
        if depth != 0 { balanced = false }
        var out: [UInt8] = []
        if needsAngle || !balanced {
            out.append(UInt8(ascii: "<"))
            for b in bytes {
                if b == 0x0A || b == 0x0D { continue }
                if b == UInt8(ascii: "<") || b == UInt8(ascii: ">") || b == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
                out.append(b)
            }
            out.append(UInt8(ascii: ">"))
        } else {
            for (k, b) in bytes.enumerated() {
                if b == UInt8(ascii: "\\"), k + 1 == bytes.count || Self.isPunctuation(bytes[k + 1]) { out.append(UInt8(ascii: "\\")) }
                out.append(b)
            }
        }
        lw.write(out)
    }

    private mutating func codeSpan(_ code: ArraySlice<UInt8>) {
        var longest = 0
        var run = 0
        var runs = Set<Int>()
        for b in code {
            if b == UInt8(ascii: "`") {
                run += 1
            } else {
                if run > 0 { runs.insert(run) }
                run = 0
            }
            longest = max(longest, run)
        }
        if run > 0 { runs.insert(run) }
        var n = 1
        while runs.contains(n) { n += 1 }
        let fence = [UInt8](repeating: UInt8(ascii: "`"), count: n)
        let allSpaces = code.allSatisfy { $0 == 0x20 }
        let pad = !code.isEmpty && !allSpaces
            && (code.first == UInt8(ascii: "`") || code.last == UInt8(ascii: "`") || (code.first == 0x20 && code.last == 0x20))
        lw.write(fence)
        if pad { lw.write(" ") }
        var body = code
        if inTableCell > 0 {
            var escaped: [UInt8] = []
            for b in body {
                if b == UInt8(ascii: "|") { escaped.append(UInt8(ascii: "\\")) }
                escaped.append(b)
            }
            lw.write(escaped)
            body = []
        }
        // A code span cannot hold a line break: one written would come back as a space, which it was.
        if !body.isEmpty { lw.write(body.map { $0 == 0x0A ? 0x20 : $0 }) }
        if pad { lw.write(" ") }
        lw.write(fence)
        lw.beginContent = false
    }

    static func isPunctuation(_ b: UInt8) -> Bool {
        (b >= 0x21 && b <= 0x2F) || (b >= 0x3A && b <= 0x40) || (b >= 0x5B && b <= 0x60) || (b >= 0x7B && b <= 0x7E)
    }

    private static func isSpace(_ b: UInt8?) -> Bool {
        guard let b else { return true }
        return b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
    }

    /// Writes text, escaping only characters the parser could take as markup here.
    private mutating func escapeText(_ text: ArraySlice<UInt8>, followedBy: MarkdownNodeKind?) {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(text.count + 8)
        let bytes = Array(text)
        let n = bytes.count
        var lineStart = lw.beginContent && !lw.out.isEmpty ? true : lw.beginContent
        if lw.pendingBreaks > 0 { lineStart = true }
        var previous: UInt8? = lw.atLineStart || lw.pendingBreaks > 0 ? nil : lw.out.last
        var i = 0
        while i < n {
            let c = bytes[i]
            let next: UInt8? = i + 1 < n ? bytes[i + 1] : nil
            var escape = false
            switch c {
            case UInt8(ascii: "\\"):
                escape = next == nil ? true : Self.isPunctuation(next!)
            case UInt8(ascii: "`"), UInt8(ascii: "["), UInt8(ascii: "]"):
                escape = true
            case UInt8(ascii: "!"):
                escape = next == nil && followedBy == .link
            case UInt8(ascii: "*"):
                escape = !(Self.isSpace(previous) && previous != nil && Self.isSpace(next) && next != nil) || lineStart
            case UInt8(ascii: "_"):
                let alnumBefore = previous.map { $0 >= 0x80 || !(Self.isSpace($0) || Self.isPunctuation($0)) } ?? false
                let alnumAfter = next.map { $0 >= 0x80 || !(Self.isSpace($0) || Self.isPunctuation($0)) } ?? false
                escape = !(alnumBefore && alnumAfter)
            case UInt8(ascii: "~"):
                escape = gfm || lineStart
            case UInt8(ascii: "<"):
                if let nx = next { escape = (nx | 0x20 >= 0x61 && nx | 0x20 <= 0x7A) || nx == UInt8(ascii: "/") || nx == UInt8(ascii: "!") || nx == UInt8(ascii: "?") }
            case UInt8(ascii: "&"):
                escape = Self.startsReference(bytes, i)
            case UInt8(ascii: "|"):
                escape = inTableCell > 0
            case UInt8(ascii: "#"):
                escape = lineStart || inATXHeading > 0
            case UInt8(ascii: ">"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "="):
                escape = lineStart
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if lineStart {
                    // "1986. A year": escape the delimiter of what would be an ordered list marker.
                    var j = i
                    while j < n, j - i < 10, bytes[j] >= 0x30, bytes[j] <= 0x39 { j += 1 }
                    if j < n, j - i <= 9, bytes[j] == UInt8(ascii: ".") || bytes[j] == UInt8(ascii: ")"), j + 1 == n || Self.isSpace(bytes[j + 1]) {
                        buffer.append(contentsOf: bytes[i..<j])
                        buffer.append(UInt8(ascii: "\\"))
                        buffer.append(bytes[j])
                        previous = bytes[j]
                        i = j + 1
                        lineStart = false
                        continue
                    }
                }
            case 0x0A, 0x0D:
                // A line break inside text (from a character reference): keep it a character.
                buffer.append(contentsOf: Array((c == 0x0A ? "&#10;" : "&#13;").utf8))
                previous = UInt8(ascii: ";")
                i += 1
                continue
            case 0x20, 0x09:
                if lineStart {
                    // Leading white space of a line would be dropped (or start code): write it as a reference.
                    buffer.append(contentsOf: Array((c == 0x20 ? "&#32;" : "&#9;").utf8))
                    previous = UInt8(ascii: ";")
                    i += 1
                    continue
                }
            default:
                break
            }
            if escape { buffer.append(UInt8(ascii: "\\")) }
            buffer.append(c)
            previous = c
            if c != 0x20 && c != 0x09 { lineStart = false }
            i += 1
        }
        if !buffer.isEmpty { lw.write(buffer) }
        lw.beginContent = false
    }

    /// Whether `&` at `i` starts a character reference a parser would decode.
    static func startsReference(_ bytes: [UInt8], _ i: Int) -> Bool {
        var j = i + 1
        guard j < bytes.count else { return false }
        if bytes[j] == UInt8(ascii: "#") {
            j += 1
            var hex = false
            if j < bytes.count, bytes[j] | 0x20 == UInt8(ascii: "x") {
                hex = true
                j += 1
            }
            let start = j
            while j < bytes.count, j - start < 8, let h = RTFTokenizer.hexValue(bytes[j]), hex || h < 10 { j += 1 }
            return j > start && j < bytes.count && bytes[j] == UInt8(ascii: ";")
        }
        let start = j
        while j < bytes.count, j - start < 32, (bytes[j] | 0x20 >= 0x61 && bytes[j] | 0x20 <= 0x7A) || (bytes[j] >= 0x30 && bytes[j] <= 0x39) { j += 1 }
        guard j > start, j < bytes.count, bytes[j] == UInt8(ascii: ";") else { return false }
        return HTMLEntityDecoder.table[String(decoding: bytes[start..<j], as: UTF8.self)] != nil
    }
}

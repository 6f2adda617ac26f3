import Markdown

// The converter's keep-raw-HTML mode (``HTMLReader/read(_:keepRawHTML:)``): what Markdown would not give
// back is kept as its exact source, as raw HTML blocks and inlines.

extension HTMLConverter {
    /// How keep-raw mode keeps an element: `whole` as its exact source, `tags` as its source start and end
    /// tags around its converted content.
    enum RawHow { case whole, tags }

    /// Containers whose children keep-raw mode reads as runs of blocks (see ``rawBlockChildren(_:_:)``).
    static let rawRunContainers = HTMLTagSet([.root, .blockquote, .details, .div, .section, .article, .header, .footer,
        .main, .nav, .aside, .address, .center, .figure, .figcaption, .dialog, .fieldset, .form, .hgroup, .search])
    /// Layout containers and other block elements with no Markdown form.
    private static let rawContainers = HTMLTagSet([.div, .section, .article, .header, .footer, .main, .nav, .aside,
        .address, .center, .figure, .figcaption, .dialog, .fieldset, .form, .hgroup, .search, .legend, .dl, .dd, .dt,
        .caption, .listing, .summary, .details, .option])
    private static let rawWhole = HTMLTagSet([.script, .style, .textarea, .template, .svg, .math, .iframe, .object,
        .embed, .canvas, .audio, .video, .map, .noscript, .select, .noembed, .noframes, .frameset, .xmp, .plaintext,
        .area, .wbr, .button, .input])
    /// Inline elements Markdown writes as other tags (`*x*` is `<em>`, not `<i>`) or not at all.
    private static let rawInline = HTMLTagSet([.i, .b, .s, .strike, .u, .ins, .mark, .kbd, .sup, .sub, .small, .abbr,
        .cite, .dfn, .q, .samp, .tt, .span, .font])

    /// Whether (and how) keep-raw mode keeps the element as HTML: when Markdown would not give it back.
    func rawHow(_ node: HTMLNode) -> RawHow? {
        let tag = node.tag
        let r = node.tree.ranges[Int(node.id)]
        let closed = r.closeStart >= 0
        if tag == .unknown { return .tags }
        if Self.rawContainers.contains(tag) { return .tags }
        if Self.rawWhole.contains(tag) {
            if tag == .input, node.attribute("type")?.lowercased() == "checkbox" { return nil }
            return .whole
        }
        // Formatting that carries inline CSS is clipboard formatting, read as usual.
        if Self.rawInline.contains(tag) { return node.attribute("style") == nil ? .tags : nil }
        switch tag {
        case .a:
            return !closed || node.attribute("href") == nil || !onlyAttributes(node, ["href", "title"]) ? .tags : nil
        case .img:
            return node.attribute("alt") == nil || !onlyAttributes(node, ["src", "alt", "title"]) ? .whole : nil
        case .em, .strong, .del, .code:
            return !closed || node.hasAttributes ? .tags : nil
        case .pre:
            // Markdown's code block is exactly <pre><code [class="language-…"]>…</code></pre>.
            var codes = 0
            for c in node.children {
                if c.kind == .element && c.tag == .code && onlyAttributes(c, ["class"]) && c.tree.ranges[Int(c.id)].closeStart >= 0 {
                    codes += 1
                } else {
                    return .whole
                }
            }
            return codes == 1 && closed && !node.hasAttributes ? nil : .whole
        case .table:
            // A GFM table always has a <thead>.
            for c in node.children where c.kind == .element && c.tag == .thead { return node.hasAttributes ? .whole : nil }
            return .whole
        default:
            return nil
        }
    }

    private func onlyAttributes(_ node: HTMLNode, _ names: Set<String>) -> Bool {
        for a in node.attributes where !names.contains(a.name) { return false }
        return true
    }

    /// The node's exact source (keep-raw mode).
    func source(_ node: HTMLNode, _ part: Int = 0) -> String {
        let r = node.tree.ranges[Int(node.id)]
        let range: (Int32, Int32)
        switch part {
        case 1: range = (r.start, r.openEnd)
        case 2: range = (r.closeStart, r.end)
        default: range = (r.start, r.end)
        }
        let lo = Int(max(0, range.0))
        let hi = Int(min(Int32(node.tree.source.count), max(range.0, range.1)))
        return String(decoding: node.tree.source[lo..<max(lo, hi)], as: UTF8.self)
    }

    /// Keeps an element as HTML: a block element as an HTML block (its tags around its converted blocks
    /// when it is closed and holds only blocks, else its whole source), an inline one as inline HTML.
    /// A block element kept whole (a header-less table, a `<pre>`) after text in a list item or cell ends
    /// that text's paragraph: inside one, its lines would be read as Markdown (a blank line ends the
    /// paragraph, and the indented rows after it became a code block). HTML Markdown would not read back as
    /// the one HTML block it is written as (`<hgroup>x</hgroup>`: no HTML block starts so) stays inline.
    mutating func keepRaw(_ node: HTMLNode, _ how: RawHow, _ inherited: Inherited) {
        let closed = node.tree.ranges[Int(node.id)].closeStart >= 0
        if node.flags.contains(.blockSwitch) && (segments.isEmpty || how == .whole) {
            let r = node.tree.ranges[Int(node.id)]
            let tree = node.tree
            if how == .tags, closed, Self.rawRunContainers.contains(node.tag), !node.children.contains(where: isInlineNode),
                HTMLBlockShape.readsAsOneBlock(tree.source[Int(r.start)..<Int(r.openEnd)]),
                HTMLBlockShape.readsAsOneBlock(tree.source[Int(r.closeStart)..<Int(r.end)])
            {
                emit(.html(source(node, 1)))
                blockChildren(node, inherited)
                flush()
                emitRaw(tree, Int(r.closeStart), Int(r.end))
                return
            }
            if Self.readsAsOneBlock(tree, Int(r.start), Int(r.end)) {
                flush()
                emitRaw(tree, Int(r.start), Int(r.end))
                return
            }
        }
        if how == .whole {
            segments.append(HTMLSegment(inline: .html(source(node)), text: "", wrappers: inherited.wrappers))
            return
        }
        segments.append(HTMLSegment(inline: .html(source(node, 1)), text: "", wrappers: inherited.wrappers))
        for child in node.children { visit(child, inherited) }
        if closed { segments.append(HTMLSegment(inline: .html(source(node, 2)), text: "", wrappers: inherited.wrappers)) }
    }

    /// Whether `source[start..<end]`, its blank lines taken out, reads back as the one HTML block
    /// ``emitRaw(_:_:_:)`` writes it as.
    static func readsAsOneBlock(_ tree: HTMLTree, _ start: Int, _ end: Int) -> Bool {
        let lo = max(0, min(start, tree.source.count))
        let hi = max(lo, min(end, tree.source.count))
        return HTMLBlockShape.readsAsOneBlock(withoutBlankLines(tree.source[lo..<hi]))
    }

    /// Emits `source[start..<end]` as an HTML block (its blank lines taken out: ``withoutBlankLines(_:)``),
    /// remembered for ``rawBlockChildren(_:_:)``.
    private mutating func emitRaw(_ tree: HTMLTree, _ start: Int, _ end: Int) {
        let lo = max(0, min(start, tree.source.count))
        let hi = max(lo, min(end, tree.source.count))
        let html = String(decoding: Self.withoutBlankLines(tree.source[lo..<hi]), as: UTF8.self)
        emit(.html(html))
        lastRawBlock = (blocks.count - 1, lo, hi, html)
    }

    /// Raw HTML that Markdown reads back as the one HTML block it is written as. A Markdown HTML block ends
    /// at a blank line, and what follows is read as Markdown: the indented lines of a table kept whole (a
    /// Sphinx index page's) became a code block. Lines of only white space between tags render nothing and
    /// are left out; in `<pre>`, `<textarea>` and `<listing>` they are text, so the line break before each
    /// is written `&#10;`. A block that starts as one Markdown ends at its end tag (`<pre>`, `<script>`,
    /// `<style>`, `<textarea>`: type 1) or `-->` (type 2) keeps its blank lines up to that line.
    static func withoutBlankLines(_ html: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard hasBlankLine(html) else { return html }
        var lines = html.split(separator: 0x0A, omittingEmptySubsequences: false)[...]
        var out: [UInt8] = []
        out.reserveCapacity(html.count)
        var first = true
        // The first lines of a type 1 or 2 block, up to the one with its end condition, stay as they are.
        if let ends = Self.blockEndConditions(html) {
            while let line = lines.first {
                lines = lines.dropFirst()
                if !first { out.append(0x0A) }
                first = false
                out += line
                if ends.contains(where: { Self.containsIgnoringCase(line, $0) }) { break }
            }
        }
        var textDepth = 0  // open <pre>, <textarea>, <listing>
        for line in lines {
            let blank = line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0C }
            if first {
                first = false
            } else if !blank {
                out.append(0x0A)
            } else if textDepth > 0 {
                out += Array("&#10;".utf8)
            } else {
                continue  // the line and its line break left out
            }
            out += line
            textDepth = max(0, textDepth + Self.textElementBalance(line))
        }
        return out[...]
    }

    private static func hasBlankLine(_ html: ArraySlice<UInt8>) -> Bool {
        var afterBreak = false
        for b in html {
            if b == 0x0A {
                if afterBreak { return true }
                afterBreak = true
            } else if b != 0x20 && b != 0x09 && b != 0x0D && b != 0x0C {
                afterBreak = false
            }
        }
        return false
    }

    /// The end conditions of the HTML block `html` starts, when it keeps blank lines until one: types 1 to 5
    /// (`<pre`, `<script`, `<style`, `<textarea`; `<!--`; `<?`; `<!` and a letter; `<![CDATA[`); nil otherwise.
    private static func blockEndConditions(_ html: ArraySlice<UInt8>) -> [String]? {
        let start = html.drop { $0 == 0x20 || $0 == 0x09 }.prefix(10).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        if start.starts(with: "<!--".utf8) { return ["-->"] }
        if start.starts(with: "<?".utf8) { return ["?>"] }
        if start.starts(with: "<![cdata[".utf8) { return ["]]>"] }
        if start.count > 2, start.starts(with: "<!".utf8), start[2] >= 0x61, start[2] <= 0x7A { return [">"] }
        for name in ["pre", "script", "style", "textarea"] where start.starts(with: ("<" + name).utf8) {
            let after = start.count > name.count + 1 ? start[name.count + 1] : 0x3E
            if after == 0x3E || after == 0x20 || after == 0x09 || after == 0x0D { return ["</pre>", "</script>", "</style>", "</textarea>"] }
        }
        return nil
    }

    /// Start tags minus end tags of `<pre>`, `<textarea>` and `<listing>` on a line (ASCII case ignored).
    private static func textElementBalance(_ line: ArraySlice<UInt8>) -> Int {
        var balance = 0
        var k = line.startIndex
        while let lt = line[k...].firstIndex(of: UInt8(ascii: "<")) {
            let closing = lt + 1 < line.endIndex && line[lt + 1] == UInt8(ascii: "/")
            let nameStart = closing ? lt + 2 : lt + 1
            for name in ["pre", "textarea", "listing"] {
                let end = nameStart + name.utf8.count
                guard end <= line.endIndex, Self.containsIgnoringCase(line[nameStart..<end], name) else { continue }
                if end == line.endIndex || [0x3E, 0x20, 0x09, 0x0D, 0x2F].contains(line[end]) { balance += closing ? -1 : 1 }
            }
            k = lt + 1
        }
        return balance
    }

    /// Whether `bytes` contain `needle` (lower-case ASCII), ASCII case ignored.
    private static func containsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard n.count <= bytes.count else { return false }
        var k = bytes.startIndex
        while k + n.count <= bytes.endIndex {
            var same = true
            for j in 0..<n.count where bytes[k + j] | (bytes[k + j] >= 0x41 && bytes[k + j] <= 0x5A ? 0x20 : 0) != n[j] {
                same = false
                break
            }
            if same { return true }
            k += 1
        }
        return false
    }

    /// Whether Markdown reads `html` (its first line) as the start of an HTML block: then writing it as one
    /// gives it back as it is.
    static func startsHTMLBlock(_ html: ArraySlice<UInt8>) -> Bool {
        let line = html.prefix { $0 != 0x0A }
        guard line.first == UInt8(ascii: "<") else { return false }
        let doc = MarkdownParser.parse(Array(line), options: .gfm)
        return doc.firstChild(doc.root).map { doc.kind($0) == .htmlBlock } ?? false
    }

    /// Text with something visible, or an element that is not a block.
    private func isInlineNode(_ n: HTMLNode) -> Bool {
        switch n.kind {
        case .text: return !n.isBlankText
        case .comment: return true
        case .element: return !n.flags.contains(.blockSwitch) || n.tag == .br
        }
    }

    /// Whether an inline node (or one inside it) is kept as HTML. Runs are disjoint, so each node is looked
    /// at once per container: linear.
    private func holdsRaw(_ n: HTMLNode) -> Bool {
        var stack = [n]
        while let x = stack.popLast() {
            switch x.kind {
            case .comment: return true
            case .text: continue
            case .element:
                if rawHow(x) != nil { return true }
                stack.append(contentsOf: x.children)
            }
        }
        return false
    }

    /// Keep-raw mode's block container: each run of inline nodes between blocks that holds something kept
    /// as HTML is one HTML block with the run's exact source (an HTML block in Markdown is just that);
    /// other runs and blocks convert as usual.
    mutating func rawBlockChildren(_ node: HTMLNode, _ inherited: Inherited) {
        var run: [HTMLNode] = []
        func finish(_ c: inout HTMLConverter) {
            defer { run.removeAll() }
            guard !run.isEmpty else { return }
            var first = 0
            var last = run.count - 1
            while first < last, run[first].kind == .text, run[first].isBlankText { first += 1 }
            while last > first, run[last].kind == .text, run[last].isBlankText { last -= 1 }
            let tree = node.tree
            let lo = min(Int(tree.ranges[Int(run[first].id)].start), tree.source.count)
            let hi = min(max(lo, Int(tree.ranges[Int(run[last].id)].end)), tree.source.count)
            let blank = run[first].kind == .text && run[first].isBlankText
            // Right after a raw block with no blank line between: part of it (a Markdown HTML block of type 6
            // or 7 runs to the next blank line; one of types 1 to 5, a `<pre>` or a comment, ends at its end
            // condition, and what follows is read on its own).
            if !blank, let p = c.lastRawBlock, p.index == c.blocks.count - 1, c.segments.isEmpty, p.end <= lo,
                case .html(let h)? = c.blocks.last, h == p.html, HTMLBlockShape.type(h.utf8) >= 6
            {
                var newlines = 0
                var onlySpace = true
                for b in tree.source[p.end..<lo] {
                    if b == 0x0A { newlines += 1 } else if b != 0x20 && b != 0x09 && b != 0x0D { onlySpace = false }
                }
                if onlySpace && newlines < 2 {
                    c.blocks.removeLast()
                    c.emitRaw(tree, p.start, hi)
                    return
                }
            }
            // Loose content is kept when it holds something kept as HTML, or when Markdown would read its
            // source as an HTML block anyway (a tag alone on its line, say); as one HTML block only when
            // Markdown reads it back as one (`<x-note>a</x-note>` starts none: it is a paragraph with inline
            // HTML, and so is a comment followed by more lines, whose block ends at the comment's line).
            guard !blank, run.contains(where: { c.holdsRaw($0) }) || Self.startsHTMLBlock(tree.source[lo..<hi]),
                Self.readsAsOneBlock(tree, lo, hi)
            else {
                for x in run { c.visit(x, inherited) }
                return
            }
            c.emitRaw(tree, lo, hi)
        }
        for child in node.children {
            if isInlineNode(child) || (child.kind == .text) {
                run.append(child)
            } else {
                finish(&self)
                visit(child, inherited)
            }
        }
        finish(&self)
    }
}

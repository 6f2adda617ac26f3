import Markdown

/// Converts the HTML tree to blocks, collecting inline content into styled segments (see ``InlineAssembler``).
struct HTMLConverter {
    struct Inherited {
        /// Open inline elements, outermost first.
        var wrappers: [InlineWrapper] = []
        var preformatted = false
    }

    /// Segments of the paragraph being collected.
    var segments: [HTMLSegment] = []
    var nextWrapperID = 0
    var blocks: [RichBlock] = []
    /// Keep-raw-HTML mode (see ``HTMLReader/read(_:keepRawHTML:)``); the tree then has source ranges.
    var keepRaw = false
    /// Keep-raw mode: the last block emitted as a piece of the source (its index in `blocks`, its range), so
    /// loose content right after it (no blank line between) can join it, as it would in a Markdown HTML block.
    var lastRawBlock: (index: Int, start: Int, end: Int, html: String)?
    /// Reading a heading's content: CSS bold there is the heading's own weight (Qt writes a heading's text
    /// as `<span style="font-weight:600">`), not emphasis; `<b>` and `<strong>` still are.
    var inHeading = false
    /// Word list paragraphs waiting to be assembled into a list.
    var wordList: [(list: String, level: Int, ordered: Bool, start: Int, style: MarkdownListStyle, content: [RichInline])] = []

    static let blockElements: Set<String> = [
        "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl", "dd", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup",
        "hr", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "ul", "tr", "td", "th",
        "tbody", "thead", "tfoot", "caption", "#root", "body", "html", "search", "legend", "option", "listing",
    ]
    static let dropped: Set<String> = [
        "script", "style", "head", "title", "meta", "link", "template", "svg", "math", "button", "clipboard-copy",
        "noscript", "select", "textarea", "iframe", "object", "embed", "canvas", "audio", "video", "map", "base",
        "colgroup", "col", "o:p", "xml", "noembed", "noframes", "frameset", "tool-tip", "input",
    ]

    mutating func convert(_ root: HTMLNode) -> [RichBlock] {
        blocks = []
        segments = []
        blockChildren(root, Inherited())
        flush()
        flushWordList()
        return blocks
    }

    // MARK: Blocks

    /// Converts the children of a block container, appending to `blocks`.
    mutating func blockChildren(_ node: HTMLNode, _ inherited: Inherited) {
        if keepRaw && Self.rawRunContainers.contains(node.tag) {
            rawBlockChildren(node, inherited)
            return
        }
        for child in node.children { visit(child, inherited) }
    }

    /// Runs `body` with a fresh block list and returns what it produced.
    mutating func collect(_ body: (inout HTMLConverter) -> Void) -> [RichBlock] {
        let savedBlocks = blocks
        let savedSegments = segments
        let savedWord = wordList
        blocks = []
        segments = []
        wordList = []
        body(&self)
        flush()
        flushWordList()
        let result = blocks
        blocks = savedBlocks
        segments = savedSegments
        wordList = savedWord
        return result
    }

    mutating func emit(_ block: RichBlock) {
        flush()
        if case .paragraph = block {} else { flushWordList() }
        blocks.append(block)
        lastBlockWasFontCode = false
    }

    /// Ends the paragraph being collected.
    mutating func flush() {
        guard !segments.isEmpty else { return }
        if let code = Self.fontCodeBlock(segments) {
            // A paragraph set entirely in a monospace font (LibreOffice, Google Docs, Word): a code block;
            // consecutive ones are one block.
            segments = []
            flushWordList()
            if case .codeBlock(let info, let previous)? = blocks.last, lastBlockWasFontCode {
                blocks[blocks.count - 1] = .codeBlock(info: info, code: previous + code + "\n")
            } else {
                blocks.append(.codeBlock(info: "", code: code + "\n"))
            }
            lastBlockWasFontCode = true
            return
        }
        let content = Self.finishInlines(segments)
        segments = []
        if !content.isEmpty {
            flushWordList()
            blocks.append(.paragraph(content))
            lastBlockWasFontCode = false
        }
    }

    private var lastBlockWasFontCode = false

    /// The text of a paragraph whose every visible segment is in a monospace font (not a `<code>` element).
    static func fontCodeBlock(_ segments: [HTMLSegment]) -> String? {
        var text = ""
        var sawCode = false
        for s in segments {
            let font = s.wrappers.contains { $0.kind == .code && $0.fromFont }
            let tag = s.wrappers.contains { $0.kind == .code && !$0.fromFont }
            if let inline = s.inline {
                if case .lineBreak = inline, sawCode || font {
                    text += "\n"
                    continue
                }
                return nil
            }
            if tag { return nil }
            if font {
                sawCode = true
                text += s.text
            } else if !s.text.isBlank {
                return nil
            } else if sawCode {
                text += s.text
            }
        }
        guard sawCode else { return nil }
        while text.hasSuffix("\n") || text.hasSuffix(" ") { text.removeLast() }
        return text.replacingOccurrences("\u{A0}", " ")
    }

    /// Collapses white space the way a browser renders `white-space: normal` and builds inlines.
    static func finishInlines(_ segments: [HTMLSegment]) -> [RichInline] {
        // The common case: one run of plain text (text() merges runs with the same wrappers).
        if segments.count == 1, segments[0].inline == nil, segments[0].wrappers.isEmpty, segments[0].text.utf8.first != 0x20 {
            var t = segments[0].text
            t.trimTrailingSpaces()
            return t.isEmpty ? [] : [.text(t)]
        }
        var out: [HTMLSegment] = []
        out.reserveCapacity(segments.count)
        var lastWasSpace = true  // at the start of a block, leading spaces vanish
        for var s in segments {
            if s.inline != nil {
                if case .lineBreak? = s.inline {
                    // spaces before a line break vanish
                    if out.last?.inline == nil, out.last?.text.utf8.last == 0x20 {
                        out[out.count - 1].text.trimTrailingSpaces()
                    }
                    lastWasSpace = true
                } else {
                    lastWasSpace = false
                }
                out.append(s)
                continue
            }
            if s.isCode {
                lastWasSpace = false
                out.append(s)
                continue
            }
            if lastWasSpace, s.text.utf8.first == 0x20 {
                // A space followed by a combining mark is one character: keep the two together.
                if let next = s.text.utf8.dropFirst().first, next >= 0x80 {
                    if s.text.hasPrefix(" ") { s.text.removeFirst() }
                } else {
                    s.text = String(s.text.utf8.dropFirst())!
                }
            }
            if s.text.isEmpty { continue }
            lastWasSpace = s.text.utf8.last == 0x20
            out.append(s)
        }
        while let last = out.last {
            if last.inline == nil && !last.isCode {
                out[out.count - 1].text.trimTrailingSpaces()
                if out[out.count - 1].text.isEmpty {
                    out.removeLast()
                    continue
                }
                break
            }
            if case .lineBreak? = last.inline {
                out.removeLast()
                continue
            }
            break
        }
        return HTMLInlineAssembler.build(out[...], depth: 0)
    }

    /// Every name the switch in ``visit(_:_:)`` handles other than by `inline` (keep the two in step).
    static let blockSwitchNames: [String] = [
        "p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "address", "center",
        "figure", "figcaption", "details", "summary", "dialog", "fieldset", "form", "hgroup", "search", "legend",
        "caption", "dd", "dt", "listing", "body", "html", "dl", "tbody", "thead", "tfoot", "tr", "option",
        "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "hr", "ul", "ol", "dir", "menu", "li", "table",
        "td", "th", "br",
    ]

    mutating func visit(_ node: HTMLNode, _ inherited: Inherited) {
        switch node.kind {
        case .comment:
            if keepRaw { segments.append(HTMLSegment(inline: .html(source(node)), text: "", wrappers: inherited.wrappers)) }
            return
        case .text:
            if !inherited.preformatted, !inherited.wrappers.contains(where: { $0.kind == .code }) {
                // White space collapses: read it from the tree's bytes in one pass (see collapse(_:)).
                let r = node.record
                let t = node.tree.bytes.withUnsafeBufferPointer {
                    Self.collapse(UnsafeBufferPointer(rebasing: $0[Int(r.textStart)..<Int(r.textStart + r.textCount)]))
                }
                appendCollapsed(t, inherited)
            } else {
                text(node.text, inherited)
            }
            return
        case .element:
            break
        }
        let tag = node.tag
        if keepRaw, let how = rawHow(node) {
            keepRaw(node, how, inherited)
            return
        }
        if node.flags.contains(.dropped) {
            if tag == .input, node.attribute("type")?.lowercased() == "checkbox" { checkbox(node, inherited) }
            return
        }
        if node.hasAttributes, isHidden(node) { return }
        // Every other element is inline: skip the string comparisons below.
        guard node.flags.contains(.blockSwitch) else {
            inline(node, inherited)
            return
        }
        // Word list paragraphs (MsoListParagraph… with mso-list:lN levelM).
        if tag == .p || tag.isHeading, node.hasAttributes, let (list, level) = wordListInfo(node)
        {
            flush()
            let marker = wordMarker(node)
            let ordered = marker.map { RTFBlockBuilder.markerNumber($0) != nil } ?? false
            let content = inlineContent(node, inherited)
            let style = marker.map(RTFBlockBuilder.markerStyle) ?? .decimal
            wordList.append((list, level, ordered, marker.flatMap { RTFBlockBuilder.markerValue($0, style) } ?? 1, style, content))
            return
        }
        switch tag {
        case .p, .div, .section, .article, .header, .footer, .main, .nav, .aside, .address, .center,
            .figure, .figcaption, .summary, .dialog, .fieldset, .form, .hgroup, .search, .legend,
            .caption, .dd, .dt, .listing, .body, .html, .dl, .tbody, .thead, .tfoot, .tr, .option:
            if tag == .div, node.hasAttributes, let code = githubCodeBlock(node) {
                emit(code)
                return
            }
            flush()
            var inner = inherited
            applyStyle(node, &inner.wrappers)
            if tag == .listing { inner.preformatted = true }
            if let pre = Self.preservesWhiteSpace(node) { inner.preformatted = pre }
            blockChildren(node, inner)
            flush()
        case .h1, .h2, .h3, .h4, .h5, .h6:
            flush()
            let level = Int(tag.rawValue - HTMLTag.h1.rawValue) + 1
            var inner = inherited
            inner.wrappers = []  // a heading's own weight is not emphasis
            let outerHeading = inHeading
            inHeading = true
            let content = inlineContent(node, inner, ownStyle: false)
            inHeading = outerHeading
            emit(.heading(level: level, content))
        case .details:
            // A disclosure widget has no Markdown form: kept as HTML around the converted content (GitHub
            // and most Markdown renderers show it), the summary as its text.
            flush()
            var summary = ""
            for c in node.children where c.kind == .element && c.tag == .summary {
                summary = inlineContent(c, inherited).plainText.trimmingWhitespace()
                break
            }
            // The content goes straight into this stream between the two HTML blocks (collecting it and
            // re-emitting it copied every nested level's blocks once per level: quadratic in the depth).
            emit(.html("<details>\n<summary>" + HTMLSerializer.escape(summary, attribute: false) + "</summary>"))
            for child in node.children where !(child.kind == .element && child.tag == .summary) { visit(child, inherited) }
            flush()
            emit(.html("</details>"))
        case .blockquote:
            let inner = collect { $0.blockChildren(node, inherited) }
            emit(.blockQuote(inner))
        case .pre:
            emit(codeBlock(node))
        case .hr:
            emit(.thematicBreak)
        case .ul, .ol, .dir, .menu:
            emit(list(node, inherited))
        case .li:
            // A list item outside a list: treat as a one-item list.
            emit(list(ordered: false, start: 1, children: [node], inherited))
        case .table:
            table(node, inherited)
        case .td, .th:
            flush()
            blockChildren(node, inherited)
            flush()
        case .br:
            if segments.contains(where: { $0.inline == nil && !$0.text.allSatisfy { $0 == " " } || $0.inline != nil }) {
                segments.append(HTMLSegment(inline: .lineBreak, text: "", wrappers: inherited.wrappers))
            }
        default:
            inline(node, inherited)
        }
    }
}

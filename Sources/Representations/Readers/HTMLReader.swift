/// Reads clipboard HTML into the readers' ``RichBlock`` model.
///
/// Handles what browsers and office suites actually put on the clipboard:
/// - Encodings: UTF-8 (with or without BOM), UTF-16LE/BE with BOM or detected by NUL bytes (old Firefox
///   on X11), `<meta charset>` for windows-125x; Windows CF_HTML headers; `<!--StartFragment-->` markers.
/// - Google Docs: the `<b style="font-weight:normal" id="docs-internal-guid-…">` wrapper is not bold;
///   formatting comes from inline CSS (`font-weight:700`, `font-style:italic`, `line-through`, monospace
///   fonts); lists nested as sibling `<ul>`s.
/// - Microsoft Word: `MsoListParagraph` paragraphs with `mso-list:lN levelM` become real (nested) lists;
///   the `mso-list:Ignore` marker decides ordered or bullet.
/// - GitHub-rendered Markdown: heading anchors, copy buttons and SVG icons are dropped, task-list
///   checkboxes and `highlight-source-LANG` code blocks are kept.
/// - Scripts, styles and comments are dropped; unknown tags are unwrapped; white space collapses as a
///   browser renders it; tables become GFM tables when every cell is inline content, else stay HTML.
struct HTMLReader {
    /// - Parameter keepRawHTML: keep what Markdown cannot represent (comments, processing instructions,
    ///   declarations, unknown elements, layout containers such as `div`, scripts and styles, `<i>`/`<b>`
    ///   and other tags Markdown writes differently, links and images with attributes Markdown has no syntax
    ///   for, header-less tables) as their exact source, so the Markdown renders back to the same HTML, like
    ///   pandoc's `html+raw_html` (paragraphs, headings and lists stay Markdown and lose their attributes, as
    ///   there). Off by default: clipboard HTML drops and unwraps all these.
    static func read(_ bytes: [UInt8], keepRawHTML: Bool = false) -> [RichBlock] {
        let html = decode(bytes)
        var range = fragmentRange(html)
        // Kept raw HTML is the body's: the document's head (doctype, title, styles) is not content.
        if keepRawHTML { range = bodyRange(html, range) }
        let tree = HTMLTreeBuilder.parse(html[range], keepRaw: keepRawHTML)
        var converter = HTMLConverter()
        converter.keepRaw = keepRawHTML
        return withExtendedLifetime(tree) { converter.convert(tree.root) }
    }

    // MARK: Decoding

    /// The HTML as UTF-8 bytes.
    static func decode(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(String(decoding: bytes.dropFirst(3), as: UTF8.self).utf8) }
        if bytes.starts(with: [0xFF, 0xFE]) { return utf16(bytes.dropFirst(2), littleEndian: true) }
        if bytes.starts(with: [0xFE, 0xFF]) { return utf16(bytes.dropFirst(2), littleEndian: false) }
        // UTF-16 without a BOM: many NUL bytes at odd (LE) or even (BE) positions.
        if bytes.count >= 4 {
            let sample = bytes.prefix(512)
            var oddNul = 0
            var evenNul = 0
            for (k, b) in sample.enumerated() where b == 0 {
                if k % 2 == 1 { oddNul += 1 } else { evenNul += 1 }
            }
            if oddNul > sample.count / 5 && evenNul * 10 < oddNul { return utf16(bytes[...], littleEndian: true) }
            if evenNul > sample.count / 5 && oddNul * 10 < evenNul { return utf16(bytes[...], littleEndian: false) }
        }
        // Declared single-byte charset (windows-125x / iso-8859-1) in the first kilobytes.
        if let codePage = declaredCodePage(bytes), !isValidUTF8(bytes) {
            var scalars = String.UnicodeScalarView()
            CodePage.forNumber(codePage).decode(bytes[...], into: &scalars)
            return Array(String(scalars).utf8)
        }
        if isValidUTF8(bytes) { return bytes }
        // Not UTF-8 and nothing declared: Windows-1252 is what browsers assume.
        var scalars = String.UnicodeScalarView()
        CodePage.cp1252.decode(bytes[...], into: &scalars)
        return Array(String(scalars).utf8)
    }

    /// Well-formed UTF-8 (Unicode table 3-7: no overlong forms, surrogates or values above U+10FFFF),
    /// checked eight ASCII bytes at a time.
    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buf -> Bool in
            guard let base = buf.baseAddress else { return true }
            let n = buf.count
            var i = 0
            @inline(__always) func cont(_ k: Int) -> Bool { k < n && buf[k] & 0xC0 == 0x80 }
            while i < n {
                while i + 8 <= n, UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 }
                guard i < n else { break }
                let b = buf[i]
                switch b {
                case 0x00...0x7F:
                    i += 1
                case 0xC2...0xDF:
                    guard cont(i + 1) else { return false }
                    i += 2
                case 0xE0...0xEF:
                    guard i + 1 < n else { return false }
                    let c = buf[i + 1]
                    let ok = b == 0xE0 ? (c >= 0xA0 && c <= 0xBF) : b == 0xED ? (c >= 0x80 && c <= 0x9F) : (c & 0xC0 == 0x80)
                    guard ok, cont(i + 2) else { return false }
                    i += 3
                case 0xF0...0xF4:
                    guard i + 1 < n else { return false }
                    let c = buf[i + 1]
                    let ok = b == 0xF0 ? (c >= 0x90 && c <= 0xBF) : b == 0xF4 ? (c >= 0x80 && c <= 0x8F) : (c & 0xC0 == 0x80)
                    guard ok, cont(i + 2), cont(i + 3) else { return false }
                    i += 4
                default:
                    return false
                }
            }
            return true
        }
    }

    private static func utf16(_ bytes: ArraySlice<UInt8>, littleEndian: Bool) -> [UInt8] {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var k = bytes.startIndex
        while k + 1 < bytes.endIndex {
            let a = UInt16(bytes[k])
            let b = UInt16(bytes[k + 1])
            units.append(littleEndian ? a | b << 8 : a << 8 | b)
            k += 2
        }
        while units.last == 0 { units.removeLast() }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }

    private static func declaredCodePage(_ bytes: [UInt8]) -> Int? {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self).lowercased()
        guard let r = head.firstRange(of: "charset=") else { return nil }
        let value = head[r.upperBound...].drop { $0 == "\"" || $0 == "'" || $0 == " " }.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        switch value {
        case "windows-1250": return 1250
        case "windows-1251": return 1251
        case "windows-1252", "iso-8859-1", "latin1", "us-ascii", "iso-8859-15": return 1252
        case "windows-1253": return 1253
        case "windows-1254": return 1254
        case "windows-1255": return 1255
        case "windows-1256": return 1256
        case "windows-1257": return 1257
        case "windows-1258": return 1258
        case "shift_jis", "shift-jis", "windows-31j": return 932
        case "gbk", "gb2312": return 936
        case "euc-kr": return 949
        case "big5": return 950
        default: return nil
        }
    }

    /// Strips a CF_HTML header and keeps only the part between `<!--StartFragment-->` and
    /// `<!--EndFragment-->` when both are present.
    static func fragment(_ bytes: [UInt8]) -> [UInt8] { Array(bytes[fragmentRange(bytes)]) }

    /// The range ``fragment(_:)`` keeps.
    static func fragmentRange(_ bytes: [UInt8]) -> Range<Int> {
        var b = 0..<bytes.count
        if bytes.starts(with: "Version:".utf8), let lt = bytes.firstIndex(of: UInt8(ascii: "<")) { b = lt..<bytes.count }
        let start = Array("<!--StartFragment-->".utf8)
        let end = Array("<!--EndFragment-->".utf8)
        if let s = find(start, in: bytes, b), let e = find(end, in: bytes, (s + start.count)..<b.upperBound) {
            return (s + start.count)..<e
        }
        return b
    }

    /// The content of the `<body>` element inside `range` (ASCII case ignored), or `range` when there is none.
    static func bodyRange(_ bytes: [UInt8], _ range: Range<Int>) -> Range<Int> {
        func tag(_ name: String, from: Int) -> Int? {
            let n = Array(name.utf8)
            var k = from
            while k + n.count < range.upperBound {
                if bytes[k] == UInt8(ascii: "<") {
                    var same = true
                    for j in 0..<n.count where bytes[k + 1 + j] | 0x20 != n[j] {
                        same = false
                        break
                    }
                    let after = k + 1 + n.count
                    if same && (after >= range.upperBound || [0x20, 0x09, 0x0A, 0x0D, 0x0C, 0x3E, 0x2F].contains(bytes[after])) { return k }
                }
                k += 1
            }
            return nil
        }
        guard let open = tag("body", from: range.lowerBound) else { return range }
        guard let gt = bytes[open..<range.upperBound].firstIndex(of: UInt8(ascii: ">")) else { return range.upperBound..<range.upperBound }
        let end = tag("/body", from: gt + 1) ?? range.upperBound
        return (gt + 1)..<max(gt + 1, end)
    }

    /// The first position of `needle` (which starts with `<`) in `bytes[range]`.
    private static func find(_ needle: [UInt8], in bytes: [UInt8], _ range: Range<Int>) -> Int? {
        guard needle.count <= range.count else { return nil }
        return bytes.withUnsafeBufferPointer { buf -> Int? in
            let window = UnsafeBufferPointer(rebasing: buf[..<range.upperBound])
            let last = range.upperBound - needle.count
            var k = range.lowerBound
            while true {
                k = ByteScan.firstIndex(of: UInt8(ascii: "<"), in: window, from: k)
                if k > last { return nil }
                var m = 1
                while m < needle.count, buf[k + m] == needle[m] { m += 1 }
                if m == needle.count { return k }
                k += 1
            }
        }
    }
}

/// Converts the HTML tree to blocks, collecting inline content into styled segments (see ``InlineAssembler``).
struct HTMLConverter {
    private struct Inherited {
        /// Open inline elements, outermost first.
        var wrappers: [InlineWrapper] = []
        var preformatted = false
    }

    /// Segments of the paragraph being collected.
    private var segments: [HTMLSegment] = []
    private var nextWrapperID = 0
    private var blocks: [RichBlock] = []
    /// Keep-raw-HTML mode (see ``HTMLReader/read(_:keepRawHTML:)``); the tree then has source ranges.
    var keepRaw = false
    /// Keep-raw mode: the last block emitted as a piece of the source (its index in `blocks`, its range), so
    /// loose content right after it (no blank line between) can join it, as it would in a Markdown HTML block.
    private var lastRawBlock: (index: Int, start: Int, end: Int, html: String)?
    /// Word list paragraphs waiting to be assembled into a list.
    private var wordList: [(list: String, level: Int, ordered: Bool, start: Int, content: [RichInline])] = []

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
    private mutating func blockChildren(_ node: HTMLNode, _ inherited: Inherited) {
        if keepRaw && Self.rawRunContainers.contains(node.tag) {
            rawBlockChildren(node, inherited)
            return
        }
        for child in node.children { visit(child, inherited) }
    }

    /// Runs `body` with a fresh block list and returns what it produced.
    private mutating func collect(_ body: (inout HTMLConverter) -> Void) -> [RichBlock] {
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

    private mutating func emit(_ block: RichBlock) {
        flush()
        if case .paragraph = block {} else { flushWordList() }
        blocks.append(block)
        lastBlockWasFontCode = false
    }

    /// Ends the paragraph being collected.
    private mutating func flush() {
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

    private mutating func visit(_ node: HTMLNode, _ inherited: Inherited) {
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
            wordList.append((list, level, ordered, marker.flatMap { RTFBlockBuilder.markerNumber($0) } ?? 1, content))
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
            let content = inlineContent(node, inner, ownStyle: false)
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
            emit(table(node, inherited))
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

    // MARK: Keeping raw HTML

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
    private func rawHow(_ node: HTMLNode) -> RawHow? {
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
    private func source(_ node: HTMLNode, _ part: Int = 0) -> String {
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
    private mutating func keepRaw(_ node: HTMLNode, _ how: RawHow, _ inherited: Inherited) {
        let closed = node.tree.ranges[Int(node.id)].closeStart >= 0
        if node.flags.contains(.blockSwitch) && segments.isEmpty {
            let r = node.tree.ranges[Int(node.id)]
            if how == .tags, closed, Self.rawRunContainers.contains(node.tag), !node.children.contains(where: isInlineNode) {
                emit(.html(source(node, 1)))
                blockChildren(node, inherited)
                flush()
                emitRaw(node.tree, Int(r.closeStart), Int(r.end))
            } else {
                emitRaw(node.tree, Int(r.start), Int(r.end))
            }
            return
        }
        if how == .whole {
            segments.append(HTMLSegment(inline: .html(source(node)), text: "", wrappers: inherited.wrappers))
            return
        }
        segments.append(HTMLSegment(inline: .html(source(node, 1)), text: "", wrappers: inherited.wrappers))
        for child in node.children { visit(child, inherited) }
        if closed { segments.append(HTMLSegment(inline: .html(source(node, 2)), text: "", wrappers: inherited.wrappers)) }
    }

    /// Emits `source[start..<end]` as an HTML block, remembered for ``rawBlockChildren(_:_:)``.
    private mutating func emitRaw(_ tree: HTMLTree, _ start: Int, _ end: Int) {
        let lo = max(0, min(start, tree.source.count))
        let hi = max(lo, min(end, tree.source.count))
        let html = String(decoding: tree.source[lo..<hi], as: UTF8.self)
        emit(.html(html))
        lastRawBlock = (blocks.count - 1, lo, hi, html)
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
    private mutating func rawBlockChildren(_ node: HTMLNode, _ inherited: Inherited) {
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
            // Right after a raw block with no blank line between: part of it (a Markdown HTML block runs
            // to the next blank line).
            if !blank, let p = c.lastRawBlock, p.index == c.blocks.count - 1, c.segments.isEmpty, p.end <= lo,
                case .html(let h)? = c.blocks.last, h == p.html
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
            // source as an HTML block anyway (a tag alone on its line, say).
            guard !blank, run.contains(where: { c.holdsRaw($0) }) || Self.startsHTMLBlock(tree.source[lo..<hi]) else {
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

    // MARK: Inlines

    private mutating func text(_ raw: String, _ inherited: Inherited) {
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

    private mutating func appendCollapsed(_ t: String, _ inherited: Inherited) {
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
        var clean = true
        var previousSpace = false
        for b in buf {
            if b == 0x20 {
                if previousSpace { clean = false; break }
                previousSpace = true
            } else if b == 0x0A || b == 0x09 || b == 0x0D || b == 0x0C {
                clean = false
                break
            } else {
                previousSpace = false
            }
        }
        if clean { return String(decoding: buf, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: buf.count) { out in
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

    /// Runs of ASCII white space become one space.
    static func collapse(_ s: String) -> String {
        var s = s
        let changed: String? = s.withUTF8 { buf in
            // Most text needs no change: no white space other than single spaces between words.
            var clean = true
            var previousSpace = false
            for b in buf {
                if b == 0x20 {
                    if previousSpace { clean = false; break }
                    previousSpace = true
                } else if b == 0x0A || b == 0x09 || b == 0x0D || b == 0x0C {
                    clean = false
                    break
                } else {
                    previousSpace = false
                }
            }
            if clean { return nil }
            return String(unsafeUninitializedCapacity: buf.count) { out in
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
        return changed ?? s
    }

    /// CSS `white-space` of an element: true for pre/pre-wrap/break-spaces, false for normal/nowrap.
    static func preservesWhiteSpace(_ node: HTMLNode) -> Bool? {
        guard let style = node.attribute("style") else { return nil }
        if ASCIICSS.contains(style, lowercased: "white-space", ignoringCase: false) == false { return nil }
        if let declarations = ASCIICSS.declarations(style) {
            // The same rules as below, on UTF-8: a declaration needs a name and a value.
            var result: Bool? = nil
            for (property, value) in declarations where !property.isEmpty && !value.isEmpty {
                guard property.trimmingWhitespace() == "white-space" else { continue }
                let v = value.trimmingWhitespace()
                if v.hasPrefix("pre") || v == "break-spaces" { result = true } else if v == "normal" || v == "nowrap" { result = false }
            }
            return result
        }
        guard style.contains("white-space") else { return nil }
        var result: Bool? = nil
        for declaration in style.lowercased().split(separator: ";") {
            let parts = declaration.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingWhitespace() == "white-space" else { continue }
            let v = parts[1].trimmingWhitespace()
            if v.hasPrefix("pre") || v == "break-spaces" { result = true } else if v == "normal" || v == "nowrap" { result = false }
        }
        return result
    }

    private mutating func inline(_ node: HTMLNode, _ inherited: Inherited) {
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
    private mutating func inlineContent(_ node: HTMLNode, _ inherited: Inherited, ownStyle: Bool = true) -> [RichInline] {
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
        // Block content inside (e.g. <p> in <h1>): keep its text.
        for b in produced {
            if case .paragraph(let p) = b {
                if !content.isEmpty { content.append(.text(" ")) }
                content += p
            }
        }
        segments = saved
        return content
    }

    private mutating func checkbox(_ node: HTMLNode, _ inherited: Inherited) {
        let checked = node.attribute("checked") != nil
        segments.append(HTMLSegment(inline: nil, text: checked ? "\u{2611} " : "\u{2610} ", wrappers: inherited.wrappers))
    }

    private func plainText(_ node: HTMLNode) -> String {
        var s = ""
        var stack = [node]
        while let n = stack.popLast() {
            if n.kind == .text { s += n.text }
            if n.kind == .element, !n.flags.contains(.dropped) { stack.append(contentsOf: n.children.reversed()) }
        }
        return s
    }

    // MARK: CSS

    private func isHidden(_ node: HTMLNode) -> Bool {
        if node.attribute("hidden") != nil { return true }
        guard let raw = node.attribute("style") else { return false }
        if let a = ASCIICSS.contains(raw, lowercased: "display:none"), let b = ASCIICSS.contains(raw, lowercased: "display: none") {
            return a || b
        }
        let style = raw.lowercased()
        if style.contains("display:none") || style.contains("display: none") {
            return true
        }
        return false
    }

    /// Inline elements deeper than this add no formatting: every text run carries its open elements,
    /// so unbounded nesting (`<b><i>` a hundred thousand times) made the reader quadratic.
    static let maximumInlineNesting = 32

    private mutating func push(_ kind: InlineWrapper.Kind, _ wrappers: inout [InlineWrapper]) {
        guard wrappers.count < Self.maximumInlineNesting else { return }
        nextWrapperID += 1
        wrappers.append(InlineWrapper(kind: kind, id: nextWrapperID))
    }

    /// Applies an element's tag and inline CSS to the open inline elements: tags open their element;
    /// CSS opens one only when none of that kind is open, and `font-weight:normal` (Google Docs' `<b>`
    /// wrapper) or `font-style:normal` closes it.
    private mutating func applyStyle(_ node: HTMLNode, _ wrappers: inout [InlineWrapper]) {
        func open(_ kind: InlineWrapper.Kind) -> Bool { wrappers.contains { $0.kind == kind } }
        var tagKind: InlineWrapper.Kind? = nil
        switch node.tag {
        case .b, .strong: tagKind = .strong
        case .i, .em, .cite, .dfn: tagKind = .emphasis
        case .s, .strike, .del: tagKind = .strikethrough
        case .u: tagKind = .underline
        case .ins, .mark: tagKind = .html(node.tag.name)
        case .kbd: tagKind = open(.code) ? nil : .html("kbd")
        case .sup: tagKind = .superscript
        case .sub: tagKind = .subscript
        case .code, .samp, .tt: tagKind = open(.code) ? nil : .code
        case .font:
            if let face = node.attribute("face"), Self.isMonospaceFamily(face), !open(.code) { tagKind = .code }
        default: break
        }
        if !node.hasAttributes {
            if let kind = tagKind { push(kind, &wrappers) }
            return
        }
        var css: [(String, String)] = []
        if let style = node.attribute("style"), !style.isEmpty, let declarations = ASCIICSS.declarations(style) {
            for (property, value) in declarations {
                var v = value.trimmingWhitespace()
                if ASCIICSS.contains(v, lowercased: "!important") == true { v = v.replacingOccurrencesOfImportant() }
                css.append((property.trimmingWhitespace(), v))
            }
        } else if let style = node.attribute("style"), !style.isEmpty {
            for declaration in style.split(separator: ";") {
                guard let colon = declaration.firstIndex(of: ":") else { continue }
                css.append((declaration[..<colon].trimmingWhitespace().lowercased(),
                    declaration[declaration.index(after: colon)...].trimmingWhitespace().lowercased().replacingOccurrencesOfImportant()))
            }
        }
        var weight: Bool? = nil
        var italic: Bool? = nil
        for (property, value) in css where property == "font-weight" {
            if value == "bold" || value == "bolder" { weight = true } else if value == "normal" || value == "lighter" { weight = false } else if let n = Int(value) { weight = n >= 600 }
        }
        for (property, value) in css where property == "font-style" {
            italic = value.hasPrefix("italic") || value.hasPrefix("oblique")
        }
        // The tag, unless its own CSS cancels it (<b style="font-weight:normal">).
        if let kind = tagKind, !(kind == .strong && weight == false), !(kind == .emphasis && italic == false) {
            push(kind, &wrappers)
            if node.tag == .font { wrappers[wrappers.count - 1].fromFont = true }
        }
        if weight == false { wrappers.removeAll { $0.kind == .strong } } else if weight == true, !open(.strong) { push(.strong, &wrappers) }
        if italic == false { wrappers.removeAll { $0.kind == .emphasis } } else if italic == true, !open(.emphasis) { push(.emphasis, &wrappers) }
        for (property, value) in css {
            switch property {
            case "text-decoration", "text-decoration-line":
                if ASCIICSS.contains(value, lowercased: "line-through") ?? value.contains("line-through"), !open(.strikethrough) {
                    push(.strikethrough, &wrappers)
                }
                if ASCIICSS.contains(value, lowercased: "underline") ?? value.contains("underline"), !open(.underline) { push(.underline, &wrappers) }
            case "vertical-align":
                if value == "super", !open(.superscript) { push(.superscript, &wrappers) }
                if value == "sub", !open(.subscript) { push(.subscript, &wrappers) }
            case "font-family", "font":
                if Self.isMonospaceFamily(value), !open(.code) {
                    push(.code, &wrappers)
                    wrappers[wrappers.count - 1].fromFont = true
                }
            default:
                break
            }
        }
    }

    static func isMonospaceFamily(_ value: String) -> Bool {
        let v = value.lowercased()
        // The first family decides (a fallback list may end in monospace after a proportional font).
        let first = v.split(separator: ",").first.map { $0.trimmingWhitespace().trimmingCharacters("'\"") } ?? v
        func has(_ s: String) -> Bool { ASCIICSS.contains(first, lowercased: s) ?? first.contains(s) }
        return has("mono") || has("courier") || first.hasPrefix("consolas") || first.hasPrefix("menlo")
            || first.hasPrefix("monaco") || first == "monospace" || first.hasPrefix("lucida console") || has("code")
            || first.hasPrefix("inconsolata") || first.hasPrefix("sfmono") || first.hasPrefix("ui-monospace")
    }

    // MARK: Lists

    private mutating func list(_ node: HTMLNode, _ inherited: Inherited) -> RichBlock {
        let ordered = node.tag == .ol
        var start = 1
        if ordered, let s = node.attribute("start"), let n = Int(s.trimmingWhitespace()) { start = n }
        return list(ordered: ordered, start: start, children: node.children, inherited)
    }

    private mutating func list(ordered: Bool, start: Int, children: some Sequence<HTMLNode>, _ inherited: Inherited) -> RichBlock {
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
        return .list(ordered: ordered, start: start, tight: tight, items: items)
    }

    /// `mso-list:l0 level2 lfo1` → ("l0", 1).
    private func wordListInfo(_ node: HTMLNode) -> (String, Int)? {
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
    private func wordMarker(_ node: HTMLNode) -> String? {
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

    private mutating func flushWordList() {
        guard !wordList.isEmpty else { return }
        let entries = wordList
        wordList = []
        var j = 0
        while j < entries.count {
            blocks.append(wordListBlock(entries, &j, level: entries[j].level))
        }
    }

    private func wordListBlock(_ entries: [(list: String, level: Int, ordered: Bool, start: Int, content: [RichInline])], _ j: inout Int, level: Int) -> RichBlock {
        let ordered = entries[j].ordered
        let start = entries[j].start
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
        return .list(ordered: ordered, start: start, tight: true, items: items)
    }

    // MARK: Code

    private func codeBlock(_ node: HTMLNode) -> RichBlock {
        var bytes: [UInt8] = []
        var stack = [node]
        while let n = stack.popLast() {
            let r = n.record
            switch r.kind {
            case .text: bytes += n.tree.bytes[Int(r.textStart)..<Int(r.textStart + r.textCount)]
            case .comment: break
            case .element:
                if r.tag == .br {
                    bytes.append(0x0A)
                } else if !r.flags.contains(.dropped) {
                    if r.firstChild >= 0 && r.firstChild == r.lastChild {
                        stack.append(HTMLNode(tree: n.tree, id: r.firstChild))
                    } else {
                        stack.append(contentsOf: n.children.reversed())
                    }
                }
            }
        }
        var code = String(decoding: bytes, as: UTF8.self).replacingNewlines()
        // HTML drops the newline right after <pre>, and only that one.
        if let first = node.children.first, first.kind == .text, first.text.hasPrefix("\n") || first.text.hasPrefix("\r"), code.hasPrefix("\n") {
            code.removeFirst()
        }
        var info = node.attribute("lang") ?? ""
        if info.isEmpty {
            func scan(_ n: HTMLNode) {
                guard n.kind == .element, let cls = n.attribute("class") else { return }
                if let ascii = Self.asciiLanguageClass(cls) {
                    if let value = ascii { info = value }
                    return
                }
                for c in cls.split(separator: " ") {
                    if c.hasPrefix("language-") { info = String(c.dropFirst(9)) } else if c.hasPrefix("lang-") { info = String(c.dropFirst(5)) }
                }
            }
            scan(node)
            if info.isEmpty {
                for n in node.children {
                    scan(n)
                    if !info.isEmpty { break }
                }
            }
        }
        return .codeBlock(info: info, code: code)
    }

    /// The last `language-X` / `lang-X` class of an all-ASCII class list, found on UTF-8: `.some(nil)` when
    /// there is none, `nil` when the list is not ASCII (then the caller splits it by characters).
    static func asciiLanguageClass(_ cls: String) -> String?? {
        var cls = cls
        return cls.withUTF8 { buf -> String?? in
            var found: String? = nil
            var k = 0
            while k < buf.count {
                if buf[k] >= 0x80 { return nil }
                k += 1
            }
            k = 0
            while k <= buf.count {
                let start = k
                while k < buf.count, buf[k] != 0x20 { k += 1 }
                let word = UnsafeBufferPointer(rebasing: buf[start..<k])
                if word.starts(with: "language-".utf8) {
                    found = String(decoding: UnsafeBufferPointer(rebasing: word[9...]), as: UTF8.self)
                } else if word.starts(with: "lang-".utf8) {
                    found = String(decoding: UnsafeBufferPointer(rebasing: word[5...]), as: UTF8.self)
                }
                k += 1
            }
            return .some(found)
        }
    }

    /// GitHub wraps highlighted code as `<div class="highlight highlight-source-swift"><pre>…`.
    private func githubCodeBlock(_ node: HTMLNode) -> RichBlock? {
        guard let cls = node.attribute("class"), cls.contains("highlight") else { return nil }
        guard let pre = node.children.first(where: { $0.kind == .element && $0.name == "pre" }) else { return nil }
        guard case .codeBlock(let info, let code) = codeBlock(pre) else { return nil }
        var language = info
        if language.isEmpty {
            for c in cls.split(separator: " ") where c.hasPrefix("highlight-source-") || c.hasPrefix("highlight-text-") {
                language = String(c.split(separator: "-").last ?? "")
            }
        }
        return .codeBlock(info: language, code: code)
    }

    // MARK: Tables

    private mutating func table(_ node: HTMLNode, _ inherited: Inherited) -> RichBlock {
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
        // Header cells are bold by presentation (LibreOffice, Word); the header row says as much.
        let header = cells.removeFirst().map { cell -> [RichInline] in
            if cell.count == 1, case .strong(let inner) = cell[0] { return inner }
            return cell
        }
        return .table(alignments: alignments, header: header, rows: cells)
    }

    private static func textAlign(_ css: String) -> String? {
        for declaration in css.split(separator: ";") {
            let parts = declaration.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingWhitespace().lowercased() == "text-align" { return parts[1].trimmingWhitespace() }
        }
        return nil
    }
}

/// Writes a cleaned HTML tree back as HTML (for tables that do not fit GFM).
enum HTMLSerializer {
    static let keptAttributes: Set<String> = ["href", "src", "alt", "title", "colspan", "rowspan", "align", "start"]

    static func serialize(_ node: HTMLNode) -> String {
        var out = ""
        write(node, &out, depth: 0)
        return out
    }

    private static func write(_ node: HTMLNode, _ out: inout String, depth: Int) {
        switch node.kind {
        case .comment: return
        case .text: out += escape(node.text, attribute: false)
        case .element:
            if node.flags.contains(.dropped) || depth > 100 { return }
            let structural: Set<String> = [
                "table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "p", "br", "ul", "ol", "li", "a", "img",
                "b", "strong", "i", "em", "code", "pre", "s", "del", "sup", "sub", "blockquote", "h1", "h2", "h3", "h4",
                "h5", "h6", "hr",
            ]
            guard structural.contains(node.name) else {
                for c in node.children { write(c, &out, depth: depth + 1) }
                return
            }
            out += "<" + node.name
            for a in node.attributes where keptAttributes.contains(a.name) {
                out += " \(a.name)=\"\(escape(a.value, attribute: true))\""
            }
            out += ">"
            if node.flags.contains(.void) { return }
            for c in node.children { write(c, &out, depth: depth + 1) }
            out += "</\(node.name)>"
            if ["table", "tr", "thead", "tbody", "tfoot"].contains(node.name) { out += "\n" }
        }
    }

    static func escape(_ s: String, attribute: Bool) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

extension String {
    /// Removes trailing U+0020 spaces.
    mutating func trimTrailingSpaces() {
        guard utf8.last == 0x20 else { return }
        let u = utf8
        var end = u.endIndex
        while end > u.startIndex, u[u.index(before: end)] == 0x20 { end = u.index(before: end) }
        self = String(u[..<end])!
    }

    /// CR LF and lone CR become LF.
    func replacingNewlines() -> String {
        var s = self
        guard s.withUTF8({ $0.contains(0x0D) }) else { return s }
        var out = [UInt8]()
        var previousCR = false
        for b in utf8 {
            if b == 0x0D {
                out.append(0x0A)
                previousCR = true
                continue
            }
            if b == 0x0A && previousCR {
                previousCR = false
                continue
            }
            previousCR = false
            out.append(b)
        }
        return String(decoding: out, as: UTF8.self)
    }

    func replacingOccurrences(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }

    func replacingOccurrencesOfImportant() -> String {
        if let r = firstRange(of: "!important") { return String(self[..<r.lowerBound]).trimmingWhitespace() }
        return self
    }
}

/// An open inline element of the HTML being read.
struct InlineWrapper: Equatable {
    enum Kind: Equatable {
        case strong, emphasis, strikethrough, underline, superscript, `subscript`, code
        /// An inline element with no Markdown form that means something (`kbd`, `ins`, `mark`): kept as HTML.
        case html(String)
        case link(String, String)
    }
    var kind: Kind
    /// Distinguishes two elements of the same kind.
    var id: Int
    /// Opened by a monospace font in CSS or `<font face>` rather than by `<code>`/`<kbd>`/`<samp>`/`<tt>`.
    var fromFont = false
}

/// A run of text (or an atomic inline) with the inline elements it sits in.
struct HTMLSegment {
    var inline: RichInline?
    var text: String
    var wrappers: [InlineWrapper]
    var isCode: Bool { wrappers.contains { $0.kind == .code } }
}

/// Rebuilds the inline tree from segments: consecutive segments in the same element (or adjacent elements
/// of the same kind) share one node, so nesting follows the HTML.
enum HTMLInlineAssembler {
    static func build(_ segments: ArraySlice<HTMLSegment>, depth: Int) -> [RichInline] {
        var out: [RichInline] = []
        var i = segments.startIndex
        while i < segments.endIndex {
            let s = segments[i]
            if s.wrappers.count > depth {
                let w = s.wrappers[depth]
                var j = i
                while j < segments.endIndex, segments[j].wrappers.count > depth, segments[j].wrappers[depth].kind == w.kind { j += 1 }
                let group = segments[i..<j]
                i = j
                if w.kind == .code {
                    var text = ""
                    for g in group {
                        if let inline = g.inline { text += inline.plainText } else { text += g.text }
                    }
                    out.append(.code(text))
                    continue
                }
                let inner = build(group, depth: depth + 1)
                switch w.kind {
                case .link(let url, let title):
                    out.append(.link(destination: url, title: title, inner.filter { $0 != .text("") }))
                    continue
                default:
                    break
                }
                let (lead, body, trail) = InlineAssembler.splitSpaces(inner)
                if !lead.isEmpty { out.append(.text(lead)) }
                if !body.isEmpty {
                    switch w.kind {
                    case .strong: out.append(.strong(body))
                    case .emphasis: out.append(.emphasis(body))
                    case .strikethrough: out.append(.strikethrough(body))
                    case .underline: out.append(.underline(body))
                    case .superscript: out.append(.superscript(body))
                    case .subscript: out.append(.subscript(body))
                    case .html(let name):
                        out.append(.html("<\(name)>"))
                        out += body
                        out.append(.html("</\(name)>"))
                    case .code, .link: break
                    }
                }
                if !trail.isEmpty { out.append(.text(trail)) }
            } else {
                if let inline = s.inline {
                    if inline != .text("") { out.append(inline) }
                } else if !s.text.isEmpty {
                    out.append(.text(s.text))
                }
                i += 1
            }
        }
        // Adjacent texts become one (most lists have none: skip the copy).
        var adjacent = false
        var previousText = false
        for x in out {
            let isText: Bool
            if case .text = x { isText = true } else { isText = false }
            if isText && previousText {
                adjacent = true
                break
            }
            previousText = isText
        }
        return adjacent ? InlineAssembler.merged(out) : out
    }
}

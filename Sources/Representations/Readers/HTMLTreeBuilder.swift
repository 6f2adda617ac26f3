import ReaderSupport

/// A set of tags as a bit set (scope stoppers and other small tag sets).
struct HTMLTagSet {
    private var bits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init(_ tags: [HTMLTag]) {
        for t in tags { insert(t) }
    }

    mutating func insert(_ t: HTMLTag) {
        let v = Int(t.rawValue)
        let m = UInt64(1) << UInt64(v & 63)
        switch v >> 6 {
        case 0: bits.0 |= m
        case 1: bits.1 |= m
        case 2: bits.2 |= m
        default: bits.3 |= m
        }
    }

    @inline(__always) func contains(_ t: HTMLTag) -> Bool {
        let v = Int(t.rawValue)
        let m = UInt64(1) << UInt64(v & 63)
        switch v >> 6 {
        case 0: return bits.0 & m != 0
        case 1: return bits.1 & m != 0
        case 2: return bits.2 & m != 0
        default: return bits.3 & m != 0
        }
    }
}

/// An HTML5-style tokenizer and a tolerant tree builder for clipboard HTML.
///
/// It follows the HTML5 tokenizer for tags, attributes (quoted, unquoted, duplicated), comments, bogus
/// comments (`<![if !supportLists]>`), doctype, CDATA and raw-text elements (`script`, `style`, `textarea`,
/// `title`…), and decodes character references. The tree builder is simpler than HTML5's: it closes
/// implied elements (`p` before a block, `li` before `li`, table cells and rows), ignores end tags with no
/// open element, treats `html`/`head`/`body` as transparent and caps nesting depth, so no input can make
/// it fail, loop or recurse without bound.
///
/// It works on the input bytes: tag names become ``HTMLTag`` numbers, text and attribute values are
/// decoded into the tree's one byte buffer, and nodes are records in one array (see ``HTMLTree``).
struct HTMLTreeBuilder {
    static let maxDepth = 400

    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0
    /// Open elements (node indices), the root first.
    private var stack: [Int32] = [0]
    private var nodes: [HTMLNodeRecord]
    private var out: [UInt8] = []
    private var attributes: [HTMLAttributeRecord] = []
    /// The lower-cased name of the tag being read.
    private var name: [UInt8] = []
    /// Keep-raw-HTML mode: every node's source range (in ``ranges``, parallel to ``nodes``), comments for
    /// processing instructions, declarations and CDATA, and empty comments. Off (and free) by default.
    private let keepRaw: Bool
    private var ranges: [HTMLSourceRange] = []
    /// Where the markup being read starts (its `<`), for source ranges.
    private var markupStart = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, keepRaw: Bool = false) {
        self.bytes = bytes
        self.keepRaw = keepRaw
        if keepRaw { ranges = [HTMLSourceRange(start: 0, openEnd: 0, closeStart: -1, end: Int32(bytes.count))] }
        nodes = [HTMLNodeRecord(kind: .element, tag: .root, flags: [])]
        nodes.reserveCapacity(bytes.count / 16)
        out.reserveCapacity(bytes.count)
    }

    static func parse(_ bytes: ArraySlice<UInt8>, keepRaw: Bool = false) -> HTMLTree {
        bytes.withUnsafeBufferPointer { buf in
            var b = HTMLTreeBuilder(buf, keepRaw: keepRaw)
            b.run()
            let tree = HTMLTree(nodes: b.nodes, bytes: b.out, attributes: b.attributes)
            if keepRaw {
                b.finishRanges()
                tree.source = Array(buf)
                tree.ranges = b.ranges
            }
            return tree
        }
    }

    /// The start tags, exactly as written, of the elements still open at the end of `bytes`, outermost first
    /// (`html`, `head` and `body` are transparent and never open): the context in which markup that follows
    /// `bytes` is read, as a browser reads a clipboard fragment inside the elements open at its start.
    static func openStartTags(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.withUnsafeBufferPointer { buf in
            var b = HTMLTreeBuilder(buf, keepRaw: true)
            b.run()
            var tags: [UInt8] = []
            for id in b.stack.dropFirst() {
                let r = b.ranges[Int(id)]
                if r.start >= 0, r.openEnd > r.start { tags += buf[Int(r.start)..<Int(r.openEnd)] }
            }
            return tags
        }
    }

    /// Elements still open at the end of the input end there; void and never-opened ones end with their tag.
    private mutating func finishRanges() {
        for k in stack.dropFirst() where ranges[Int(k)].end < 0 { ranges[Int(k)].end = Int32(bytes.count) }
        for k in ranges.indices where ranges[k].end < 0 {
            if ranges[k].openEnd < 0 { ranges[k].openEnd = ranges[k].start }
            ranges[k].end = ranges[k].openEnd
        }
    }

    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
        "basefont", "bgsound", "frame", "keygen",
    ]
    static let rawTextElements: Set<String> = [
        "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext",
    ]
    /// Start tags that close an open `<p>`.
    static let closesParagraph: Set<String> = [
        "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl", "fieldset",
        "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "main",
        "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "ul", "li", "dd", "dt",
    ]

    // MARK: Tokenizer

    private mutating func run() {
        let n = bytes.count
        var textStart = 0
        var progress = ProgressCheck("HTML tokenizer")
        while i < n {
            progress.advance(to: i)
            if bytes[i] != UInt8(ascii: "<") {
                // Skip to the next `<` in one scan of the text.
                i = ByteScan.firstIndex(of: UInt8(ascii: "<"), in: bytes, from: i + 1)
                continue
            }
            // Possible markup at i.
            let lt = i
            guard i + 1 < n else { break }
            let c = bytes[i + 1]
            if c == UInt8(ascii: "!") || c == UInt8(ascii: "/") || c == UInt8(ascii: "?") || isASCIILetter(c) {
                flushText(textStart, lt)
                markupStart = lt
                if !markup() {
                    // Not markup after all: the `<` is text.
                    textStart = lt
                    i = lt + 1
                    continue
                }
                if keepRaw, nodes.count > 1, nodes[nodes.count - 1].kind == .comment, ranges[nodes.count - 1].end < 0 {
                    ranges[nodes.count - 1].openEnd = Int32(i)
                    ranges[nodes.count - 1].end = Int32(i)
                }
                textStart = i
            } else {
                i += 1
            }
        }
        flushText(textStart, n)
    }

    @inline(__always) private func isASCIILetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
    @inline(__always) private func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D }

    private mutating func flushText(_ start: Int, _ end: Int, decode: Bool = true) {
        guard end > start else { return }
        let run = UnsafeBufferPointer(rebasing: bytes[start..<end])
        let parent = Int(stack[stack.count - 1])
        let last = nodes[parent].lastChild
        let begin = out.count
        if decode && run.contains(UInt8(ascii: "&")) {
            HTMLEntityDecoder.decode(run, appendingTo: &out)
        } else {
            out.append(contentsOf: run)
        }
        if last >= 0, nodes[Int(last)].kind == .text, Int(nodes[Int(last)].textStart + nodes[Int(last)].textCount) == begin {
            nodes[Int(last)].textCount += Int32(out.count - begin)
            if keepRaw { ranges[Int(last)].end = Int32(end) }
        } else {
            var r = HTMLNodeRecord(kind: .text, tag: .unknown, flags: [])
            r.textStart = Int32(begin)
            r.textCount = Int32(out.count - begin)
            let id = append(r)
            if keepRaw { ranges[Int(id)] = HTMLSourceRange(start: Int32(start), openEnd: Int32(end), closeStart: -1, end: Int32(end)) }
        }
    }

    /// Appends a node as the last child of the current element; returns its index.
    @discardableResult
    private mutating func append(_ record: HTMLNodeRecord) -> Int32 {
        let parent = stack[stack.count - 1]
        let id = Int32(nodes.count)
        var r = record
        r.parent = parent
        nodes.append(r)
        let last = nodes[Int(parent)].lastChild
        if last >= 0 { nodes[Int(last)].next = id } else { nodes[Int(parent)].firstChild = id }
        nodes[Int(parent)].lastChild = id
        if keepRaw { ranges.append(HTMLSourceRange(start: Int32(markupStart), openEnd: -1, closeStart: -1, end: -1)) }
        return id
    }

    private mutating func comment(_ start: Int, _ end: Int) {
        var r = HTMLNodeRecord(kind: .comment, tag: .unknown, flags: [])
        r.textStart = Int32(out.count)
        if end > start { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end])) }
        r.textCount = Int32(out.count) - r.textStart
        append(r)
    }

    /// Parses markup at `i` (a `<`). Returns false when it is not markup (then it is text).
    private mutating func markup() -> Bool {
        let n = bytes.count
        let c = bytes[i + 1]
        if c == UInt8(ascii: "!") {
            if i + 3 < n, bytes[i + 2] == UInt8(ascii: "-"), bytes[i + 3] == UInt8(ascii: "-") {
                // Comment: ends at -->, or --!>, or (for <!--> and <!--->) right away.
                var j = i + 4
                if j < n, bytes[j] == UInt8(ascii: ">") {
                    i = j + 1
                    if keepRaw { comment(j, j) }
                    return true
                }
                if j + 1 < n, bytes[j] == UInt8(ascii: "-"), bytes[j + 1] == UInt8(ascii: ">") {
                    i = j + 2
                    if keepRaw { comment(j, j) }
                    return true
                }
                let start = j
                while j < n {
                    if bytes[j] == UInt8(ascii: "-"), j + 2 < n, bytes[j + 1] == UInt8(ascii: "-"), bytes[j + 2] == UInt8(ascii: ">") {
                        break
                    }
                    if bytes[j] == UInt8(ascii: "-"), j + 3 < n, bytes[j + 1] == UInt8(ascii: "-"), bytes[j + 2] == UInt8(ascii: "!"),
                        bytes[j + 3] == UInt8(ascii: ">")
                    {
                        break
                    }
                    j += 1
                }
                comment(start, min(j, n))
                i = j >= n ? n : (bytes[j + 2] == UInt8(ascii: ">") ? j + 3 : j + 4)
                return true
            }
            if i + 8 < n, UnsafeBufferPointer(rebasing: bytes[i + 2..<i + 9]).elementsEqual("[CDATA[".utf8) {
                var j = i + 9
                while j + 2 < n, !(bytes[j] == UInt8(ascii: "]") && bytes[j + 1] == UInt8(ascii: "]") && bytes[j + 2] == UInt8(ascii: ">")) {
                    j += 1
                }
                let end = min(j, n)
                if keepRaw {
                    // Kept as it is: a comment node whose source range is the whole section.
                    comment(i + 9, max(i + 9, end))
                } else {
                    flushText(i + 9, max(i + 9, end), decode: false)
                }
                i = min(n, j + 3)
                return true
            }
            // Doctype or bogus comment (e.g. Word's <![if !supportLists]>): up to the next >.
            bogusComment(from: i + 2)
            return true
        }
        if c == UInt8(ascii: "?") {
            bogusComment(from: i + 2)
            return true
        }
        if c == UInt8(ascii: "/") {
            guard i + 2 < n else { return false }
            if bytes[i + 2] == UInt8(ascii: ">") {
                i += 3
                return true
            }
            if !isASCIILetter(bytes[i + 2]) {
                bogusComment(from: i + 2)
                return true
            }
            var j = i + 2
            let nameStart = j
            while j < n, !isSpace(bytes[j]), bytes[j] != UInt8(ascii: "/"), bytes[j] != UInt8(ascii: ">") { j += 1 }
            let tag = readName(nameStart..<j)
            while j < n, bytes[j] != UInt8(ascii: ">") { j += 1 }
            i = min(n, j + 1)
            endTag(tag)
            return true
        }
        // Start tag.
        var j = i + 1
        let nameStart = j
        while j < n, !isSpace(bytes[j]), bytes[j] != UInt8(ascii: "/"), bytes[j] != UInt8(ascii: ">") { j += 1 }
        let tag = readName(nameStart..<j)
        let outMark = out.count
        var record = HTMLNodeRecord(kind: .element, tag: tag, flags: HTMLNode.tagFlags[Int(tag.rawValue)])
        if tag == .unknown {
            record.textStart = Int32(out.count)
            out.append(contentsOf: name)
            record.textCount = Int32(name.count)
        }
        let firstAttribute = attributes.count
        var selfClosing = false
        while j < n {
            while j < n, isSpace(bytes[j]) || bytes[j] == UInt8(ascii: "/") {
                if bytes[j] == UInt8(ascii: "/") { selfClosing = true }
                j += 1
            }
            if j >= n { break }
            if bytes[j] == UInt8(ascii: ">") {
                j += 1
                break
            }
            selfClosing = false
            let an = j
            j += 1  // the first character may be '=' (HTML5 takes it as part of the name)
            while j < n, !isSpace(bytes[j]), bytes[j] != UInt8(ascii: "/"), bytes[j] != UInt8(ascii: ">"), bytes[j] != UInt8(ascii: "=") { j += 1 }
            let attributeNameStart = out.count
            for k in an..<j {
                let b = bytes[k]
                out.append(b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
            }
            let attributeNameCount = out.count - attributeNameStart
            while j < n, isSpace(bytes[j]) { j += 1 }
            var valueStart = out.count
            if j < n, bytes[j] == UInt8(ascii: "=") {
                j += 1
                while j < n, isSpace(bytes[j]) { j += 1 }
                var vs = j
                var ve = j
                if j < n, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'") {
                    let q = bytes[j]
                    vs = j + 1
                    j = vs
                    while j < n, bytes[j] != q { j += 1 }
                    ve = min(j, n)
                    j = min(n, j + 1)
                } else {
                    while j < n, !isSpace(bytes[j]), bytes[j] != UInt8(ascii: ">") { j += 1 }
                    ve = j
                }
                let value = UnsafeBufferPointer(rebasing: bytes[vs..<ve])
                if value.contains(UInt8(ascii: "&")) {
                    HTMLEntityDecoder.decode(value, inAttribute: true, appendingTo: &out)
                } else {
                    out.append(contentsOf: value)
                }
            }
            // A repeated attribute is ignored (the first one wins).
            var repeated = false
            for k in firstAttribute..<attributes.count where Int(attributes[k].nameCount) == attributeNameCount {
                if out[Int(attributes[k].nameStart)..<Int(attributes[k].nameStart) + attributeNameCount]
                    .elementsEqual(out[attributeNameStart..<attributeNameStart + attributeNameCount])
                {
                    repeated = true
                    break
                }
            }
            if repeated {
                out.removeSubrange(attributeNameStart...)
                valueStart = out.count
            } else {
                attributes.append(HTMLAttributeRecord(nameStart: Int32(attributeNameStart), nameCount: Int32(attributeNameCount),
                    valueStart: Int32(valueStart), valueCount: Int32(out.count - valueStart)))
            }
        }
        i = min(j, n)
        if tag == .html || tag == .head || tag == .body {
            // Transparent: their attributes are not kept (and text around them stays one run).
            attributes.removeSubrange(firstAttribute...)
            out.removeSubrange(outMark...)
            return true
        }
        record.attributeStart = Int32(firstAttribute)
        record.attributeCount = Int32(attributes.count - firstAttribute)
        let before = nodes.count
        startTag(record, selfClosing: selfClosing)
        if keepRaw && nodes.count > before { ranges[before].openEnd = Int32(i) }
        if record.flags.contains(.rawText) && !selfClosing {
            rawText(tag)
        }
        return true
    }

    /// Reads a tag name and returns its tag; for an unknown tag, `name` holds the name lower-cased (ASCII).
    private mutating func readName(_ range: Range<Int>) -> HTMLTag {
        let tag = HTMLTag.lookup(lowercasing: UnsafeBufferPointer(rebasing: bytes[range]))
        if tag == .unknown {
            name.removeAll(keepingCapacity: true)
            for k in range {
                let b = bytes[k]
                name.append(b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
            }
        }
        return tag
    }

    private mutating func bogusComment(from start: Int) {
        var j = start
        while j < bytes.count, bytes[j] != UInt8(ascii: ">") { j += 1 }
        comment(start, min(j, bytes.count))
        i = min(bytes.count, j + 1)
    }

    /// Content of a raw-text element up to its end tag.
    private mutating func rawText(_ tag: HTMLTag) {
        let n = bytes.count
        var j = i
        let lower = Array(tag.name.utf8)
        while j < n {
            if bytes[j] == UInt8(ascii: "<"), j + 1 < n, bytes[j + 1] == UInt8(ascii: "/"), j + 2 + lower.count <= n {
                var match = true
                for (k, c) in lower.enumerated() where bytes[j + 2 + k] | 0x20 != c {
                    match = false
                    break
                }
                if match {
                    let after = j + 2 + lower.count
                    if after >= n || isSpace(bytes[after]) || bytes[after] == UInt8(ascii: ">") || bytes[after] == UInt8(ascii: "/") { break }
                }
            }
            j += 1
        }
        if j > i {
            flushText(i, j, decode: tag == .textarea || tag == .title)
        }
        i = j
        markupStart = j
        if j < n {
            while i < n, bytes[i] != UInt8(ascii: ">") { i += 1 }
            i = min(n, i + 1)
        }
        endTag(tag)
    }

    // MARK: Tree building

    private static let defaultScope = HTMLTagSet([.table, .td, .th, .root])
    private static let paragraphScope = HTMLTagSet([.table, .td, .th, .li, .root, .blockquote, .div])
    private static let listItemScope = HTMLTagSet([.ul, .ol, .table, .td, .th, .root])
    private static let definitionScope = HTMLTagSet([.dl, .table, .root])
    private static let cellScope = HTMLTagSet([.tr, .table, .root])
    private static let tableScope = HTMLTagSet([.table, .root])
    private static let selectScope = HTMLTagSet([.select, .root])
    private static let rootScope = HTMLTagSet([.root])
    private static let tableParts = HTMLTagSet([.table, .td, .th, .tr, .tbody, .thead, .tfoot])

    /// The stack position of the innermost open element with this tag (for `.unknown`, with the name in
    /// `name`), unless a scope stopper comes first.
    private func isOpen(_ tag: HTMLTag, scopeStoppers: HTMLTagSet = HTMLTreeBuilder.defaultScope) -> Int? {
        var k = stack.count - 1
        while k > 0 {
            let r = nodes[Int(stack[k])]
            if r.tag == tag {
                if tag != .unknown { return k }
                if Int(r.textCount) == name.count && out[Int(r.textStart)..<Int(r.textStart + r.textCount)].elementsEqual(name) { return k }
            }
            if scopeStoppers.contains(r.tag) { return nil }
            k -= 1
        }
        return nil
    }

    private mutating func popTo(_ k: Int?) {
        guard let k else { return }
        if keepRaw {
            // Closed by other markup: each ends where that markup starts (endTag marks the one it names).
            for id in stack[k...] where ranges[Int(id)].end < 0 { ranges[Int(id)].end = Int32(markupStart) }
        }
        stack.removeSubrange(k...)
    }

    private mutating func startTag(_ record: HTMLNodeRecord, selfClosing: Bool) {
        let tag = record.tag
        switch tag {
        case .html, .head, .body:
            // transparent; keep body/html attributes out of the tree
            return
        default:
            break
        }
        if record.flags.contains(.closesParagraph) { popTo(isOpen(.p, scopeStoppers: Self.paragraphScope)) }
        switch tag {
        case .li:
            popTo(isOpen(.li, scopeStoppers: Self.listItemScope))
        case .dt, .dd:
            popTo(isOpen(.dt, scopeStoppers: Self.definitionScope))
            popTo(isOpen(.dd, scopeStoppers: Self.definitionScope))
        case .td, .th:
            popTo(isOpen(.td, scopeStoppers: Self.cellScope))
            popTo(isOpen(.th, scopeStoppers: Self.cellScope))
        case .tr:
            popTo(isOpen(.tr, scopeStoppers: Self.tableScope))
        case .thead, .tbody, .tfoot:
            for t in [HTMLTag.thead, .tbody, .tfoot] { popTo(isOpen(t, scopeStoppers: Self.tableScope)) }
        case .option:
            popTo(isOpen(.option, scopeStoppers: Self.selectScope))
        case .a:
            popTo(isOpen(.a))
        case .h1, .h2, .h3, .h4, .h5, .h6:
            let top = nodes[Int(stack[stack.count - 1])]
            if top.tag.isHeading
                || (top.tag == .unknown && top.textCount == 2 && out[Int(top.textStart)] == UInt8(ascii: "h"))
            {
                if stack.count > 1 { popTo(stack.count - 1) }
            }
        default:
            break
        }
        let id = append(record)
        if record.flags.contains(.void) || (selfClosing && tag != .div && tag != .span && tag != .p) {
            return
        }
        if stack.count >= Self.maxDepth { return }  // too deep: children go to the current element
        stack.append(id)
    }

    private mutating func endTag(_ tag: HTMLTag) {
        switch tag {
        case .html, .head, .body:
            return
        case .br:
            append(HTMLNodeRecord(kind: .element, tag: .br, flags: HTMLNode.tagFlags[Int(HTMLTag.br.rawValue)]))
            return
        case .p:
            if let k = isOpen(.p) {
                closeExplicitly(stack[k])
                popTo(k)
            } else {
                append(HTMLNodeRecord(kind: .element, tag: .p, flags: HTMLNode.tagFlags[Int(HTMLTag.p.rawValue)]))
            }
            return
        default:
            break
        }
        let k = isOpen(tag, scopeStoppers: Self.tableParts.contains(tag) ? Self.rootScope : Self.defaultScope)
        if let k {
            closeExplicitly(stack[k])
        } else if keepRaw {
            // An end tag with nothing to close: kept (as a comment node) so it can be written back.
            comment(i, i)
            ranges[nodes.count - 1].openEnd = Int32(i)
            ranges[nodes.count - 1].end = Int32(i)
        }
        popTo(k)
    }

    /// Keep-raw mode: the element is closed by the end tag being read (at `markupStart`, ending at `i`).
    @inline(__always) private mutating func closeExplicitly(_ id: Int32) {
        guard keepRaw else { return }
        ranges[Int(id)].closeStart = Int32(markupStart)
        ranges[Int(id)].end = Int32(i)
    }
}

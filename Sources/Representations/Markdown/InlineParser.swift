import Pasteboard

// Phase 2 of CommonMark parsing: inline content of paragraphs, headings and table cells
// (a port of cmark's inlines.c: delimiter stack + bracket stack, "process emphasis"
// with openers_bottom, plus cmark-gfm's strikethrough, autolink and footnote rules).
// Text nodes are byte ranges into the document storage; structural changes (emphasis,
// links) splice sibling chains in O(1) and parent pointers are fixed per block.

private let maxBackticks = 1000
private let maxLinkLabelLength = 1000

fileprivate struct Delimiter {
    var char: UInt8
    var canOpen: Bool
    var canClose: Bool
    var origLength: Int32
    var node: Int32
    var prev: Int32
    var next: Int32
}

fileprivate struct Bracket {
    var node: Int32
    var prevDelim: Int32
    var position: Int
    var image: Bool
    var active: Bool
    var bracketAfter: Bool
}

/// Bytes that interrupt a plain text run.
private let specialBytes: [Bool] = {
    var t = [Bool](repeating: false, count: 256)
    for c in "\n\\`&<*_[]!".utf8 { t[Int(c)] = true }
    return t
}()
private let specialBytesGFM: [Bool] = {
    var t = specialBytes
    t[Int(UInt8(ascii: "~"))] = true
    return t
}()

struct InlineParser {
    var nodes: [MarkdownNodeRecord]
    var bytes: [UInt8]
    var extras: [MarkdownExtra]
    let info: [BlockInfo]
    let segments: [LineSegment]
    let refmap: [String: ReferenceDefinition]
    let footnoteMap: [String: Int32]
    let options: MarkdownOptions
    let special: [Bool]

    // Per block
    var subj: [UInt8] = []
    var base = 0
    var pos = 0
    var end = 0
    var block: Int32 = 0
    var segStart = 0
    var segEnd = 0
    fileprivate var delims: [Delimiter] = []
    var lastDelim: Int32 = -1
    fileprivate var brackets: [Bracket] = []
    /// Indices into `brackets` of the link (non-image) openers.
    var linkOpeners: [Int] = []
    var backticks = [Int](repeating: 0, count: maxBackticks + 1)
    var scannedForBackticks = false
    var noCommentEnd = false
    var noPIEnd = false
    var noCDATAEnd = false
    var noDeclEnd = false
    var parentStack: [Int32] = []
    /// Segment of the last position lookup (lookups are mostly increasing).
    var lastSeg = 0
    var noQuoteFrom = (Int.max, Int.max, Int.max)  // ", ' in attribute values
    var noTitleFrom = (Int.max, Int.max, Int.max)  // ", ', ( link titles

    init(parser p: BlockParser, takeArrays: Bool = true) {
        nodes = takeArrays ? p.nodes : []
        bytes = takeArrays ? p.bytes : []
        extras = takeArrays ? p.extras : []
        info = p.info
        segments = p.segments
        refmap = p.refmap
        footnoteMap = p.footnoteMap
        options = p.options
        special = p.options.strikethrough ? specialBytesGFM : specialBytes
    }

    // MARK: Positions

    mutating func position(_ p: Int) -> (Int32, Int32) {
        guard segEnd > segStart else { return (nodes[Int(block)].startLine, nodes[Int(block)].startColumn) }
        let o = Int32(base + p)
        if lastSeg >= segStart && lastSeg < segEnd && segments[lastSeg].offset <= o
            && (lastSeg + 1 == segEnd || segments[lastSeg + 1].offset > o)
        {
            let seg = segments[lastSeg]
            return (seg.line, seg.column + (o - seg.offset))
        }
        var lo = segStart
        var hi = segEnd - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if segments[mid].offset <= o { lo = mid } else { hi = mid - 1 }
        }
        lastSeg = lo
        let seg = segments[lo]
        return (seg.line, seg.column + max(0, o - seg.offset))
    }

    // MARK: Node helpers

    @discardableResult
    mutating func append(_ kind: MarkdownNodeKind, from: Int, to: Int) -> Int32 {
        let index = Int32(nodes.count)
        var r = MarkdownNodeRecord(kind: kind, parent: block)
        (r.startLine, r.startColumn) = position(from)
        (r.endLine, r.endColumn) = position(max(from, to - 1))
        let last = nodes[Int(block)].lastChild
        r.prev = last
        nodes.append(r)
        if last >= 0 { nodes[Int(last)].next = index } else { nodes[Int(block)].firstChild = index }
        nodes[Int(block)].lastChild = index
        return index
    }

    /// Text node referencing subject bytes [from, to).
    @discardableResult
    mutating func appendText(_ from: Int, _ to: Int) -> Int32 {
        let n = append(.text, from: from, to: to)
        nodes[Int(n)].literalStart = Int32(base + from)
        nodes[Int(n)].literalCount = Int32(to - from)
        return n
    }

    /// Text node with new bytes (already appended to storage at `start`).
    @discardableResult
    mutating func appendStoredText(_ start: Int, from: Int, to: Int) -> Int32 {
        let n = append(.text, from: from, to: to)
        nodes[Int(n)].literalStart = Int32(start)
        nodes[Int(n)].literalCount = Int32(bytes.count - start)
        return n
    }

    /// Removes a node from its sibling list (parent = `block` for top-level inline nodes).
    mutating func unlink(_ n: Int32, parent: Int32) {
        let r = nodes[Int(n)]
        if r.prev >= 0 { nodes[Int(r.prev)].next = r.next } else { nodes[Int(parent)].firstChild = r.next }
        if r.next >= 0 { nodes[Int(r.next)].prev = r.prev } else { nodes[Int(parent)].lastChild = r.prev }
        nodes[Int(n)].next = -1
        nodes[Int(n)].prev = -1
    }

    /// Makes the sibling chain first...last (children of `block`) the children of `wrapper`,
    /// which must already be linked in place of... (the caller links the wrapper).
    mutating func adopt(_ wrapper: Int32, first: Int32, last: Int32) {
        if first < 0 {
            nodes[Int(wrapper)].firstChild = -1
            nodes[Int(wrapper)].lastChild = -1
            return
        }
        nodes[Int(first)].prev = -1
        nodes[Int(last)].next = -1
        nodes[Int(wrapper)].firstChild = first
        nodes[Int(wrapper)].lastChild = last
    }

    // MARK: Block driver

    mutating func parseBlock(_ b: Int32) {
        block = b
        let r = nodes[Int(b)]
        base = Int(r.literalStart)
        let count = Int(r.literalCount)
        nodes[Int(b)].literalCount = 0
        subj.removeAll(keepingCapacity: true)
        subj.append(contentsOf: bytes[base..<(base + count)])
        lastSeg = segStartFor(b)
        pos = 0
        end = count
        segStart = Int(info[Int(b)].segStart)
        segEnd = segStart + Int(info[Int(b)].segCount)
        delims.removeAll(keepingCapacity: true)
        brackets.removeAll(keepingCapacity: true)
        linkOpeners.removeAll(keepingCapacity: true)
        lastDelim = -1
        if scannedForBackticks {
            for i in 0...maxBackticks { backticks[i] = 0 }
            scannedForBackticks = false
        }
        noCommentEnd = false
        noPIEnd = false
        noCDATAEnd = false
        noDeclEnd = false
        noQuoteFrom = (Int.max, Int.max, Int.max)
        noTitleFrom = (Int.max, Int.max, Int.max)

        var progress = ProgressCheck("Markdown inline parser")
        while pos < end {
            progress.advance(to: pos)
            parseInline()
        }
        processEmphasis(-1)
        // Fix parent pointers of the (possibly restructured) inline subtree.
        fixParents(b)
        if options.autolinks && subjectHasAt() { postprocessEmails(b) }
    }

    func subjectHasAt() -> Bool {
        subj.withUnsafeBufferPointer { p in
            for c in p where c == 0x40 { return true }
            return false
        }
    }

    mutating func fixParents(_ b: Int32) {
        parentStack.removeAll(keepingCapacity: true)
        parentStack.append(b)
        while let p = parentStack.popLast() {
            var c = nodes[Int(p)].firstChild
            while c >= 0 {
                nodes[Int(c)].parent = p
                if nodes[Int(c)].firstChild >= 0 { parentStack.append(c) }
                c = nodes[Int(c)].next
            }
        }
    }

    func segStartFor(_ b: Int32) -> Int { Int(info[Int(b)].segStart) }

    mutating func parseInline() {
        let c = subj[pos]
        switch c {
        case 0x0A:
            handleNewline()
        case UInt8(ascii: "`"):
            handleBackticks()
        case UInt8(ascii: "\\"):
            handleBackslash()
        case UInt8(ascii: "&"):
            handleEntity()
        case UInt8(ascii: "<"):
            handlePointyBrace()
        case UInt8(ascii: "*"), UInt8(ascii: "_"):
            handleDelim(c)
        case UInt8(ascii: "~") where options.strikethrough:
            handleDelim(c)
        case UInt8(ascii: "["):
            let n = appendText(pos, pos + 1)
            pos += 1
            pushBracket(image: false, node: n)
        case UInt8(ascii: "!"):
            if pos + 1 < end && subj[pos + 1] == UInt8(ascii: "[") {
                let n = appendText(pos, pos + 2)
                pos += 2
                pushBracket(image: true, node: n)
            } else {
                appendText(pos, pos + 1)
                pos += 1
            }
        case UInt8(ascii: "]"):
            handleCloseBracket()
        default:
            if options.autolinks && brackets.isEmpty {
                if c == UInt8(ascii: "w") || c == UInt8(ascii: "W"), wwwMatch() { return }
                if c == UInt8(ascii: ":"), urlMatch() { return }
            }
            var e = pos + 1
            while e < end && !special[Int(subj[e])] {
                if options.autolinks {
                    let d = subj[e]
                    if d == UInt8(ascii: ":") && e + 2 < end && subj[e + 1] == UInt8(ascii: "/") && MD.isAlpha(subj[e - 1]) {
                        break
                    }
                    if d == UInt8(ascii: "w") && e + 3 < end && subj[e + 3] == UInt8(ascii: ".") {
                        let b = subj[e - 1]
                        if b == UInt8(ascii: "(") || MD.isSpace(b) { break }
                    }
                }
                e += 1
            }
            var te = e
            if e < end && subj[e] == 0x0A {
                while te > pos && (subj[te - 1] == 0x20 || subj[te - 1] == 0x09) { te -= 1 }
            }
            if te > pos { appendText(pos, te) }
            pos = e
        }
    }

    // MARK: Handlers

    mutating func handleNewline() {
        let nlpos = pos
        pos += 1
        while pos < end && (subj[pos] == 0x20 || subj[pos] == 0x09) { pos += 1 }
        if nlpos > 1 && subj[nlpos - 1] == 0x20 && subj[nlpos - 2] == 0x20 {
            append(.lineBreak, from: nlpos, to: nlpos + 1)
        } else {
            append(.softBreak, from: nlpos, to: nlpos + 1)
        }
    }

    mutating func handleBackslash() {
        let start = pos
        pos += 1
        if pos < end && MD.isASCIIPunct(subj[pos]) {
            appendText(pos, pos + 1)
            pos += 1
        } else if pos < end && subj[pos] == 0x0A {
            pos += 1
            append(.lineBreak, from: start, to: pos)
            while pos < end && (subj[pos] == 0x20 || subj[pos] == 0x09) { pos += 1 }
        } else {
            appendText(start, start + 1)
        }
    }

    mutating func handleEntity() {
        let start = pos
        let st = bytes.count
        let n = MD.unescapeEntity(subj, pos + 1, end, into: &bytes)
        if n == 0 {
            appendText(pos, pos + 1)
            pos += 1
            return
        }
        pos += 1 + n
        appendStoredText(st, from: start, to: pos)
    }

    mutating func scanToClosingBackticks(_ openLen: Int) -> Int? {
        if openLen > maxBackticks { return nil }
        if scannedForBackticks && backticks[openLen] <= pos { return nil }
        var p = pos
        while true {
            while p < end && subj[p] != UInt8(ascii: "`") { p += 1 }
            if p >= end { break }
            let s0 = p
            while p < end && subj[p] == UInt8(ascii: "`") { p += 1 }
            let n = p - s0
            if n <= maxBackticks { backticks[n] = s0 }
            if n == openLen { return p }
        }
        scannedForBackticks = true
        return nil
    }

    mutating func handleBackticks() {
        let start = pos
        while pos < end && subj[pos] == UInt8(ascii: "`") { pos += 1 }
        let openLen = pos - start
        let contentStart = pos
        guard let closeEnd = scanToClosingBackticks(openLen) else {
            appendText(start, contentStart)
            return
        }
        let contentEnd = closeEnd - openLen
        pos = closeEnd
        // normalise: line endings -> spaces; strip one space each side if both and not all spaces
        let st = bytes.count
        var allSpace = true
        for i in contentStart..<contentEnd {
            let c = subj[i]
            bytes.append(c == 0x0A ? 0x20 : c)
            if c != 0x20 && c != 0x0A { allSpace = false }
        }
        var s0 = st
        var e0 = bytes.count
        if !allSpace && e0 - s0 >= 2 && bytes[s0] == 0x20 && bytes[e0 - 1] == 0x20 {
            s0 += 1
            e0 -= 1
        }
        let n = append(.code, from: start, to: closeEnd)
        nodes[Int(n)].literalStart = Int32(s0)
        nodes[Int(n)].literalCount = Int32(e0 - s0)
    }

    mutating func handlePointyBrace() {
        let start = pos
        // URI autolink
        if let (e, cs, ce) = scanAutolinkURI(pos + 1) {
            pos = e
            makeAutolink(start: start, cs, ce, email: false)
            return
        }
        if let (e, cs, ce) = scanAutolinkEmail(pos + 1) {
            pos = e
            makeAutolink(start: start, cs, ce, email: true)
            return
        }
        if let e = scanHTMLTag(pos + 1) {
            let n = append(.htmlInline, from: start, to: e)
            nodes[Int(n)].literalStart = Int32(base + start)
            nodes[Int(n)].literalCount = Int32(e - start)
            pos = e
            return
        }
        appendText(pos, pos + 1)
        pos += 1
    }

    mutating func makeAutolink(start: Int, _ cs: Int, _ ce: Int, email: Bool) {
        let n = append(.link, from: start, to: pos)
        // Entities (not backslash escapes) are decoded in autolinks, as cmark does.
        let ds = bytes.count
        if email { bytes.append(contentsOf: Array("mailto:".utf8)) }
        let ts = bytes.count
        appendEntityDecoded(cs, ce)
        let te = bytes.count
        nodes[Int(n)].extra = Int32(extras.count)
        extras.append(
            MarkdownExtra(aStart: Int32(ds), aCount: Int32(bytes.count - ds), bStart: Int32(bytes.count), bCount: 0))
        // child text
        let t = Int32(nodes.count)
        var r = MarkdownNodeRecord(kind: .text, parent: n)
        (r.startLine, r.startColumn) = position(cs)
        (r.endLine, r.endColumn) = position(max(cs, ce - 1))
        r.literalStart = Int32(ts)
        r.literalCount = Int32(te - ts)
        nodes.append(r)
        nodes[Int(n)].firstChild = t
        nodes[Int(n)].lastChild = t
    }

    mutating func appendEntityDecoded(_ from: Int, _ to: Int) {
        var i = from
        while i < to {
            if subj[i] == UInt8(ascii: "&") {
                let n = MD.unescapeEntity(subj, i + 1, to, into: &bytes)
                if n > 0 {
                    i += 1 + n
                    continue
                }
            }
            bytes.append(subj[i])
            i += 1
        }
    }

    func scanAutolinkURI(_ p: Int) -> (Int, Int, Int)? {
        var i = p
        guard i < end, MD.isAlpha(subj[i]) else { return nil }
        i += 1
        while i < end && (MD.isAlnum(subj[i]) || subj[i] == UInt8(ascii: "+") || subj[i] == UInt8(ascii: ".")
            || subj[i] == UInt8(ascii: "-"))
        {
            i += 1
        }
        let schemeLen = i - p
        guard schemeLen >= 2 && schemeLen <= 32, i < end, subj[i] == UInt8(ascii: ":") else { return nil }
        i += 1
        while i < end {
            let c = subj[i]
            if c == UInt8(ascii: ">") { return (i + 1, p, i) }
            if c <= 0x20 || c == UInt8(ascii: "<") || c == 0x7F { return nil }
            i += 1
        }
        return nil
    }

    func scanAutolinkEmail(_ p: Int) -> (Int, Int, Int)? {
        var i = p
        while i < end {
            let c = subj[i]
            if MD.isAlnum(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "!") || c == UInt8(ascii: "#")
                || c == UInt8(ascii: "$") || c == UInt8(ascii: "%") || c == UInt8(ascii: "&") || c == UInt8(ascii: "'")
                || c == UInt8(ascii: "*") || c == UInt8(ascii: "+") || c == UInt8(ascii: "/") || c == UInt8(ascii: "=")
                || c == UInt8(ascii: "?") || c == UInt8(ascii: "^") || c == UInt8(ascii: "_") || c == UInt8(ascii: "`")
                || c == UInt8(ascii: "{") || c == UInt8(ascii: "|") || c == UInt8(ascii: "}") || c == UInt8(ascii: "~")
                || c == UInt8(ascii: "-")
            {
                i += 1
            } else {
                break
            }
        }
        guard i > p, i < end, subj[i] == UInt8(ascii: "@") else { return nil }
        i += 1
        // domain labels
        while true {
            let ls = i
            guard i < end, MD.isAlnum(subj[i]) else { return nil }
            i += 1
            while i < end && (MD.isAlnum(subj[i]) || subj[i] == UInt8(ascii: "-")) && i - ls < 63 { i += 1 }
            if subj[i - 1] == UInt8(ascii: "-") { return nil }
            guard i < end else { return nil }
            if subj[i] == UInt8(ascii: ">") { return (i + 1, p, i) }
            if subj[i] == UInt8(ascii: ".") {
                i += 1
                continue
            }
            return nil
        }
    }

    /// Raw HTML after '<' at p. Returns end index (after '>').
    mutating func scanHTMLTag(_ p: Int) -> Int? {
        guard p < end else { return nil }
        let c = subj[p]
        if MD.isAlpha(c) {
            return scanOpenTagLinear(p)
        }
        if c == UInt8(ascii: "/") {
            return MD.scanClosingTag(subj, p + 1, end)
        }
        if c == UInt8(ascii: "?") {
            if noPIEnd { return nil }
            if let e = MD.find(subj, p + 1, end, UInt8(ascii: "?"), UInt8(ascii: ">")) { return e }
            noPIEnd = true
            return nil
        }
        if c == UInt8(ascii: "!") {
            if p + 2 < end && subj[p + 1] == UInt8(ascii: "-") && subj[p + 2] == UInt8(ascii: "-") {
                // <!--> and <!---> are complete comments
                if p + 3 < end && subj[p + 3] == UInt8(ascii: ">") { return p + 4 }
                if p + 4 < end && subj[p + 3] == UInt8(ascii: "-") && subj[p + 4] == UInt8(ascii: ">") { return p + 5 }
                if noCommentEnd { return nil }
                if let e = MD.find(subj, p + 3, end, UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: ">")) {
                    return e
                }
                noCommentEnd = true
                return nil
            }
            if p + 8 <= end && Array(subj[(p - 1)..<(p + 8)]) == Array("<![CDATA[".utf8) {
                if noCDATAEnd { return nil }
                if let e = MD.find(subj, p + 8, end, UInt8(ascii: "]"), UInt8(ascii: "]"), UInt8(ascii: ">")) {
                    return e
                }
                noCDATAEnd = true
                return nil
            }
            if p + 1 < end && MD.isAlpha(subj[p + 1]) {
                if noDeclEnd { return nil }
                var i = p + 2
                while i < end && subj[i] != UInt8(ascii: ">") { i += 1 }
                if i < end { return i + 1 }
                noDeclEnd = true
                return nil
            }
        }
        return nil
    }

    /// Open tag scan with memo of failed quote searches (keeps `<a b="` repeated linear).
    mutating func scanOpenTagLinear(_ p: Int) -> Int? {
        var j = p + 1
        while j < end && (MD.isAlnum(subj[j]) || subj[j] == UInt8(ascii: "-")) { j += 1 }
        while true {
            var k = j
            while k < end && MD.isSpace(subj[k]) { k += 1 }
            if k < end && subj[k] == UInt8(ascii: ">") { return k + 1 }
            if k + 1 < end && subj[k] == UInt8(ascii: "/") && subj[k + 1] == UInt8(ascii: ">") { return k + 2 }
            if k == j || k >= end { return nil }
            let c = subj[k]
            guard MD.isAlpha(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") else { return nil }
            k += 1
            while k < end {
                let d = subj[k]
                if MD.isAlnum(d) || d == UInt8(ascii: "_") || d == UInt8(ascii: ".") || d == UInt8(ascii: ":")
                    || d == UInt8(ascii: "-")
                {
                    k += 1
                } else {
                    break
                }
            }
            j = k
            var m = k
            while m < end && MD.isSpace(subj[m]) { m += 1 }
            if m < end && subj[m] == UInt8(ascii: "=") {
                m += 1
                while m < end && MD.isSpace(subj[m]) { m += 1 }
                guard m < end else { return nil }
                let q = subj[m]
                if q == UInt8(ascii: "\"") || q == UInt8(ascii: "'") {
                    let qi = q == UInt8(ascii: "\"") ? 0 : 1
                    if m >= (qi == 0 ? noQuoteFrom.0 : noQuoteFrom.1) { return nil }
                    let from = m
                    m += 1
                    while m < end && subj[m] != q { m += 1 }
                    guard m < end else {
                        if qi == 0 { noQuoteFrom.0 = from } else { noQuoteFrom.1 = from }
                        return nil
                    }
                    j = m + 1
                } else {
                    let vs = m
                    while m < end {
                        let d = subj[m]
                        if MD.isSpace(d) || d == UInt8(ascii: "\"") || d == UInt8(ascii: "'") || d == UInt8(ascii: "=")
                            || d == UInt8(ascii: "<") || d == UInt8(ascii: ">") || d == UInt8(ascii: "`")
                        {
                            break
                        }
                        m += 1
                    }
                    if m == vs { return nil }
                    j = m
                }
            }
        }
    }

    // MARK: Emphasis delimiters

    mutating func handleDelim(_ c: UInt8) {
        let start = pos
        let before = MD.scalarBefore(subj, pos, 0)
        while pos < end && subj[pos] == c { pos += 1 }
        let n = pos - start
        let after: UInt32 = pos < end ? MD.decode(subj, pos, end).0 : 0x0A
        let afterSpace = MD.isUnicodeSpace(after)
        let beforeSpace = MD.isUnicodeSpace(before)
        let afterPunct = MD.isUnicodePunctOrSymbol(after)
        let beforePunct = MD.isUnicodePunctOrSymbol(before)
        let leftFlanking = !afterSpace && (!afterPunct || beforeSpace || beforePunct)
        let rightFlanking = !beforeSpace && (!beforePunct || afterSpace || afterPunct)
        var canOpen: Bool
        var canClose: Bool
        if c == UInt8(ascii: "_") {
            canOpen = leftFlanking && (!rightFlanking || beforePunct)
            canClose = rightFlanking && (!leftFlanking || afterPunct)
        } else {
            canOpen = leftFlanking
            canClose = rightFlanking
        }
        let node = appendText(start, pos)
        if c == UInt8(ascii: "~") {
            // GFM strikethrough: runs of one or two tildes only.
            if n > 2 { return }
        }
        if canOpen || canClose {
            let idx = Int32(delims.count)
            delims.append(
                Delimiter(char: c, canOpen: canOpen, canClose: canClose, origLength: Int32(n), node: node,
                    prev: lastDelim, next: -1))
            if lastDelim >= 0 { delims[Int(lastDelim)].next = idx }
            lastDelim = idx
        }
    }

    mutating func removeDelimiter(_ d: Int32) {
        let r = delims[Int(d)]
        if r.next >= 0 { delims[Int(r.next)].prev = r.prev } else { lastDelim = r.prev }
        if r.prev >= 0 { delims[Int(r.prev)].next = r.next }
    }

    @inline(__always)
    fileprivate func bottomIndex(_ d: Delimiter) -> Int {
        // As cmark / commonmark.js 0.31: one bound for '_', six for '*' (by can-open and
        // length mod 3); '~' (cmark-gfm) by length mod 3. The single '_' bound is part of the
        // reference behaviour, not only an optimisation.
        switch d.char {
        case UInt8(ascii: "*"): return (d.canOpen ? 3 : 0) + Int(d.origLength % 3)
        case UInt8(ascii: "_"): return 6
        default: return 7 + Int(d.origLength % 3)
        }
    }

    mutating func processEmphasis(_ stackBottom: Int32) {
        var openersBottom = [Int32](repeating: stackBottom, count: 10)
        // find first closer above stackBottom
        var closer = lastDelim
        while closer >= 0 && delims[Int(closer)].prev > stackBottom && delims[Int(closer)].prev >= 0 {
            closer = delims[Int(closer)].prev
        }
        if closer >= 0 && closer <= stackBottom { closer = -1 }
        while closer >= 0 {
            let cd = delims[Int(closer)]
            if cd.canClose {
                let bi = bottomIndex(cd)
                var opener = cd.prev
                var found = false
                while opener >= 0 && opener > stackBottom && opener > openersBottom[bi] {
                    let od = delims[Int(opener)]
                    if od.canOpen && od.char == cd.char {
                        if !(cd.canOpen || od.canClose) || cd.origLength % 3 == 0
                            || (od.origLength + cd.origLength) % 3 != 0
                        {
                            found = true
                            break
                        }
                    }
                    opener = od.prev
                }
                let oldCloser = closer
                if found {
                    if cd.char == UInt8(ascii: "~") {
                        closer = insertStrikethrough(opener, closer)
                    } else {
                        closer = insertEmph(opener, closer)
                    }
                } else {
                    closer = cd.next
                    openersBottom[bi] = cd.prev
                    if !cd.canOpen { removeDelimiter(oldCloser) }
                }
            } else {
                closer = cd.next
            }
        }
        while lastDelim >= 0 && lastDelim > stackBottom {
            removeDelimiter(lastDelim)
        }
    }

    mutating func insertEmph(_ opener: Int32, _ closer: Int32) -> Int32 {
        let oNode = delims[Int(opener)].node
        let cNode = delims[Int(closer)].node
        var oChars = nodes[Int(oNode)].literalCount
        var cChars = nodes[Int(cNode)].literalCount
        let use: Int32 = (cChars >= 2 && oChars >= 2) ? 2 : 1
        oChars -= use
        cChars -= use
        nodes[Int(oNode)].literalCount = oChars
        nodes[Int(cNode)].literalCount = cChars
        nodes[Int(cNode)].literalStart += use
        // remove delimiters between
        var d = delims[Int(closer)].prev
        while d >= 0 && d != opener {
            let p = delims[Int(d)].prev
            removeDelimiter(d)
            d = p
        }
        // create emph node between opener and closer nodes
        let emph = Int32(nodes.count)
        var r = MarkdownNodeRecord(kind: use == 1 ? .emphasis : .strong, parent: block)
        let o = nodes[Int(oNode)]
        let c = nodes[Int(cNode)]
        r.startLine = o.startLine
        r.startColumn = o.startColumn + oChars
        r.endLine = c.endLine
        r.endColumn = c.startColumn + use - 1
        nodes[Int(cNode)].startColumn += use
        let first = o.next
        let last = c.prev
        nodes.append(r)
        if first != cNode {
            adopt(emph, first: first, last: last)
        }
        nodes[Int(oNode)].next = emph
        nodes[Int(emph)].prev = oNode
        nodes[Int(emph)].next = cNode
        nodes[Int(cNode)].prev = emph
        var result = closer
        let parent = nodes[Int(oNode)].parent
        nodes[Int(emph)].parent = parent
        if oChars == 0 {
            unlink(oNode, parent: parent)
            removeDelimiter(opener)
        }
        if cChars == 0 {
            unlink(cNode, parent: parent)
            let next = delims[Int(closer)].next
            removeDelimiter(closer)
            result = next
        }
        return result
    }

    mutating func insertStrikethrough(_ opener: Int32, _ closer: Int32) -> Int32 {
        let oNode = delims[Int(opener)].node
        let cNode = delims[Int(closer)].node
        let next = delims[Int(closer)].next
        if nodes[Int(oNode)].literalCount == nodes[Int(cNode)].literalCount {
            // Delimiters between opener and closer end up inside the new node: drop them.
            var d = delims[Int(closer)].prev
            while d >= 0 && d != opener {
                let p = delims[Int(d)].prev
                removeDelimiter(d)
                d = p
            }
            // opener's text node becomes the strikethrough node
            let first = nodes[Int(oNode)].next
            let last = nodes[Int(cNode)].prev
            nodes[Int(oNode)].kind = .strikethrough
            nodes[Int(oNode)].literalCount = 0
            nodes[Int(oNode)].endLine = nodes[Int(cNode)].endLine
            nodes[Int(oNode)].endColumn = nodes[Int(cNode)].endColumn
            let after = nodes[Int(cNode)].next
            let parent = nodes[Int(oNode)].parent
            if first != cNode {
                adopt(oNode, first: first, last: last)
            }
            nodes[Int(oNode)].next = after
            if after >= 0 { nodes[Int(after)].prev = oNode } else { nodes[Int(parent)].lastChild = oNode }
            nodes[Int(cNode)].prev = -1
            nodes[Int(cNode)].next = -1
            removeDelimiter(closer)
            removeDelimiter(opener)
            return next
        }
        // Different lengths (~ vs ~~): as cmark-gfm, the closer is dropped and the opener stays.
        removeDelimiter(closer)
        return next
    }

    // MARK: Brackets and links

    mutating func popBracket() {
        if let b = brackets.popLast(), !b.image { linkOpeners.removeLast() }
    }

    mutating func pushBracket(image: Bool, node: Int32) {
        if !image { linkOpeners.append(brackets.count) }
        if !brackets.isEmpty { brackets[brackets.count - 1].bracketAfter = true }
        brackets.append(
            Bracket(node: node, prevDelim: lastDelim, position: pos, image: image, active: true, bracketAfter: false))
    }

    mutating func handleCloseBracket() {
        let closeStart = pos
        pos += 1
        let initialPos = pos
        guard let opener = brackets.last else {
            appendText(closeStart, pos)
            return
        }
        if !opener.active {
            popBracket()
            appendText(closeStart, pos)
            return
        }
        let isImage = opener.image
        var destRange: (Int, Int) = (0, 0)
        var titleRange: (Int, Int) = (0, 0)
        var matched = false

        // Inline link
        if pos < end && subj[pos] == UInt8(ascii: "(") {
            let sp = MD.skipSpacechars(subj, pos + 1, end)
            if let (destEnd, ds, de) = MD.scanLinkDestination(subj, sp, end) ?? emptyDest(sp) {
                let startTitle = MD.skipSpacechars(subj, destEnd, end)
                var endTitle = startTitle
                if startTitle != destEnd, let te = scanTitleMemo(startTitle) {
                    endTitle = te
                }
                let endAll = MD.skipSpacechars(subj, endTitle, end)
                if endAll < end && subj[endAll] == UInt8(ascii: ")") {
                    pos = endAll + 1
                    let d0 = bytes.count
                    MD.appendUnescaped(subj, ds, de, into: &bytes)
                    destRange = (d0, bytes.count)
                    let t0 = bytes.count
                    if endTitle > startTitle {
                        MD.appendUnescaped(subj, startTitle + 1, endTitle - 1, into: &bytes)
                    }
                    titleRange = (t0, bytes.count)
                    matched = true
                } else {
                    pos = initialPos
                }
            }
        }
        if !matched {
            // Reference link: full, collapsed or shortcut.
            var labelRange: (Int, Int)? = nil
            var foundLabel = false
            if let (le, ls, lend) = MD.scanLinkLabel(subj, pos, end) {
                labelRange = (ls, lend)
                foundLabel = true
                pos = le
            } else if pos + 1 < end && subj[pos] == UInt8(ascii: "[") && subj[pos + 1] == UInt8(ascii: "]") {
                // collapsed "[]": empty label
                labelRange = (pos + 1, pos + 1)
                foundLabel = true
                pos += 2
            }
            if !foundLabel { pos = initialPos }
            if (!foundLabel || labelRange!.0 == labelRange!.1) && !opener.bracketAfter {
                labelRange = (opener.position, initialPos - 1)
                foundLabel = true
            }
            if foundLabel, let (ls, le) = labelRange, le - ls <= maxLinkLabelLength, le > ls, !refmap.isEmpty {
                let key = MD.normalizeLabel(subj, ls, le)
                if let ref = refmap[key] {
                    destRange = (Int(ref.destStart), Int(ref.destStart + ref.destCount))
                    titleRange = (Int(ref.titleStart), Int(ref.titleStart + ref.titleCount))
                    matched = true
                }
            }
            if !matched && options.footnotes {
                // Footnote reference [^label]
                let ls = opener.position
                let le = initialPos - 1
                if le - ls >= 2 && subj[ls] == UInt8(ascii: "^") && le - ls <= maxLinkLabelLength {
                    let key = MD.normalizeLabel(subj, ls + 1, le)
                    if footnoteMap[key] != nil {
                        pos = initialPos
                        makeFootnoteReference(opener, labelStart: ls + 1, labelEnd: le)
                        return
                    }
                }
            }
            if !matched {
                popBracket()
                pos = initialPos
                appendText(closeStart, initialPos)
                return
            }
        }

        // Build the link / image node in place of the opener's text node.
        let oNode = opener.node
        let link = Int32(nodes.count)
        var r = MarkdownNodeRecord(kind: isImage ? .image : .link, parent: block)
        r.startLine = nodes[Int(oNode)].startLine
        r.startColumn = nodes[Int(oNode)].startColumn
        (r.endLine, r.endColumn) = position(pos - 1)
        r.extra = Int32(extras.count)
        extras.append(
            MarkdownExtra(
                aStart: Int32(destRange.0), aCount: Int32(destRange.1 - destRange.0), bStart: Int32(titleRange.0),
                bCount: Int32(titleRange.1 - titleRange.0)))
        nodes.append(r)
        let first = nodes[Int(oNode)].next
        let last = nodes[Int(block)].lastChild
        let before = nodes[Int(oNode)].prev
        // replace oNode by link
        nodes[Int(link)].prev = before
        if before >= 0 { nodes[Int(before)].next = link } else { nodes[Int(block)].firstChild = link }
        nodes[Int(block)].lastChild = link
        if first >= 0 {
            adopt(link, first: first, last: last)
            var c = first
            while c >= 0 {
                nodes[Int(c)].parent = link
                c = nodes[Int(c)].next
            }
        }
        nodes[Int(oNode)].next = -1
        nodes[Int(oNode)].prev = -1

        processEmphasis(opener.prevDelim)
        popBracket()
        if !isImage {
            // Deactivate earlier link openers. Link openers form a stack of
            // [inactive..., active...], so stop at the first inactive one (linear overall).
            var i = linkOpeners.count - 1
            while i >= 0 {
                let b = linkOpeners[i]
                if !brackets[b].active { break }
                brackets[b].active = false
                i -= 1
            }
        }
    }

    func emptyDest(_ sp: Int) -> (Int, Int, Int)? {
        // An empty destination is allowed before ')' or whitespace.
        if sp < end && (subj[sp] == UInt8(ascii: ")") || MD.isSpace(subj[sp])) { return (sp, sp, sp) }
        return nil
    }

    mutating func scanTitleMemo(_ p: Int) -> Int? {
        guard p < end else { return nil }
        let qi: Int
        switch subj[p] {
        case UInt8(ascii: "\""): qi = 0
        case UInt8(ascii: "'"): qi = 1
        case UInt8(ascii: "("): qi = 2
        default: return nil
        }
        let failedFrom = qi == 0 ? noTitleFrom.0 : (qi == 1 ? noTitleFrom.1 : noTitleFrom.2)
        if p >= failedFrom { return nil }
        if let e = MD.scanLinkTitle(subj, p, end) { return e }
        // A title that runs off the end without its closing delimiter can't close from any later
        // position either (for parentheses: unless a '(' intervenes, so only memoise quotes).
        if qi == 0 { noTitleFrom.0 = p } else if qi == 1 { noTitleFrom.1 = p }
        return nil
    }

    fileprivate mutating func makeFootnoteReference(_ opener: Bracket, labelStart: Int, labelEnd: Int) {
        let oNode = opener.node
        let ref = Int32(nodes.count)
        var r = MarkdownNodeRecord(kind: .footnoteReference, parent: block)
        r.startLine = nodes[Int(oNode)].startLine
        r.startColumn = nodes[Int(oNode)].startColumn
        (r.endLine, r.endColumn) = position(pos - 1)
        let st = bytes.count
        bytes.append(contentsOf: subj[labelStart..<labelEnd])
        r.literalStart = Int32(st)
        r.literalCount = Int32(labelEnd - labelStart)
        nodes.append(r)
        processEmphasis(opener.prevDelim)
        // Replace opener and everything after it by the reference (keeping "!" of an image opener).
        let before = nodes[Int(oNode)].prev
        var prevNode = before
        if opener.image {
            nodes[Int(oNode)].literalCount = 1
            prevNode = oNode
        }
        if prevNode >= 0 {
            nodes[Int(prevNode)].next = ref
        } else {
            nodes[Int(block)].firstChild = ref
        }
        nodes[Int(ref)].prev = prevNode
        nodes[Int(block)].lastChild = ref
        popBracket()
    }

    // MARK: GFM extended autolinks

    func isValidHostChar(_ p: Int) -> Bool {
        let (cp, _) = MD.decode(subj, p, end)
        return !MD.isUnicodeSpace(cp) && !MD.isUnicodePunct(cp)
    }

    func checkDomain(_ start: Int, _ size: Int, allowShort: Bool) -> Int {
        var np = 0
        var uscore1 = 0
        var uscore2 = 0
        var i = 1
        while i < size - 1 {
            if subj[start + i] == UInt8(ascii: "\\") && i < size - 2 { i += 1 }
            let c = subj[start + i]
            if c == UInt8(ascii: "_") {
                uscore2 += 1
            } else if c == UInt8(ascii: ".") {
                uscore1 = uscore2
                uscore2 = 0
                np += 1
            } else if !isValidHostChar(start + i) && c != UInt8(ascii: "-") {
                break
            }
            i += 1
        }
        if uscore1 > 0 || uscore2 > 0 { return 0 }
        if allowShort { return i }
        return np > 0 ? i : 0
    }

    func autolinkDelim(_ start: Int, _ linkEndIn: Int) -> Int {
        var linkEnd = linkEndIn
        var opening = 0
        var closing = 0
        for i in 0..<linkEnd {
            let c = subj[start + i]
            if c == UInt8(ascii: "<") {
                linkEnd = i
                break
            } else if c == UInt8(ascii: "(") {
                opening += 1
            } else if c == UInt8(ascii: ")") {
                closing += 1
            }
        }
        while linkEnd > 0 {
            let c = subj[start + linkEnd - 1]
            switch c {
            case UInt8(ascii: ")"):
                if closing <= opening { return linkEnd }
                closing -= 1
                linkEnd -= 1
            case UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"),
                UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "'"), UInt8(ascii: "\""):
                linkEnd -= 1
            case UInt8(ascii: ";"):
                var newEnd = linkEnd - 2
                while newEnd > 0 && MD.isAlpha(subj[start + newEnd]) { newEnd -= 1 }
                if newEnd < linkEnd - 2 && subj[start + newEnd] == UInt8(ascii: "&") {
                    linkEnd = newEnd
                } else {
                    linkEnd -= 1
                }
            default:
                return linkEnd
            }
        }
        return linkEnd
    }

    /// Inside a link? (autolinks are not created inside links; brackets may still be pending)
    mutating func wwwMatch() -> Bool {
        if pos > 0 {
            let b = subj[pos - 1]
            if !(b == UInt8(ascii: "*") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~") || b == UInt8(ascii: "(")
                || MD.isSpace(b))
            {
                return false
            }
        }
        let size = end - pos
        guard size >= 4, MD.lower(subj[pos]) == UInt8(ascii: "w"), MD.lower(subj[pos + 1]) == UInt8(ascii: "w"),
            MD.lower(subj[pos + 2]) == UInt8(ascii: "w"), subj[pos + 3] == UInt8(ascii: ".")
        else { return false }
        // cmark-gfm compares "www." case-sensitively
        guard subj[pos] == UInt8(ascii: "w"), subj[pos + 1] == UInt8(ascii: "w"), subj[pos + 2] == UInt8(ascii: "w")
        else { return false }
        var linkEnd = checkDomain(pos, size, allowShort: false)
        if linkEnd == 0 { return false }
        while linkEnd < size && !MD.isSpace(subj[pos + linkEnd]) && subj[pos + linkEnd] != UInt8(ascii: "<") {
            linkEnd += 1
        }
        linkEnd = autolinkDelim(pos, linkEnd)
        if linkEnd == 0 { return false }
        let start = pos
        pos += linkEnd
        let n = append(.link, from: start, to: pos)
        let ds = bytes.count
        bytes.append(contentsOf: Array("http://".utf8))
        bytes.append(contentsOf: subj[start..<pos])
        nodes[Int(n)].extra = Int32(extras.count)
        extras.append(MarkdownExtra(aStart: Int32(ds), aCount: Int32(bytes.count - ds), bStart: 0, bCount: 0))
        addTextChild(n, start, pos)
        return true
    }

    mutating func addTextChild(_ n: Int32, _ from: Int, _ to: Int) {
        let t = Int32(nodes.count)
        var r = MarkdownNodeRecord(kind: .text, parent: n)
        (r.startLine, r.startColumn) = position(from)
        (r.endLine, r.endColumn) = position(max(from, to - 1))
        r.literalStart = Int32(base + from)
        r.literalCount = Int32(to - from)
        nodes.append(r)
        nodes[Int(n)].firstChild = t
        nodes[Int(n)].lastChild = t
    }

    mutating func urlMatch() -> Bool {
        let size = end - pos
        guard size >= 4, subj[pos + 1] == UInt8(ascii: "/"), subj[pos + 2] == UInt8(ascii: "/") else { return false }
        // Rewind over the scheme letters already emitted as text.
        var rewind = 0
        while rewind < pos && MD.isAlpha(subj[pos - rewind - 1]) { rewind += 1 }
        let schemeStart = pos - rewind
        let scheme = subj[schemeStart..<pos].map { MD.lower($0) }
        guard scheme == Array("http".utf8) || scheme == Array("https".utf8) || scheme == Array("ftp".utf8) else {
            return false
        }
        guard pos + 3 < end, isValidHostChar(pos + 3) else { return false }
        var linkEnd = 3
        let domainLen = checkDomain(pos + 3, size - 3, allowShort: true)
        if domainLen == 0 { return false }
        linkEnd += domainLen
        while linkEnd < size && !MD.isSpace(subj[pos + linkEnd]) && subj[pos + linkEnd] != UInt8(ascii: "<") {
            linkEnd += 1
        }
        linkEnd = autolinkDelim(pos, linkEnd)
        if linkEnd == 0 { return false }
        // Remove `rewind` bytes from the preceding text node.
        let last = nodes[Int(block)].lastChild
        guard last >= 0, nodes[Int(last)].kind == .text, nodes[Int(last)].literalCount >= Int32(rewind),
            Int(nodes[Int(last)].literalStart + nodes[Int(last)].literalCount) == base + pos
        else { return false }
        nodes[Int(last)].literalCount -= Int32(rewind)
        if nodes[Int(last)].literalCount == 0 {
            // keep delimiter bookkeeping simple: an empty text node renders nothing
        }
        pos += linkEnd
        let n = append(.link, from: schemeStart, to: pos)
        let ds = bytes.count
        bytes.append(contentsOf: subj[schemeStart..<pos])
        nodes[Int(n)].extra = Int32(extras.count)
        extras.append(MarkdownExtra(aStart: Int32(ds), aCount: Int32(bytes.count - ds), bStart: 0, bCount: 0))
        addTextChild(n, schemeStart, pos)
        return true
    }

    /// E-mail autolinks in text nodes (cmark-gfm's postprocess_text), after merging adjacent
    /// text nodes; not inside links.
    mutating func postprocessEmails(_ b: Int32) {
        var stack: [Int32] = [b]
        while let p = stack.popLast() {
            // merge adjacent text children
            var c = nodes[Int(p)].firstChild
            while c >= 0 {
                if nodes[Int(c)].kind == .text {
                    // Merge a run of adjacent text nodes when it holds an '@' (as cmark-gfm
                    // consolidates text before looking for e-mail addresses).
                    var n = nodes[Int(c)].next
                    var hasAt = false
                    var m = c
                    while m >= 0 && nodes[Int(m)].kind == .text {
                        let r = nodes[Int(m)]
                        var k = Int(r.literalStart)
                        let ke = Int(r.literalStart + r.literalCount)
                        while k < ke && bytes[k] != 0x40 { k += 1 }
                        if k < ke {
                            hasAt = true
                            break
                        }
                        m = r.next
                    }
                    if !hasAt {
                        while n >= 0 && nodes[Int(n)].kind == .text { n = nodes[Int(n)].next }
                        c = n
                        continue
                    }
                    if n >= 0 && nodes[Int(n)].kind == .text {
                        var merged: [UInt8] = []
                        let r0 = nodes[Int(c)]
                        merged.append(contentsOf: bytes[Int(r0.literalStart)..<Int(r0.literalStart + r0.literalCount)])
                        while n >= 0 && nodes[Int(n)].kind == .text {
                            let r = nodes[Int(n)]
                            merged.append(contentsOf: bytes[Int(r.literalStart)..<Int(r.literalStart + r.literalCount)])
                            nodes[Int(c)].endLine = r.endLine
                            nodes[Int(c)].endColumn = r.endColumn
                            let nn = r.next
                            unlink(n, parent: p)
                            n = nn
                        }
                        let st = bytes.count
                        bytes.append(contentsOf: merged)
                        nodes[Int(c)].literalStart = Int32(st)
                        nodes[Int(c)].literalCount = Int32(bytes.count - st)
                    }
                    emailScan(c, parent: p)
                } else if nodes[Int(c)].kind != .link && nodes[Int(c)].firstChild >= 0 {
                    stack.append(c)
                }
                c = nodes[Int(c)].next
            }
        }
    }

    mutating func emailScan(_ textNode: Int32, parent: Int32) {
        var node = textNode
        var offset = 0
        var depth = 0
        while depth < 1000 {
            depth += 1
            let r = nodes[Int(node)]
            let ds = Int(r.literalStart)
            let size = Int(r.literalCount)
            guard offset < size else { return }
            var at = -1
            var i = ds + offset
            while i < ds + size {
                if bytes[i] == UInt8(ascii: "@") {
                    at = i
                    break
                }
                i += 1
            }
            if at < 0 { return }
            let maxRewind = at - (ds + offset)
            var rewind = 0
            while rewind < maxRewind {
                let c = bytes[at - rewind - 1]
                if MD.isAlnum(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
                    || c == UInt8(ascii: "_")
                {
                    rewind += 1
                    continue
                }
                break
            }
            if rewind == 0 {
                offset = at - ds + 1
                continue
            }
            var linkEnd = 0
            var nb = 0
            var np = 0
            let rest = ds + size - at
            while linkEnd < rest {
                let c = bytes[at + linkEnd]
                if MD.isAlnum(c) {
                    linkEnd += 1
                    continue
                }
                if c == UInt8(ascii: "@") {
                    nb += 1
                } else if c == UInt8(ascii: ".") && linkEnd < rest - 1 && MD.isAlnum(bytes[at + linkEnd + 1]) {
                    np += 1
                } else if c != UInt8(ascii: "-") && c != UInt8(ascii: "_") {
                    break
                }
                linkEnd += 1
            }
            if linkEnd < 2 || nb != 1 || np == 0
                || (!MD.isAlpha(bytes[at + linkEnd - 1]) && bytes[at + linkEnd - 1] != UInt8(ascii: "."))
            {
                offset = at - ds + 1
                continue
            }
            // autolink_delim on bytes
            linkEnd = autolinkDelimBytes(at, linkEnd)
            if linkEnd == 0 {
                offset = at - ds + 1
                continue
            }
            let emailStart = at - rewind
            let emailEnd = at + linkEnd
            // split: [ds, emailStart) stays, link, [emailEnd, ds+size) new text
            let tailStart = emailEnd
            let tailCount = ds + size - emailEnd
            nodes[Int(node)].literalCount = Int32(emailStart - ds)
            let link = Int32(nodes.count)
            var lr = MarkdownNodeRecord(kind: .link, parent: parent)
            lr.startLine = r.startLine
            lr.startColumn = r.startColumn + Int32(emailStart - ds)
            lr.endLine = r.startLine
            lr.endColumn = r.startColumn + Int32(emailEnd - ds) - 1
            let d0 = bytes.count
            bytes.append(contentsOf: Array("mailto:".utf8))
            let email = Array(bytes[emailStart..<emailEnd])
            bytes.append(contentsOf: email)
            lr.extra = Int32(extras.count)
            extras.append(MarkdownExtra(aStart: Int32(d0), aCount: Int32(bytes.count - d0), bStart: 0, bCount: 0))
            nodes.append(lr)
            let t = Int32(nodes.count)
            var tr = MarkdownNodeRecord(kind: .text, parent: link)
            tr.literalStart = Int32(emailStart)
            tr.literalCount = Int32(emailEnd - emailStart)
            tr.startLine = lr.startLine
            tr.startColumn = lr.startColumn
            tr.endLine = lr.endLine
            tr.endColumn = lr.endColumn
            nodes.append(tr)
            nodes[Int(link)].firstChild = t
            nodes[Int(link)].lastChild = t
            insertAfter(node, link, parent: parent)
            if tailCount > 0 {
                let tail = Int32(nodes.count)
                var rr = MarkdownNodeRecord(kind: .text, parent: parent)
                rr.literalStart = Int32(tailStart)
                rr.literalCount = Int32(tailCount)
                rr.startLine = r.startLine
                rr.startColumn = lr.endColumn + 1
                rr.endLine = r.endLine
                rr.endColumn = r.endColumn
                nodes.append(rr)
                insertAfter(link, tail, parent: parent)
                node = tail
                offset = 0
            } else {
                return
            }
        }
    }

    func autolinkDelimBytes(_ start: Int, _ linkEndIn: Int) -> Int {
        var linkEnd = linkEndIn
        while linkEnd > 0 {
            let c = bytes[start + linkEnd - 1]
            switch c {
            case UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"),
                UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "'"), UInt8(ascii: "\""):
                linkEnd -= 1
            default:
                return linkEnd
            }
        }
        return linkEnd
    }

    mutating func insertAfter(_ a: Int32, _ n: Int32, parent: Int32) {
        let next = nodes[Int(a)].next
        nodes[Int(n)].prev = a
        nodes[Int(n)].next = next
        nodes[Int(a)].next = n
        if next >= 0 { nodes[Int(next)].prev = n } else { nodes[Int(parent)].lastChild = n }
        nodes[Int(n)].parent = parent
    }

    mutating func finishDocument() {}
}

// Phase 1 of CommonMark parsing: block structure (a port of cmark's blocks.c, plus the
// cmark-gfm table, footnote and task-list block extensions). Lines are processed one at
// a time against the stack of open blocks; the one open leaf accumulates its content in
// `content`, which is moved into the document's byte storage when the leaf closes.
// Phase 2 (`InlineParser`) then parses paragraphs, headings and table cells.
//
// The input is read in place, a line at a time: only a line that needs fixing (a NUL, invalid
// UTF-8, a CR line ending, no line ending at the end of the input) is copied, into a line buffer.

private let codeIndent = 4
private let tabStop = 4
/// Nesting cap for lists and footnote definitions (cmark-gfm's MAX_LIST_DEPTH).
private let maxListDepth = 100
/// Cap on empty cells added to short table rows, per table (cmark-gfm: 0x80000).
private let maxAutocompletedCells = 0x80000

struct BlockInfo {
    var markerOffset: Int32 = 0
    var padding: Int32 = 0
    var fenceOffset: Int32 = 0
    var htmlType: UInt8 = 0
    var tableVisited = false
    var tableColumns: Int32 = 0
    var tableAutocompleted: Int32 = 0
    /// Range of `segments` describing the lines of this leaf's content (for source positions).
    var segStart: Int32 = 0
    var segCount: Int32 = 0
    /// The block's record in `BlockParser.records` once written (-1 before); its depth (the root is 0).
    var record: Int32 = -1
    var depth: Int32 = 0
}

/// Maps a storage offset to a source line and column.
struct LineSegment {
    var offset: Int32
    var line: Int32
    var column: Int32
}

struct BlockParser {
    /// The current line, its line ending ('\n') included: `s[lineEnd] == 0x0A`.
    var s = MDBytes(start: nil, count: 0)
    var options: MarkdownOptions
    /// Whether to record where each leaf's lines come from (source positions of inline nodes).
    var positions: Bool

    var nodes: [MarkdownNodeRecord] = []
    var bytes: [UInt8] = []
    var extras: [MarkdownExtra] = []
    var info: [BlockInfo] = []
    var segments: [LineSegment] = []
    var refmap = LabelMap<ReferenceDefinition>()
    /// Footnote label -> definition: its node, or when `streaming` its record.
    var footnoteMap = LabelMap<Int32>()
    /// The direct path: each block goes to `records` as it is finished, and `nodes` keeps only what
    /// parsing may still touch (the open blocks, the last closed children and their last descendants),
    /// so memory follows the open structure, not the document's size.
    var streaming = false
    var records = BlockRecords()
    /// Node count after the last compaction (the next one waits until the arena has doubled).
    var compactedCount = 0
    /// The deepest block the current line continues (`checkOpenBlocks`), and whether open blocks below it
    /// are still to be closed before anything new is added.
    var lastMatched: Int32 = 0
    var unmatchedOpen = false
    var inlineBlocks: [Int32] = []
    var labelScratch: [UInt8] = []
    /// The cells of the table row being read.
    var cells: [Cell] = []

    // Current line state (offsets are absolute indices into `s`).
    /// Always 0: offsets are in the current line.
    let lineStart = 0
    /// Where the line's content starts: `lineStart`, or after a byte order mark on the first line.
    var contentStart = 0
    var lineEnd = 0  // index of the '\n' ending the line
    var offset = 0
    var column = 0
    var firstNonspace = 0
    var firstNonspaceColumn = 0
    var indent = 0
    var blank = false
    var partiallyConsumedTab = false
    var lineNumber: Int32 = 0
    var lastLineLength: Int32 = 0
    var thematicBreakKillPos = 0
    var atEnd = false

    var current: Int32 = 0
    var listDepth = 0

    // The open leaf's content.
    var content: [UInt8] = []
    /// Leaves may refer to the input instead of copying it (the direct path: the input outlives the
    /// render; a document must own its bytes). Then, while the open leaf's lines follow one another in
    /// the input, whole, its content is virtual: `input[contentInput..<contentInput + contentCount]`, and
    /// `content` is not used; it is copied there only when a line breaks the run. `contentInput` is -2
    /// before the first line, -1 once copied; `lineInput` is where the current line starts in the input
    /// (-1: it is in the line buffer).
    var referenceInput = false
    var input = MDBytes(start: nil, count: 0)
    var contentVirtual = false
    var contentInput = -1
    var contentCount = 0
    var lineInput = -1
    var contentOwner: Int32 = -1
    var contentSegs: [LineSegment] = []

    init(options: MarkdownOptions, positions: Bool) {
        self.options = options
        self.positions = positions
        appendRoot()
    }

    /// A parser for a new document that takes over the buffers `old` allocated (emptied, their capacity kept).
    /// With `documentArrays` false, `nodes`, `bytes`, `extras` and `segments` start empty: they are to
    /// become a document's, which should not carry an earlier document's capacity.
    init(options: MarkdownOptions, positions: Bool, reusing old: inout BlockParser, documentArrays: Bool) {
        self.options = options
        self.positions = positions
        if documentArrays {
            swap(&nodes, &old.nodes)
            swap(&bytes, &old.bytes)
            swap(&extras, &old.extras)
            swap(&segments, &old.segments)
        }
        swap(&info, &old.info)
        swap(&refmap, &old.refmap)
        swap(&footnoteMap, &old.footnoteMap)
        swap(&inlineBlocks, &old.inlineBlocks)
        swap(&labelScratch, &old.labelScratch)
        swap(&cells, &old.cells)
        swap(&records, &old.records)
        records.removeAll()
        swap(&content, &old.content)
        swap(&contentSegs, &old.contentSegs)
        nodes.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        extras.removeAll(keepingCapacity: true)
        info.removeAll(keepingCapacity: true)
        segments.removeAll(keepingCapacity: true)
        refmap.removeAll()
        footnoteMap.removeAll()
        inlineBlocks.removeAll(keepingCapacity: true)
        content.removeAll(keepingCapacity: true)
        contentSegs.removeAll(keepingCapacity: true)
        appendRoot()
    }

    private mutating func appendRoot() {
        var root = MarkdownNodeRecord(kind: .document, parent: -1)
        root.flags = MarkdownNodeRecord.Flag.open
        root.startLine = 1
        root.startColumn = 1
        nodes.append(root)
        info.append(BlockInfo())
    }

    // MARK: Driver

    /// Parses the block structure of `input`. Afterwards `nodes` holds the blocks, `bytes` each leaf's
    /// content (its literal range), `refmap` and `footnoteMap` the definitions, and `inlineBlocks` the
    /// leaves whose content is inline Markdown, in document order.
    mutating func parseBlocks(_ input: MDBytes, nodesPerByte: Int) {
        if referenceInput { self.input = input }
        // Typical documents need about one node per 12 input bytes (blocks alone: far fewer) and a little
        // more storage than the input (decoded text, URLs); reserving avoids regrowth copies.
        nodes.reserveCapacity(streaming ? 4096 : input.count / nodesPerByte + 16)
        info.reserveCapacity(streaming ? 4096 : input.count / nodesPerByte + 16)
        bytes.reserveCapacity(input.count + (positions ? input.count / 8 : 0) + 64)
        let n = input.count
        var i = 0
        var lineBuffer: [UInt8] = []
        while i < n {
            let (e, dirty) = Self.scanLine(input, i)
            var next: Int
            let lf = e < n && input[e] == 0x0A
            if e < n {
                next = e + 1
                if input[e] == 0x0D && next < n && input[next] == 0x0A { next += 1 }
            } else {
                next = n
            }
            if lf && !dirty {
                s = MDBytes(rebasing: input[i...e])
                lineInput = i
                processLine(e - i)
            } else {
                lineInput = -1
                lineBuffer.removeAll(keepingCapacity: true)
                if dirty {
                    Self.appendSanitized(input, i, e, into: &lineBuffer)
                } else {
                    lineBuffer.append(contentsOf: MDBytes(rebasing: input[i..<e]))
                }
                lineBuffer.append(0x0A)
                lineBuffer.withUnsafeBufferPointer { line in
                    s = line
                    processLine(line.count - 1)
                }
            }
            i = next
        }
        s = MDBytes(start: nil, count: 0)
        atEnd = true
        while current != 0 {
            current = finalize(current)
        }
        _ = finalize(0)
        if options.footnotes && !streaming { collectFootnotes() }
        content.removeAll(keepingCapacity: true)
        contentSegs.removeAll(keepingCapacity: true)
    }

    /// The end of the line starting at `i` (the index of its '\n' or '\r', or the input's end) and whether
    /// it holds a NUL or invalid UTF-8. Plain ASCII goes eight bytes at a time.
    static func scanLine(_ p: MDBytes, _ i: Int) -> (Int, Bool) {
        let n = p.count
        var j = i
        var dirty = false
        let base = UnsafeRawPointer(p.baseAddress!)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while true {
            while j + 8 <= n {
                let x = base.loadUnaligned(fromByteOffset: j, as: UInt64.self)
                let lf = x ^ 0x0A0A_0A0A_0A0A_0A0A
                let cr = x ^ 0x0D0D_0D0D_0D0D_0D0D
                let t = ((lf &- ones) & ~lf) | ((cr &- ones) & ~cr) | ((x &- ones) & ~x) | x
                if t & highs != 0 { break }
                j += 8
            }
            if j >= n { return (n, dirty) }
            let c = p[j]
            if c == 0x0A || c == 0x0D { return (j, dirty) }
            if c < 0x80 {
                if c == 0 { dirty = true }
                j += 1
                continue
            }
            let len = validSequenceLength(p, j, n)
            if len == 0 {
                dirty = true
                j += 1
            } else {
                j += len
            }
        }
    }

    /// The length of the valid UTF-8 sequence at `i` (lead byte at least 0x80), or 0 (Unicode Table 3-7).
    @inline(__always)
    static func validSequenceLength(_ p: MDBytes, _ i: Int, _ n: Int) -> Int {
        let c = p[i]
        let len: Int
        if c >= 0xC2 && c <= 0xDF {
            len = 2
        } else if c >= 0xE0 && c <= 0xEF {
            len = 3
        } else if c >= 0xF0 && c <= 0xF4 {
            len = 4
        } else {
            return 0
        }
        if i + len > n { return 0 }
        let c1 = p[i + 1]
        switch c {
        case 0xE0: if c1 < 0xA0 || c1 > 0xBF { return 0 }
        case 0xED: if c1 < 0x80 || c1 > 0x9F { return 0 }
        case 0xF0: if c1 < 0x90 || c1 > 0xBF { return 0 }
        case 0xF4: if c1 < 0x80 || c1 > 0x8F { return 0 }
        default: if c1 & 0xC0 != 0x80 { return 0 }
        }
        if len > 2 && p[i + 2] & 0xC0 != 0x80 { return 0 }
        if len > 3 && p[i + 3] & 0xC0 != 0x80 { return 0 }
        return len
    }

    /// Appends `p[i..<e]` (one line, no line ending) with U+0000 and invalid UTF-8 replaced by U+FFFD: each
    /// maximal invalid prefix of a sequence becomes one U+FFFD, as WHATWG's decoder does.
    static func appendSanitized(_ p: MDBytes, _ start: Int, _ e: Int, into out: inout [UInt8]) {
        var i = start
        while i < e {
            let c = p[i]
            if c < 0x80 {
                if c == 0 { out.append(contentsOf: [0xEF, 0xBF, 0xBD]) } else { out.append(c) }
                i += 1
                continue
            }
            let len = validSequenceLength(p, i, e)
            if len > 0 {
                out.append(contentsOf: MDBytes(rebasing: p[i..<(i + len)]))
                i += len
                continue
            }
            out.append(contentsOf: [0xEF, 0xBF, 0xBD])
            var expected = 0
            if c >= 0xC2 && c <= 0xDF {
                expected = 2
            } else if c >= 0xE0 && c <= 0xEF {
                expected = 3
            } else if c >= 0xF0 && c <= 0xF4 {
                expected = 4
            }
            i += 1
            // Skip the continuation bytes that still make a valid prefix.
            var k = 1
            while k < expected && i < e && p[i] & 0xC0 == 0x80 {
                if k == 1 {
                    let c1 = p[i]
                    let valid: Bool
                    switch c {
                    case 0xE0: valid = c1 >= 0xA0
                    case 0xED: valid = c1 <= 0x9F
                    case 0xF0: valid = c1 >= 0x90
                    case 0xF4: valid = c1 <= 0x8F
                    default: valid = true
                    }
                    if !valid { break }
                }
                i += 1
                k += 1
            }
        }
    }

    // MARK: Tree helpers

    @inline(__always) func kind(_ n: Int32) -> MarkdownNodeKind { nodes[Int(n)].kind }
    @inline(__always) func isOpen(_ n: Int32) -> Bool { nodes[Int(n)].flags & MarkdownNodeRecord.Flag.open != 0 }

    mutating func appendChild(_ parent: Int32, _ kind: MarkdownNodeKind, startColumn: Int) -> Int32 {
        let index = Int32(nodes.count)
        var r = MarkdownNodeRecord(kind: kind, parent: parent)
        r.flags = MarkdownNodeRecord.Flag.open
        r.startLine = lineNumber
        r.startColumn = Int32(startColumn)
        r.endLine = lineNumber
        // A list starts tight; a sibling arriving can show it loose (`checkTightness`).
        if kind == .list { r.flags |= MarkdownNodeRecord.Flag.variant }
        let last = nodes[Int(parent)].lastChild
        if last >= 0 { checkTightness(parent, previous: last) }
        if streaming { writeOpen(parent) }
        r.prev = last
        nodes.append(r)
        var blockInfo = BlockInfo()
        blockInfo.depth = info[Int(parent)].depth + levels(parent)
        info.append(blockInfo)
        if last >= 0 { nodes[Int(last)].next = index } else { nodes[Int(parent)].firstChild = index }
        nodes[Int(parent)].lastChild = index
        return index
    }

    /// The nesting levels node `n` stands for: on the direct path, block quotes opened together on one line
    /// are one node (`>>>>` a million times is one node, not a million), their count in `literalCount`;
    /// everything else is one level.
    @inline(__always) func levels(_ n: Int32) -> Int32 {
        streaming && nodes[Int(n)].kind == .blockQuote ? max(1, nodes[Int(n)].literalCount) : 1
    }

    /// A line continues the first `matched` levels of the block quote run `run`, not the rest: the run
    /// becomes two, the continued levels on top (a new node in its place, with its record if it has one,
    /// patched) and the others below (`run`, keeping its content). Returns the lower part.
    mutating func splitRun(_ run: Int32, matched: Int32) -> Int32 {
        let r = nodes[Int(run)]
        let upper = Int32(nodes.count)
        var u = MarkdownNodeRecord(kind: .blockQuote, parent: r.parent)
        u.flags = r.flags
        u.startLine = r.startLine
        u.startColumn = r.startColumn
        u.endLine = r.endLine
        u.literalCount = matched
        u.prev = r.prev
        u.next = r.next
        u.firstChild = run
        u.lastChild = run
        nodes.append(u)
        var upperInfo = BlockInfo()
        upperInfo.depth = info[Int(run)].depth
        upperInfo.record = info[Int(run)].record
        info.append(upperInfo)
        if r.prev >= 0 { nodes[Int(r.prev)].next = upper }
        if r.next >= 0 { nodes[Int(r.next)].prev = upper }
        if nodes[Int(r.parent)].firstChild == run { nodes[Int(r.parent)].firstChild = upper }
        if nodes[Int(r.parent)].lastChild == run { nodes[Int(r.parent)].lastChild = upper }
        nodes[Int(run)].parent = upper
        nodes[Int(run)].prev = -1
        nodes[Int(run)].next = -1
        nodes[Int(run)].literalCount = r.literalCount - matched
        info[Int(run)].depth += matched
        if upperInfo.record >= 0 {
            // The written record now stands for the upper levels. When it is the last one, the lower levels
            // get theirs right after it; else content of theirs follows it, and they get none (-2): the
            // renderer opens them where that content, deeper than it expects, comes.
            records.setCount(at: upperInfo.record, matched)
            if records.lastOffset == upperInfo.record {
                info[Int(run)].record = -1
                writeOpen(run)
            } else {
                info[Int(run)].record = -2
            }
        }
        return run
    }

    /// Closes the open blocks the current line does not continue. cmark closes them once the line's new
    /// blocks are open; closing them first changes nothing they hold (new blocks never go inside them)
    /// and keeps blocks finishing in document order, which `records` needs.
    mutating func closeUnmatched() {
        guard unmatchedOpen else { return }
        unmatchedOpen = false
        while current != lastMatched {
            current = finalize(current)
        }
    }

    mutating func unlink(_ n: Int32) {
        let r = nodes[Int(n)]
        if r.prev >= 0 { nodes[Int(r.prev)].next = r.next } else if r.parent >= 0 { nodes[Int(r.parent)].firstChild = r.next }
        if r.next >= 0 { nodes[Int(r.next)].prev = r.prev } else if r.parent >= 0 { nodes[Int(r.parent)].lastChild = r.prev }
        nodes[Int(n)].next = -1
        nodes[Int(n)].prev = -1
    }

    static func canContain(_ parent: MarkdownNodeKind, _ child: MarkdownNodeKind) -> Bool {
        switch parent {
        case .document, .blockQuote, .item, .footnoteDefinition: return child != .item && child != .tableRow && child != .tableCell
        case .list: return child == .item
        case .table: return child == .tableRow
        case .tableRow: return child == .tableCell
        default: return false
        }
    }

    static func acceptsLines(_ k: MarkdownNodeKind) -> Bool { k == .paragraph || k == .heading || k == .codeBlock }

    mutating func addChild(_ parent: Int32, _ kind: MarkdownNodeKind, startColumn: Int) -> Int32 {
        closeUnmatched()
        var p = parent
        while !BlockParser.canContain(self.kind(p), kind) {
            p = finalize(p)
        }
        return appendChild(p, kind, startColumn: startColumn)
    }

    // MARK: Line state

    @inline(__always) func peek(_ i: Int) -> UInt8 { i <= lineEnd ? s[i] : 0 }

    mutating func findFirstNonspace() {
        var charsToTab = tabStop - (column % tabStop)
        firstNonspace = offset
        firstNonspaceColumn = column
        while true {
            let c = s[firstNonspace]
            if c == 0x20 {
                firstNonspace += 1
                firstNonspaceColumn += 1
                charsToTab -= 1
                if charsToTab == 0 { charsToTab = tabStop }
            } else if c == 0x09 {
                firstNonspace += 1
                firstNonspaceColumn += charsToTab
                charsToTab = tabStop
            } else {
                break
            }
        }
        indent = firstNonspaceColumn - column
        blank = s[firstNonspace] == 0x0A
    }

    mutating func advanceOffset(_ count: Int, columns: Bool) {
        var count = count
        while count > 0 && offset < lineEnd {
            let c = s[offset]
            if c == 0x09 {
                let charsToTab = tabStop - (column % tabStop)
                if columns {
                    partiallyConsumedTab = charsToTab > count
                    let adv = min(count, charsToTab)
                    column += adv
                    offset += partiallyConsumedTab ? 0 : 1
                    count -= adv
                } else {
                    partiallyConsumedTab = false
                    column += charsToTab
                    offset += 1
                    count -= 1
                }
            } else {
                partiallyConsumedTab = false
                offset += 1
                column += 1
                count -= 1
            }
        }
    }

    // MARK: Content accumulation

    mutating func addLine(_ node: Int32) {
        if contentOwner != node {
            content.removeAll(keepingCapacity: true)
            contentSegs.removeAll(keepingCapacity: true)
            contentOwner = node
            contentVirtual = false
            contentInput = -2
        }
        let e = headingEnd >= 0 ? headingEnd : lineEnd
        if referenceInput && contentInput != -1 {
            // Virtual while this line's text follows the content in the input, whole to its '\n'.
            let whole = lineInput >= 0 && !partiallyConsumedTab && e == lineEnd
            if whole && contentInput == -2 {
                contentVirtual = true
                contentInput = lineInput + offset
                contentCount = e - offset + 1
                headingEnd = -1
                return
            }
            if whole && contentVirtual && lineInput + offset == contentInput + contentCount {
                contentCount += e - offset + 1
                headingEnd = -1
                return
            }
            materializeContent()
        }
        if partiallyConsumedTab {
            offset += 1
            let charsToTab = tabStop - (column % tabStop)
            for _ in 0..<charsToTab { content.append(0x20) }
        }
        if positions {
            contentSegs.append(
                LineSegment(offset: Int32(content.count), line: lineNumber, column: Int32(offset - lineStart + 1)))
        }
        headingEnd = -1
        if offset < e {
            content.append(contentsOf: MDBytes(rebasing: s[offset..<e]))
        }
        content.append(0x0A)
    }

    /// Copies a virtual content into `content` (which it then is, for good).
    mutating func materializeContent() {
        if contentVirtual {
            content.removeAll(keepingCapacity: true)
            content.append(contentsOf: MDBytes(rebasing: input[contentInput..<(contentInput + contentCount)]))
            contentVirtual = false
        }
        contentInput = -1
    }

    /// The open leaf's content length.
    var contentLength: Int { contentVirtual ? contentCount : content.count }

    /// The virtual content, if it is.
    var virtualContent: MDBytes? { contentVirtual ? MDBytes(rebasing: input[contentInput..<(contentInput + contentCount)]) : nil }

    /// Runs `body` on the content's bytes: `view` when it is virtual, else `array` (`content`, passed in so
    /// that `body` may change the parser).
    static func withContent<R>(_ array: [UInt8], _ view: MDBytes?, _ body: (MDBytes) throws -> R) rethrows -> R {
        if let view { return try body(view) }
        return try array.withUnsafeBufferPointer(body)
    }

    /// Moves `content[from..<to]` into storage (a virtual content stays in the input); returns its range and
    /// records segments.
    mutating func flushContent(_ node: Int32, from: Int, to: Int) -> (Int32, Int32) {
        let base = Int32(bytes.count)
        if contentOwner == node && from < to && contentVirtual {
            nodes[Int(node)].flags |= MarkdownNodeRecord.Flag.literalInInput
            return (Int32(contentInput + from), Int32(to - from))
        }
        if contentOwner == node && from < to {
            bytes.append(contentsOf: content[from..<to])
            guard positions else { return (base, Int32(to - from)) }
            let segStart = Int32(segments.count)
            for seg in contentSegs {
                let o = Int(seg.offset)
                if o >= to { break }
                if o >= from {
                    segments.append(LineSegment(offset: base + Int32(o - from), line: seg.line, column: seg.column))
                } else {
                    // A line that starts before `from` (e.g. after stripped reference definitions):
                    // keep the latest such line, positioned at `from`.
                    if let last = segments.last, Int(last.offset) == Int(base), segments.count > segStart {
                        segments.removeLast()
                    }
                    segments.append(
                        LineSegment(offset: base, line: seg.line, column: seg.column + Int32(from - o)))
                }
            }
            info[Int(node)].segStart = segStart
            info[Int(node)].segCount = Int32(segments.count) - segStart
            return (base, Int32(to - from))
        }
        return (base, 0)
    }

    // MARK: Finalize

    @discardableResult
    mutating func finalize(_ b: Int32) -> Int32 {
        let parent = nodes[Int(b)].parent
        var dropped = false
        nodes[Int(b)].flags &= ~MarkdownNodeRecord.Flag.open
        let k = kind(b)
        if atEnd {
            nodes[Int(b)].endLine = lineNumber
            nodes[Int(b)].endColumn = lastLineLength
        } else if k == .document || (k == .codeBlock && nodes[Int(b)].flags & MarkdownNodeRecord.Flag.variant != 0)
            || (k == .heading && nodes[Int(b)].flags & MarkdownNodeRecord.Flag.variant != 0)
        {
            nodes[Int(b)].endLine = lineNumber
            nodes[Int(b)].endColumn = Int32(lineEnd - lineStart)
        } else {
            nodes[Int(b)].endLine = lineNumber - 1
            nodes[Int(b)].endColumn = lastLineLength
        }

        switch k {
        case .paragraph:
            var pos = 0
            var end = 0
            var allBlank = true
            if contentOwner == b {
                let array = content
                Self.withContent(array, virtualContent) { c in
                    while pos < c.count && c[pos] == UInt8(ascii: "[") {
                        let n = parseReferenceDefinition(c, pos)
                        if n == 0 { break }
                        pos += n
                    }
                    for i in pos..<c.count where !MD.isSpace(c[i]) {
                        allBlank = false
                        break
                    }
                    // Trailing whitespace is not part of the paragraph's inline content.
                    end = c.count
                    while end > pos && MD.isSpace(c[end - 1]) { end -= 1 }
                }
            }
            if allBlank {
                unlink(b)
                dropped = true
            } else {
                let (st, ct) = flushContent(b, from: pos, to: end)
                nodes[Int(b)].literalStart = st
                nodes[Int(b)].literalCount = ct
                if !streaming { inlineBlocks.append(b) }
            }
        case .heading:
            var from = 0
            var end = 0
            if contentOwner == b {
                let array = content
                Self.withContent(array, virtualContent) { c in
                    end = c.count
                    while from < end && MD.isSpace(c[from]) { from += 1 }
                    while end > from && MD.isSpace(c[end - 1]) { end -= 1 }
                }
            }
            let (st, ct) = flushContent(b, from: from, to: end)
            nodes[Int(b)].literalStart = st
            nodes[Int(b)].literalCount = ct
            if !streaming { inlineBlocks.append(b) }
        case .codeBlock:
            let fenced = nodes[Int(b)].flags & MarkdownNodeRecord.Flag.variant != 0
            if contentOwner != b {
                content.removeAll(keepingCapacity: true)
                contentSegs.removeAll(keepingCapacity: true)
                contentOwner = b
                contentVirtual = false
            }
            if !fenced {
                materializeContent()
                // remove trailing blank lines
                var i = content.count - 1
                while i >= 0 {
                    let c = content[i]
                    if c != 0x20 && c != 0x09 && c != 0x0A { break }
                    i -= 1
                }
                if i < 0 {
                    content.removeAll(keepingCapacity: true)
                } else {
                    var j = i
                    while j < content.count && content[j] != 0x0A { j += 1 }
                    content.removeSubrange(j...)
                }
                content.append(0x0A)
                let (st, ct) = flushContent(b, from: 0, to: content.count)
                nodes[Int(b)].literalStart = st
                nodes[Int(b)].literalCount = ct
            } else {
                var pos = 0
                let infoStart = Int32(bytes.count)
                let array = content
                Self.withContent(array, virtualContent) { c in
                    while pos < c.count && c[pos] != 0x0A { pos += 1 }
                    // info string: trimmed, unescaped
                    var a = 0
                    var e = pos
                    while a < e && MD.isSpace(c[a]) { a += 1 }
                    while e > a && MD.isSpace(c[e - 1]) { e -= 1 }
                    MD.appendUnescaped(c, a, e, into: &bytes)
                }
                nodes[Int(b)].extra = Int32(extras.count)
                extras.append(MarkdownExtra(aStart: infoStart, aCount: Int32(bytes.count) - infoStart))
                if pos < contentLength { pos += 1 }
                let (st, ct) = flushContent(b, from: pos, to: contentLength)
                nodes[Int(b)].literalStart = st
                nodes[Int(b)].literalCount = ct
            }
        case .htmlBlock:
            let (st, ct) = flushContent(b, from: 0, to: contentOwner == b ? contentLength : 0)
            nodes[Int(b)].literalStart = st
            nodes[Int(b)].literalCount = ct
        case .list:
            // Tightness was decided as items and their children arrived (`checkTightness`); cmark looks at
            // the last item's last child too, to no effect but its memo (`lastLineChecked`), which later
            // checks of enclosing lists read.
            let lastItem = nodes[Int(b)].lastChild
            if nodes[Int(b)].flags & MarkdownNodeRecord.Flag.variant != 0 && lastItem >= 0 && nodes[Int(lastItem)].lastChild >= 0 {
                _ = endsWithBlankLine(nodes[Int(lastItem)].lastChild)
            }
            listDepth -= 1
        case .footnoteDefinition:
            listDepth -= 1
        default:
            break
        }
        if streaming && b != 0 && !dropped {
            // Finished: a leaf's record goes out now; a container's is out unless it is empty, and a
            // list's tightness is now known.
            writeOpen(b)
            if k == .list {
                let parseFlags = MarkdownNodeRecord.Flag.open | MarkdownNodeRecord.Flag.lastLineBlank | MarkdownNodeRecord.Flag.lastLineChecked
                records.setFlags(at: info[Int(b)].record, nodes[Int(b)].flags & ~parseFlags)
            }
        }
        return parent
    }

    /// Writes the record of `node` unless it is written (a container's when its first child comes or it
    /// ends; a leaf's when it ends). Its parent's is always out by then (`appendChild` writes it).
    mutating func writeOpen(_ node: Int32) {
        guard node > 0, info[Int(node)].record == -1 else { return }
        // A run split before its first child leaves an upper part without a record: write it first.
        let parent = nodes[Int(node)].parent
        if parent > 0 && info[Int(parent)].record == -1 { writeOpen(parent) }
        let r = nodes[Int(node)]
        let parseFlags = MarkdownNodeRecord.Flag.open | MarkdownNodeRecord.Flag.lastLineBlank | MarkdownNodeRecord.Flag.lastLineChecked
        let index = records.append(
            BlockRecord(
                kind: r.kind, flags: r.flags & ~parseFlags, a: r.a, b: r.b, depth: info[Int(node)].depth,
                literalStart: r.literalStart, literalCount: r.literalCount, extra: r.extra))
        info[Int(node)].record = index
        if r.kind == .footnoteDefinition {
            // Definitions are known by their record here; the first of a label wins, in document order.
            let storage = bytes
            storage.withUnsafeBufferPointer {
                MD.normalizeLabel($0, Int(r.literalStart), Int(r.literalStart + r.literalCount), into: &labelScratch)
            }
            let label = labelScratch
            label.withUnsafeBufferPointer { _ = footnoteMap.insertIfAbsent($0, index) }
        }
    }

    /// Drops from `nodes` what parsing can no longer touch (`streaming`): all but the open blocks, the last
    /// two children of each, and the last descendants of those through lists and items (blank-line checks
    /// of list tightness walk down last children). Their records are written; node ids change, so this runs
    /// between lines, when only `current` and `contentOwner` hold one.
    mutating func compact() {
        var newIndex = [Int32](repeating: -1, count: nodes.count)
        newIndex[0] = 0
        func keepChain(_ start: Int32, _ newIndex: inout [Int32]) {
            var x = start
            while x >= 0 {
                newIndex[Int(x)] = 0
                let r = nodes[Int(x)]
                guard r.kind == .list || r.kind == .item else { break }
                x = r.lastChild
            }
        }
        var p: Int32 = 0
        while true {
            let last = nodes[Int(p)].lastChild
            if last < 0 { break }
            let previous = nodes[Int(last)].prev
            if previous >= 0 { keepChain(previous, &newIndex) }
            if isOpen(last) {
                newIndex[Int(last)] = 0
                p = last
                continue
            }
            keepChain(last, &newIndex)
            break
        }
        var kept: [MarkdownNodeRecord] = []
        var keptInfo: [BlockInfo] = []
        for old in 0..<nodes.count where newIndex[old] >= 0 {
            newIndex[old] = Int32(kept.count)
            kept.append(nodes[old])
            keptInfo.append(info[old])
        }
        @inline(__always) func map(_ id: Int32) -> Int32 { id < 0 ? -1 : newIndex[Int(id)] }
        for i in 0..<kept.count {
            var r = kept[i]
            r.parent = map(r.parent)
            r.lastChild = map(r.lastChild)
            // Only "has children" is asked of an early child that is gone.
            let first = map(r.firstChild)
            r.firstChild = first >= 0 ? first : (r.firstChild >= 0 ? (r.lastChild >= 0 ? r.lastChild : Int32(i)) : -1)
            r.next = map(r.next)
            r.prev = map(r.prev)
            kept[i] = r
        }
        current = map(current)
        if contentOwner >= 0 { contentOwner = map(contentOwner) }
        nodes = kept
        info = keptInfo
        compactedCount = kept.count
    }

    /// A list is loose when an item ends with a blank line and another follows, or when a child of an
    /// item ends with a blank line and anything follows it in the list (cmark's finalize of a list, done as
    /// siblings arrive, in the same order, so that nothing closed need be kept for it): `previous`, the
    /// last child of `parent`, is getting a next sibling.
    mutating func checkTightness(_ parent: Int32, previous: Int32) {
        let p = nodes[Int(parent)]
        if p.kind == .list {
            guard p.flags & MarkdownNodeRecord.Flag.variant != 0 else { return }
            let item = nodes[Int(previous)]
            if item.flags & MarkdownNodeRecord.Flag.lastLineBlank != 0
                || (item.lastChild >= 0 && endsWithBlankLine(item.lastChild))
            {
                nodes[Int(parent)].flags &= ~MarkdownNodeRecord.Flag.variant
            }
        } else if p.kind == .item && p.parent >= 0 && nodes[Int(p.parent)].kind == .list {
            guard nodes[Int(p.parent)].flags & MarkdownNodeRecord.Flag.variant != 0 else { return }
            if endsWithBlankLine(previous) { nodes[Int(p.parent)].flags &= ~MarkdownNodeRecord.Flag.variant }
        }
    }

    /// Whether a node ends with a blank line, descending into lists and items (memoised
    /// via the `lastLineChecked` flag so tightness checks stay linear).
    mutating func endsWithBlankLine(_ node: Int32) -> Bool {
        var cur = node
        while cur >= 0 {
            let r = nodes[Int(cur)]
            if r.flags & MarkdownNodeRecord.Flag.lastLineBlank != 0 { return true }
            if r.kind == .list || r.kind == .item {
                if r.flags & MarkdownNodeRecord.Flag.lastLineChecked != 0 { return false }
                nodes[Int(cur)].flags |= MarkdownNodeRecord.Flag.lastLineChecked
                cur = r.lastChild
            } else {
                return false
            }
        }
        return false
    }

    // MARK: Reference definitions

    /// Parses a link reference definition at `c[pos]` (the open paragraph's content). Returns bytes
    /// consumed or 0.
    mutating func parseReferenceDefinition(_ c: MDBytes, _ pos: Int) -> Int {
        let end = c.count
        guard let (afterLabel, ls, le) = MD.scanLinkLabel(c, pos, end) else { return 0 }
        guard afterLabel < end, c[afterLabel] == UInt8(ascii: ":") else { return 0 }
        if options.footnotes && le > ls && c[ls] == UInt8(ascii: "^") { return 0 }
        // spaces incl. at most one newline
        var i = afterLabel + 1
        i = skipSpacesOneNewline(c, i, end)
        guard let (destEnd, ds, de) = MD.scanLinkDestination(c, i, end) else { return 0 }
        if destEnd == i && !(i < end && c[i] == UInt8(ascii: "<")) { return 0 }
        let beforeTitle = destEnd
        let j = skipSpacesOneNewline(c, destEnd, end)
        var titleRange: (Int, Int)? = nil
        var afterTitle = beforeTitle
        if j != beforeTitle, let te = MD.scanLinkTitle(c, j, end) {
            titleRange = (j + 1, te - 1)
            afterTitle = te
        }
        // rest of line must be blank
        var k = afterTitle
        while k < end && MD.isSpaceOrTab(c[k]) { k += 1 }
        var finalEnd: Int
        if k >= end || c[k] == 0x0A {
            finalEnd = k < end ? k + 1 : k
        } else if titleRange != nil {
            // title not followed by line end: drop the title, try ending after the destination
            titleRange = nil
            k = beforeTitle
            while k < end && MD.isSpaceOrTab(c[k]) { k += 1 }
            guard k >= end || c[k] == 0x0A else { return 0 }
            finalEnd = k < end ? k + 1 : k
        } else {
            return 0
        }
        MD.normalizeLabel(c, ls, le, into: &labelScratch)
        if labelScratch.isEmpty { return 0 }
        let label = labelScratch
        let known = label.withUnsafeBufferPointer { refmap.contains($0) }
        if !known {
            let dStart = Int32(bytes.count)
            MD.appendUnescaped(c, ds, de, into: &bytes)
            let dCount = Int32(bytes.count) - dStart
            var tStart = Int32(bytes.count)
            var tCount: Int32 = 0
            if let (ts, tend) = titleRange {
                tStart = Int32(bytes.count)
                MD.appendUnescaped(c, ts, tend, into: &bytes)
                tCount = Int32(bytes.count) - tStart
            }
            let definition = ReferenceDefinition(destStart: dStart, destCount: dCount, titleStart: tStart, titleCount: tCount)
            label.withUnsafeBufferPointer { _ = refmap.insertIfAbsent($0, definition) }
        }
        return finalEnd - pos
    }

    func skipSpacesOneNewline(_ c: MDBytes, _ i: Int, _ end: Int) -> Int {
        var j = i
        while j < end && MD.isSpaceOrTab(c[j]) { j += 1 }
        if j < end && c[j] == 0x0A {
            j += 1
            while j < end && MD.isSpaceOrTab(c[j]) { j += 1 }
        }
        return j
    }

    // MARK: Line processing

    /// Processes the line `s[0...length]` (`s[length]` is its line ending).
    mutating func processLine(_ length: Int) {
        if streaming && nodes.count >= 2 * compactedCount + 4096 { compact() }
        let start = 0
        let end = length
        lineEnd = end
        offset = start
        column = 0
        blank = false
        partiallyConsumedTab = false
        thematicBreakKillPos = 0
        lineNumber += 1
        // A byte order mark (U+FEFF) before the first line is not text: `\u{FEFF}# Title` is a heading, as
        // cmark, GitHub and pandoc read it. Columns still count from the line's first byte.
        if lineNumber == 1, end - start >= 3, s[start] == 0xEF, s[start + 1] == 0xBB, s[start + 2] == 0xBF { offset = start + 3 }
        contentStart = offset

        var allMatched = false
        if let lastMatched = checkOpenBlocks(&allMatched) {
            self.lastMatched = lastMatched
            unmatchedOpen = current != lastMatched
            var container = lastMatched
            openNewBlocks(&container, allMatched)
            addTextToContainer(container, lastMatched)
        }
        lastLineLength = Int32(lineEnd - lineStart)
    }

    mutating func checkOpenBlocks(_ allMatched: inout Bool) -> Int32? {
        var shouldContinue = true
        allMatched = false
        var container: Int32 = 0
        listDepth = 0
        var matchedAll = true
        while true {
            let last = nodes[Int(container)].lastChild
            guard last >= 0, isOpen(last) else { break }
            container = last
            findFirstNonspace()
            var ok = true
            switch kind(container) {
            case .blockQuote:
                let count = levels(container)
                var matched: Int32 = 0
                while indent <= 3 && s[firstNonspace] == UInt8(ascii: ">") {
                    advanceOffset(indent + 1, columns: true)
                    if MD.isSpaceOrTab(peek(offset)) { advanceOffset(1, columns: true) }
                    matched += 1
                    if matched == count { break }
                    findFirstNonspace()
                }
                if matched == 0 {
                    ok = false
                } else if matched < count {
                    // Part of a run continues: the rest is the first block this line does not continue.
                    container = splitRun(container, matched: matched)
                    ok = false
                }
            case .item:
                let inf = info[Int(container)]
                let need = Int(inf.markerOffset + inf.padding)
                if indent >= need {
                    advanceOffset(need, columns: true)
                } else if blank && nodes[Int(container)].firstChild >= 0 {
                    advanceOffset(firstNonspace - offset, columns: false)
                } else {
                    ok = false
                }
            case .footnoteDefinition:
                if indent >= 4 {
                    advanceOffset(4, columns: true)
                } else if blank {
                    // blank lines continue a footnote definition
                } else {
                    ok = false
                }
                if ok { listDepth += 1 }
            case .list:
                listDepth += 1
            case .codeBlock:
                if nodes[Int(container)].flags & MarkdownNodeRecord.Flag.variant == 0 {
                    if indent >= codeIndent {
                        advanceOffset(codeIndent, columns: true)
                    } else if blank {
                        advanceOffset(firstNonspace - offset, columns: false)
                    } else {
                        ok = false
                    }
                } else {
                    var matched = 0
                    let fc = nodes[Int(container)].a
                    if indent <= 3 && s[firstNonspace] == fc {
                        matched = scanCloseCodeFence(firstNonspace, fc)
                    }
                    if matched >= Int(nodes[Int(container)].b) {
                        shouldContinue = false
                        advanceOffset(matched, columns: false)
                        current = finalize(container)
                        ok = false
                    } else {
                        var i = info[Int(container)].fenceOffset
                        while i > 0 && MD.isSpaceOrTab(peek(offset)) {
                            advanceOffset(1, columns: true)
                            i -= 1
                        }
                    }
                }
            case .heading:
                ok = false
            case .htmlBlock:
                let t = info[Int(container)].htmlType
                if t >= 6 && blank { ok = false }
            case .paragraph:
                if blank { ok = false }
            case .table:
                if !tableRowMatches() { ok = false }
            default:
                break
            }
            if !ok {
                matchedAll = false
                break
            }
        }
        if matchedAll {
            allMatched = true
        } else {
            container = nodes[Int(container)].parent
        }
        if !shouldContinue { return nil }
        return container
    }

    mutating func openNewBlocks(_ container: inout Int32, _ allMatched: Bool) {
        var maybeLazy = kind(current) == .paragraph
        var contType = kind(container)
        while contType != .codeBlock && contType != .htmlBlock {
            findFirstNonspace()
            let indented = indent >= codeIndent
            let c = s[firstNonspace]
            if !indented && c == UInt8(ascii: ">") {
                advanceOffset(firstNonspace + 1 - offset, columns: false)
                if MD.isSpaceOrTab(peek(offset)) { advanceOffset(1, columns: true) }
                if streaming && kind(container) == .blockQuote && nodes[Int(container)].firstChild < 0
                    && nodes[Int(container)].startLine == lineNumber
                {
                    // A quote opened on this line and still empty: one more level of the same run.
                    nodes[Int(container)].literalCount += 1
                } else {
                    container = addChild(container, .blockQuote, startColumn: firstNonspace - lineStart + 1)
                    if streaming { nodes[Int(container)].literalCount = 1 }
                }
            } else if !indented && c == UInt8(ascii: "#"), case let m = scanATXHeadingStart(firstNonspace), m > 0 {
                let headingStart = firstNonspace
                advanceOffset(firstNonspace + m - offset, columns: false)
                container = addChild(container, .heading, startColumn: headingStart - lineStart + 1)
                var level = 0
                var h = headingStart
                while s[h] == UInt8(ascii: "#") {
                    level += 1
                    h += 1
                }
                nodes[Int(container)].a = UInt8(level)
            } else if !indented && (c == UInt8(ascii: "`") || c == UInt8(ascii: "~")),
                case let m = scanOpenCodeFence(firstNonspace), m > 0
            {
                container = addChild(container, .codeBlock, startColumn: firstNonspace - lineStart + 1)
                nodes[Int(container)].flags |= MarkdownNodeRecord.Flag.variant
                nodes[Int(container)].a = c
                nodes[Int(container)].b = UInt8(min(m, 255))
                info[Int(container)].fenceOffset = Int32(firstNonspace - offset)
                advanceOffset(firstNonspace + m - offset, columns: false)
            } else if !indented && c == UInt8(ascii: "<"),
                case let t = htmlStart(contType == .paragraph || maybeLazy), t > 0
            {
                container = addChild(container, .htmlBlock, startColumn: firstNonspace - lineStart + 1)
                info[Int(container)].htmlType = UInt8(t)
            } else if !indented && contType == .paragraph && (c == UInt8(ascii: "=") || c == UInt8(ascii: "-")),
                case let lev = scanSetextHeadingLine(firstNonspace), lev > 0
            {
                // Resolve reference definitions first; a paragraph of only definitions can't become a heading.
                if resolveReferenceDefinitionsForSetext(container) {
                    nodes[Int(container)].kind = .heading
                    nodes[Int(container)].a = UInt8(lev)
                    nodes[Int(container)].flags |= MarkdownNodeRecord.Flag.variant
                    advanceOffset(lineEnd - offset, columns: false)
                }
            } else if !indented && !(contType == .paragraph && !allMatched) && thematicBreakKillPos <= firstNonspace
                && (c == UInt8(ascii: "*") || c == UInt8(ascii: "-") || c == UInt8(ascii: "_"))
                && scanThematicBreak(firstNonspace)
            {
                container = addChild(container, .thematicBreak, startColumn: firstNonspace - lineStart + 1)
                advanceOffset(lineEnd - offset, columns: false)
            } else if !indented && options.footnotes && c == UInt8(ascii: "[") && listDepth < maxListDepth,
                case let (m, ls, le) = scanFootnoteDefinition(firstNonspace), m > 0
            {
                let defStart = firstNonspace
                advanceOffset(firstNonspace + m - offset, columns: false)
                container = addChild(container, .footnoteDefinition, startColumn: defStart - lineStart + 1)
                let st = Int32(bytes.count)
                bytes.append(contentsOf: MDBytes(rebasing: s[ls..<le]))
                nodes[Int(container)].literalStart = st
                nodes[Int(container)].literalCount = Int32(le - ls)
                listDepth += 1
            } else if !indented && listDepth < maxListDepth,
                case let (m, data) = parseListMarker(firstNonspace, interruptsParagraph: contType == .paragraph), m > 0
            {
                var data = data
                advanceOffset(firstNonspace + m - offset, columns: false)
                let saveTab = partiallyConsumedTab
                let saveOffset = offset
                let saveColumn = column
                while column - saveColumn <= 5 && MD.isSpaceOrTab(peek(offset)) {
                    advanceOffset(1, columns: true)
                }
                let i = column - saveColumn
                if i >= 5 || i < 1 || peek(offset) == 0x0A {
                    data.padding = Int32(m + 1)
                    offset = saveOffset
                    column = saveColumn
                    partiallyConsumedTab = saveTab
                    if i > 0 { advanceOffset(1, columns: true) }
                } else {
                    data.padding = Int32(m + i)
                }
                data.markerOffset = Int32(indent)
                let startCol = firstNonspace - lineStart + 1
                if contType != .list || !listsMatch(container, data) {
                    container = addChild(container, .list, startColumn: startCol)
                    nodes[Int(container)].a = data.ordered ? 1 : 0
                    nodes[Int(container)].b = data.delim
                    nodes[Int(container)].extra = data.start
                    listDepth += 1
                }
                container = addChild(container, .item, startColumn: startCol)
                info[Int(container)].markerOffset = data.markerOffset
                info[Int(container)].padding = data.padding
                nodes[Int(container)].b = data.delim
                nodes[Int(container)].a = 0
                if data.ordered { nodes[Int(container)].flags |= MarkdownNodeRecord.Flag.variant }
                // GFM task list item: "[ ]" / "[x]" right after the marker.
                // (cmark-gfm: the rest of that line is paragraph text, no further block starts.)
                if options.taskLists && openTaskItem(container) { break }
            } else if indented && !maybeLazy && !blank {
                advanceOffset(codeIndent, columns: true)
                container = addChild(container, .codeBlock, startColumn: offset - lineStart + 1)
            } else if options.tables && !indented && contType == .paragraph, tryOpenTable(&container) {
                // table header consumed the line
            } else if options.tables && !indented && contType == .table && !blank, openTableRow(&container) {
                // body row consumed the line
            } else {
                break
            }
            if BlockParser.acceptsLines(kind(container)) { break }
            contType = kind(container)
            if contType == .table || contType == .tableRow { break }
            maybeLazy = false
        }
    }

    mutating func addTextToContainer(_ containerIn: Int32, _ lastMatched: Int32) {
        var container = containerIn
        findFirstNonspace()
        let lastChild = nodes[Int(container)].lastChild
        if blank && lastChild >= 0 {
            nodes[Int(lastChild)].flags |= MarkdownNodeRecord.Flag.lastLineBlank
        }
        let ctype = kind(container)
        let r = nodes[Int(container)]
        let lastLineBlank =
            blank && ctype != .blockQuote && ctype != .heading && ctype != .thematicBreak
            && !(ctype == .codeBlock && r.flags & MarkdownNodeRecord.Flag.variant != 0)
            && !(ctype == .item && r.firstChild < 0 && r.startLine == lineNumber)
        if lastLineBlank {
            nodes[Int(container)].flags |= MarkdownNodeRecord.Flag.lastLineBlank
        } else {
            nodes[Int(container)].flags &= ~MarkdownNodeRecord.Flag.lastLineBlank
        }
        // Ancestors of the container never end with a blank line (O(depth), like matching the
        // container prefixes; list depth is capped).
        var tmp = container
        while true {
            let p = nodes[Int(tmp)].parent
            if p < 0 { break }
            nodes[Int(p)].flags &= ~MarkdownNodeRecord.Flag.lastLineBlank
            tmp = p
        }

        if current != lastMatched && container == lastMatched && !blank && kind(current) == .paragraph {
            // lazy continuation line
            addLine(current)
            return
        }
        while current != lastMatched {
            current = finalize(current)
        }
        switch kind(container) {
        case .codeBlock:
            addLine(container)
        case .htmlBlock:
            addLine(container)
            let t = Int(info[Int(container)].htmlType)
            if t >= 1 && t <= 5 && MD.htmlBlockEnd(t, s, firstNonspace, lineEnd) {
                container = finalize(container)
            }
        case .tableRow:
            current = nodes[Int(container)].parent
            return
        case .table, .tableCell:
            break
        default:
            if blank {
                // nothing
            } else if BlockParser.acceptsLines(kind(container)) {
                if kind(container) == .heading && nodes[Int(container)].flags & MarkdownNodeRecord.Flag.variant == 0 {
                    chopTrailingHashtags()
                }
                advanceOffset(firstNonspace - offset, columns: false)
                addLine(container)
            } else {
                container = addChild(container, .paragraph, startColumn: firstNonspace - lineStart + 1)
                advanceOffset(firstNonspace - offset, columns: false)
                addLine(container)
            }
        }
        current = container
    }

    /// For ATX headings: drops the closing sequence of #s by moving lineEnd... (we trim the
    /// line in place by shortening `lineEnd` virtually: content is added up to the new end).
    mutating func chopTrailingHashtags() {
        // rtrim
        var e = lineEnd
        while e > offset && MD.isSpace(s[e - 1]) { e -= 1 }
        var n = e
        while n > offset && s[n - 1] == UInt8(ascii: "#") { n -= 1 }
        if n != e {
            if n == offset || MD.isSpaceOrTab(s[n - 1]) {
                var m = n
                while m > offset && MD.isSpaceOrTab(s[m - 1]) { m -= 1 }
                e = m
            }
        }
        headingEnd = e
    }

    var headingEnd = -1

    // MARK: Scanners for block starts

    func scanATXHeadingStart(_ p: Int) -> Int {
        var i = p
        while s[i] == UInt8(ascii: "#") && i - p < 7 { i += 1 }
        let level = i - p
        guard level >= 1 && level <= 6 else { return 0 }
        let c = s[i]
        if c == 0x20 || c == 0x09 {
            while MD.isSpaceOrTab(s[i]) { i += 1 }
            return i - p
        }
        if c == 0x0A { return i - p }
        return 0
    }

    func scanOpenCodeFence(_ p: Int) -> Int {
        let fc = s[p]
        var i = p
        while s[i] == fc { i += 1 }
        let n = i - p
        guard n >= 3 else { return 0 }
        if fc == UInt8(ascii: "`") {
            var j = i
            while j < lineEnd {
                if s[j] == UInt8(ascii: "`") { return 0 }
                j += 1
            }
        }
        return n
    }

    func scanCloseCodeFence(_ p: Int, _ fc: UInt8) -> Int {
        var i = p
        while s[i] == fc { i += 1 }
        let n = i - p
        guard n >= 3 else { return 0 }
        while MD.isSpaceOrTab(s[i]) { i += 1 }
        return s[i] == 0x0A ? n : 0
    }

    func htmlStart(_ inParagraph: Bool) -> Int {
        let t = MD.htmlBlockStart(s, firstNonspace, lineEnd)
        if t > 0 { return t }
        if !inParagraph && MD.htmlBlockStart7(s, firstNonspace, lineEnd) { return 7 }
        return 0
    }

    func scanSetextHeadingLine(_ p: Int) -> Int {
        let c = s[p]
        var i = p
        while s[i] == c { i += 1 }
        while MD.isSpaceOrTab(s[i]) { i += 1 }
        guard s[i] == 0x0A else { return 0 }
        return c == UInt8(ascii: "=") ? 1 : 2
    }

    mutating func scanThematicBreak(_ p: Int) -> Bool {
        let c = s[p]
        var count = 0
        var i = p
        while i < lineEnd {
            let d = s[i]
            if d == c {
                count += 1
            } else if !MD.isSpaceOrTab(d) {
                thematicBreakKillPos = i
                return false
            }
            i += 1
        }
        if count >= 3 { return true }
        thematicBreakKillPos = i
        return false
    }

    /// `[^label]:` followed by optional spaces. Returns (length, labelStart, labelEnd).
    func scanFootnoteDefinition(_ p: Int) -> (Int, Int, Int) {
        guard s[p] == UInt8(ascii: "["), s[p + 1] == UInt8(ascii: "^") else { return (0, 0, 0) }
        var i = p + 2
        let ls = i
        while i < lineEnd {
            let c = s[i]
            if c == UInt8(ascii: "]") || c == 0x20 || c == 0x09 || c == 0x0A { break }
            i += 1
        }
        guard i > ls, s[i] == UInt8(ascii: "]"), s[i + 1] == UInt8(ascii: ":") else { return (0, 0, 0) }
        let le = i
        i += 2
        while MD.isSpaceOrTab(s[i]) { i += 1 }
        return (i - p, ls, le)
    }

    struct ListData {
        var ordered = false
        var delim: UInt8 = 0  // bullet char or '.' / ')'
        var start: Int32 = 0
        var padding: Int32 = 0
        var markerOffset: Int32 = 0
    }

    func parseListMarker(_ p: Int, interruptsParagraph: Bool) -> (Int, ListData) {
        var pos = p
        let c = s[pos]
        var data = ListData()
        if c == UInt8(ascii: "*") || c == UInt8(ascii: "-") || c == UInt8(ascii: "+") {
            pos += 1
            guard MD.isSpace(s[pos]) else { return (0, data) }
            if interruptsParagraph {
                var i = pos
                while MD.isSpaceOrTab(s[i]) { i += 1 }
                if s[i] == 0x0A { return (0, data) }
            }
            data.ordered = false
            data.delim = c
        } else if MD.isDigit(c) {
            var start: Int32 = 0
            var digits = 0
            repeat {
                start = start * 10 + Int32(s[pos] - 48)
                pos += 1
                digits += 1
            } while digits < 9 && MD.isDigit(s[pos])
            if interruptsParagraph && start != 1 { return (0, data) }
            let d = s[pos]
            guard d == UInt8(ascii: ".") || d == UInt8(ascii: ")") else { return (0, data) }
            pos += 1
            guard MD.isSpace(s[pos]) else { return (0, data) }
            if interruptsParagraph {
                var i = pos
                while MD.isSpaceOrTab(s[i]) { i += 1 }
                if s[i] == 0x0A { return (0, data) }
            }
            data.ordered = true
            data.delim = d
            data.start = start
        } else {
            return (0, data)
        }
        return (pos - p, data)
    }

    func listsMatch(_ list: Int32, _ data: ListData) -> Bool {
        let r = nodes[Int(list)]
        return (r.a == 1) == data.ordered && r.b == data.delim
    }

    /// GFM task list item (cmark-gfm's scan_tasklist): the line must be
    /// `[ \t]* marker [ \t]+ "[" (" " | "x" | "X") "]" [ \t]+ …`, i.e. the item's marker
    /// starts the line (no other container prefix).
    mutating func openTaskItem(_ item: Int32) -> Bool {
        findFirstNonspace()
        let p = firstNonspace
        guard p + 4 <= lineEnd, s[p] == UInt8(ascii: "["), s[p + 2] == UInt8(ascii: "]") else { return false }
        let m = s[p + 1]
        guard m == 0x20 || m == UInt8(ascii: "x") || m == UInt8(ascii: "X") else { return false }
        guard MD.isSpaceOrTab(s[p + 3]) else { return false }
        var i = contentStart
        while MD.isSpaceOrTab(s[i]) { i += 1 }
        if s[i] == UInt8(ascii: "*") || s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "+") {
            i += 1
        } else {
            let d = i
            while MD.isDigit(s[i]) { i += 1 }
            guard i > d, s[i] == UInt8(ascii: ".") || s[i] == UInt8(ascii: ")") else { return false }
            i += 1
        }
        let afterMarker = i
        while MD.isSpaceOrTab(s[i]) { i += 1 }
        guard i > afterMarker, i == p else { return false }
        nodes[Int(item)].a = m == 0x20 ? 1 : 2
        advanceOffset(p + 3 - offset, columns: false)
        return true
    }

    /// Resolves reference definitions at the start of a paragraph about to become a setext
    /// heading. Returns true if content remains.
    mutating func resolveReferenceDefinitionsForSetext(_ para: Int32) -> Bool {
        guard contentOwner == para else { return false }
        var pos = 0
        let array = content
        Self.withContent(array, virtualContent) { c in
            while pos < c.count && c[pos] == UInt8(ascii: "[") {
                let n = parseReferenceDefinition(c, pos)
                if n == 0 { break }
                pos += n
            }
        }
        if pos > 0 && contentVirtual {
            contentInput += pos
            contentCount -= pos
        } else if pos > 0 {
            content.removeSubrange(0..<pos)
            var newSegs: [LineSegment] = []
            for seg in contentSegs {
                let o = Int(seg.offset) - pos
                if o >= 0 {
                    newSegs.append(LineSegment(offset: Int32(o), line: seg.line, column: seg.column))
                }
            }
            contentSegs = newSegs
        }
        let rest = content
        return Self.withContent(rest, virtualContent) { c in
            for byte in c where !MD.isSpace(byte) { return true }
            return false
        }
    }

    // MARK: Tables (GFM)

    struct Cell {
        var start: Int
        var end: Int
    }

    /// cmark-gfm's row_from_string over `buf[start..<end]` (end includes the final '\n').
    /// Puts the cells (ranges, untrimmed) in `cells` and returns the paragraph offset, or nil.
    static func rowFromString(_ buf: MDBytes, _ start: Int, _ end: Int, into cells: inout [Cell]) -> Int? {
        cells.removeAll(keepingCapacity: true)
        var paragraphOffset = start
        func cellEnd(_ o: Int) -> Int {  // [|] table_spacechar*
            guard o < end, buf[o] == UInt8(ascii: "|") else { return 0 }
            var i = o + 1
            while i < end && (buf[i] == 0x20 || buf[i] == 0x09 || buf[i] == 0x0B || buf[i] == 0x0C) { i += 1 }
            return i - o
        }
        func cell(_ o: Int) -> Int {
            var i = o
            while i < end {
                let c = buf[i]
                if c == UInt8(ascii: "\\") && i + 1 < end && buf[i + 1] == UInt8(ascii: "|") {
                    i += 2
                } else if c == UInt8(ascii: "|") || c == 0x0A || c == 0x0D {
                    break
                } else {
                    i += 1
                }
            }
            return i - o
        }
        func rowEnd(_ o: Int) -> Int {
            var i = o
            while i < end && (buf[i] == 0x20 || buf[i] == 0x09 || buf[i] == 0x0B || buf[i] == 0x0C) { i += 1 }
            if i < end && buf[i] == 0x0D { i += 1 }
            if i < end && buf[i] == 0x0A { return i + 1 - o }
            return 0
        }
        var offset = start + cellEnd(start)
        var expectMore = true
        while offset < end && expectMore {
            let cm = cell(offset)
            let pm = cellEnd(offset + cm)
            if cm > 0 || pm > 0 {
                cells.append(Cell(start: offset, end: offset + cm))
                if cells.count > 0xFFFF { return nil }
            }
            offset += cm + pm
            if pm > 0 {
                expectMore = true
            } else {
                let re = rowEnd(offset)
                offset += re
                if re > 0 && offset != end {
                    paragraphOffset = offset
                    cells.removeAll(keepingCapacity: true)
                    offset += cellEnd(offset)
                    expectMore = true
                } else {
                    expectMore = false
                }
            }
        }
        if offset != end || cells.isEmpty { return nil }
        return paragraphOffset
    }

    /// scan_table_start: delimiter row at firstNonspace.
    func scanTableStart(_ p: Int) -> Bool {
        var i = p
        func spaces() { while i < lineEnd && (s[i] == 0x20 || s[i] == 0x09 || s[i] == 0x0B || s[i] == 0x0C) { i += 1 } }
        func delimiter() -> Bool {
            spaces()
            if s[i] == UInt8(ascii: ":") { i += 1 }
            let d = i
            while s[i] == UInt8(ascii: "-") { i += 1 }
            if i == d { return false }
            if s[i] == UInt8(ascii: ":") { i += 1 }
            spaces()
            return true
        }
        if s[i] == UInt8(ascii: "|") { i += 1 }
        guard delimiter() else { return false }
        while s[i] == UInt8(ascii: "|") {
            let save = i
            i += 1
            if !delimiter() {
                i = save + 1
                spaces()
                return s[i] == 0x0A
            }
        }
        spaces()
        return s[i] == 0x0A
    }

    mutating func tryOpenTable(_ container: inout Int32) -> Bool {
        let para = container
        guard !info[Int(para)].tableVisited, contentOwner == para else { return false }
        guard scanTableStart(firstNonspace) else { return false }
        guard BlockParser.rowFromString(s, firstNonspace, lineEnd + 1, into: &cells) != nil else { return false }
        let delimCells = cells
        let paragraph = content
        let view = virtualContent
        guard let headerOffset = Self.withContent(paragraph, view, { BlockParser.rowFromString($0, 0, $0.count, into: &cells) }),
            cells.count == delimCells.count
        else {
            info[Int(para)].tableVisited = true
            return false
        }
        // Alignments
        var aligns: [UInt8] = []
        for cell in delimCells {
            var a = cell.start
            var e = cell.end
            while a < e && MD.isSpace(s[a]) { a += 1 }
            while e > a && MD.isSpace(s[e - 1]) { e -= 1 }
            let left = a < e && s[a] == UInt8(ascii: ":")
            let right = a < e && s[e - 1] == UInt8(ascii: ":")
            aligns.append(left && right ? 2 : left ? 1 : right ? 3 : 0)
        }
        let parent = nodes[Int(para)].parent
        let headerLine = headerOffset > 0 ? headerOffset : 0
        let headerSeg = contentSegs.last(where: { Int($0.offset) <= headerLine })
        let headerContent = Self.withContent(paragraph, view) { Array($0[headerLine...]) }
        var table: Int32
        if headerLine > 0 {
            // Keep the preceding lines as a paragraph.
            if contentVirtual { contentCount = headerLine } else { content.removeSubrange(headerLine...) }
            finalize(para)
            table = appendChild(parent, .table, startColumn: Int(headerSeg?.column ?? 1))
            nodes[Int(table)].startLine = headerSeg?.line ?? lineNumber
        } else {
            nodes[Int(para)].kind = .table
            table = para
        }
        contentOwner = -1
        let st = Int32(bytes.count)
        bytes.append(contentsOf: aligns)
        nodes[Int(table)].extra = Int32(extras.count)
        extras.append(MarkdownExtra(aStart: st, aCount: Int32(aligns.count)))
        info[Int(table)].tableColumns = Int32(aligns.count)
        let row = appendChild(table, .tableRow, startColumn: Int(nodes[Int(table)].startColumn))
        nodes[Int(row)].flags |= MarkdownNodeRecord.Flag.variant
        nodes[Int(row)].startLine = headerSeg?.line ?? nodes[Int(table)].startLine
        nodes[Int(row)].endLine = nodes[Int(row)].startLine
        var hcells: [Cell] = []
        _ = headerContent.withUnsafeBufferPointer { BlockParser.rowFromString($0, 0, $0.count, into: &hcells) }
        for cell in hcells {
            addCell(row, headerContent, cell, line: nodes[Int(row)].startLine, baseColumn: headerSeg?.column ?? 1)
        }
        nodes[Int(row)].flags &= ~MarkdownNodeRecord.Flag.open
        advanceOffset(lineEnd - offset, columns: false)
        container = table
        return true
    }

    mutating func addCell(_ row: Int32, _ buf: [UInt8], _ cell: Cell, line: Int32, baseColumn: Int32) {
        let c = appendChild(row, .tableCell, startColumn: Int(baseColumn) + cell.start)
        nodes[Int(c)].startLine = line
        nodes[Int(c)].endLine = line
        nodes[Int(c)].endColumn = baseColumn + Int32(cell.end) - 1
        nodes[Int(c)].flags &= ~MarkdownNodeRecord.Flag.open
        var a = cell.start
        var e = cell.end
        while a < e && MD.isSpace(buf[a]) { a += 1 }
        while e > a && MD.isSpace(buf[e - 1]) { e -= 1 }
        // unescape pipes
        let st = Int32(bytes.count)
        var i = a
        while i < e {
            if buf[i] == UInt8(ascii: "\\") && i + 1 < e && buf[i + 1] == UInt8(ascii: "|") {
                bytes.append(UInt8(ascii: "|"))
                i += 2
            } else {
                bytes.append(buf[i])
                i += 1
            }
        }
        nodes[Int(c)].literalStart = st
        nodes[Int(c)].literalCount = Int32(bytes.count) - st
        if positions {
            info[Int(c)].segStart = Int32(segments.count)
            info[Int(c)].segCount = 1
            segments.append(LineSegment(offset: st, line: line, column: baseColumn + Int32(a)))
        }
        if streaming { writeOpen(c) } else { inlineBlocks.append(c) }
    }

    mutating func tableRowMatches() -> Bool {
        BlockParser.rowFromString(s, firstNonspace, lineEnd + 1, into: &cells) != nil
    }

    mutating func openTableRow(_ container: inout Int32) -> Bool {
        let table = container
        let columns = Int(info[Int(table)].tableColumns)
        if BlockParser.rowFromString(s, firstNonspace, lineEnd + 1, into: &cells) == nil { cells.removeAll(keepingCapacity: true) }
        let cells = self.cells
        // Filling in missing cells can make output quadratic in the input (cmark-gfm's
        // MAX_AUTOCOMPLETED_CELLS): past the cap, the table ends here.
        let missing = max(0, columns - cells.count)
        if Int(info[Int(table)].tableAutocompleted) + missing > maxAutocompletedCells { return false }
        info[Int(table)].tableAutocompleted += Int32(missing)
        let row = appendChild(table, .tableRow, startColumn: firstNonspace - lineStart + 1)
        var i = 0
        while i < cells.count && i < columns {
            addCellFromLine(row, cells[i])
            i += 1
        }
        while i < columns {
            let c = appendChild(row, .tableCell, startColumn: lineEnd - lineStart + 1)
            nodes[Int(c)].flags &= ~MarkdownNodeRecord.Flag.open
            nodes[Int(c)].literalStart = Int32(bytes.count)
            if streaming { writeOpen(c) }
            i += 1
        }
        nodes[Int(row)].flags &= ~MarkdownNodeRecord.Flag.open
        nodes[Int(row)].endColumn = Int32(lineEnd - lineStart)
        advanceOffset(lineEnd - offset, columns: false)
        // As in cmark-gfm, the row is the line's container (so the "blank" rest of the line
        // marks the row, not the table, for list tightness).
        container = row
        return true
    }

    mutating func addCellFromLine(_ row: Int32, _ cell: Cell) {
        // Cells of body rows come straight from the source line.
        let c = appendChild(row, .tableCell, startColumn: cell.start - lineStart + 1)
        nodes[Int(c)].endColumn = Int32(cell.end - lineStart)
        nodes[Int(c)].flags &= ~MarkdownNodeRecord.Flag.open
        var a = cell.start
        var e = cell.end
        while a < e && MD.isSpace(s[a]) { a += 1 }
        while e > a && MD.isSpace(s[e - 1]) { e -= 1 }
        let st = Int32(bytes.count)
        var i = a
        while i < e {
            if s[i] == UInt8(ascii: "\\") && i + 1 < e && s[i + 1] == UInt8(ascii: "|") {
                bytes.append(UInt8(ascii: "|"))
                i += 2
            } else {
                bytes.append(s[i])
                i += 1
            }
        }
        nodes[Int(c)].literalStart = st
        nodes[Int(c)].literalCount = Int32(bytes.count) - st
        if positions {
            info[Int(c)].segStart = Int32(segments.count)
            info[Int(c)].segCount = 1
            segments.append(LineSegment(offset: st, line: lineNumber, column: Int32(a - lineStart + 1)))
        }
        if streaming { writeOpen(c) } else { inlineBlocks.append(c) }
    }

    // MARK: Footnotes

    mutating func collectFootnotes() {
        var n = nodes[0].firstChild
        // Definitions may be nested in containers; walk the block tree.
        var stack: [Int32] = []
        while true {
            while n >= 0 {
                let r = nodes[Int(n)]
                if r.kind == .footnoteDefinition {
                    let storage = bytes
                    storage.withUnsafeBufferPointer {
                        MD.normalizeLabel($0, Int(r.literalStart), Int(r.literalStart + r.literalCount), into: &labelScratch)
                    }
                    let label = labelScratch
                    label.withUnsafeBufferPointer { _ = footnoteMap.insertIfAbsent($0, n) }
                }
                if r.firstChild >= 0 && r.kind.isBlock && r.kind != .table {
                    if r.next >= 0 { stack.append(r.next) }
                    n = r.firstChild
                } else {
                    n = r.next
                }
            }
            guard let next = stack.popLast() else { break }
            n = next
        }
    }
}

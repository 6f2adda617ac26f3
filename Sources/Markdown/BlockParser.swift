// Phase 1 of CommonMark parsing: block structure (a port of cmark's blocks.c, plus the
// cmark-gfm table, footnote and task-list block extensions). Lines are processed one at
// a time against the stack of open blocks; the one open leaf accumulates its content in
// `content`, which is moved into the document's byte storage when the leaf closes.
// Phase 2 (`InlineParser`) then parses paragraphs, headings and table cells.
//
// The input is read in place, a line at a time: only a line that needs fixing (a NUL, invalid
// UTF-8, a CR line ending, no line ending at the end of the input) is copied, into a line buffer.
//
// The parser's parts, one concern a file: this file holds its state, the driver, the tree and line helpers
// and content accumulation; `BlockParser+Lines` the line against the open blocks (cmark's S_process_line),
// `+BlockStarts` the scanners of block starts, `+Lists` list markers and task items, `+Tables` GFM tables,
// `+Definitions` link reference and footnote definitions, `+Finalize` closing blocks (and the direct path's
// records and compaction).

let codeIndent = 4
private let tabStop = 4
/// Nesting cap for lists and footnote definitions (cmark-gfm's MAX_LIST_DEPTH).
let maxListDepth = 100

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
    /// The offset and column `findFirstNonspace` last ran from on this line (-1: not yet): it is asked
    /// again from the same place by each step of a line, and the answer stands.
    var firstNonspaceFrom = (offset: -1, column: -1)
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
    /// Where an ATX heading's content ends on the current line (`chopTrailingHashtags`).
    var headingEnd = -1

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
                // Bytes below 0x0E (NUL, LF and CR among them, tabs too) and bytes from 0x80: the lowest
                // flagged is exact (a borrow only leaves a byte below 0x0E, which is flagged itself), so go
                // straight to it; a tab or another control character is passed over there.
                let t = (((x &- ones &* 0x0E) & ~x) | x) & highs
                if t != 0 {
                    j += t.littleEndian.trailingZeroBitCount >> 3
                    break
                }
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
            // A run of non-ASCII characters (a word of Cyrillic or CJK), validated one after another.
            repeat {
                let len = validSequenceLength(p, j, n)
                if len == 0 {
                    dirty = true
                    j += 1
                } else {
                    j += len
                }
            } while j < n && p[j] >= 0x80
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
        if firstNonspaceFrom == (offset, column) { return }
        firstNonspaceFrom = (offset, column)
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
            if !content.isEmpty { content.removeAll(keepingCapacity: true) }
            if !contentSegs.isEmpty { contentSegs.removeAll(keepingCapacity: true) }
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
}

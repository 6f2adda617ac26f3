// The `InlineSink` that makes the inline nodes of a `MarkdownDocument` (what `MarkdownParser.parse`
// returns; the HTML renderer of `MarkdownParser.renderHTML` needs no nodes). Each leaf block's inline
// content becomes its children; adjacent text merges into one text node, which refers to the leaf's
// content in the document's storage when it is a plain run, so most text costs one node and no copy.

struct InlineTreeBuilder: InlineSink {
    var nodes: [MarkdownNodeRecord]
    var extras: [MarkdownExtra]
    /// Bytes this block adds to the document's storage (decoded text, link destinations and titles);
    /// they go at `bytesBase` once the block is done.
    var newBytes: [UInt8] = []
    var bytesBase: Int32 = 0
    /// Where the subject (the leaf's content) starts in the storage.
    var subjectBase: Int32 = 0
    /// The open containers: the leaf block, then any emphasis, link or image inside.
    var parents: [Int32] = []
    /// The text node being extended (-1: none), and where its plain run ends in the subject when it still
    /// refers to the subject (-1 once it holds new bytes).
    var textNode: Int32 = -1
    var textRunEnd = -1

    // Positions: the block's line segments (subject offset -> line and column).
    var segments: [LineSegment] = []
    var segStart = 0
    var segEnd = 0
    var lastSeg = 0
    var blockLine: Int32 = 0
    var blockColumn: Int32 = 0

    init(nodes: [MarkdownNodeRecord], extras: [MarkdownExtra]) {
        self.nodes = nodes
        self.extras = extras
    }

    /// Prepares for the leaf block `block`, whose content starts at `subjectBase` in the storage, which
    /// holds `bytesBase` bytes.
    mutating func begin(block: Int32, subject: MDBytes, subjectBase: Int32, bytesBase: Int32, segStart: Int, segCount: Int) {
        self.subject = subject
        parents.removeAll(keepingCapacity: true)
        parents.append(block)
        newBytes.removeAll(keepingCapacity: true)
        self.subjectBase = subjectBase
        self.bytesBase = bytesBase
        textNode = -1
        textRunEnd = -1
        self.segStart = segStart
        self.segEnd = segStart + segCount
        lastSeg = segStart
        blockLine = nodes[Int(block)].startLine
        blockColumn = nodes[Int(block)].startColumn
    }

    // MARK: Positions

    mutating func position(_ p: Int) -> (Int32, Int32) {
        guard segEnd > segStart else { return (blockLine, blockColumn) }
        let o = subjectBase + Int32(p)
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

    // MARK: Nodes

    @discardableResult
    private mutating func append(_ kind: MarkdownNodeKind, from: Int, to: Int) -> Int32 {
        let parent = parents[parents.count - 1]
        let index = Int32(nodes.count)
        var r = MarkdownNodeRecord(kind: kind, parent: parent)
        (r.startLine, r.startColumn) = position(from)
        (r.endLine, r.endColumn) = position(max(from, to - 1))
        let last = nodes[Int(parent)].lastChild
        r.prev = last
        nodes.append(r)
        if last >= 0 { nodes[Int(last)].next = index } else { nodes[Int(parent)].firstChild = index }
        nodes[Int(parent)].lastChild = index
        textNode = -1
        return index
    }

    private mutating func store(_ bytes: MDBytes) -> (Int32, Int32) {
        let start = bytesBase + Int32(newBytes.count)
        newBytes.append(contentsOf: bytes)
        return (start, Int32(bytes.count))
    }

    mutating func text(_ subject: MDBytes, from: Int, to: Int, plain: Bool) {
        guard from < to else { return }
        if textNode >= 0 {
            let n = Int(textNode)
            if textRunEnd == from {
                nodes[n].literalCount += Int32(to - from)
                textRunEnd = to
            } else {
                moveTextToNewBytes(subject)
                newBytes.append(contentsOf: MDBytes(rebasing: subject[from..<to]))
                nodes[n].literalCount += Int32(to - from)
            }
            (nodes[n].endLine, nodes[n].endColumn) = position(to - 1)
            return
        }
        let n = append(.text, from: from, to: to)
        nodes[Int(n)].literalStart = subjectBase + Int32(from)
        nodes[Int(n)].literalCount = Int32(to - from)
        textNode = n
        textRunEnd = to
    }

    mutating func decodedText(_ bytes: MDBytes, from: Int, to: Int) {
        guard !bytes.isEmpty else { return }
        if textNode >= 0 {
            let n = Int(textNode)
            moveTextToNewBytes(subject)
            newBytes.append(contentsOf: bytes)
            nodes[n].literalCount += Int32(bytes.count)
            (nodes[n].endLine, nodes[n].endColumn) = position(max(from, to - 1))
            return
        }
        let n = append(.text, from: from, to: to)
        (nodes[Int(n)].literalStart, nodes[Int(n)].literalCount) = store(bytes)
        textNode = n
        textRunEnd = -1
    }

    /// The current leaf's content.
    var subject = MDBytes(start: nil, count: 0)

    private mutating func moveTextToNewBytes(_ subject: MDBytes) {
        guard textRunEnd >= 0 else { return }
        let n = Int(textNode)
        let start = Int(nodes[n].literalStart - subjectBase)
        let count = Int(nodes[n].literalCount)
        nodes[n].literalStart = bytesBase + Int32(newBytes.count)
        newBytes.append(contentsOf: MDBytes(rebasing: subject[start..<(start + count)]))
        textRunEnd = -1
    }

    mutating func softBreak(at: Int) {
        append(.softBreak, from: at, to: at + 1)
    }

    mutating func lineBreak(from: Int, to: Int) {
        append(.lineBreak, from: from, to: to)
    }

    mutating func code(_ subject: MDBytes, contentFrom: Int, contentTo: Int, from: Int, to: Int) {
        let n = Int(append(.code, from: from, to: to))
        var hasLineEnding = false
        for k in contentFrom..<contentTo where subject[k] == 0x0A {
            hasLineEnding = true
            break
        }
        if !hasLineEnding {
            nodes[n].literalStart = subjectBase + Int32(contentFrom)
            nodes[n].literalCount = Int32(contentTo - contentFrom)
            return
        }
        nodes[n].literalStart = bytesBase + Int32(newBytes.count)
        for k in contentFrom..<contentTo {
            let c = subject[k]
            newBytes.append(c == 0x0A ? 0x20 : c)
        }
        nodes[n].literalCount = Int32(contentTo - contentFrom)
    }

    mutating func rawHTML(_ subject: MDBytes, from: Int, to: Int) {
        let n = Int(append(.htmlInline, from: from, to: to))
        nodes[n].literalStart = subjectBase + Int32(from)
        nodes[n].literalCount = Int32(to - from)
    }

    mutating func enter(_ kind: MarkdownNodeKind, at: Int) {
        let n = append(kind, from: at, to: at + 1)
        parents.append(n)
    }

    mutating func exit(_ kind: MarkdownNodeKind, at: Int) {
        let n = Int(parents.removeLast())
        (nodes[n].endLine, nodes[n].endColumn) = position(at)
        textNode = -1
    }

    mutating func enterLink(image: Bool, destination: MDBytes, title: MDBytes, at: Int) {
        let n = append(image ? .image : .link, from: at, to: at + 1)
        let (ds, dc) = store(destination)
        let (ts, tc) = store(title)
        nodes[Int(n)].extra = Int32(extras.count)
        extras.append(MarkdownExtra(aStart: ds, aCount: dc, bStart: ts, bCount: tc))
        parents.append(n)
    }

    mutating func exitLink(image: Bool, at: Int) {
        exit(image ? .image : .link, at: at)
    }

    mutating func footnoteReference(label: MDBytes, definition: Int32, from: Int, to: Int) {
        let n = Int(append(.footnoteReference, from: from, to: to))
        nodes[n].literalStart = subjectBase + Int32(from + 2)
        nodes[n].literalCount = Int32(label.count)
    }
}

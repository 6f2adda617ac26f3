// Closing blocks: a leaf's content moved into the document's storage (code, HTML, headings, reference
// definitions at a paragraph's start), the direct path's records written as blocks finish and its node arena
// compacted, list tightness decided as siblings arrive.

extension BlockParser {
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
        // Moved down in place (new ids only ever fall): the arrays keep their capacity, so the next
        // thousands of blocks are appended without regrowing them.
        var keptCount = 0
        for old in 0..<nodes.count where newIndex[old] >= 0 {
            newIndex[old] = Int32(keptCount)
            if keptCount != old {
                nodes[keptCount] = nodes[old]
                info[keptCount] = info[old]
            }
            keptCount += 1
        }
        nodes.removeLast(nodes.count - keptCount)
        info.removeLast(info.count - keptCount)
        @inline(__always) func map(_ id: Int32) -> Int32 { id < 0 ? -1 : newIndex[Int(id)] }
        for i in 0..<keptCount {
            var r = nodes[i]
            r.parent = map(r.parent)
            r.lastChild = map(r.lastChild)
            // Only "has children" is asked of an early child that is gone.
            let first = map(r.firstChild)
            r.firstChild = first >= 0 ? first : (r.firstChild >= 0 ? (r.lastChild >= 0 ? r.lastChild : Int32(i)) : -1)
            r.next = map(r.next)
            r.prev = map(r.prev)
            nodes[i] = r
        }
        current = map(current)
        if contentOwner >= 0 { contentOwner = map(contentOwner) }
        compactedCount = keptCount
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
}

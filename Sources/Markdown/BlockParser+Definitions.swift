// Link reference definitions (parsed at a paragraph's start, also before it becomes a setext heading) and
// footnote definitions (collected by label).

extension BlockParser {
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

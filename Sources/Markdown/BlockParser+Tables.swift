// GFM tables (cmark-gfm's table extension): rows split into cells, the delimiter row, the header taken from
// the paragraph above it, body rows and their cells.

/// Cap on empty cells added to short table rows, per table (cmark-gfm: 0x80000).
private let maxAutocompletedCells = 0x80000

extension BlockParser {
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
        let headerLineNumber = nodes[Int(row)].startLine
        headerContent.withUnsafeBufferPointer { header in
            for cell in hcells {
                addCell(row, header, cell, line: headerLineNumber, columnOfByte0: headerSeg?.column ?? 1)
            }
        }
        nodes[Int(row)].flags &= ~MarkdownNodeRecord.Flag.open
        advanceOffset(lineEnd - offset, columns: false)
        container = table
        return true
    }

    /// Adds cell `buf[cell.start..<cell.end]` of source line `line` to `row`, where byte `i` of `buf` is at
    /// column `columnOfByte0 + i`: trimmed, its escaped pipes unescaped, into the document's bytes. Header
    /// cells come from the paragraph's content, body cells straight from the current line.
    mutating func addCell(_ row: Int32, _ buf: MDBytes, _ cell: Cell, line: Int32, columnOfByte0: Int32) {
        let c = appendChild(row, .tableCell, startColumn: Int(columnOfByte0) + cell.start)
        nodes[Int(c)].startLine = line
        nodes[Int(c)].endLine = line
        nodes[Int(c)].endColumn = columnOfByte0 + Int32(cell.end) - 1
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
            segments.append(LineSegment(offset: st, line: line, column: columnOfByte0 + Int32(a)))
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
            // Cells of body rows come straight from the source line.
            addCell(row, s, cells[i], line: lineNumber, columnOfByte0: Int32(1 - lineStart))
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
}

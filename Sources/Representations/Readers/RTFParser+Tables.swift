// RTF tables: rows and cells (`\intbl`, `\cell`, `\row`, `\trhdr`), and tables nested in a cell (`\itap2`,
// `\itap3`…, `\nestcell`, `{\*\nesttableprops … \nestrow}`), each kept as a table inside the cell it
// stands in.

extension RTFParser {
    @inline(__always)
    mutating func tableWord(_ word: Keyword.Table, _ p: Int?) {
        switch word {
        case .intbl:
            state.inTable = true
            if state.tableDepth == 0 { state.tableDepth = 1 }
        case .itap:
            state.inTable = (p ?? 1) > 0
            state.tableDepth = max(0, min(p ?? 1, 16))
        case .cell:
            if state.destination == .normal { endCell() }
        case .nestcell:
            if state.destination == .normal { endNestedCell() }
        case .nestrow:
            if state.destination == .normal { endNestedRow() }
        case .row:
            if state.destination == .normal { endRow() }
        case .trowd: rowIsHeader = false
        case .trhdr: rowIsHeader = true
        case .nesttableprops:
            // A nested table's row ends with `{\*\nesttableprops … \nestrow}`: the row properties are
            // skipped, the row ends.
            if stack.last?.destination == .normal, !stack.last!.hidden { endNestedRow() }
            state.destination = .skip
        }
    }

    /// Deepest table level kept: `\itap` beyond it flattens into it (the HTML written for it nests as deep).
    static let maxNestedLevels = 7

    /// The index in `nestedLevels` of the table `\itap` says the current paragraph is in, after closing
    /// any deeper table (it becomes part of the cell it was in) and opening the level if it is new. A
    /// level skipped (`\itap5` right after `\itap2`) is the next one down, as Word reads it.
    mutating func enterNestedLevel() -> Int {
        let depth = max(2, min(state.tableDepth, nestedLevels.count + 2, Self.maxNestedLevels + 1))
        while nestedLevels.count > depth - 1 { attachDeepestNestedTable() }
        if nestedLevels.count < depth - 1 { nestedLevels.append(RTFNestedTable()) }
        return depth - 2
    }

    private mutating func endNestedCell() {
        let level = enterNestedLevel()
        if !paragraph.runs.isEmpty {
            currentParagraphProperties()
            nestedLevels[level].cell.append(paragraph)
            paragraph = RTFParagraph()
        }
        nestedLevels[level].endCell()
    }

    private mutating func endNestedRow() {
        let level = enterNestedLevel()
        if !paragraph.runs.isEmpty || !nestedLevels[level].cell.isEmpty { endNestedCell() }
        nestedLevels[level].endRow()
    }

    /// The deepest nested table read so far becomes one "paragraph" of the cell it stands in.
    private mutating func attachDeepestNestedTable() {
        guard var table = nestedLevels.popLast() else { return }
        table.endRow()
        guard !table.rows.isEmpty else { return }
        var holder = RTFParagraph()
        holder.nested = table.rows
        if nestedLevels.isEmpty {
            currentCell.append(holder)
        } else {
            nestedLevels[nestedLevels.count - 1].cell.append(holder)
        }
    }

    /// Every nested table read so far, deepest first, into the cells they stand in; the outermost into
    /// the outer table's cell.
    mutating func attachNestedTable() {
        while !nestedLevels.isEmpty { attachDeepestNestedTable() }
    }

    private mutating func endCell() {
        attachNestedTable()
        if !paragraph.runs.isEmpty {
            currentParagraphProperties()
            currentCell.append(paragraph)
            paragraph = RTFParagraph()
        }
        currentRow.append(currentCell)
        currentCell = []
    }

    private mutating func endRow() {
        if !currentCell.isEmpty { endCell() }
        if !currentRow.isEmpty {
            if rowIsHeader && rows.count == headerRows { headerRows += 1 }
            rows.append(currentRow)
        }
        currentRow = []
        state.inTable = false
    }

    mutating func closeTable() {
        if nestedLevels.contains(where: { !$0.isEmpty }) {
            attachNestedTable()
            endCell()
        }
        nestedLevels = []
        if !currentCell.isEmpty { endCell() }
        if !currentRow.isEmpty {
            rows.append(currentRow)
            currentRow = []
        }
        if !rows.isEmpty {
            items.append(.table(rows: rows, headerRows: headerRows))
            rows = []
            headerRows = 0
        }
    }
}

/// A table nested in a cell, being read: its rows so far, the row and the cell under way.
struct RTFNestedTable {
    var rows: [[[RTFParagraph]]] = []
    var row: [[RTFParagraph]] = []
    var cell: [RTFParagraph] = []

    var isEmpty: Bool { rows.isEmpty && row.isEmpty && cell.isEmpty }

    mutating func endCell() {
        row.append(cell)
        cell = []
    }

    mutating func endRow() {
        if !cell.isEmpty { endCell() }
        if !row.isEmpty { rows.append(row) }
        row = []
    }
}

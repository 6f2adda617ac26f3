// RTF tables: rows and cells (`\intbl`, `\cell`, `\row`, `\trhdr`), and tables nested in a cell (`\itap2`,
// `\nestcell`, `{\*\nesttableprops … \nestrow}`), kept as a table inside the outer cell.

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

    private mutating func endNestedCell() {
        if !paragraph.runs.isEmpty {
            currentParagraphProperties()
            nestedCell.append(paragraph)
            paragraph = RTFParagraph()
        }
        nestedRow.append(nestedCell)
        nestedCell = []
    }

    private mutating func endNestedRow() {
        if !nestedCell.isEmpty { endNestedCell() }
        if !nestedRow.isEmpty { nestedRows.append(nestedRow) }
        nestedRow = []
    }

    /// The nested table read so far becomes one "paragraph" of the outer cell.
    mutating func attachNestedTable() {
        endNestedRow()
        guard !nestedRows.isEmpty else { return }
        var holder = RTFParagraph()
        holder.nested = nestedRows
        currentCell.append(holder)
        nestedRows = []
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
        if !nestedRows.isEmpty || !nestedRow.isEmpty || !nestedCell.isEmpty {
            attachNestedTable()
            endCell()
        }
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

// RTF tables: rows and cells (`\intbl`, `\cell`, `\row`, `\trhdr`), nested tables flattened into the outer cell.

extension RTFParser {
    @inline(__always)
    mutating func tableWord(_ word: Keyword.Table, _ p: Int?) {
        switch word {
        case .intbl: state.inTable = true
        case .itap: state.inTable = (p ?? 1) > 0
        case .cell:
            if state.destination == .normal { endCell() }
        case .nestcell: emitText(" ")
        case .nestrow: if state.destination == .normal { appendRun(.lineBreak) }
        case .row:
            if state.destination == .normal { endRow() }
        case .trowd: rowIsHeader = false
        case .trhdr: rowIsHeader = true
        case .nesttableprops:
            // A nested table's row ends with `{\*\nesttableprops … \nestrow}`. Nested tables are flattened into the
            // outer cell (their cells separated by spaces, see \nestcell): the row becomes a line break.
            if stack.last?.destination == .normal, !stack.last!.hidden {
                let last = paragraph.runs.count - 1
                if last >= 0, paragraph.runs[last].kind == .text, paragraph.runs[last].count > 0, paragraph.runs[last].end == text.count,
                    text.last == 0x20
                {
                    text.removeLast()  // the space \nestcell left after the row's last cell
                    paragraph.runs[last].count -= 1
                }
                appendRun(.lineBreak)
            }
            state.destination = .skip
        }
    }

    private mutating func endCell() {
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

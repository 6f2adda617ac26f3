// RTF paragraphs: `\pard` and the paragraph properties, paragraph ends, and recording finished paragraphs.

extension RTFParser {
    @inline(__always)
    mutating func paragraphWord(_ word: Keyword.ParagraphFormat, _ p: Int?) {
        switch word {
        case .pard:
            state.outlineLevel = nil
            state.styleIndex = nil
            state.list = 0
            state.level = 0
            state.inTable = false
            state.tableDepth = 0
            state.leftIndent = 0
            state.firstLineIndent = 0
            state.borderBottom = false
            state.legacyLevel = nil
            state.legacyStart = nil
            state.legacyStyle = nil
            state.alignment = .none
        case .ql, .qj: if state.destination == .normal { state.alignment = .none }
        case .qr: if state.destination == .normal { state.alignment = .right }
        case .qc: if state.destination == .normal { state.alignment = .center }
        case .par:
            if state.destination == .normal { endParagraph() }
        case .line:
            if state.destination == .normal { appendRun(.lineBreak) }
        case .tab: emitText("\t")
        case .li: if state.destination == .normal { state.leftIndent = p ?? 0 }
        case .fi: if state.destination == .normal { state.firstLineIndent = p ?? 0 }
        case .brdrb: if state.destination == .normal { state.borderBottom = true }
        }
    }

    mutating func currentParagraphProperties() {
        paragraph.outlineLevel = state.outlineLevel ?? state.styleIndex.flatMap { styleOutline[$0] }
        paragraph.list = state.list
        paragraph.level = state.level
        paragraph.leftIndent = state.leftIndent
        paragraph.firstLineIndent = state.firstLineIndent
        paragraph.borderBottom = state.borderBottom
        paragraph.legacyLevel = state.legacyLevel
        paragraph.legacyStart = state.legacyStart
        paragraph.legacyStyle = state.legacyStyle
        paragraph.alignment = state.alignment
    }

    mutating func endParagraph() {
        currentParagraphProperties()
        if state.inTable, state.tableDepth >= 2 {
            let level = enterNestedLevel()
            nestedLevels[level].cell.append(paragraph)  // a paragraph of a nested table's cell
            paragraph = RTFParagraph()
        } else if state.inTable {
            attachNestedTable()
            currentCell.append(paragraph)
            paragraph = RTFParagraph()
        } else {
            finishParagraph(force: true)
        }
    }

    mutating func finishParagraph(force: Bool) {
        if !force && paragraph.runs.isEmpty && paragraph.marker == nil { return }
        if !force { currentParagraphProperties() }
        closeTable()
        items.append(.paragraph(paragraph))
        paragraph = RTFParagraph()
    }
}

// RTF footnotes: the reference stays in the running paragraph, the note's paragraphs are collected apart.

extension RTFParser {
    @inline(__always)
    mutating func footnoteWord(_ word: Keyword.Footnote) {
        switch word {
        case .footnote:
            guard savedOutput == nil else {
                state.destination = .skip
                return
            }
            footnoteStart()
        case .chftn: break
        }
    }

    private mutating func footnoteStart() {
        if !state.inTable { closeTable() }
        // Record the reference in the running paragraph, then collect the note's own paragraphs separately.
        paragraph.runs.append(RTFRun(kind: .footnoteReference, style: RTFRunStyle(), size: Int32(truncatingIfNeeded: state.fontSize), link: -1, start: footnotes.count + 1, count: 0))
        savedOutput = (items, paragraph, stack.count - 1)
        items = []
        paragraph = RTFParagraph()
        state.footnote = true
        state.destination = .normal
    }
}

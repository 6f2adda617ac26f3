// RTF character formatting and styles: bold, italic, underline, strike, size, super/subscript, capitals, hidden text;
// the style sheet (heading outline levels, character styles and what their names mean).

extension RTFParser {
    @inline(__always)
    mutating func characterWord(_ word: Keyword.CharacterFormat, _ p: Int?) {
        switch word {
        case .b: state.style.bold = (p ?? 1) != 0
        case .i: state.style.italic = (p ?? 1) != 0
        case .ul: state.style.underline = (p ?? 1) != 0
        case .ulnone: state.style.underline = false
        case .strike: state.style.strike = (p ?? 1) != 0
        case .plain:
            state.style = RTFRunStyle()
            state.hidden = false
            state.caps = false
            state.fontSize = 24
            state.font = defaultFont
            updateCodePage()
        case .fs: state.fontSize = max(1, p ?? 24)
        case .superscript: state.style.vertical = 1
        case .subscript: state.style.vertical = -1
        case .nosupersub: state.style.vertical = 0
        case .up: state.style.vertical = (p ?? 6) == 0 ? 0 : 1
        case .dn: state.style.vertical = (p ?? 6) == 0 ? 0 : -1
        case .v: state.hidden = (p ?? 1) != 0
        case .caps: state.caps = (p ?? 1) != 0
        }
    }

    @inline(__always)
    mutating func styleWord(_ word: Keyword.Style, _ p: Int?) {
        switch word {
        case .stylesheet: state.destination = .styleSheet
        case .s:
            if state.destination == .styleSheet {
                styleEntry = (p ?? 0, nil, "", false)
            } else if state.destination == .normal {
                state.styleIndex = p
            }
        case .cs:
            if state.destination == .styleSheet {
                styleEntry = (p ?? 0, nil, "", true)
                state.style = RTFRunStyle()
                state.font = -1
            } else if state.destination == .normal, let cs = characterStyles[p ?? 0] {
                applyCharacterStyle(cs)
            }
        case .outlinelevel:
            if state.destination == .styleSheet { styleEntry.outline = p } else { state.outlineLevel = p }
        }
    }

    private mutating func applyCharacterStyle(_ cs: (style: RTFRunStyle, font: Int, name: String)) {
        if cs.style.bold { state.style.bold = true }
        if cs.style.italic { state.style.italic = true }
        if cs.style.strike { state.style.strike = true }
        if cs.style.underline { state.style.underline = true }
        if cs.font >= 0 {
            state.font = cs.font
            updateCodePage()
        }
        // Styles that say what they are only by name (LibreOffice keeps HTML's <del> and <code> that way).
        let name = cs.name.lowercased().trimmingWhitespace()
        if ["del", "strike", "strikethrough", "strikeout", "deleted"].contains(name) { state.style.strike = true }
        if name == "source text" || name == "code" || name == "html code" || name == "teletype" || name == "verbatim char"
            || name.hasPrefix("html typewriter") || name == "inline code"
        {
            state.style.monospace = true
        }
    }

    mutating func finishStyleEntry(_ inner: GroupState) {
        if styleEntry.character {
            characterStyles[styleEntry.index] = (inner.style, inner.font, styleEntry.name)
            styleEntry = (0, nil, "", false)
            return
        }
        var outline = styleEntry.outline
        if outline == nil {
            // "heading 1" … "heading 9" in any case
            let name = styleEntry.name.lowercased().trimmingWhitespace()
            if name.hasPrefix("heading "), let n = Int(name.dropFirst(8)), (1...9).contains(n) { outline = n - 1 }
        }
        if let outline { styleOutline[styleEntry.index] = outline }
        styleEntry = (0, nil, "", false)
    }
}

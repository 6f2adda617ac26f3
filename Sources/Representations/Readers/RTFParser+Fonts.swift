// RTF fonts and code pages: the document's character set, the font table (names, `\fcharset`, `\cpg`,
// monospace families) and the code page of the current font.

extension RTFParser {
    @inline(__always)
    mutating func documentWord(_ word: Keyword.Document, _ p: Int?) {
        switch word {
        case .rtf: break
        case .ansi: setDocumentCodePage(1252)
        case .mac: setDocumentCodePage(10000)
        case .pc: setDocumentCodePage(437)
        case .pca: setDocumentCodePage(850)
        case .ansicpg: if let p { setDocumentCodePage(p) }
        case .deff:
            defaultFont = p ?? 0
            if state.font < 0 { state.font = defaultFont }
        }
    }

    @inline(__always)
    mutating func fontWord(_ word: Keyword.Font, _ p: Int?) {
        switch word {
        case .fonttbl: state.destination = .fontTable
        case .f:
            let n = p ?? 0
            if state.destination == .fontTable {
                fontEntry = n
                if fonts[n] == nil { fonts[n] = Font() }
            } else {
                state.font = n
                updateCodePage()
            }
        case .fcharset, .cpg:
            if state.destination == .fontTable, fontEntry >= 0 {
                if word == .cpg { fonts[fontEntry]?.charset = p.map { -$0 } } else { fonts[fontEntry]?.charset = p }
            }
        case .fmodern:
            if state.destination == .fontTable, fontEntry >= 0 { fonts[fontEntry]?.monospace = true }
        case .fnil: break
        }
    }

    static func isMonospaceName(_ name: String) -> Bool {
        let n = name.lowercased().trimmingWhitespace()
        return n.contains("courier") || n.contains("mono") || n.hasPrefix("consolas") || n.hasPrefix("menlo")
            || n.hasPrefix("monaco") || FontName.namesCode(n) || n.hasPrefix("lucida console") || n.hasPrefix("fixedsys")
            || n.hasPrefix("inconsolata") || n.hasPrefix("sfmono")
    }

    private mutating func setDocumentCodePage(_ n: Int) {
        documentCodePage = n
        updateCodePage()
    }

    mutating func updateCodePage() {
        // \plain and \f come with nearly every paragraph, mostly naming the same font: look it up once.
        if fontCache.index != state.font || fontCache.generation != fontGeneration {
            let font = fonts[state.font]
            fontCache = (state.font, fontGeneration, font != nil, font?.monospace ?? false, font?.charset)
        }
        state.fontMonospace = fontCache.monospace
        if fontCache.exists, let charset = fontCache.charset {
            if charset < 0 {
                state.codePageNumber = -charset
                return
            }
            if let n = CodePage.numberForCharset(charset) {
                // \fcharset0 means "ANSI": the document's own ANSI page unless that is not a Western one.
                state.codePageNumber = n == 1252 ? documentCodePage : n
                return
            }
        }
        state.codePageNumber = documentCodePage
    }
}

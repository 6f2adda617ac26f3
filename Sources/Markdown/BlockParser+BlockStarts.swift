// The scanners of block starts on the current line (cmark's scanners.re for blocks): ATX headings, code
// fences, HTML blocks, setext underlines, thematic breaks, footnote definitions.

extension BlockParser {
    func scanATXHeadingStart(_ p: Int) -> Int {
        var i = p
        while s[i] == UInt8(ascii: "#") && i - p < 7 { i += 1 }
        let level = i - p
        guard level >= 1 && level <= 6 else { return 0 }
        let c = s[i]
        if c == 0x20 || c == 0x09 {
            while MD.isSpaceOrTab(s[i]) { i += 1 }
            return i - p
        }
        if c == 0x0A { return i - p }
        return 0
    }

    func scanOpenCodeFence(_ p: Int) -> Int {
        let fc = s[p]
        var i = p
        while s[i] == fc { i += 1 }
        let n = i - p
        guard n >= 3 else { return 0 }
        if fc == UInt8(ascii: "`") {
            var j = i
            while j < lineEnd {
                if s[j] == UInt8(ascii: "`") { return 0 }
                j += 1
            }
        }
        return n
    }

    func scanCloseCodeFence(_ p: Int, _ fc: UInt8) -> Int {
        var i = p
        while s[i] == fc { i += 1 }
        let n = i - p
        guard n >= 3 else { return 0 }
        while MD.isSpaceOrTab(s[i]) { i += 1 }
        return s[i] == 0x0A ? n : 0
    }

    func htmlStart(_ inParagraph: Bool) -> Int {
        let t = MD.htmlBlockStart(s, firstNonspace, lineEnd)
        if t > 0 { return t }
        if !inParagraph && MD.htmlBlockStart7(s, firstNonspace, lineEnd) { return 7 }
        return 0
    }

    func scanSetextHeadingLine(_ p: Int) -> Int {
        let c = s[p]
        var i = p
        while s[i] == c { i += 1 }
        while MD.isSpaceOrTab(s[i]) { i += 1 }
        guard s[i] == 0x0A else { return 0 }
        return c == UInt8(ascii: "=") ? 1 : 2
    }

    mutating func scanThematicBreak(_ p: Int) -> Bool {
        let c = s[p]
        var count = 0
        var i = p
        while i < lineEnd {
            let d = s[i]
            if d == c {
                count += 1
            } else if !MD.isSpaceOrTab(d) {
                thematicBreakKillPos = i
                return false
            }
            i += 1
        }
        if count >= 3 { return true }
        thematicBreakKillPos = i
        return false
    }

    /// `[^label]:` followed by optional spaces. Returns (length, labelStart, labelEnd).
    func scanFootnoteDefinition(_ p: Int) -> (Int, Int, Int) {
        guard s[p] == UInt8(ascii: "["), s[p + 1] == UInt8(ascii: "^") else { return (0, 0, 0) }
        var i = p + 2
        let ls = i
        while i < lineEnd {
            let c = s[i]
            if c == UInt8(ascii: "]") || c == 0x20 || c == 0x09 || c == 0x0A { break }
            i += 1
        }
        guard i > ls, s[i] == UInt8(ascii: "]"), s[i + 1] == UInt8(ascii: ":") else { return (0, 0, 0) }
        let le = i
        i += 2
        while MD.isSpaceOrTab(s[i]) { i += 1 }
        return (i - p, ls, le)
    }
}

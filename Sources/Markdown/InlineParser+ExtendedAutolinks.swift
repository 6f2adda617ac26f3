// GFM extended autolinks: `www.…`, `http://…`, `https://…`, `ftp://…` (cmark-gfm's autolink extension).

extension InlineParser {
    private func isValidHostChar(_ p: Int) -> Bool {
        let (cp, _) = MD.decode(s, p, end)
        return !MD.isUnicodeSpace(cp) && !MD.isUnicodePunct(cp)
    }

    private func checkDomain(_ start: Int, _ size: Int, allowShort: Bool) -> Int {
        var np = 0
        var uscore1 = 0
        var uscore2 = 0
        var i = 1
        while i < size - 1 {
            if s[start + i] == UInt8(ascii: "\\") && i < size - 2 { i += 1 }
            let c = s[start + i]
            if c == UInt8(ascii: "_") {
                uscore2 += 1
            } else if c == UInt8(ascii: ".") {
                uscore1 = uscore2
                uscore2 = 0
                np += 1
            } else if !isValidHostChar(start + i) && c != UInt8(ascii: "-") {
                break
            }
            i += 1
        }
        if uscore1 > 0 || uscore2 > 0 { return 0 }
        if allowShort { return i }
        return np > 0 ? i : 0
    }

    private func autolinkDelim(_ start: Int, _ linkEndIn: Int) -> Int {
        var linkEnd = linkEndIn
        var opening = 0
        var closing = 0
        for i in 0..<linkEnd {
            let c = s[start + i]
            if c == UInt8(ascii: "<") {
                linkEnd = i
                break
            } else if c == UInt8(ascii: "(") {
                opening += 1
            } else if c == UInt8(ascii: ")") {
                closing += 1
            }
        }
        while linkEnd > 0 {
            let c = s[start + linkEnd - 1]
            switch c {
            case UInt8(ascii: ")"):
                if closing <= opening { return linkEnd }
                closing -= 1
                linkEnd -= 1
            case UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"),
                UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "'"), UInt8(ascii: "\""):
                linkEnd -= 1
            case UInt8(ascii: ";"):
                var newEnd = linkEnd - 2
                while newEnd > 0 && MD.isAlpha(s[start + newEnd]) { newEnd -= 1 }
                if newEnd < linkEnd - 2 && s[start + newEnd] == UInt8(ascii: "&") {
                    linkEnd = newEnd
                } else {
                    linkEnd -= 1
                }
            default:
                return linkEnd
            }
        }
        return linkEnd
    }

    /// `www.` autolink at `pos` (autolinks are made only outside brackets).
    mutating func wwwMatch() -> Bool {
        if pos > 0 {
            let b = s[pos - 1]
            if !(b == UInt8(ascii: "*") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~") || b == UInt8(ascii: "(")
                || MD.isSpace(b))
            {
                return false
            }
        }
        let size = end - pos
        // cmark-gfm compares "www." case-sensitively
        guard size >= 4, s[pos] == UInt8(ascii: "w"), s[pos + 1] == UInt8(ascii: "w"), s[pos + 2] == UInt8(ascii: "w"),
            s[pos + 3] == UInt8(ascii: ".")
        else { return false }
        var linkEnd = checkDomain(pos, size, allowShort: false)
        if linkEnd == 0 { return false }
        while linkEnd < size && !MD.isSpace(s[pos + linkEnd]) && s[pos + linkEnd] != UInt8(ascii: "<") {
            linkEnd += 1
        }
        linkEnd = autolinkDelim(pos, linkEnd)
        if linkEnd == 0 { return false }
        _ = appendMark(InlineMark(.wwwLink, pos, data: Int32(truncatingIfNeeded: pos + linkEnd)))
        pos += linkEnd
        return true
    }

    /// `http://`, `https://`, `ftp://` autolink whose `:` is at `pos`: the scheme is the letters before it.
    mutating func urlMatch() -> Bool {
        let size = end - pos
        guard size >= 4, s[pos + 1] == UInt8(ascii: "/"), s[pos + 2] == UInt8(ascii: "/") else { return false }
        var rewind = 0
        while rewind < pos && MD.isAlpha(s[pos - rewind - 1]) { rewind += 1 }
        let schemeStart = pos - rewind
        guard MD.matchesCI(s, schemeStart, pos, "http") && rewind == 4 || MD.matchesCI(s, schemeStart, pos, "https") && rewind == 5
            || MD.matchesCI(s, schemeStart, pos, "ftp") && rewind == 3
        else { return false }
        guard pos + 3 < end, isValidHostChar(pos + 3) else { return false }
        var linkEnd = 3
        let domainLen = checkDomain(pos + 3, size - 3, allowShort: true)
        if domainLen == 0 { return false }
        linkEnd += domainLen
        while linkEnd < size && !MD.isSpace(s[pos + linkEnd]) && s[pos + linkEnd] != UInt8(ascii: "<") {
            linkEnd += 1
        }
        linkEnd = autolinkDelim(pos, linkEnd)
        if linkEnd == 0 { return false }
        // The scheme's letters are text just scanned; no mark lies in them (letters start none).
        _ = appendMark(InlineMark(.urlLink, schemeStart, data: Int32(truncatingIfNeeded: pos + linkEnd)))
        pos += linkEnd
        return true
    }
}

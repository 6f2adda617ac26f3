// The inline constructs resolved on the spot: code spans, autolinks (`<scheme:…>`, `<user@host>`) and raw HTML.

extension InlineParser {
    private mutating func scanToClosingBackticks(_ openLen: Int) -> Int? {
        if openLen > maxBackticks { return nil }
        if scannedForBackticks && backticks[openLen] <= pos { return nil }
        var p = pos
        let base = s.baseAddress!
        while true {
            p = SWAR.first(UInt8(ascii: "`"), in: base, from: p, to: end)
            if p >= end { break }
            let s0 = p
            while p < end && s[p] == UInt8(ascii: "`") { p += 1 }
            let n = p - s0
            if n <= maxBackticks { backticks[n] = s0 }
            if n == openLen { return p }
        }
        scannedForBackticks = true
        return nil
    }

    mutating func handleBackticks() {
        let start = pos
        while pos < end && s[pos] == UInt8(ascii: "`") { pos += 1 }
        let openLen = pos - start
        guard let closeEnd = scanToClosingBackticks(openLen) else { return }
        pos = closeEnd
        _ = appendMark(InlineMark(.code, start, data: Int32(truncatingIfNeeded: closeEnd), width: openLen))
    }

    mutating func handlePointyBrace() {
        let start = pos
        if let e = scanAutolinkURI(pos + 1) {
            pos = e
            _ = appendMark(InlineMark(.autolinkURI, start, data: Int32(truncatingIfNeeded: e)))
            return
        }
        if let e = scanAutolinkEmail(pos + 1) {
            pos = e
            _ = appendMark(InlineMark(.autolinkEmail, start, data: Int32(truncatingIfNeeded: e)))
            return
        }
        if let e = scanHTMLTag(pos + 1) {
            pos = e
            _ = appendMark(InlineMark(.html, start, data: Int32(truncatingIfNeeded: e)))
            return
        }
        pos += 1
    }

    /// `<scheme:…>` after the `<` at p - 1; returns the end (after `>`).
    private func scanAutolinkURI(_ p: Int) -> Int? {
        var i = p
        guard i < end, MD.isAlpha(s[i]) else { return nil }
        i += 1
        while i < end && (MD.isAlnum(s[i]) || s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: ".") || s[i] == UInt8(ascii: "-")) {
            i += 1
        }
        let schemeLen = i - p
        guard schemeLen >= 2 && schemeLen <= 32, i < end, s[i] == UInt8(ascii: ":") else { return nil }
        i += 1
        while i < end {
            let c = s[i]
            if c == UInt8(ascii: ">") { return i + 1 }
            if c <= 0x20 || c == UInt8(ascii: "<") || c == 0x7F { return nil }
            i += 1
        }
        return nil
    }

    private func scanAutolinkEmail(_ p: Int) -> Int? {
        var i = p
        while i < end {
            let c = s[i]
            if MD.isAlnum(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "!") || c == UInt8(ascii: "#")
                || c == UInt8(ascii: "$") || c == UInt8(ascii: "%") || c == UInt8(ascii: "&") || c == UInt8(ascii: "'")
                || c == UInt8(ascii: "*") || c == UInt8(ascii: "+") || c == UInt8(ascii: "/") || c == UInt8(ascii: "=")
                || c == UInt8(ascii: "?") || c == UInt8(ascii: "^") || c == UInt8(ascii: "_") || c == UInt8(ascii: "`")
                || c == UInt8(ascii: "{") || c == UInt8(ascii: "|") || c == UInt8(ascii: "}") || c == UInt8(ascii: "~")
                || c == UInt8(ascii: "-")
            {
                i += 1
            } else {
                break
            }
        }
        guard i > p, i < end, s[i] == UInt8(ascii: "@") else { return nil }
        i += 1
        // domain labels
        while true {
            let ls = i
            guard i < end, MD.isAlnum(s[i]) else { return nil }
            i += 1
            while i < end && (MD.isAlnum(s[i]) || s[i] == UInt8(ascii: "-")) && i - ls < 63 { i += 1 }
            if s[i - 1] == UInt8(ascii: "-") { return nil }
            guard i < end else { return nil }
            if s[i] == UInt8(ascii: ">") { return i + 1 }
            if s[i] == UInt8(ascii: ".") {
                i += 1
                continue
            }
            return nil
        }
    }

    /// Raw HTML after '<' at p. Returns end index (after '>').
    private mutating func scanHTMLTag(_ p: Int) -> Int? {
        guard p < end else { return nil }
        let c = s[p]
        if MD.isAlpha(c) {
            return scanOpenTagLinear(p)
        }
        if c == UInt8(ascii: "/") {
            return MD.scanClosingTag(s, p + 1, end)
        }
        if c == UInt8(ascii: "?") {
            if noPIEnd { return nil }
            if let e = MD.find(s, p + 1, end, UInt8(ascii: "?"), UInt8(ascii: ">")) { return e }
            noPIEnd = true
            return nil
        }
        if c == UInt8(ascii: "!") {
            if p + 2 < end && s[p + 1] == UInt8(ascii: "-") && s[p + 2] == UInt8(ascii: "-") {
                // <!--> and <!---> are complete comments
                if p + 3 < end && s[p + 3] == UInt8(ascii: ">") { return p + 4 }
                if p + 4 < end && s[p + 3] == UInt8(ascii: "-") && s[p + 4] == UInt8(ascii: ">") { return p + 5 }
                if noCommentEnd { return nil }
                if let e = MD.find(s, p + 3, end, UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: ">")) {
                    return e
                }
                noCommentEnd = true
                return nil
            }
            if p + 8 <= end && MD.matchesExactly(s, p - 1, "<![CDATA[") {
                if noCDATAEnd { return nil }
                if let e = MD.find(s, p + 8, end, UInt8(ascii: "]"), UInt8(ascii: "]"), UInt8(ascii: ">")) {
                    return e
                }
                noCDATAEnd = true
                return nil
            }
            if p + 1 < end && MD.isAlpha(s[p + 1]) {
                if noDeclEnd { return nil }
                var i = p + 2
                while i < end && s[i] != UInt8(ascii: ">") { i += 1 }
                if i < end { return i + 1 }
                noDeclEnd = true
                return nil
            }
        }
        return nil
    }

    /// Open tag scan with memo of failed quote searches (keeps `<a b="` repeated linear).
    private mutating func scanOpenTagLinear(_ p: Int) -> Int? {
        var j = p + 1
        while j < end && (MD.isAlnum(s[j]) || s[j] == UInt8(ascii: "-")) { j += 1 }
        while true {
            var k = j
            while k < end && MD.isSpace(s[k]) { k += 1 }
            if k < end && s[k] == UInt8(ascii: ">") { return k + 1 }
            if k + 1 < end && s[k] == UInt8(ascii: "/") && s[k + 1] == UInt8(ascii: ">") { return k + 2 }
            if k == j || k >= end { return nil }
            let c = s[k]
            guard MD.isAlpha(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") else { return nil }
            k += 1
            while k < end {
                let d = s[k]
                if MD.isAlnum(d) || d == UInt8(ascii: "_") || d == UInt8(ascii: ".") || d == UInt8(ascii: ":")
                    || d == UInt8(ascii: "-")
                {
                    k += 1
                } else {
                    break
                }
            }
            j = k
            var m = k
            while m < end && MD.isSpace(s[m]) { m += 1 }
            if m < end && s[m] == UInt8(ascii: "=") {
                m += 1
                while m < end && MD.isSpace(s[m]) { m += 1 }
                guard m < end else { return nil }
                let q = s[m]
                if q == UInt8(ascii: "\"") || q == UInt8(ascii: "'") {
                    let doubleQuote = q == UInt8(ascii: "\"")
                    if m >= (doubleQuote ? noQuoteFrom.0 : noQuoteFrom.1) { return nil }
                    let from = m
                    m += 1
                    while m < end && s[m] != q { m += 1 }
                    guard m < end else {
                        if doubleQuote { noQuoteFrom.0 = from } else { noQuoteFrom.1 = from }
                        return nil
                    }
                    j = m + 1
                } else {
                    let vs = m
                    while m < end {
                        let d = s[m]
                        if MD.isSpace(d) || d == UInt8(ascii: "\"") || d == UInt8(ascii: "'") || d == UInt8(ascii: "=")
                            || d == UInt8(ascii: "<") || d == UInt8(ascii: ">") || d == UInt8(ascii: "`")
                        {
                            break
                        }
                        m += 1
                    }
                    if m == vs { return nil }
                    j = m
                }
            }
        }
    }
}

// Byte-level scanners shared by the block and inline parsers (the hand-written
// equivalents of cmark's re2c scanners.re), entity and escape decoding, and
// link-label normalisation. Everything works on UTF-8 bytes.

@usableFromInline
enum MD {
    // MARK: Character classes

    @inline(__always) static func isSpaceOrTab(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
    @inline(__always) static func isLineEnd(_ c: UInt8) -> Bool { c == 0x0A || c == 0x0D }
    /// cmark_isspace: space, \t, \n, \v, \f, \r.
    @inline(__always) static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (c >= 0x09 && c <= 0x0D) }
    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }
    @inline(__always) static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) &- 0x61 < 26 }
    @inline(__always) static func isAlnum(_ c: UInt8) -> Bool { isDigit(c) || isAlpha(c) }
    @inline(__always) static func isHex(_ c: UInt8) -> Bool { isDigit(c) || (c | 0x20) &- 0x61 < 6 }
    /// ASCII punctuation (escapable characters).
    @inline(__always) static func isASCIIPunct(_ c: UInt8) -> Bool {
        (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E)
    }
    @inline(__always) static func lower(_ c: UInt8) -> UInt8 { (c >= 0x41 && c <= 0x5A) ? c | 0x20 : c }

    /// Unicode whitespace per CommonMark (Zs, tab, LF, FF, CR).
    static func isUnicodeSpace(_ cp: UInt32) -> Bool {
        if cp < 0x80 { return cp == 0x20 || cp == 0x09 || cp == 0x0A || cp == 0x0C || cp == 0x0D }
        guard let s = Unicode.Scalar(cp) else { return false }
        return s.properties.generalCategory == .spaceSeparator
    }

    /// Unicode punctuation per CommonMark 0.31 (P* or S* categories).
    static func isUnicodePunctOrSymbol(_ cp: UInt32) -> Bool {
        if cp < 0x80 { return isASCIIPunct(UInt8(cp)) }
        guard let s = Unicode.Scalar(cp) else { return false }
        switch s.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return true
        default:
            return false
        }
    }

    /// Unicode punctuation only (P* categories; cmark-gfm's host-name check uses this).
    static func isUnicodePunct(_ cp: UInt32) -> Bool {
        if cp < 0x80 { return isASCIIPunct(UInt8(cp)) }
        guard let s = Unicode.Scalar(cp) else { return false }
        switch s.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// Decodes the scalar starting at `i` (input is valid UTF-8). Returns (scalar, length).
    static func decode(_ s: [UInt8], _ i: Int, _ end: Int) -> (UInt32, Int) {
        let c0 = UInt32(s[i])
        if c0 < 0x80 { return (c0, 1) }
        if c0 < 0xE0, i + 1 < end { return (((c0 & 0x1F) << 6) | (UInt32(s[i + 1]) & 0x3F), 2) }
        if c0 < 0xF0, i + 2 < end {
            return (((c0 & 0x0F) << 12) | ((UInt32(s[i + 1]) & 0x3F) << 6) | (UInt32(s[i + 2]) & 0x3F), 3)
        }
        if i + 3 < end {
            return (
                ((c0 & 0x07) << 18) | ((UInt32(s[i + 1]) & 0x3F) << 12) | ((UInt32(s[i + 2]) & 0x3F) << 6)
                    | (UInt32(s[i + 3]) & 0x3F), 4
            )
        }
        return (0xFFFD, 1)
    }

    /// The scalar ending just before `i` (valid UTF-8), or `\n` at the start.
    static func scalarBefore(_ s: [UInt8], _ i: Int, _ start: Int) -> UInt32 {
        if i <= start { return 0x0A }
        var j = i - 1
        while j > start && s[j] & 0xC0 == 0x80 && i - j < 4 { j -= 1 }
        return decode(s, j, i).0
    }

    /// Appends code point `cp` of a numeric character reference as UTF-8: U+0000, surrogates and values past
    /// U+10FFFF become U+FFFD (CommonMark's rule).
    static func appendScalar(_ cp: UInt32, to out: inout [UInt8]) {
        UTF8.append(cp == 0 ? "\u{FFFD}" : Unicode.Scalar(cp) ?? "\u{FFFD}", to: &out)
    }

    // MARK: Input sanitising

    /// Replaces invalid UTF-8 and U+0000 with U+FFFD, turns CRLF / CR into LF and makes
    /// the input end with LF (unless empty). Returns the input unchanged (no copy) when
    /// nothing needs fixing.
    static func sanitize(_ input: [UInt8]) -> [UInt8] {
        // Fast path: valid UTF-8 without NUL or CR needs no copy.
        let clean = input.withUnsafeBufferPointer { p -> Bool in
            var i = 0
            let n = p.count
            while i < n {
                let c = p[i]
                if c < 0x80 {
                    if c == 0 || c == 0x0D { return false }
                    i += 1
                    continue
                }
                let len: Int
                if c >= 0xC2 && c <= 0xDF {
                    len = 2
                } else if c >= 0xE0 && c <= 0xEF {
                    len = 3
                } else if c >= 0xF0 && c <= 0xF4 {
                    len = 4
                } else {
                    return false
                }
                if i + len > n { return false }
                let c1 = p[i + 1]
                switch c {
                case 0xE0: if c1 < 0xA0 || c1 > 0xBF { return false }
                case 0xED: if c1 < 0x80 || c1 > 0x9F { return false }
                case 0xF0: if c1 < 0x90 || c1 > 0xBF { return false }
                case 0xF4: if c1 < 0x80 || c1 > 0x8F { return false }
                default: if c1 & 0xC0 != 0x80 { return false }
                }
                if len > 2 && p[i + 2] & 0xC0 != 0x80 { return false }
                if len > 3 && p[i + 3] & 0xC0 != 0x80 { return false }
                i += len
            }
            return true
        }
        if clean {
            if input.isEmpty || input[input.count - 1] == 0x0A { return input }
            var out = input
            out.append(0x0A)
            return out
        }
        var out: [UInt8] = []
        out.reserveCapacity(input.count + 16)
        input.withUnsafeBufferPointer { p in
            let n = p.count
            var i = 0
            while i < n {
                let c = p[i]
                if c < 0x80 {
                    if c == 0 {
                        out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                    } else if c == 0x0D {
                        out.append(0x0A)
                        if i + 1 < n && p[i + 1] == 0x0A { i += 1 }
                    } else {
                        out.append(c)
                    }
                    i += 1
                    continue
                }
                // Validate one multi-byte sequence (Unicode Table 3-7).
                var len = 0
                if c >= 0xC2 && c <= 0xDF {
                    len = 2
                } else if c >= 0xE0 && c <= 0xEF {
                    len = 3
                } else if c >= 0xF0 && c <= 0xF4 {
                    len = 4
                }
                var ok = len > 0 && i + len <= n
                if ok {
                    let c1 = p[i + 1]
                    switch c {
                    case 0xE0: ok = c1 >= 0xA0 && c1 <= 0xBF
                    case 0xED: ok = c1 >= 0x80 && c1 <= 0x9F
                    case 0xF0: ok = c1 >= 0x90 && c1 <= 0xBF
                    case 0xF4: ok = c1 >= 0x80 && c1 <= 0x8F
                    default: ok = c1 & 0xC0 == 0x80
                    }
                    var k = 2
                    while ok && k < len {
                        ok = p[i + k] & 0xC0 == 0x80
                        k += 1
                    }
                }
                if ok {
                    for k in 0..<len { out.append(p[i + k]) }
                    i += len
                } else {
                    out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                    // Skip the maximal invalid prefix: the lead byte plus continuation bytes that fit.
                    i += 1
                    if len > 0 {
                        var k = 1
                        // (WHATWG: consume continuation bytes only while still a valid prefix)
                        while k < len && i < n && p[i] & 0xC0 == 0x80 {
                            if k == 1 {
                                let c1 = p[i]
                                let valid: Bool
                                switch c {
                                case 0xE0: valid = c1 >= 0xA0
                                case 0xED: valid = c1 <= 0x9F
                                case 0xF0: valid = c1 >= 0x90
                                case 0xF4: valid = c1 <= 0x8F
                                default: valid = true
                                }
                                if !valid { break }
                            }
                            i += 1
                            k += 1
                        }
                    }
                }
            }
        }
        if !out.isEmpty && out[out.count - 1] != 0x0A { out.append(0x0A) }
        return out
    }

    // MARK: Entities

    /// name bytes -> value bytes.
    /// Keyed by String: hashing and comparing Strings is specialised and fast, unlike [UInt8].
    static let entities: [String: [UInt8]] = {
        var d: [String: [UInt8]] = [:]
        d.reserveCapacity(htmlEntityCount)
        let bytes = Array(htmlEntityPacked.utf8)
        var i = 0
        while i < bytes.count {
            var j = i
            while j < bytes.count && bytes[j] != 1 { j += 1 }
            var k = j + 1
            while k < bytes.count && bytes[k] != 2 { k += 1 }
            if j < bytes.count && k <= bytes.count {
                d[String(decoding: bytes[i..<j], as: UTF8.self)] = Array(bytes[(j + 1)..<min(k, bytes.count)])
            }
            i = k + 1
        }
        return d
    }()

    /// Tries to decode an entity or numeric character reference at `s[i]` (just after `&`).
    /// Returns the number of bytes consumed after `&` (0 if none), appending the decoded bytes.
    static func unescapeEntity(_ s: [UInt8], _ i: Int, _ end: Int, into out: inout [UInt8]) -> Int {
        guard i < end else { return 0 }
        if s[i] == UInt8(ascii: "#") {
            var j = i + 1
            var cp: UInt32 = 0
            var digits = 0
            if j < end && (s[j] | 0x20) == UInt8(ascii: "x") {
                j += 1
                while j < end && isHex(s[j]) && digits < 7 {
                    let c = s[j]
                    let v = isDigit(c) ? UInt32(c - 48) : UInt32((c | 0x20) - 87)
                    cp = cp &* 16 &+ v
                    j += 1
                    digits += 1
                }
                guard digits >= 1 && digits <= 6 else { return 0 }
            } else {
                while j < end && isDigit(s[j]) && digits < 8 {
                    cp = cp &* 10 &+ UInt32(s[j] - 48)
                    j += 1
                    digits += 1
                }
                guard digits >= 1 && digits <= 7 else { return 0 }
            }
            guard j < end && s[j] == UInt8(ascii: ";") else { return 0 }
            appendScalar(cp, to: &out)
            return j + 1 - i
        }
        var j = i
        while j < end && j - i <= htmlEntityMaxNameLength && isAlnum(s[j]) { j += 1 }
        guard j > i, j < end, s[j] == UInt8(ascii: ";"), j - i <= htmlEntityMaxNameLength else { return 0 }
        guard let v = entities[String(decoding: s[i..<j], as: UTF8.self)] else { return 0 }
        out.append(contentsOf: v)
        return j + 1 - i
    }

    /// Appends `s[start..<end]` with backslash escapes and entities decoded (cmark's
    /// houdini_unescape_html_f followed by cmark_strbuf_unescape, done in one pass as
    /// commonmark.js's unescapeString does).
    static func appendUnescaped(_ s: [UInt8], _ start: Int, _ end: Int, into out: inout [UInt8]) {
        var i = start
        var run = start
        while i < end {
            let c = s[i]
            if c == UInt8(ascii: "\\") && i + 1 < end && isASCIIPunct(s[i + 1]) {
                out.append(contentsOf: s[run..<i])
                out.append(s[i + 1])
                i += 2
                run = i
            } else if c == UInt8(ascii: "&") {
                out.append(contentsOf: s[run..<i])
                let n = unescapeEntity(s, i + 1, end, into: &out)
                if n > 0 {
                    i += 1 + n
                } else {
                    out.append(c)
                    i += 1
                }
                run = i
            } else {
                i += 1
            }
        }
        out.append(contentsOf: s[run..<end])
    }

    // MARK: Link labels

    /// Normalises a link label for matching: trim, collapse internal whitespace, Unicode case fold.
    static func normalizeLabel(_ s: [UInt8], _ start: Int, _ end: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var i = start
        var pendingSpace = false
        var ascii = true
        while i < end {
            let c = s[i]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(0x20) }
                pendingSpace = false
                if c >= 0x80 { ascii = false }
                out.append(lower(c))
            }
            i += 1
        }
        if ascii { return String(decoding: out, as: UTF8.self) }
        // Unicode case folding approximation: lower(upper(lower(x))) maps ẞ and ß to "ss".
        return String(decoding: out, as: UTF8.self).lowercased().uppercased().lowercased()
    }

    // MARK: Inline link pieces (used by the inline parser and for reference definitions)

    /// Skips spaces, tabs and at most one line ending. Returns new index, or nil if a second
    /// line ending (blank line) is hit... (cmark's scan_spacechars allows any whitespace run.)
    @inline(__always)
    static func skipSpacechars(_ s: [UInt8], _ i: Int, _ end: Int) -> Int {
        var j = i
        while j < end && isSpace(s[j]) { j += 1 }
        return j
    }

    /// Link destination at `i`. Returns (end index, content start, content end) or nil.
    /// Pointy form `<...>` or a balanced-parentheses run (cmark's manual_scan_link_url).
    static func scanLinkDestination(_ s: [UInt8], _ i: Int, _ end: Int) -> (Int, Int, Int)? {
        if i < end && s[i] == UInt8(ascii: "<") {
            var j = i + 1
            while j < end {
                let c = s[j]
                if c == UInt8(ascii: ">") { return (j + 1, i + 1, j) }
                if c == UInt8(ascii: "<") || c == 0x0A || c == 0x0D { return nil }
                if c == UInt8(ascii: "\\") && j + 1 < end && isASCIIPunct(s[j + 1]) {
                    j += 2
                } else {
                    j += 1
                }
            }
            return nil
        }
        var j = i
        var depth = 0
        while j < end {
            let c = s[j]
            if c == UInt8(ascii: "\\") && j + 1 < end && isASCIIPunct(s[j + 1]) {
                j += 2
                continue
            }
            if c == UInt8(ascii: "(") {
                depth += 1
                if depth > 32 { return nil }
            } else if c == UInt8(ascii: ")") {
                if depth == 0 { break }
                depth -= 1
            } else if c <= 0x20 || c == 0x7F {
                break
            }
            j += 1
        }
        if j == i || depth != 0 { return nil }
        return (j, i, j)
    }

    /// Link title at `i` ("...", '...' or (...)). Returns end index (after the closing
    /// delimiter) or nil.
    static func scanLinkTitle(_ s: [UInt8], _ i: Int, _ end: Int) -> Int? {
        guard i < end else { return nil }
        let open = s[i]
        let close: UInt8
        switch open {
        case UInt8(ascii: "\""): close = open
        case UInt8(ascii: "'"): close = open
        case UInt8(ascii: "("): close = UInt8(ascii: ")")
        default: return nil
        }
        var j = i + 1
        while j < end {
            let c = s[j]
            if c == UInt8(ascii: "\\") && j + 1 < end && isASCIIPunct(s[j + 1]) {
                j += 2
                continue
            }
            if c == close { return j + 1 }
            if open == UInt8(ascii: "(") && c == UInt8(ascii: "(") { return nil }
            j += 1
        }
        return nil
    }

    /// Link label `[...]` at `i` (s[i] == '['). Returns (end after ']', content start, content end).
    /// At most 999 characters, no unescaped brackets, not blank.
    static func scanLinkLabel(_ s: [UInt8], _ i: Int, _ end: Int) -> (Int, Int, Int)? {
        guard i < end, s[i] == UInt8(ascii: "[") else { return nil }
        var j = i + 1
        var nonBlank = false
        while j < end {
            let c = s[j]
            if c == UInt8(ascii: "\\") && j + 1 < end && isASCIIPunct(s[j + 1]) {
                j += 2
                nonBlank = true
            } else if c == UInt8(ascii: "[") {
                return nil
            } else if c == UInt8(ascii: "]") {
                if !nonBlank { return nil }
                return (j + 1, i + 1, j)
            } else {
                if !isSpace(c) { nonBlank = true }
                j += 1
            }
            if j - i > 1000 { return nil }
        }
        return nil
    }

    // MARK: HTML

    static let blockTagNames: Set<String> = Set(
        [
            "address", "article", "aside", "base", "basefont", "blockquote", "body", "caption", "center", "col",
            "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
            "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr",
            "html", "iframe", "legend", "li", "link", "main", "menu", "menuitem", "nav", "noframes", "ol",
            "optgroup", "option", "p", "param", "search", "section", "summary", "table", "tbody", "td", "tfoot",
            "th", "thead", "title", "tr", "track", "ul",
        ])

    @inline(__always)
    static func matchesCI(_ s: [UInt8], _ i: Int, _ end: Int, _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        if i + n > end { return false }
        let p = word.utf8Start
        for k in 0..<n where lower(s[i + k]) != p[k] {
            return false
        }
        return true
    }

    /// HTML block start condition 1–6 at `i` (s[i] should be '<'); 0 if none.
    static func htmlBlockStart(_ s: [UInt8], _ i: Int, _ end: Int) -> Int {
        guard i + 1 < end, s[i] == UInt8(ascii: "<") else { return 0 }
        let c1 = s[i + 1]
        if c1 == UInt8(ascii: "!") {
            if matchesCI(s, i, end, "<!--") { return 2 }
            if i + 9 <= end && Array(s[i..<(i + 9)]) == Array("<![CDATA[".utf8) { return 5 }
            if i + 2 < end && isAlpha(s[i + 2]) { return 4 }
            return 0
        }
        if c1 == UInt8(ascii: "?") { return 3 }
        // type 1
        for w: StaticString in ["<script", "<pre", "<style", "<textarea"] where matchesCI(s, i, end, w) {
            let j = i + w.utf8CodeUnitCount
            if j >= end { return 1 }
            let c = s[j]
            if isSpace(c) || c == UInt8(ascii: ">") { return 1 }
        }
        // type 6
        var j = i + 1
        if j < end && s[j] == UInt8(ascii: "/") { j += 1 }
        let nameStart = j
        while j < end && isAlnum(s[j]) { j += 1 }
        if j == nameStart || j - nameStart > 10 { return 0 }
        var name = [UInt8]()
        for k in nameStart..<j { name.append(lower(s[k])) }
        guard blockTagNames.contains(String(decoding: name, as: UTF8.self)) else { return 0 }
        if j >= end { return 6 }
        let c = s[j]
        if isSpace(c) || c == UInt8(ascii: ">") { return 6 }
        if c == UInt8(ascii: "/") && j + 1 < end && s[j + 1] == UInt8(ascii: ">") { return 6 }
        return 0
    }

    /// HTML block start condition 7: a complete open or closing tag (not script/style/pre/textarea)
    /// followed only by whitespace to the end of the line.
    static func htmlBlockStart7(_ s: [UInt8], _ i: Int, _ lineEnd: Int) -> Bool {
        guard i + 1 < lineEnd, s[i] == UInt8(ascii: "<") else { return false }
        var j: Int
        if s[i + 1] == UInt8(ascii: "/") {
            guard let e = scanClosingTag(s, i + 2, lineEnd) else { return false }
            j = e
        } else {
            // Type 1 names are excluded.
            for w: StaticString in ["<script", "<pre", "<style", "<textarea"] where matchesCI(s, i, lineEnd, w) {
                let k = i + w.utf8CodeUnitCount
                if k >= lineEnd || !isAlnum(s[k]) && s[k] != UInt8(ascii: "-") { return false }
            }
            guard let e = scanOpenTag(s, i + 1, lineEnd) else { return false }
            j = e
        }
        while j < lineEnd && isSpace(s[j]) { j += 1 }
        return j >= lineEnd
    }

    /// Open tag after '<' (at tag name). Returns index after '>' or nil. Whitespace may include newlines.
    static func scanOpenTag(_ s: [UInt8], _ i: Int, _ end: Int) -> Int? {
        var j = i
        guard j < end, isAlpha(s[j]) else { return nil }
        j += 1
        while j < end && (isAlnum(s[j]) || s[j] == UInt8(ascii: "-")) { j += 1 }
        while true {
            // attribute: whitespace+ name value?
            var k = j
            while k < end && isSpace(s[k]) { k += 1 }
            if k < end && (s[k] == UInt8(ascii: ">")) { return k + 1 }
            if k + 1 < end && s[k] == UInt8(ascii: "/") && s[k + 1] == UInt8(ascii: ">") { return k + 2 }
            if k == j { return nil }  // attributes need leading whitespace
            guard k < end else { return nil }
            let c = s[k]
            guard isAlpha(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") else { return nil }
            k += 1
            while k < end {
                let d = s[k]
                if isAlnum(d) || d == UInt8(ascii: "_") || d == UInt8(ascii: ".") || d == UInt8(ascii: ":")
                    || d == UInt8(ascii: "-")
                {
                    k += 1
                } else {
                    break
                }
            }
            j = k
            // value spec
            var m = k
            while m < end && isSpace(s[m]) { m += 1 }
            if m < end && s[m] == UInt8(ascii: "=") {
                m += 1
                while m < end && isSpace(s[m]) { m += 1 }
                guard m < end else { return nil }
                let q = s[m]
                if q == UInt8(ascii: "\"") || q == UInt8(ascii: "'") {
                    m += 1
                    while m < end && s[m] != q { m += 1 }
                    guard m < end else { return nil }
                    j = m + 1
                } else {
                    let vs = m
                    while m < end {
                        let d = s[m]
                        if isSpace(d) || d == UInt8(ascii: "\"") || d == UInt8(ascii: "'") || d == UInt8(ascii: "=")
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

    /// Closing tag after "</". Returns index after '>' or nil.
    static func scanClosingTag(_ s: [UInt8], _ i: Int, _ end: Int) -> Int? {
        var j = i
        guard j < end, isAlpha(s[j]) else { return nil }
        j += 1
        while j < end && (isAlnum(s[j]) || s[j] == UInt8(ascii: "-")) { j += 1 }
        while j < end && isSpace(s[j]) { j += 1 }
        guard j < end, s[j] == UInt8(ascii: ">") else { return nil }
        return j + 1
    }

    /// Finds `needle` (2 or 3 bytes) in s[i..<end]; returns index after it or nil.
    static func find(_ s: [UInt8], _ i: Int, _ end: Int, _ a: UInt8, _ b: UInt8, _ c: UInt8? = nil) -> Int? {
        var j = i
        let n = c == nil ? 2 : 3
        while j + n <= end {
            if s[j] == a && s[j + 1] == b && (c == nil || s[j + 2] == c!) { return j + n }
            j += 1
        }
        return nil
    }

    /// End condition of HTML block types 1–5 on the line s[i..<end].
    static func htmlBlockEnd(_ type: Int, _ s: [UInt8], _ i: Int, _ end: Int) -> Bool {
        switch type {
        case 1:
            var j = i
            while j + 1 < end {
                if s[j] == UInt8(ascii: "<") && s[j + 1] == UInt8(ascii: "/") {
                    for w: StaticString in ["</script>", "</pre>", "</style>", "</textarea>"]
                    where matchesCI(s, j, end, w) {
                        return true
                    }
                }
                j += 1
            }
            return false
        case 2: return find(s, i, end, UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: ">")) != nil
        case 3: return find(s, i, end, UInt8(ascii: "?"), UInt8(ascii: ">")) != nil
        case 4:
            var j = i
            while j < end {
                if s[j] == UInt8(ascii: ">") { return true }
                j += 1
            }
            return false
        case 5: return find(s, i, end, UInt8(ascii: "]"), UInt8(ascii: "]"), UInt8(ascii: ">")) != nil
        default: return false
        }
    }
}

import ReaderSupport

// Byte-level scanners shared by the block and inline parsers (the hand-written
// equivalents of cmark's re2c scanners.re), entity and escape decoding, and
// link-label normalisation. Everything works on UTF-8 bytes behind buffer pointers:
// no scanner allocates, and none copies its input.

/// Bytes the scanners read: the current line, a leaf block's content, or an inline subject.
typealias MDBytes = UnsafeBufferPointer<UInt8>

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
    @inline(__always)
    static func decode(_ s: MDBytes, _ i: Int, _ end: Int) -> (UInt32, Int) {
        let c0 = UInt32(s[i])
        if c0 < 0x80 { return (c0, 1) }
        return decodeMultibyte(s, i, end)
    }

    static func decodeMultibyte(_ s: MDBytes, _ i: Int, _ end: Int) -> (UInt32, Int) {
        let c0 = UInt32(s[i])
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
    @inline(__always)
    static func scalarBefore(_ s: MDBytes, _ i: Int, _ start: Int) -> UInt32 {
        if i <= start { return 0x0A }
        if s[i - 1] < 0x80 { return UInt32(s[i - 1]) }
        var j = i - 1
        while j > start && s[j] & 0xC0 == 0x80 && i - j < 4 { j -= 1 }
        return decode(s, j, i).0
    }

    /// Appends code point `cp` of a numeric character reference as UTF-8: U+0000, surrogates and values past
    /// U+10FFFF become U+FFFD (CommonMark's rule).
    static func appendScalar(_ cp: UInt32, to out: inout [UInt8]) {
        UTF8.append(cp == 0 ? "\u{FFFD}" : Unicode.Scalar(cp) ?? "\u{FFFD}", to: &out)
    }

    // MARK: Entities

    /// Offsets into `htmlEntityPacked`'s UTF-8 of each entry ("name\u{1}value\u{2}"), in name order, for a
    /// binary search that needs no dictionary, no key string and no allocation per lookup.
    static let entityOffsets: [UInt32] = {
        var offsets: [UInt32] = []
        offsets.reserveCapacity(htmlEntityCount + 1)
        var table = htmlEntityPacked
        table.withUTF8 { p in
            var i = 0
            while i < p.count {
                offsets.append(UInt32(i))
                while i < p.count && p[i] != 2 { i += 1 }
                i += 1
            }
            offsets.append(UInt32(p.count))
        }
        return offsets
    }()

    /// The value (UTF-8) of the named character reference `s[i..<j]` (the name without `&` and `;`), or nil.
    static func withEntityValue<R>(_ s: MDBytes, _ i: Int, _ j: Int, _ body: (MDBytes) -> R) -> R? {
        let offsets = entityOffsets
        var table = htmlEntityPacked
        return table.withUTF8 { p -> R? in
            var lo = 0
            var hi = offsets.count - 2
            let n = j - i
            while lo <= hi {
                let mid = (lo + hi) >> 1
                let e = Int(offsets[mid])
                // Compare s[i..<j] with the entry's name (which ends at byte 1).
                var k = 0
                var order = 0
                while true {
                    let a: Int = k < n ? Int(s[i + k]) : -1
                    let b0 = p[e + k]
                    let b: Int = b0 == 1 ? -1 : Int(b0)
                    if a != b {
                        order = a < b ? -1 : 1
                        break
                    }
                    if a == -1 { break }
                    k += 1
                }
                if order == 0 {
                    let valueStart = e + n + 1
                    var valueEnd = valueStart
                    while p[valueEnd] != 2 { valueEnd += 1 }
                    return body(MDBytes(rebasing: p[valueStart..<valueEnd]))
                }
                if order < 0 { hi = mid - 1 } else { lo = mid + 1 }
            }
            return nil
        }
    }

    /// Tries to decode an entity or numeric character reference at `s[i]` (just after `&`).
    /// Returns the number of bytes consumed after `&` (0 if none), appending the decoded bytes.
    static func unescapeEntity(_ s: MDBytes, _ i: Int, _ end: Int, into out: inout [UInt8]) -> Int {
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
        let found: Bool? = withEntityValue(s, i, j) { value in
            out.append(contentsOf: value)
            return true
        }
        return found == nil ? 0 : j + 1 - i
    }

    /// Appends `s[start..<end]` with backslash escapes and entities decoded (cmark's
    /// houdini_unescape_html_f followed by cmark_strbuf_unescape, done in one pass as
    /// commonmark.js's unescapeString does).
    static func appendUnescaped(_ s: MDBytes, _ start: Int, _ end: Int, into out: inout [UInt8]) {
        var i = start
        var run = start
        while i < end {
            let c = s[i]
            if c == UInt8(ascii: "\\") && i + 1 < end && isASCIIPunct(s[i + 1]) {
                if run < i { out.append(contentsOf: MDBytes(rebasing: s[run..<i])) }
                out.append(s[i + 1])
                i += 2
                run = i
            } else if c == UInt8(ascii: "&") {
                if run < i { out.append(contentsOf: MDBytes(rebasing: s[run..<i])) }
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
        if run < end { out.append(contentsOf: MDBytes(rebasing: s[run..<end])) }
    }

    /// Whether `appendUnescaped` would change `s[start..<end]` (a backslash or an ampersand in it).
    @inline(__always)
    static func needsUnescaping(_ s: MDBytes, _ start: Int, _ end: Int) -> Bool {
        var i = start
        while i < end {
            let c = s[i]
            if c == UInt8(ascii: "\\") || c == UInt8(ascii: "&") { return true }
            i += 1
        }
        return false
    }

    // MARK: Link labels

    /// Normalises a link label for matching into `out` (replacing its contents): trim, collapse internal
    /// whitespace, Unicode case fold. ASCII labels allocate nothing.
    static func normalizeLabel(_ s: MDBytes, _ start: Int, _ end: Int, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
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
        if ascii { return }
        // Unicode case folding approximation: lower(upper(lower(x))) maps ẞ and ß to "ss".
        let folded = String(decoding: out, as: UTF8.self).lowercased().uppercased().lowercased()
        out.removeAll(keepingCapacity: true)
        out.append(contentsOf: folded.utf8)
    }

    /// The normalised label as a string (for callers outside the parser's hot paths).
    static func normalizeLabel(_ bytes: [UInt8], _ start: Int, _ end: Int) -> String {
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { normalizeLabel($0, start, end, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Inline link pieces (used by the inline parser and for reference definitions)

    /// Skips any run of whitespace (cmark's scan_spacechars).
    @inline(__always)
    static func skipSpacechars(_ s: MDBytes, _ i: Int, _ end: Int) -> Int {
        var j = i
        while j < end && isSpace(s[j]) { j += 1 }
        return j
    }

    /// Link destination at `i`. Returns (end index, content start, content end) or nil.
    /// Pointy form `<...>` or a balanced-parentheses run (cmark's manual_scan_link_url).
    static func scanLinkDestination(_ s: MDBytes, _ i: Int, _ end: Int) -> (Int, Int, Int)? {
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
    static func scanLinkTitle(_ s: MDBytes, _ i: Int, _ end: Int) -> Int? {
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
    static func scanLinkLabel(_ s: MDBytes, _ i: Int, _ end: Int) -> (Int, Int, Int)? {
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

    /// The tag names of HTML block start condition 6, each packed as `packTagName` packs a name.
    static let blockTagNames: [UInt128] = ([
        "address", "article", "aside", "base", "basefont", "blockquote", "body", "caption", "center", "col",
        "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
        "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr",
        "html", "iframe", "legend", "li", "link", "main", "menu", "menuitem", "nav", "noframes", "ol",
        "optgroup", "option", "p", "param", "search", "section", "summary", "table", "tbody", "td", "tfoot",
        "th", "thead", "title", "tr", "track", "ul",
    ] as [StaticString]).map { name in
        name.withUTF8Buffer { packTagName($0, 0, $0.count) }
    }

    /// Up to 15 bytes of a tag name, lowercased, in one integer (0 for a longer name).
    @inline(__always)
    static func packTagName(_ s: MDBytes, _ i: Int, _ j: Int) -> UInt128 {
        guard j - i <= 15 else { return 0 }
        var v: UInt128 = UInt128(j - i)
        var k = i
        var shift = 8
        while k < j {
            v |= UInt128(lower(s[k])) << shift
            shift += 8
            k += 1
        }
        return v
    }

    @inline(__always)
    static func matchesCI(_ s: MDBytes, _ i: Int, _ end: Int, _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        if i + n > end { return false }
        let p = word.utf8Start
        for k in 0..<n where lower(s[i + k]) != p[k] {
            return false
        }
        return true
    }

    /// HTML block start condition 1–6 at `i` (s[i] should be '<'); 0 if none.
    static func htmlBlockStart(_ s: MDBytes, _ i: Int, _ end: Int) -> Int {
        guard i + 1 < end, s[i] == UInt8(ascii: "<") else { return 0 }
        let c1 = s[i + 1]
        if c1 == UInt8(ascii: "!") {
            if matchesCI(s, i, end, "<!--") { return 2 }
            if i + 9 <= end && matchesExactly(s, i, "<![CDATA[") { return 5 }
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
        guard blockTagNames.contains(packTagName(s, nameStart, j)) else { return 0 }
        if j >= end { return 6 }
        let c = s[j]
        if isSpace(c) || c == UInt8(ascii: ">") { return 6 }
        if c == UInt8(ascii: "/") && j + 1 < end && s[j + 1] == UInt8(ascii: ">") { return 6 }
        return 0
    }

    @inline(__always)
    static func matchesExactly(_ s: MDBytes, _ i: Int, _ word: StaticString) -> Bool {
        let p = word.utf8Start
        for k in 0..<word.utf8CodeUnitCount where s[i + k] != p[k] {
            return false
        }
        return true
    }

    /// HTML block start condition 7: a complete open or closing tag (not script/style/pre/textarea)
    /// followed only by whitespace to the end of the line.
    static func htmlBlockStart7(_ s: MDBytes, _ i: Int, _ lineEnd: Int) -> Bool {
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
    static func scanOpenTag(_ s: MDBytes, _ i: Int, _ end: Int) -> Int? {
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
    static func scanClosingTag(_ s: MDBytes, _ i: Int, _ end: Int) -> Int? {
        var j = i
        guard j < end, isAlpha(s[j]) else { return nil }
        j += 1
        while j < end && (isAlnum(s[j]) || s[j] == UInt8(ascii: "-")) { j += 1 }
        while j < end && isSpace(s[j]) { j += 1 }
        guard j < end, s[j] == UInt8(ascii: ">") else { return nil }
        return j + 1
    }

    /// Finds `a b` in s[i..<end]; returns the index after it or nil.
    static func find(_ s: MDBytes, _ i: Int, _ end: Int, _ a: UInt8, _ b: UInt8) -> Int? {
        // The last byte sought a word at a time, the one before it checked where it is found: the first
        // match found so is the first match.
        guard let base = s.baseAddress, i >= 0, end <= s.count else { return nil }
        var k = i + 1
        while k < end {
            k = SWAR.first(b, in: base, from: k, to: end)
            if k >= end { return nil }
            if base[k - 1] == a { return k + 1 }
            k += 1
        }
        return nil
    }

    /// Finds `a b c` in s[i..<end]; returns the index after it or nil.
    static func find(_ s: MDBytes, _ i: Int, _ end: Int, _ a: UInt8, _ b: UInt8, _ c: UInt8) -> Int? {
        guard let base = s.baseAddress, i >= 0, end <= s.count else { return nil }
        var k = i + 2
        while k < end {
            k = SWAR.first(c, in: base, from: k, to: end)
            if k >= end { return nil }
            if base[k - 1] == b && base[k - 2] == a { return k + 1 }
            k += 1
        }
        return nil
    }

    /// End condition of HTML block types 1–5 on the line s[i..<end].
    static func htmlBlockEnd(_ type: Int, _ s: MDBytes, _ i: Int, _ end: Int) -> Bool {
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
            guard let base = s.baseAddress, i < end else { return false }
            return SWAR.first(UInt8(ascii: ">"), in: base, from: i, to: end) < end
        case 5: return find(s, i, end, UInt8(ascii: "]"), UInt8(ascii: "]"), UInt8(ascii: ">")) != nil
        default: return false
        }
    }
}

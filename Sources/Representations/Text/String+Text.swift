// The String helpers the readers and writers share (each was next to its first user), and the one blank test.

extension String {
    /// Removes trailing U+0020 spaces.
    mutating func trimTrailingSpaces() {
        guard utf8.last == 0x20 else { return }
        let u = utf8
        var end = u.endIndex
        while end > u.startIndex, u[u.index(before: end)] == 0x20 { end = u.index(before: end) }
        self = String(u[..<end])!
    }

    /// CR LF and lone CR become LF.
    func replacingNewlines() -> String {
        var s = self
        guard s.withUTF8({ $0.contains(0x0D) }) else { return s }
        var out = [UInt8]()
        var previousCR = false
        for b in utf8 {
            if b == 0x0D {
                out.append(0x0A)
                previousCR = true
                continue
            }
            if b == 0x0A && previousCR {
                previousCR = false
                continue
            }
            previousCR = false
            out.append(b)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Every LF becomes a space.
    func replacingNewlinesWithSpaces() -> String { String(map { $0 == "\n" ? " " : $0 }) }

    /// Without leading spaces and tabs.
    func trimmingLeadingSpaces() -> String { String(drop { $0 == " " || $0 == "\t" }) }

    /// Without the leading and trailing characters that `set` holds.
    func trimmingCharacters(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }

    func replacingOccurrences(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }

    func replacingOccurrencesOfImportant() -> String {
        if let r = firstRange(of: "!important") { return String(self[..<r.lowerBound]).trimmingWhitespace() }
        return self
    }
}
/// Font names, as the RTF font table and CSS `font-family` give them.
enum FontName {
    /// Whether a lowercased font name says "code" ("Source Code Pro", "Fira Code"): the "code" of "Unicode"
    /// ("Arial Unicode MS", LibreOffice's "Liberation Sans Unicode MS", proportional fonts) does not count.
    static func namesCode(_ lowercased: String) -> Bool {
        guard lowercased.contains("code") else { return false }
        return lowercased.replacing("unicode", with: "").contains("code")
    }
}

/// Blank text, tested on UTF-8 without decoding characters: only spaces, tabs, line breaks and no-break spaces
/// (U+00A0). The one test of the RTF passes (a run's bytes in the parser's text buffer, ``RTFText``) and of
/// `String.isBlank`.
enum BlankText {
    static func isBlank(_ utf8: some Sequence<UInt8>) -> Bool {
        var previousC2 = false
        for b in utf8 {
            if previousC2 {
                if b != 0xA0 { return false }
                previousC2 = false
                continue
            }
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case 0xC2: previousC2 = true
            default: return false
            }
        }
        return !previousC2
    }
}

extension String {
    /// Only spaces, tabs, line breaks and no-break spaces (see ``BlankText``).
    var isBlank: Bool { BlankText.isBlank(utf8) }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        // Fast path: trim ASCII white space on UTF-8; fall back to Unicode properties when a non-ASCII byte
        // sits at either end (it may be white space such as U+00A0 or U+2003).
        let fast: String?? = utf8.withContiguousStorageIfAvailable { buf -> String? in
            var start = 0
            var end = buf.count
            while start < end, buf[start] == 0x20 || (buf[start] >= 0x09 && buf[start] <= 0x0D) { start += 1 }
            while end > start, buf[end - 1] == 0x20 || (buf[end - 1] >= 0x09 && buf[end - 1] <= 0x0D) { end -= 1 }
            if start < end, buf[start] >= 0x80 || buf[end - 1] >= 0x80 { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: buf[start..<end]), as: UTF8.self)
        }
        if let fast, let fast { return fast }
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, scalars[start].properties.isWhitespace { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace { end = scalars.index(before: end) }
        return String(String.UnicodeScalarView(scalars[start..<end]))
    }
}

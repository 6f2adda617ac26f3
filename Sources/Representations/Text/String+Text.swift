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

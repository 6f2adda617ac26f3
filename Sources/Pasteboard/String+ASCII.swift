extension StringProtocol {
    /// The string without leading and trailing ASCII white space (FoundationEssentials has no
    /// `trimmingCharacters(in:)`).
    package func trimmingASCIIWhitespace() -> String {
        let utf8 = Array(self.utf8)
        var start = 0
        var end = utf8.count
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C || b == 0x0B }
        while start < end, isSpace(utf8[start]) { start += 1 }
        while end > start, isSpace(utf8[end - 1]) { end -= 1 }
        return String(decoding: utf8[start..<end], as: UTF8.self)
    }

    /// Whether the string is already what `lowercased()` would make of it and has no space or `;`:
    /// the usual identifier, extension and MIME type, which then need no Unicode case mapping.
    package var isPlainLowercaseASCII: Bool {
        utf8.allSatisfy { $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) && $0 != 0x20 && $0 != 0x09 && $0 != 0x3B }
    }
}

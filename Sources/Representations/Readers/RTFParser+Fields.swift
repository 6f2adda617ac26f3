// RTF fields: `{\field{\*\fldinst HYPERLINK "…"}{\fldrslt …}}` become links.

extension RTFParser {
    @inline(__always)
    mutating func fieldWord(_ word: Keyword.Field) {
        switch word {
        case .field:
            fields.append((instruction: "", depth: stack.count))
        case .fldinst:
            state.destination = .fieldInstruction
        case .fldrslt:
            state.destination = .normal
            if let f = fields.last {
                fieldURLs.append(Self.hyperlinkTarget(f.instruction))
                state.fieldIndex = fieldURLs.count - 1
            }
        }
    }

    /// The URL of a `HYPERLINK "url"` (or `HYPERLINK \l "anchor"`) field instruction.
    static func hyperlinkTarget(_ instruction: String) -> String? {
        var s = Substring(instruction.trimmingWhitespace())
        let head = s.utf8.prefix(10)  // the 10th byte too: a combining mark there would change the 9th character
        if head.count >= 9, head.allSatisfy({ $0 < 0x80 }) {
            // ASCII: compare case-insensitively without upper-casing the whole instruction.
            guard head.prefix(9).elementsEqual("hyperlink".utf8, by: { $0 | 0x20 == $1 }) else { return nil }
        } else {
            guard s.uppercased().hasPrefix("HYPERLINK") else { return nil }
        }
        s = s.dropFirst(9)
        var anchor = false
        var url: String? = nil
        while !s.isEmpty {
            let before = s.startIndex
            defer {
                // Every pass consumes at least one character: a separator that is whitespace but not a space
                // or tab (U+00A0 from a code page, say) once stopped this loop from advancing.
                if s.startIndex == before { s = s.dropFirst() }
            }
            s = s.drop { $0.isWhitespace }
            if s.hasPrefix("\\") {
                let sw = s.dropFirst().prefix { !$0.isWhitespace }
                if sw == "l" { anchor = true }
                s = s.dropFirst(1 + sw.count)
                if sw == "o" || sw == "t" || sw == "m" {  // switches with an argument
                    s = s.drop { $0 == " " }
                    if s.hasPrefix("\"") {
                        s = s.dropFirst()
                        s = s.drop { $0 != "\"" }.dropFirst()
                    } else {
                        s = s.drop { !$0.isWhitespace }
                    }
                }
                continue
            }
            if s.hasPrefix("\"") {
                s = s.dropFirst()
                let value = s.prefix { $0 != "\"" }
                s = s.dropFirst(value.count + 1)
                if url == nil { url = String(value) }
            } else {
                let value = s.prefix { !$0.isWhitespace }
                s = s.dropFirst(value.count)
                if url == nil, !value.isEmpty { url = String(value) }
            }
        }
        guard let url, !url.isEmpty else { return nil }
        return anchor ? "#" + url : url
    }
}

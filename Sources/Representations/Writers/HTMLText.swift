/// Text of a raw HTML fragment, for writers that cannot carry HTML (RTF, plain text).
enum HTMLText {
    /// Drops tags and comments, turns `<br>` and block-level tags into line breaks and decodes character
    /// references.
    static func strip(_ html: String) -> String {
        var out = ""
        var s = Substring(html)
        while let lt = s.firstIndex(of: "<") {
            out += s[..<lt]
            s = s[lt...]
            if s.hasPrefix("<!--") {
                s = s.dropFirst(4)
                while !s.isEmpty && !s.hasPrefix("-->") { s = s.dropFirst() }
                s = s.dropFirst(3)
                continue
            }
            guard let gt = s.firstIndex(of: ">") else {
                out += s
                s = ""
                break
            }
            let tag = s[s.index(after: s.startIndex)..<gt].lowercased()
            let name = tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }
            if name == "br" || name == "p" || name == "div" || name == "li" || name == "tr" || name.hasPrefix("h") && name.count == 2 {
                if !out.hasSuffix("\n") && !out.isEmpty { out += "\n" }
            }
            s = s[s.index(after: gt)...]
        }
        out += s
        return HTMLEntityDecoder.decode(out)
    }
}

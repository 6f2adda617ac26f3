/// Text of a raw HTML fragment, for writers that cannot carry HTML (RTF, plain text).
enum HTMLText {
    /// Drops tags and comments; `<br>` and block-level tags become line breaks, table cells are separated
    /// by tabs, an image stands as its `alt` text (wherever it is, nested tables included); white space
    /// collapses as a browser collapses it (except in `<pre>`); character references are decoded.
    static func strip(_ html: String) -> String {
        var out = ""
        var s = Substring(html)
        var preDepth = 0
        var pendingSpace = false
        var rowStarted = false
        /// Nothing but tags since the last image's alt text: the next image's is another word.
        var afterImage = false
        func newline() {
            pendingSpace = false
            afterImage = false
            while out.hasSuffix(" ") || out.hasSuffix("\t") { out.removeLast() }
            if !out.isEmpty && !out.hasSuffix("\n") { out += "\n" }
        }
        func text(_ chunk: Substring) {
            if preDepth > 0 {
                out += chunk
                return
            }
            for c in chunk {
                if c == " " || c == "\n" || c == "\t" || c == "\r" || c == "\u{0C}" {
                    pendingSpace = true
                } else {
                    if pendingSpace, !out.isEmpty, !out.hasSuffix("\n"), !out.hasSuffix("\t"), !out.hasSuffix(" ") { out += " " }
                    pendingSpace = false
                    afterImage = false
                    out.append(c)
                }
            }
        }
        while let lt = s.firstIndex(of: "<") {
            text(s[..<lt])
            s = s[lt...]
            if s.hasPrefix("<!--") {
                s = s.dropFirst(4)
                while !s.isEmpty && !s.hasPrefix("-->") { s = s.dropFirst() }
                s = s.dropFirst(3)
                continue
            }
            guard let gt = s.firstIndex(of: ">") else {
                text(s)
                s = ""
                break
            }
            let tag = s[s.index(after: s.startIndex)..<gt]
            let closing = tag.hasPrefix("/")
            let name = tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }.lowercased()
            switch name {
            case "br", "p", "div", "li", "caption", "figcaption", "table", "ul", "ol", "blockquote", "dt", "dd":
                newline()
            case "h1", "h2", "h3", "h4", "h5", "h6":
                newline()
            case "tr":
                newline()
                rowStarted = false
            case "td", "th":
                if !closing {
                    if rowStarted {
                        while out.hasSuffix(" ") { out.removeLast() }
                        if !out.hasSuffix("\n") { out += "\t" }
                    }
                    rowStarted = true
                    pendingSpace = false
                    afterImage = false
                }
            case "pre":
                newline()
                preDepth = max(0, preDepth + (closing ? -1 : 1))
            case "img" where !closing:
                if let alt = attribute("alt", in: tag), !alt.isEmpty {
                    if afterImage { pendingSpace = true }
                    text(Substring(alt))
                    afterImage = true
                }
            default:
                break
            }
            s = s[s.index(after: gt)...]
        }
        text(s)
        return HTMLEntityDecoder.decode(out)
    }

    /// The value of attribute `name` in a tag's source (`img src=x alt="A b"`), quoted or not.
    static func attribute(_ name: String, in tag: Substring) -> String? {
        let lowered = tag.lowercased()
        var searchFrom = lowered.startIndex
        while let range = lowered[searchFrom...].firstRange(of: name) {
            searchFrom = range.upperBound
            // A whole attribute name: preceded by white space, followed by optional space and `=`.
            guard range.lowerBound > lowered.startIndex, lowered[lowered.index(before: range.lowerBound)].isWhitespace else { continue }
            var i = range.upperBound
            while i < lowered.endIndex, lowered[i].isWhitespace { i = lowered.index(after: i) }
            guard i < lowered.endIndex, lowered[i] == "=" else { continue }
            i = lowered.index(after: i)
            while i < lowered.endIndex, lowered[i].isWhitespace { i = lowered.index(after: i) }
            guard i < lowered.endIndex else { return "" }
            let offset = lowered.distance(from: lowered.startIndex, to: i)
            let original = tag[tag.index(tag.startIndex, offsetBy: offset)...]
            if let quote = original.first, quote == "\"" || quote == "'" {
                let body = original.dropFirst()
                return String(body.prefix { $0 != quote })
            }
            return String(original.prefix { !$0.isWhitespace && $0 != ">" && $0 != "/" })
        }
        return nil
    }
}

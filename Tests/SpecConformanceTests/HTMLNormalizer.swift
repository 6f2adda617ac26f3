import Foundation

/// A Swift rendering of cmark's `test/normalize.py` (the spec runner's HTML normaliser):
/// collapses whitespace outside `<pre>`, strips whitespace around block-level tags,
/// turns `<br />` into `<br>`, sorts attributes, replaces entity and character references
/// by characters (except `&lt; &gt; &amp; &quot;`), passes CDATA through verbatim.
/// Like normalize.py it lowercases tag and attribute names.
enum HTMLNormalizer {
    static let blockTags: Set<String> = [
        "article", "header", "aside", "hgroup", "blockquote", "hr", "iframe", "body", "li", "map", "button",
        "object", "canvas", "ol", "caption", "output", "col", "p", "colgroup", "pre", "dd", "progress", "div",
        "section", "dl", "table", "td", "dt", "tbody", "embed", "textarea", "fieldset", "tfoot", "figcaption",
        "th", "figure", "thead", "footer", "tr", "form", "ul", "h1", "h2", "h3", "h4", "h5", "h6", "video",
        "script", "style",
    ]

    private enum Last { case startTag, endTag, data, other }

    static func normalize(_ html: String) -> String {
        let s = Array(html.unicodeScalars)
        var out = ""
        var last = Last.startTag
        var lastTag = ""
        var inPre = false
        var i = 0

        func rstripOutput() {
            while let c = out.unicodeScalars.last, c.properties.isWhitespace {
                out.unicodeScalars.removeLast()
            }
        }
        func handleData(_ raw: String) {
            var data = raw
            let afterTag = last == .endTag || last == .startTag
            let afterBlock = afterTag && blockTags.contains(lastTag)
            if afterTag && lastTag == "br" {
                data = String(data.drop(while: { $0 == "\n" }))
            }
            if !inPre {
                var collapsed = ""
                var ws = false
                for u in data.unicodeScalars {
                    if u == " " || u == "\t" || u == "\n" || u == "\r" || u == "\u{0C}" || u == "\u{0B}" {
                        if !ws { collapsed += " " }
                        ws = true
                    } else {
                        collapsed.unicodeScalars.append(u)
                        ws = false
                    }
                }
                data = collapsed
            }
            if afterBlock && !inPre {
                if last == .startTag {
                    data = String(data.drop(while: { $0.isWhitespace }))
                } else if last == .endTag {
                    data = data.trimmingCharacters(in: .whitespacesAndNewlines)
                }
            }
            out += data
            last = .data
        }
        func decodeText(_ t: String) -> String {
            // entity / char refs -> chars, except < > & " which are re-escaped
            let bytes = Array(t.utf8)
            var r: [UInt8] = []
            var k = 0
            while k < bytes.count {
                if bytes[k] == UInt8(ascii: "&") {
                    var dec: [UInt8] = []
                    let n = MDTestEntities.decode(bytes, k + 1, &dec)
                    if n > 0 {
                        let str = String(decoding: dec, as: UTF8.self)
                        switch str {
                        case "<": r += Array("&lt;".utf8)
                        case ">": r += Array("&gt;".utf8)
                        case "&": r += Array("&amp;".utf8)
                        case "\"": r += Array("&quot;".utf8)
                        default: r += dec
                        }
                        k += 1 + n
                        continue
                    }
                }
                r.append(bytes[k])
                k += 1
            }
            return String(decoding: r, as: UTF8.self)
        }

        while i < s.count {
            if s[i] == "<" {
                // CDATA verbatim
                if String(String.UnicodeScalarView(s[i..<min(s.count, i + 9)])) == "<![CDATA[" {
                    var j = i + 9
                    while j + 2 < s.count && !(s[j] == "]" && s[j + 1] == "]" && s[j + 2] == ">") { j += 1 }
                    let e = min(s.count, j + 3)
                    out += String(String.UnicodeScalarView(s[i..<e]))
                    i = e
                    continue
                }
                var j = i + 1
                while j < s.count && s[j] != ">" { j += 1 }
                if j >= s.count {
                    handleData(decodeText(String(String.UnicodeScalarView(s[i...]))))
                    break
                }
                let inner = String(String.UnicodeScalarView(s[(i + 1)..<j]))
                i = j + 1
                if inner.hasPrefix("!--") {
                    out += "<" + inner + ">"
                    last = .other
                    continue
                }
                if inner.hasPrefix("!") || inner.hasPrefix("?") {
                    out += "<" + inner + ">"
                    last = .other
                    continue
                }
                if inner.hasPrefix("/") {
                    let tag = inner.dropFirst().trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
                    if tag == "pre" {
                        inPre = false
                    } else if blockTags.contains(tag) {
                        rstripOutput()
                    }
                    out += "</" + tag + ">"
                    lastTag = tag
                    last = .endTag
                    continue
                }
                var body = inner
                var selfClosing = false
                if body.hasSuffix("/") {
                    selfClosing = true
                    body.removeLast()
                }
                let (tag, attrs) = parseTag(body)
                guard !tag.isEmpty else {
                    handleData(decodeText("<" + inner + ">"))
                    continue
                }
                if tag == "pre" { inPre = true }
                if blockTags.contains(tag) { rstripOutput() }
                out += "<" + tag
                for (k, v) in attrs.sorted(by: { $0.0 < $1.0 || ($0.0 == $1.0 && ($0.1 ?? "") < ($1.1 ?? "")) }) {
                    out += " " + k
                    if let v {
                        var e = ""
                        for ch in decodeText(v) {
                            switch ch {
                            case "&": e += "&amp;"
                            case "<": e += "&lt;"
                            case ">": e += "&gt;"
                            case "\"": e += "&quot;"
                            case "'": e += "&#x27;"
                            default: e.append(ch)
                            }
                        }
                        // decodeText re-escaped < > & " already; undo double escaping of those
                        e = e.replacingOccurrences(of: "&amp;lt;", with: "&lt;")
                            .replacingOccurrences(of: "&amp;gt;", with: "&gt;")
                            .replacingOccurrences(of: "&amp;amp;", with: "&amp;")
                            .replacingOccurrences(of: "&amp;quot;", with: "&quot;")
                        out += "=\"" + e + "\""
                    }
                }
                out += ">"
                lastTag = tag
                last = selfClosing ? .endTag : .startTag
            } else {
                var j = i
                while j < s.count && s[j] != "<" { j += 1 }
                handleData(decodeText(String(String.UnicodeScalarView(s[i..<j]))))
                i = j
            }
        }
        return out
    }

    /// Tag name and attributes (name lowercased; value nil when absent).
    static func parseTag(_ body: String) -> (String, [(String, String?)]) {
        let c = Array(body.unicodeScalars)
        var i = 0
        var name = ""
        while i < c.count && !c[i].properties.isWhitespace {
            name.unicodeScalars.append(c[i])
            i += 1
        }
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic else { return ("", []) }
        var attrs: [(String, String?)] = []
        while i < c.count {
            while i < c.count && c[i].properties.isWhitespace { i += 1 }
            if i >= c.count { break }
            var k = ""
            while i < c.count && !c[i].properties.isWhitespace && c[i] != "=" {
                k.unicodeScalars.append(c[i])
                i += 1
            }
            while i < c.count && c[i].properties.isWhitespace { i += 1 }
            if i < c.count && c[i] == "=" {
                i += 1
                while i < c.count && c[i].properties.isWhitespace { i += 1 }
                var v = ""
                if i < c.count && (c[i] == "\"" || c[i] == "'") {
                    let q = c[i]
                    i += 1
                    while i < c.count && c[i] != q {
                        v.unicodeScalars.append(c[i])
                        i += 1
                    }
                    i += 1
                } else {
                    while i < c.count && !c[i].properties.isWhitespace {
                        v.unicodeScalars.append(c[i])
                        i += 1
                    }
                }
                attrs.append((k.lowercased(), v))
            } else if !k.isEmpty {
                attrs.append((k.lowercased(), nil))
            }
        }
        return (name.lowercased(), attrs)
    }
}

/// Entity decoding for the normaliser, via the engine's own table is not public, so a
/// small decoder: numeric references and the names the spec tests use come through
/// `MarkdownParser` (a paragraph holding just the reference decodes it).
enum MDTestEntities {
    static func decode(_ b: [UInt8], _ i: Int, _ out: inout [UInt8]) -> Int {
        var j = i
        while j < b.count && j - i < 40 && b[j] != UInt8(ascii: ";") && b[j] != UInt8(ascii: "&") && b[j] != UInt8(ascii: "<") && b[j] != 0x20 && b[j] != 0x0A { j += 1 }
        guard j < b.count, b[j] == UInt8(ascii: ";"), j > i else { return 0 }
        let ref = "&" + String(decoding: b[i...j], as: UTF8.self)
        // Let the Markdown engine decode it: a reference alone in a code-free paragraph.
        let html = MarkdownParserBridge.decodeReference(ref)
        guard let html, html != ref else { return 0 }
        out += Array(html.utf8)
        return j + 1 - i
    }
}

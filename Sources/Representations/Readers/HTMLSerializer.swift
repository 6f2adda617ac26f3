/// Writes a cleaned HTML tree back as HTML (for tables that do not fit GFM).
enum HTMLSerializer {
    static let keptAttributes: Set<String> = ["href", "src", "alt", "title", "colspan", "rowspan", "align", "start"]

    /// The node as one raw HTML block that a Markdown reader keeps whole: no blank line and no
    /// indentation inside it (white space collapses as in a browser; `<pre>` line breaks are written as
    /// `&#10;`), so the table does not end at a blank line and turn into a code block.
    static func serialize(_ node: HTMLNode) -> String {
        var out = ""
        write(node, &out, depth: 0, inPre: false, parent: "")
        return out
    }

    /// Elements whose white-space-only text children mean nothing.
    static let tableStructure: Set<String> = ["table", "thead", "tbody", "tfoot", "tr", "colgroup", "ul", "ol"]

    private static func write(_ node: HTMLNode, _ out: inout String, depth: Int, inPre: Bool, parent: String) {
        switch node.kind {
        case .comment: return
        case .text:
            if inPre {
                out += escape(node.text, attribute: false).replacingNewlines().split(separator: "\n", omittingEmptySubsequences: false)
                    .joined(separator: "&#10;")
                return
            }
            if node.isBlankText, tableStructure.contains(parent) { return }
            var collapsed = ""
            var space = false
            for c in escape(node.text, attribute: false) {
                if c == " " || c == "\n" || c == "\t" || c == "\r" || c == "\r\n" {
                    space = true
                } else {
                    if space { collapsed += " " }
                    space = false
                    collapsed.append(c)
                }
            }
            if space { collapsed += " " }
            out += collapsed
        case .element:
            if node.flags.contains(.dropped) || depth > 100 { return }
            let structural: Set<String> = [
                "table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "p", "br", "ul", "ol", "li", "a", "img",
                "b", "strong", "i", "em", "code", "pre", "s", "del", "sup", "sub", "blockquote", "h1", "h2", "h3", "h4",
                "h5", "h6", "hr",
            ]
            guard structural.contains(node.name) else {
                for c in node.children { write(c, &out, depth: depth + 1, inPre: inPre, parent: parent) }
                return
            }
            out += "<" + node.name
            for a in node.attributes where keptAttributes.contains(a.name) {
                out += " \(a.name)=\"\(escape(a.value, attribute: true))\""
            }
            out += ">"
            if node.flags.contains(.void) { return }
            for c in node.children { write(c, &out, depth: depth + 1, inPre: inPre || node.name == "pre", parent: node.name) }
            out += "</\(node.name)>"
            if ["table", "tr", "thead", "tbody", "tfoot"].contains(node.name) { out += "\n" }
        }
    }

    static func escape(_ s: String, attribute: Bool) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

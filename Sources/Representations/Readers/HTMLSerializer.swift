/// Writes a cleaned HTML tree back as HTML (for tables that do not fit GFM).
enum HTMLSerializer {
    static let keptAttributes: Set<String> = ["href", "src", "alt", "title", "colspan", "rowspan", "align", "start"]

    static func serialize(_ node: HTMLNode) -> String {
        var out = ""
        write(node, &out, depth: 0)
        return out
    }

    private static func write(_ node: HTMLNode, _ out: inout String, depth: Int) {
        switch node.kind {
        case .comment: return
        case .text: out += escape(node.text, attribute: false)
        case .element:
            if node.flags.contains(.dropped) || depth > 100 { return }
            let structural: Set<String> = [
                "table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "p", "br", "ul", "ol", "li", "a", "img",
                "b", "strong", "i", "em", "code", "pre", "s", "del", "sup", "sub", "blockquote", "h1", "h2", "h3", "h4",
                "h5", "h6", "hr",
            ]
            guard structural.contains(node.name) else {
                for c in node.children { write(c, &out, depth: depth + 1) }
                return
            }
            out += "<" + node.name
            for a in node.attributes where keptAttributes.contains(a.name) {
                out += " \(a.name)=\"\(escape(a.value, attribute: true))\""
            }
            out += ">"
            if node.flags.contains(.void) { return }
            for c in node.children { write(c, &out, depth: depth + 1) }
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

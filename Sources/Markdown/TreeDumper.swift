#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MarkdownDocument {
    /// A readable dump of the tree, one node per line, indented two spaces per level,
    /// in the spirit of cmark's XML / swift-markdown's `debugDescription`:
    ///
    /// ```
    /// document
    ///   heading level=2
    ///     text "Hi"
    /// ```
    /// With `positions: true` each line ends with ` [startLine:startCol-endLine:endCol]`.
    public func debugDump(positions: Bool = false) -> String {
        var out = ""
        var depth = 0
        walk { event in
            if event.phase == .exit {
                depth -= 1
                return .continue
            }
            let n = event.node
            out += String(repeating: "  ", count: depth)
            out += event.kind.description
            switch event.kind {
            case .list:
                let a = listAttributes(n)
                if a.type == .ordered {
                    out += " type=ordered start=\(a.start) delim=\(a.delimiter == .paren ? "paren" : "period")"
                } else {
                    out += " type=bullet bullet=\"\(String(UnicodeScalar(a.bulletChar)))\""
                }
                out += " tight=\(a.tight)"
            case .item:
                if let t = taskState(n) { out += " task=\(t == .checked ? "checked" : "unchecked")" }
            case .heading:
                out += " level=\(headingLevel(n))"
                if isSetextHeading(n) { out += " setext" }
            case .codeBlock:
                out += isFencedCodeBlock(n) ? " fenced" : " indented"
                let info = codeInfo(n)
                if !info.isEmpty { out += " info=\(quoted(info))" }
                out += " \(quoted(literal(n)))"
            case .table:
                out += " align=[\(tableAlignments(n).map { "\($0)" }.joined(separator: ","))]"
            case .tableRow:
                if isTableHeaderRow(n) { out += " header" }
            case .footnoteDefinition, .footnoteReference:
                out += " label=\(quoted(label(n)))"
            case .text, .code, .htmlInline, .htmlBlock:
                out += " \(quoted(literal(n)))"
            case .link, .image:
                out += " destination=\(quoted(destination(n)))"
                let t = title(n)
                if !t.isEmpty { out += " title=\(quoted(t))" }
            default:
                break
            }
            if positions {
                out += " [\(sourceRange(n))]"
            }
            out += "\n"
            if !event.kind.isLeaf { depth += 1 }
            return .continue
        }
        return out
    }

    private func quoted(_ s: String) -> String {
        var r = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": r += "\\\""
            case "\\": r += "\\\\"
            case "\n": r += "\\n"
            case "\t": r += "\\t"
            default: r.unicodeScalars.append(u)
            }
        }
        return r + "\""
    }
}

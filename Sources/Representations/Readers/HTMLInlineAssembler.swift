/// An open inline element of the HTML being read.
struct InlineWrapper: Equatable {
    enum Kind: Equatable {
        case strong, emphasis, strikethrough, underline, superscript, `subscript`, code
        /// An inline element with no Markdown form that means something (`kbd`, `ins`, `mark`): kept as HTML.
        case html(String)
        case link(String, String)
    }
    var kind: Kind
    /// Distinguishes two elements of the same kind.
    var id: Int
    /// Opened by a monospace font in CSS or `<font face>` rather than by `<code>`/`<kbd>`/`<samp>`/`<tt>`.
    var fromFont = false
}

/// A run of text (or an atomic inline) with the inline elements it sits in.
struct HTMLSegment {
    var inline: RichInline?
    var text: String
    var wrappers: [InlineWrapper]
    var isCode: Bool { wrappers.contains { $0.kind == .code } }
}

/// Rebuilds the inline tree from segments: consecutive segments in the same element (or adjacent elements
/// of the same kind) share one node, so nesting follows the HTML.
enum HTMLInlineAssembler {
    static func build(_ segments: ArraySlice<HTMLSegment>, depth: Int) -> [RichInline] {
        var out: [RichInline] = []
        var i = segments.startIndex
        while i < segments.endIndex {
            let s = segments[i]
            if s.wrappers.count > depth {
                let w = s.wrappers[depth]
                var j = i
                while j < segments.endIndex, segments[j].wrappers.count > depth, segments[j].wrappers[depth].kind == w.kind { j += 1 }
                let group = segments[i..<j]
                i = j
                if w.kind == .code {
                    var text = ""
                    for g in group {
                        if let inline = g.inline { text += inline.plainText } else { text += g.text }
                    }
                    out.append(.code(text))
                    continue
                }
                let inner = build(group, depth: depth + 1)
                switch w.kind {
                case .link(let url, let title):
                    out.append(.link(destination: url, title: title, inner.filter { $0 != .text("") }))
                    continue
                default:
                    break
                }
                let (lead, body, trail) = InlineAssembler.splitSpaces(inner)
                if !lead.isEmpty { out.append(.text(lead)) }
                if !body.isEmpty {
                    switch w.kind {
                    case .strong: out.append(.strong(body))
                    case .emphasis: out.append(.emphasis(body))
                    case .strikethrough: out.append(.strikethrough(body))
                    case .underline: out.append(.underline(body))
                    case .superscript: out.append(.superscript(body))
                    case .subscript: out.append(.subscript(body))
                    case .html(let name):
                        out.append(.html("<\(name)>"))
                        out += body
                        out.append(.html("</\(name)>"))
                    case .code, .link: break
                    }
                }
                if !trail.isEmpty { out.append(.text(trail)) }
            } else {
                if let inline = s.inline {
                    if inline != .text("") { out.append(inline) }
                } else if !s.text.isEmpty {
                    out.append(.text(s.text))
                }
                i += 1
            }
        }
        // Adjacent texts become one (most lists have none: skip the copy).
        var adjacent = false
        var previousText = false
        for x in out {
            let isText: Bool
            if case .text = x { isText = true } else { isText = false }
            if isText && previousText {
                adjacent = true
                break
            }
            previousText = isText
        }
        return adjacent ? InlineAssembler.merged(out) : out
    }
}

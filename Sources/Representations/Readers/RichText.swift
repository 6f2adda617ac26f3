import Markdown

/// The readers' intermediate document: what the HTML and RTF readers recover, before it becomes the
/// Markdown AST.
///
/// Both readers first build this small tree, then ``RichText/makeDocument`` hands it to the Markdown AST's
/// builder. Keeping the readers on their own model lets them carry what the AST need not (underline,
/// image bytes, a raw-HTML fallback for tables that do not fit GFM) and keeps them independent of the AST's
/// construction details.
enum RichInline: Equatable {
    case text(String)
    case code(String)
    case emphasis([RichInline])
    case strong([RichInline])
    case strikethrough([RichInline])
    /// No Markdown form: rendered as its content (or `<u>` in HTML-preserving targets).
    case underline([RichInline])
    case superscript([RichInline])
    case `subscript`([RichInline])
    case link(destination: String, title: String, [RichInline])
    /// `data` holds PNG/JPEG bytes when the source embedded them (RTF `\pict`, HTML `data:` URLs).
    case image(source: String, title: String, alt: String, data: [UInt8]?, mediaType: String?)
    case lineBreak
    case softBreak
    case html(String)
    case footnoteReference(String)

    /// The characters a reader would see, without markup.
    var plainText: String {
        switch self {
        case .text(let s), .code(let s): return s
        case .emphasis(let c), .strong(let c), .strikethrough(let c), .underline(let c), .superscript(let c),
            .subscript(let c), .link(_, _, let c):
            return c.plainText
        case .image(_, _, let alt, _, _): return alt
        case .lineBreak, .softBreak: return "\n"
        case .html: return ""
        case .footnoteReference: return ""
        }
    }
}

extension Array where Element == RichInline {
    var plainText: String { map(\.plainText).joined() }
}

enum RichAlignment: Equatable { case none, left, center, right }

struct RichListItem: Equatable {
    /// `nil` for an ordinary item, `true`/`false` for a checked/unchecked task item.
    var task: Bool?
    var blocks: [RichBlock]
}

indirect enum RichBlock: Equatable {
    case paragraph([RichInline])
    case heading(level: Int, [RichInline])
    case codeBlock(info: String, code: String)
    case blockQuote([RichBlock])
    case list(ordered: Bool, start: Int, tight: Bool, items: [RichListItem], style: MarkdownListStyle = .decimal)
    case thematicBreak
    /// A table that fits GFM: one header row, then body rows, each row a list of cells.
    case table(alignments: [RichAlignment], header: [[RichInline]], rows: [[[RichInline]]])
    case html(String)
    case footnoteDefinition(label: String, [RichBlock])
}

/// The kind of a node, named as the CommonMark / GFM specs name it.
public enum MarkdownNodeKind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    // Blocks
    case document
    case blockQuote
    case list
    case item
    case codeBlock
    case htmlBlock
    case paragraph
    case heading
    case thematicBreak
    case table
    case tableRow
    case tableCell
    case footnoteDefinition
    // Inlines
    case text
    case softBreak
    case lineBreak
    case code
    case htmlInline
    case emphasis
    case strong
    case strikethrough
    case link
    case image
    case footnoteReference

    /// Concrete equality (otherwise `==` resolves to the generic RawRepresentable overload,
    /// a witness-table call per comparison in the parser's hot loops).
    @inlinable public static func == (a: Self, b: Self) -> Bool { a.rawValue == b.rawValue }
    @inlinable public static func != (a: Self, b: Self) -> Bool { a.rawValue != b.rawValue }

    /// Block-level kinds (everything up to `footnoteDefinition`).
    @inlinable public var isBlock: Bool { rawValue <= MarkdownNodeKind.footnoteDefinition.rawValue }
    @inlinable public var isInline: Bool { !isBlock }

    /// Leaf kinds never have children; a walk reports them with a single `.enter` event
    /// (as cmark's iterator does).
    @inlinable public var isLeaf: Bool {
        switch self {
        case .codeBlock, .htmlBlock, .thematicBreak, .text, .softBreak, .lineBreak, .code, .htmlInline,
            .footnoteReference:
            return true
        default:
            return false
        }
    }

    public var description: String {
        switch self {
        case .document: return "document"
        case .blockQuote: return "block_quote"
        case .list: return "list"
        case .item: return "item"
        case .codeBlock: return "code_block"
        case .htmlBlock: return "html_block"
        case .paragraph: return "paragraph"
        case .heading: return "heading"
        case .thematicBreak: return "thematic_break"
        case .table: return "table"
        case .tableRow: return "table_row"
        case .tableCell: return "table_cell"
        case .footnoteDefinition: return "footnote_definition"
        case .text: return "text"
        case .softBreak: return "softbreak"
        case .lineBreak: return "linebreak"
        case .code: return "code"
        case .htmlInline: return "html_inline"
        case .emphasis: return "emph"
        case .strong: return "strong"
        case .strikethrough: return "strikethrough"
        case .link: return "link"
        case .image: return "image"
        case .footnoteReference: return "footnote_reference"
        }
    }
}

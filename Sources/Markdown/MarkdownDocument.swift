#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The Markdown AST: an arena of node records in one contiguous array, linked by
// parent / first-child / last-child / next / previous indices, with every
// literal (text, code, URLs, titles, info strings, labels) stored as a byte range
// into one shared UTF-8 buffer. Node kinds carry the names the CommonMark and GFM
// specs use (cmark's `cmark_node_type`).
//
// Reading: `MarkdownDocument` (kind, attributes, literal, children, parent,
// `walk`, `events`). Writing: `MarkdownDocument.Builder`. Parsing:
// `MarkdownParser.parse(_:options:)`. Rendering: `HTMLWriter.render(_:options:)`.

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

/// Bullet or ordered list.
public enum MarkdownListType: UInt8, Sendable { case bullet, ordered }

/// The delimiter after an ordered list number (`1.` or `1)`); `.none` for bullet lists.
public enum MarkdownListDelimiter: UInt8, Sendable { case none, period, paren }

/// How an ordered list numbers its items: Markdown has only decimal numbers, but rich text shows
/// letters and roman numerals (`a.`, `iv.`, `B)`), which the RTF and HTML readers keep and the
/// plain-text, HTML and RTF writers write back.
public enum MarkdownListStyle: UInt8, Sendable, CaseIterable {
    case decimal, lowerAlpha, upperAlpha, lowerRoman, upperRoman

    /// The marker for item number `n` (1-based): `3`, `c`, `C`, `iii`, `III`. Letters continue `z`, `aa`,
    /// `ab`…; roman numerals past 3999 fall back to decimal.
    public func marker(_ n: Int) -> String {
        switch self {
        case .decimal: return String(n)
        case .lowerAlpha, .upperAlpha:
            guard n > 0 else { return String(n) }
            var value = n
            var letters: [Character] = []
            while value > 0 {
                value -= 1
                letters.insert(Character(Unicode.Scalar(UInt8(97 + value % 26))), at: 0)
                value /= 26
            }
            let text = String(letters)
            return self == .upperAlpha ? text.uppercased() : text
        case .lowerRoman, .upperRoman:
            guard n > 0, n < 4000 else { return String(n) }
            let table: [(Int, String)] = [
                (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"),
                (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
            ]
            var value = n
            var text = ""
            for (amount, symbol) in table {
                while value >= amount {
                    text += symbol
                    value -= amount
                }
            }
            return self == .upperRoman ? text.uppercased() : text
        }
    }

    /// The number a marker stands for in this style (`c` → 3, `iv` → 4); nil when it is not one.
    public func value(of marker: String) -> Int? {
        switch self {
        case .decimal: return Int(marker)
        case .lowerAlpha, .upperAlpha:
            guard !marker.isEmpty, marker.count <= 3, marker.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
            return marker.lowercased().unicodeScalars.reduce(0) { $0 * 26 + Int($1.value) - 96 }
        case .lowerRoman, .upperRoman:
            let lowered = marker.lowercased()
            guard !lowered.isEmpty, lowered.count <= 15 else { return nil }
            for n in 1..<4000 where MarkdownListStyle.lowerRoman.marker(n) == lowered { return n }
            return nil
        }
    }

    /// HTML's `<ol type>`: `1`, `a`, `A`, `i`, `I`.
    public var htmlType: String {
        switch self {
        case .decimal: return "1"
        case .lowerAlpha: return "a"
        case .upperAlpha: return "A"
        case .lowerRoman: return "i"
        case .upperRoman: return "I"
        }
    }
}

/// GFM task list item state (`- [ ]` / `- [x]`).
public enum MarkdownTaskState: UInt8, Sendable { case unchecked, checked }

/// GFM table column alignment.
public enum MarkdownTableAlignment: UInt8, Sendable { case none, left, center, right }

/// Attributes of a list node.
public struct MarkdownListAttributes: Sendable, Equatable {
    public var type: MarkdownListType
    /// First number of an ordered list (0 for bullet lists).
    public var start: Int
    public var delimiter: MarkdownListDelimiter
    /// `-`, `+` or `*` for bullet lists (as a byte); 0 for ordered lists.
    public var bulletChar: UInt8
    /// A tight list renders its paragraphs without `<p>`.
    public var tight: Bool
    /// How an ordered list's numbers are shown (always decimal from Markdown).
    public var style: MarkdownListStyle

    public init(
        type: MarkdownListType = .bullet, start: Int = 0, delimiter: MarkdownListDelimiter = .none,
        bulletChar: UInt8 = UInt8(ascii: "-"), tight: Bool = true, style: MarkdownListStyle = .decimal
    ) {
        self.type = type
        self.start = start
        self.delimiter = delimiter
        self.bulletChar = type == .bullet ? bulletChar : 0
        self.tight = tight
        self.style = type == .ordered ? style : .decimal
    }

    public static func bullet(_ char: UInt8 = UInt8(ascii: "-"), tight: Bool = true) -> Self {
        .init(type: .bullet, start: 0, delimiter: .none, bulletChar: char, tight: tight)
    }
    public static func ordered(
        start: Int = 1, delimiter: MarkdownListDelimiter = .period, tight: Bool = true, style: MarkdownListStyle = .decimal
    ) -> Self {
        .init(type: .ordered, start: start, delimiter: delimiter, bulletChar: 0, tight: tight, style: style)
    }
}

/// A line:column position in the source (1-based; columns count bytes, as cmark does).
/// Line 0 means "unknown" (e.g. nodes made by the builder without positions).
public struct MarkdownSourcePosition: Sendable, Equatable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
    public static func < (a: Self, b: Self) -> Bool { (a.line, a.column) < (b.line, b.column) }
    public var description: String { "\(line):\(column)" }
}

/// Start and end (inclusive) positions of a node in the source.
public struct MarkdownSourceRange: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var start: MarkdownSourcePosition
    public var end: MarkdownSourcePosition
    public init(start: MarkdownSourcePosition, end: MarkdownSourcePosition) {
        self.start = start
        self.end = end
    }
    public static let unknown = MarkdownSourceRange(
        start: .init(line: 0, column: 0), end: .init(line: 0, column: 0))
    public var description: String { "\(start)-\(end)" }
}

/// A node's kind together with its attributes (not its literal, not its children).
/// Used to build nodes (`Builder.open`, `Builder.append`) and returned by
/// `MarkdownDocument.element(_:)`.
public enum MarkdownElement: Sendable, Equatable {
    case document
    case blockQuote
    case list(MarkdownListAttributes)
    case item(task: MarkdownTaskState? = nil)
    /// Literal: the code (each line ending in "\n").
    case codeBlock(info: String = "", fenced: Bool = true)
    /// Literal: the raw HTML.
    case htmlBlock
    case paragraph
    case heading(level: Int, setext: Bool = false)
    case thematicBreak
    case table(alignments: [MarkdownTableAlignment])
    case tableRow(header: Bool)
    case tableCell
    case footnoteDefinition(label: String)
    /// Literal: the text.
    case text
    case softBreak
    case lineBreak
    /// Literal: the code span content.
    case code
    /// Literal: the raw HTML.
    case htmlInline
    case emphasis
    case strong
    case strikethrough
    case link(destination: String, title: String = "")
    case image(destination: String, title: String = "")
    case footnoteReference(label: String)

    public var kind: MarkdownNodeKind {
        switch self {
        case .document: return .document
        case .blockQuote: return .blockQuote
        case .list: return .list
        case .item: return .item
        case .codeBlock: return .codeBlock
        case .htmlBlock: return .htmlBlock
        case .paragraph: return .paragraph
        case .heading: return .heading
        case .thematicBreak: return .thematicBreak
        case .table: return .table
        case .tableRow: return .tableRow
        case .tableCell: return .tableCell
        case .footnoteDefinition: return .footnoteDefinition
        case .text: return .text
        case .softBreak: return .softBreak
        case .lineBreak: return .lineBreak
        case .code: return .code
        case .htmlInline: return .htmlInline
        case .emphasis: return .emphasis
        case .strong: return .strong
        case .strikethrough: return .strikethrough
        case .link: return .link
        case .image: return .image
        case .footnoteReference: return .footnoteReference
        }
    }
}

/// One node record of the arena. Internal layout; use `MarkdownDocument`'s accessors.
@usableFromInline
package struct MarkdownNodeRecord: Sendable {
    @usableFromInline var kind: MarkdownNodeKind
    /// Bit flags: see `Flag`.
    @usableFromInline var flags: UInt8
    /// heading level; code fence char; list delimiter; item task state (0 none, 1 unchecked, 2 checked).
    @usableFromInline var a: UInt8
    /// code fence length; list type; bullet char.
    @usableFromInline var b: UInt8
    @usableFromInline var parent: Int32
    @usableFromInline var firstChild: Int32
    @usableFromInline var lastChild: Int32
    @usableFromInline var next: Int32
    @usableFromInline var prev: Int32
    @usableFromInline var startLine: Int32
    @usableFromInline var startColumn: Int32
    @usableFromInline var endLine: Int32
    @usableFromInline var endColumn: Int32
    /// Literal byte range in `MarkdownDocument.bytes`.
    @usableFromInline var literalStart: Int32
    @usableFromInline var literalCount: Int32
    /// List start number, or index into `extras` (links, images, code info, table alignments).
    @usableFromInline var extra: Int32

    @usableFromInline enum Flag {
        @usableFromInline static let open: UInt8 = 1
        @usableFromInline static let lastLineBlank: UInt8 = 2
        /// tight list / fenced code block / setext heading / header row
        @usableFromInline static let variant: UInt8 = 4
        @usableFromInline static let lastLineChecked: UInt8 = 8
        /// An ordered list's ``MarkdownListStyle``, in bits 4–6.
        @usableFromInline static let listStyleShift: UInt8 = 4
        @usableFromInline static let listStyleMask: UInt8 = 0x70
        /// The literal is a range of the parser's input, not of `bytes` (leaves of the direct path to HTML
        /// only; never in a `MarkdownDocument`).
        @usableFromInline static let literalInInput: UInt8 = 0x80
    }

    @inlinable
    init(kind: MarkdownNodeKind, parent: Int32) {
        self.kind = kind
        self.flags = 0
        self.a = 0
        self.b = 0
        self.parent = parent
        self.firstChild = -1
        self.lastChild = -1
        self.next = -1
        self.prev = -1
        self.startLine = 0
        self.startColumn = 0
        self.endLine = 0
        self.endColumn = 0
        self.literalStart = 0
        self.literalCount = 0
        self.extra = -1
    }
}

/// Two byte ranges in `MarkdownDocument.bytes` (link destination + title; code info; table alignments).
@usableFromInline
struct MarkdownExtra: Sendable {
    @usableFromInline var aStart: Int32
    @usableFromInline var aCount: Int32
    @usableFromInline var bStart: Int32
    @usableFromInline var bCount: Int32
    @inlinable init(aStart: Int32, aCount: Int32, bStart: Int32 = 0, bCount: Int32 = 0) {
        self.aStart = aStart
        self.aCount = aCount
        self.bStart = bStart
        self.bCount = bCount
    }
}

/// A parsed (or built) Markdown document: an immutable-by-API tree of nodes.
///
/// Traversal:
/// ```swift
/// let doc = MarkdownParser.parse(bytes, options: .gfm)
/// for child in doc.children(of: doc.root) { print(doc.kind(child)) }
/// doc.walk { event in
///     switch (event.phase, event.kind) {
///     case (.enter, .heading): print("h\(doc.headingLevel(event.node))")
///     case (.enter, .text): print(doc.literal(event.node))
///     default: break
///     }
///     return .continue
/// }
/// print(doc.debugDump())
/// ```
public struct MarkdownDocument: Sendable {
    /// Identifies a node within its document (an index into the arena).
    public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        @inlinable public init(rawValue: Int32) { self.rawValue = rawValue }
        @inlinable public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
        public var description: String { "#\(rawValue)" }
    }

    @usableFromInline package var nodes: [MarkdownNodeRecord]
    /// UTF-8 storage for all literals.
    @usableFromInline package var bytes: [UInt8]
    @usableFromInline var extras: [MarkdownExtra]

    @usableFromInline
    init(nodes: [MarkdownNodeRecord], bytes: [UInt8], extras: [MarkdownExtra]) {
        self.nodes = nodes
        self.bytes = bytes
        self.extras = extras
    }

    /// An empty document (just the root).
    public init() {
        self.init(nodes: [MarkdownNodeRecord(kind: .document, parent: -1)], bytes: [], extras: [])
    }

    /// The document node.
    @inlinable public var root: NodeID { NodeID(rawValue: 0) }
    /// Number of nodes in the arena (including the root).
    @inlinable public var nodeCount: Int { nodes.count }

    @inlinable func id(_ raw: Int32) -> NodeID? { raw < 0 ? nil : NodeID(rawValue: raw) }

    // MARK: Structure

    @inlinable public func kind(_ node: NodeID) -> MarkdownNodeKind { nodes[Int(node.rawValue)].kind }
    @inlinable public func parent(_ node: NodeID) -> NodeID? { id(nodes[Int(node.rawValue)].parent) }
    @inlinable public func firstChild(_ node: NodeID) -> NodeID? { id(nodes[Int(node.rawValue)].firstChild) }
    @inlinable public func lastChild(_ node: NodeID) -> NodeID? { id(nodes[Int(node.rawValue)].lastChild) }
    @inlinable public func nextSibling(_ node: NodeID) -> NodeID? { id(nodes[Int(node.rawValue)].next) }
    @inlinable public func previousSibling(_ node: NodeID) -> NodeID? { id(nodes[Int(node.rawValue)].prev) }

    /// The children of `node`, in order.
    @inlinable public func children(of node: NodeID) -> Children { Children(nodes: nodes, first: nodes[Int(node.rawValue)].firstChild) }

    /// A sequence over a node's children.
    public struct Children: Sequence, Sendable {
        @usableFromInline let nodes: [MarkdownNodeRecord]
        @usableFromInline let first: Int32
        @inlinable init(nodes: [MarkdownNodeRecord], first: Int32) {
            self.nodes = nodes
            self.first = first
        }
        public struct Iterator: IteratorProtocol {
            @usableFromInline let nodes: [MarkdownNodeRecord]
            @usableFromInline var current: Int32
            @inlinable init(nodes: [MarkdownNodeRecord], current: Int32) {
                self.nodes = nodes
                self.current = current
            }
            @inlinable public mutating func next() -> NodeID? {
                guard current >= 0 else { return nil }
                let n = NodeID(rawValue: current)
                current = nodes[Int(current)].next
                return n
            }
        }
        @inlinable public func makeIterator() -> Iterator { Iterator(nodes: nodes, current: first) }
    }

    // MARK: Attributes

    @inlinable func string(_ start: Int32, _ count: Int32) -> String {
        if count == 0 { return "" }
        return String(decoding: bytes[Int(start)..<Int(start + count)], as: UTF8.self)
    }

    /// The literal of a text, code, html, code block or html block node (empty for others);
    /// the label of footnote definitions and references.
    public func literal(_ node: NodeID) -> String {
        let r = nodes[Int(node.rawValue)]
        return string(r.literalStart, r.literalCount)
    }

    /// The literal as UTF-8 bytes (no copy of the storage).
    @inlinable public func literalBytes(_ node: NodeID) -> ArraySlice<UInt8> {
        let r = nodes[Int(node.rawValue)]
        return bytes[Int(r.literalStart)..<Int(r.literalStart + r.literalCount)]
    }

    /// Heading level 1...6 (0 for other nodes).
    @inlinable public func headingLevel(_ node: NodeID) -> Int {
        let r = nodes[Int(node.rawValue)]
        return r.kind == .heading ? Int(r.a) : 0
    }
    /// True for a setext heading.
    @inlinable public func isSetextHeading(_ node: NodeID) -> Bool {
        let r = nodes[Int(node.rawValue)]
        return r.kind == .heading && r.flags & MarkdownNodeRecord.Flag.variant != 0
    }

    /// List attributes (type, start, delimiter, bullet, tight).
    public func listAttributes(_ node: NodeID) -> MarkdownListAttributes {
        let r = nodes[Int(node.rawValue)]
        let type: MarkdownListType = r.a == 0 ? .bullet : .ordered
        return MarkdownListAttributes(
            type: type, start: type == .ordered ? Int(r.extra) : 0,
            delimiter: type == .ordered ? (r.b == UInt8(ascii: ")") ? .paren : .period) : .none,
            bulletChar: type == .bullet ? r.b : 0,
            tight: r.flags & MarkdownNodeRecord.Flag.variant != 0,
            style: MarkdownListStyle(
                rawValue: (r.flags & MarkdownNodeRecord.Flag.listStyleMask) >> MarkdownNodeRecord.Flag.listStyleShift) ?? .decimal)
    }
    /// True for a tight list (or an item/paragraph inside one is rendered without `<p>`).
    @inlinable public func isTightList(_ node: NodeID) -> Bool {
        let r = nodes[Int(node.rawValue)]
        return r.kind == .list && r.flags & MarkdownNodeRecord.Flag.variant != 0
    }

    /// GFM task state of a list item (nil: not a task item).
    @inlinable public func taskState(_ node: NodeID) -> MarkdownTaskState? {
        let r = nodes[Int(node.rawValue)]
        guard r.kind == .item, r.a != 0 else { return nil }
        return r.a == 2 ? .checked : .unchecked
    }

    /// Whether a code block is fenced (false: indented).
    @inlinable public func isFencedCodeBlock(_ node: NodeID) -> Bool {
        let r = nodes[Int(node.rawValue)]
        return r.kind == .codeBlock && r.flags & MarkdownNodeRecord.Flag.variant != 0
    }
    /// The fence character (` or ~) and fence length of a fenced code block.
    public func codeFence(_ node: NodeID) -> (character: UInt8, length: Int)? {
        let r = nodes[Int(node.rawValue)]
        guard r.kind == .codeBlock, r.flags & MarkdownNodeRecord.Flag.variant != 0 else { return nil }
        return (r.a, Int(r.b))
    }
    /// The info string of a fenced code block ("" if none).
    public func codeInfo(_ node: NodeID) -> String {
        let r = nodes[Int(node.rawValue)]
        guard r.kind == .codeBlock, r.extra >= 0 else { return "" }
        let e = extras[Int(r.extra)]
        return string(e.aStart, e.aCount)
    }
    @inlinable package func codeInfoBytes(_ node: NodeID) -> ArraySlice<UInt8> {
        let r = nodes[Int(node.rawValue)]
        guard r.kind == .codeBlock, r.extra >= 0 else { return [] }
        let e = extras[Int(r.extra)]
        return bytes[Int(e.aStart)..<Int(e.aStart + e.aCount)]
    }

    /// Link or image destination (URL), as written (after entity and escape decoding).
    public func destination(_ node: NodeID) -> String {
        let r = nodes[Int(node.rawValue)]
        guard r.kind == .link || r.kind == .image, r.extra >= 0 else { return "" }
        let e = extras[Int(r.extra)]
        return string(e.aStart, e.aCount)
    }
    /// Link or image title ("" if none).
    public func title(_ node: NodeID) -> String {
        let r = nodes[Int(node.rawValue)]
        guard r.kind == .link || r.kind == .image, r.extra >= 0 else { return "" }
        let e = extras[Int(r.extra)]
        return string(e.bStart, e.bCount)
    }
    @inlinable func destinationBytes(_ node: NodeID) -> ArraySlice<UInt8> {
        let r = nodes[Int(node.rawValue)]
        guard r.extra >= 0 else { return [] }
        let e = extras[Int(r.extra)]
        return bytes[Int(e.aStart)..<Int(e.aStart + e.aCount)]
    }
    @inlinable func titleBytes(_ node: NodeID) -> ArraySlice<UInt8> {
        let r = nodes[Int(node.rawValue)]
        guard r.extra >= 0 else { return [] }
        let e = extras[Int(r.extra)]
        return bytes[Int(e.bStart)..<Int(e.bStart + e.bCount)]
    }

    /// Label of a footnote definition or reference.
    public func label(_ node: NodeID) -> String {
        let r = nodes[Int(node.rawValue)]
        guard r.kind == .footnoteDefinition || r.kind == .footnoteReference else { return "" }
        return string(r.literalStart, r.literalCount)
    }

    /// Column alignments of a table (one per column).
    public func tableAlignments(_ node: NodeID) -> [MarkdownTableAlignment] {
        let r = nodes[Int(node.rawValue)]
        guard r.kind == .table, r.extra >= 0 else { return [] }
        let e = extras[Int(r.extra)]
        return bytes[Int(e.aStart)..<Int(e.aStart + e.aCount)].map { MarkdownTableAlignment(rawValue: $0) ?? .none }
    }
    /// True for the header row of a table.
    @inlinable public func isTableHeaderRow(_ node: NodeID) -> Bool {
        let r = nodes[Int(node.rawValue)]
        return r.kind == .tableRow && r.flags & MarkdownNodeRecord.Flag.variant != 0
    }

    /// Source range of a node (line 0 when unknown).
    @inlinable public func sourceRange(_ node: NodeID) -> MarkdownSourceRange {
        let r = nodes[Int(node.rawValue)]
        return MarkdownSourceRange(
            start: .init(line: Int(r.startLine), column: Int(r.startColumn)),
            end: .init(line: Int(r.endLine), column: Int(r.endColumn)))
    }

    /// The node's kind and attributes as one value.
    public func element(_ node: NodeID) -> MarkdownElement {
        let r = nodes[Int(node.rawValue)]
        switch r.kind {
        case .document: return .document
        case .blockQuote: return .blockQuote
        case .list: return .list(listAttributes(node))
        case .item: return .item(task: taskState(node))
        case .codeBlock: return .codeBlock(info: codeInfo(node), fenced: isFencedCodeBlock(node))
        case .htmlBlock: return .htmlBlock
        case .paragraph: return .paragraph
        case .heading: return .heading(level: Int(r.a), setext: isSetextHeading(node))
        case .thematicBreak: return .thematicBreak
        case .table: return .table(alignments: tableAlignments(node))
        case .tableRow: return .tableRow(header: isTableHeaderRow(node))
        case .tableCell: return .tableCell
        case .footnoteDefinition: return .footnoteDefinition(label: label(node))
        case .text: return .text
        case .softBreak: return .softBreak
        case .lineBreak: return .lineBreak
        case .code: return .code
        case .htmlInline: return .htmlInline
        case .emphasis: return .emphasis
        case .strong: return .strong
        case .strikethrough: return .strikethrough
        case .link: return .link(destination: destination(node), title: title(node))
        case .image: return .image(destination: destination(node), title: title(node))
        case .footnoteReference: return .footnoteReference(label: label(node))
        }
    }

    // MARK: Walking

    /// An event of a depth-first walk. Containers get `.enter` then `.exit`;
    /// leaf nodes (`MarkdownNodeKind.isLeaf`) get only `.enter`, as in cmark's iterator.
    public struct WalkEvent: Sendable, Equatable {
        public enum Phase: Sendable { case enter, exit }
        public var phase: Phase
        public var node: NodeID
        public var kind: MarkdownNodeKind
    }
    /// What to do after an event.
    public enum WalkAction: Sendable {
        /// Go on (into the children on `.enter`).
        case `continue`
        /// On `.enter` of a container: skip its children and its `.exit` event.
        case skipChildren
        /// End the walk.
        case stop
    }

    /// Depth-first walk of the subtree at `start` (default: the whole document). No recursion.
    public func walk(from start: NodeID? = nil, _ visit: (WalkEvent) throws -> WalkAction) rethrows {
        let startIndex = start?.rawValue ?? 0
        try nodes.withUnsafeBufferPointer { nodes in
            var current = startIndex
            var entering = true
            while true {
                let r = nodes[Int(current)]
                let leaf = r.kind.isLeaf
                let action = try visit(WalkEvent(phase: entering ? .enter : .exit, node: NodeID(rawValue: current), kind: r.kind))
                if case .stop = action { return }
                if entering && !leaf && r.firstChild >= 0, case .continue = action {
                    current = r.firstChild
                    continue
                }
                if entering && !leaf, case .continue = action {
                    // Empty container: report its exit next.
                    entering = false
                    continue
                }
                // Leaving `current` (leaf, exit event, or skipped container).
                if current == startIndex { return }
                if r.next >= 0 {
                    current = r.next
                    entering = true
                } else {
                    current = r.parent
                    entering = false
                    if current < 0 { return }
                }
            }
        }
    }

    /// The walk as a sequence of events (enter/exit), like cmark's iterator.
    public var events: Events { Events(nodes: nodes, start: 0) }
    /// Walk events of the subtree at `node`.
    public func events(from node: NodeID) -> Events { Events(nodes: nodes, start: node.rawValue) }

    public struct Events: Sequence, Sendable {
        @usableFromInline let nodes: [MarkdownNodeRecord]
        @usableFromInline let start: Int32
        public struct Iterator: IteratorProtocol {
            @usableFromInline let nodes: [MarkdownNodeRecord]
            @usableFromInline let start: Int32
            @usableFromInline var current: Int32
            @usableFromInline var entering: Bool
            @usableFromInline var done = false

            public mutating func next() -> WalkEvent? {
                if done { return nil }
                let r = nodes[Int(current)]
                let event = WalkEvent(phase: entering ? .enter : .exit, node: NodeID(rawValue: current), kind: r.kind)
                if entering && !r.kind.isLeaf {
                    if r.firstChild >= 0 { current = r.firstChild } else { entering = false }
                } else if current == start {
                    done = true
                } else if r.next >= 0 {
                    current = r.next
                    entering = true
                } else {
                    current = r.parent
                    entering = false
                }
                return event
            }
        }
        public func makeIterator() -> Iterator {
            Iterator(nodes: nodes, start: start, current: start, entering: true)
        }
    }
}

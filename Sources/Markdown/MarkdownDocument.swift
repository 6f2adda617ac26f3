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

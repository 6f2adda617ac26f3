#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MarkdownDocument {
    /// Builds a document programmatically (for HTML/RTF readers and tests).
    ///
    /// ```swift
    /// var b = MarkdownDocument.Builder()
    /// b.open(.heading(level: 2))
    /// b.appendText("Hi")
    /// b.close()
    /// b.open(.paragraph)
    /// b.appendText("a ")
    /// b.appendText("b")            // merged into one text node "a b"
    /// b.append(.code, literal: "x")
    /// b.close()
    /// let doc = b.finish()
    /// ```
    /// `open` starts a container (any element; leaf kinds may be opened too and get a
    /// literal from `appendLiteral`), `close` ends the innermost open one, `append` adds a
    /// complete node, `finish` closes everything still open and returns the document.
    /// The builder never traps on misuse: `close` on the root is ignored.
    public struct Builder: Sendable {
        @usableFromInline package var doc: MarkdownDocument
        @usableFromInline var stack: [Int32] = [0]

        public init() {
            doc = MarkdownDocument()
        }

        /// Number of open nodes (the root counts as 1).
        public var depth: Int { stack.count }
        /// The innermost open node.
        public var current: NodeID { NodeID(rawValue: stack[stack.count - 1]) }

        /// Opens a container node as the last child of the current node. Returns its id.
        @discardableResult
        public mutating func open(_ element: MarkdownElement, at range: MarkdownSourceRange? = nil) -> NodeID {
            let id = add(element, literal: nil, range: range)
            stack.append(id.rawValue)
            return id
        }

        /// Closes the innermost open node (no-op on the root).
        public mutating func close() {
            if stack.count > 1 { stack.removeLast() }
        }

        /// Appends a complete node (typically a leaf) with an optional literal.
        @discardableResult
        public mutating func append(_ element: MarkdownElement, literal: String? = nil, at range: MarkdownSourceRange? = nil)
            -> NodeID
        {
            add(element, literal: literal, range: range)
        }

        /// Appends text, merging with a preceding text node when there is one.
        public mutating func appendText(_ text: String) {
            var t = text
            t.withUTF8 { appendTextBytes($0) }
        }

        /// Appends UTF-8 text bytes, merging with a preceding text node.
        public mutating func appendTextBytes(_ text: UnsafeBufferPointer<UInt8>) {
            if text.isEmpty { return }
            let parent = stack[stack.count - 1]
            let last = doc.nodes[Int(parent)].lastChild
            if last >= 0 && doc.nodes[Int(last)].kind == .text
                && Int(doc.nodes[Int(last)].literalStart + doc.nodes[Int(last)].literalCount) == doc.bytes.count
            {
                doc.bytes.append(contentsOf: text)
                doc.nodes[Int(last)].literalCount += Int32(text.count)
                return
            }
            let start = Int32(doc.bytes.count)
            doc.bytes.append(contentsOf: text)
            let id = add(.text, literal: nil, range: nil)
            doc.nodes[Int(id.rawValue)].literalStart = start
            doc.nodes[Int(id.rawValue)].literalCount = Int32(text.count)
        }

        /// Sets (replaces) the literal of the innermost open node (e.g. an opened code block).
        public mutating func appendLiteral(_ literal: String) {
            let id = Int(stack[stack.count - 1])
            var s = literal
            let start = Int32(doc.bytes.count)
            s.withUTF8 { doc.bytes.append(contentsOf: $0) }
            if doc.nodes[id].literalCount > 0
                && Int(doc.nodes[id].literalStart + doc.nodes[id].literalCount) == Int(start)
            {
                doc.nodes[id].literalCount += Int32(doc.bytes.count) - start
            } else {
                let old = doc.string(doc.nodes[id].literalStart, doc.nodes[id].literalCount)
                if !old.isEmpty {
                    doc.bytes.removeLast(doc.bytes.count - Int(start))
                    var all = old + literal
                    let s2 = Int32(doc.bytes.count)
                    all.withUTF8 { doc.bytes.append(contentsOf: $0) }
                    doc.nodes[id].literalStart = s2
                    doc.nodes[id].literalCount = Int32(doc.bytes.count) - s2
                } else {
                    doc.nodes[id].literalStart = start
                    doc.nodes[id].literalCount = Int32(doc.bytes.count) - start
                }
            }
        }

        public mutating func appendSoftBreak() { add(.softBreak, literal: nil, range: nil) }
        public mutating func appendLineBreak() { add(.lineBreak, literal: nil, range: nil) }

        /// Closes all open nodes and returns the document.
        public mutating func finish() -> MarkdownDocument {
            stack = [0]
            return doc
        }

        @usableFromInline
        mutating func storeString(_ s: String) -> (Int32, Int32) {
            var s = s
            let start = Int32(doc.bytes.count)
            s.withUTF8 { doc.bytes.append(contentsOf: $0) }
            return (start, Int32(doc.bytes.count) - start)
        }

        @discardableResult
        @usableFromInline
        mutating func add(_ element: MarkdownElement, literal: String?, range: MarkdownSourceRange?) -> NodeID {
            let parent = stack[stack.count - 1]
            let index = Int32(doc.nodes.count)
            var r = MarkdownNodeRecord(kind: element.kind, parent: parent)
            switch element {
            case .list(let attrs):
                r.a = attrs.type == .bullet ? 0 : 1
                r.b = attrs.type == .bullet ? attrs.bulletChar : (attrs.delimiter == .paren ? UInt8(ascii: ")") : UInt8(ascii: "."))
                r.extra = Int32(truncatingIfNeeded: attrs.start)
                if attrs.tight { r.flags |= MarkdownNodeRecord.Flag.variant }
                r.flags |= (attrs.style.rawValue << MarkdownNodeRecord.Flag.listStyleShift) & MarkdownNodeRecord.Flag.listStyleMask
            case .item(let task):
                r.a = task == nil ? 0 : (task == .checked ? 2 : 1)
            case .codeBlock(let info, let fenced):
                if fenced {
                    r.flags |= MarkdownNodeRecord.Flag.variant
                    r.a = UInt8(ascii: "`")
                    r.b = 3
                }
                let (s, c) = storeString(info)
                r.extra = Int32(doc.extras.count)
                doc.extras.append(MarkdownExtra(aStart: s, aCount: c))
            case .heading(let level, let setext):
                r.a = UInt8(clamping: max(1, min(6, level)))
                if setext { r.flags |= MarkdownNodeRecord.Flag.variant }
            case .table(let alignments):
                let start = Int32(doc.bytes.count)
                doc.bytes.append(contentsOf: alignments.map(\.rawValue))
                r.extra = Int32(doc.extras.count)
                doc.extras.append(MarkdownExtra(aStart: start, aCount: Int32(alignments.count)))
            case .tableRow(let header):
                if header { r.flags |= MarkdownNodeRecord.Flag.variant }
            case .footnoteDefinition(let label), .footnoteReference(let label):
                (r.literalStart, r.literalCount) = storeString(label)
            case .link(let destination, let title), .image(let destination, let title):
                let (ds, dc) = storeString(destination)
                let (ts, tc) = storeString(title)
                r.extra = Int32(doc.extras.count)
                doc.extras.append(MarkdownExtra(aStart: ds, aCount: dc, bStart: ts, bCount: tc))
            default:
                break
            }
            if let literal {
                (r.literalStart, r.literalCount) = storeString(literal)
            }
            if let range {
                r.startLine = Int32(truncatingIfNeeded: range.start.line)
                r.startColumn = Int32(truncatingIfNeeded: range.start.column)
                r.endLine = Int32(truncatingIfNeeded: range.end.line)
                r.endColumn = Int32(truncatingIfNeeded: range.end.column)
            }
            let last = doc.nodes[Int(parent)].lastChild
            r.prev = last
            doc.nodes.append(r)
            if last >= 0 {
                doc.nodes[Int(last)].next = index
            } else {
                doc.nodes[Int(parent)].firstChild = index
            }
            doc.nodes[Int(parent)].lastChild = index
            return NodeID(rawValue: index)
        }
    }
}

/// The block walk shared by both paths, and the `InlineSink` of the direct one.
struct HTMLRenderer: InlineSink, ~Copyable {
    let nodes: UnsafeBufferPointer<MarkdownNodeRecord>
    let bytes: MDBytes
    let extras: UnsafeBufferPointer<MarkdownExtra>
    /// The parser's input, which leaves of the direct path may refer to (`Flag.literalInInput`).
    var input = MDBytes(start: nil, count: 0)
    var output: HTMLOutput
    var options: MarkdownOptions { output.options }

    /// footnote definition node -> number (1-based), in order of first reference.
    var footnoteNumber: [Int32: Int] = [:]
    var footnoteOrder: [Int32] = []
    /// Definition -> its references so far; once the main pass is over, all of them (cmark-gfm counts every
    /// reference, those inside definitions included, before writing any definition).
    var footnoteRefCount: [Int32: Int] = [:]
    /// A reference written out of document order (inside a definition, written at the end) -> its index
    /// among its definition's references in document order: keyed by node on the tree path, by leaf record
    /// and offset in the leaf on the direct path (`referenceKey`).
    var referenceIndex: [Int64: Int] = [:]
    /// The record of the leaf whose inlines are being parsed (the direct path).
    var currentLeaf: Int32 = 0
    /// Label -> first definition (the tree path; the inline parser resolves references itself).
    var footnoteByLabel = LabelMap<Int32>()
    var labelScratch: [UInt8] = []
    /// Number footnote references without writing anything (definitions met in the main pass).
    var countingOnly = false

    /// The direct path's blocks, packed (`BlockRecords`; empty for the tree path).
    var records = MDBytes(start: nil, count: 0)
    /// Where each footnote definition's records start (found by the main pass).
    var definitionPositions: [Int32: BlockRecords.Position] = [:]
    /// The containers open in the walk, innermost last.
    var open: [OpenBlock] = []
    var tableHeaderOpen = false
    var tableBodyOpen = false
    var cellIndex = 0

    /// Image alt text: nesting depth of images being written as plain text; the titles of the open ones.
    var plainDepth = 0
    var titles: [UInt8] = []
    var titleStarts: [Int] = []

    init(
        nodes: UnsafeBufferPointer<MarkdownNodeRecord>, bytes: MDBytes, extras: UnsafeBufferPointer<MarkdownExtra>,
        output: consuming HTMLOutput
    ) {
        self.nodes = nodes
        self.bytes = bytes
        self.extras = extras
        self.output = output
    }

    @inline(__always) func storage(_ start: Int32, _ count: Int32) -> MDBytes {
        MDBytes(rebasing: bytes[Int(start)..<Int(start + count)])
    }

    /// A leaf's literal: in the storage, or in the input.
    @inline(__always) func literal(_ r: BlockRecord) -> MDBytes {
        let range = Int(r.literalStart)..<Int(r.literalStart + r.literalCount)
        return MDBytes(rebasing: r.flags & MarkdownNodeRecord.Flag.literalInInput != 0 ? input[range] : bytes[range])
    }

    // MARK: Footnotes

    /// The tree path: number definitions by first reference in document order before writing.
    mutating func prepareFootnotes() {
        var hasAny = false
        for i in 0..<nodes.count where nodes[i].kind == .footnoteDefinition {
            let r = nodes[i]
            MD.normalizeLabel(bytes, Int(r.literalStart), Int(r.literalStart + r.literalCount), into: &labelScratch)
            let label = labelScratch
            label.withUnsafeBufferPointer { _ = footnoteByLabel.insertIfAbsent($0, Int32(i)) }
            hasAny = true
        }
        guard hasAny else { return }
        var current: Int32 = 0
        var entering = true
        while true {
            let r = nodes[Int(current)]
            if entering && r.kind == .footnoteReference, let def = definition(of: current) {
                number(def)
                let count = (footnoteRefCount[def] ?? 0) + 1
                footnoteRefCount[def] = count
                referenceIndex[Int64(current)] = count
            }
            if entering && !r.kind.isLeaf && r.firstChild >= 0 {
                current = r.firstChild
                continue
            }
            if current == 0 { return }
            if r.next >= 0 {
                current = r.next
                entering = true
            } else {
                current = r.parent
                entering = false
                if current == 0 { return }
            }
        }
    }

    mutating func definition(of reference: Int32) -> Int32? {
        let r = nodes[Int(reference)]
        MD.normalizeLabel(bytes, Int(r.literalStart), Int(r.literalStart + r.literalCount), into: &labelScratch)
        let label = labelScratch
        return label.withUnsafeBufferPointer { footnoteByLabel.value($0) }
    }

    mutating func number(_ def: Int32) {
        if footnoteNumber[def] == nil {
            footnoteOrder.append(def)
            footnoteNumber[def] = footnoteOrder.count
        }
    }

    // MARK: Walk

    /// Writes the document: the tree's nodes, or (the direct path, with an inline parser) the block
    /// records, each leaf's content going through the inline parser as it is written.
    mutating func run(inline: inout InlineParser?) {
        if inline == nil {
            prepareFootnotes()
            renderTree(0, skipFootnoteDefinitions: true)
        } else {
            var reader = BlockRecordReader(records)
            renderRecords(&reader, depth: 0, skipFootnoteDefinitions: true, inline: &inline)
        }
        if !footnoteOrder.isEmpty {
            output.cr()
            output.lit("<section class=\"footnotes\" data-footnotes>\n<ol>\n")
            var i = 0
            while i < footnoteOrder.count {
                let def = footnoteOrder[i]
                // Definitions nested in this one are not part of it: each is written on its own (cmark-gfm
                // moves every definition to the end, out of the one it was in).
                if inline == nil {
                    renderTree(def, skipFootnoteDefinitions: true)
                } else if let position = definitionPositions[def] {
                    var reader = BlockRecordReader(records, at: position)
                    let depth = reader.peekDepth() ?? 0
                    renderRecords(&reader, depth: depth - 1, skipFootnoteDefinitions: true, inline: &inline, single: true)
                }
                i += 1
            }
            output.lit("</ol>\n</section>\n")
        }
        output.flush()
    }

    /// The label of footnote definition `def` (a node, or a record on the direct path).
    func definitionLabel(_ def: Int32) -> MDBytes {
        if records.isEmpty {
            let d = nodes[Int(def)]
            return storage(d.literalStart, d.literalCount)
        }
        var reader = BlockRecordReader(records, at: BlockRecords.Position(offset: Int(def)))
        let d = reader.next()
        return storage(d.literalStart, d.literalCount)
    }

    // MARK: Blocks

    /// An open container: what writing its content asks of it.
    struct OpenBlock {
        var kind: MarkdownNodeKind
        var flags: UInt8
        var extra: Int32
        var depth: Int32
        /// Its id (node or record), for footnote definitions.
        var id: Int32
        /// The kind of its last child written so far.
        var lastChild: MarkdownNodeKind? = nil
        /// The block itself (the records' walk ends it from here).
        var record: BlockRecord? = nil
        /// The nesting levels it stands for (a run of block quotes; 1 for anything else).
        var levels: Int32 = 1
    }

    /// A block starts: its start tag, and for the direct path a leaf's whole content.
    mutating func enterBlock(_ r: BlockRecord, id: Int32, inline: inout InlineParser?) {
        switch r.kind {
        case .document: break
        case .blockQuote:
            for _ in 0..<max(1, r.literalCount) {
                output.cr()
                output.lit("<blockquote>\n")
                output.flushIfNeeded()
            }
        case .list:
            output.cr()
            if r.a == 1 {
                // A letter or roman style from rich text (never from Markdown): `type`.
                let style = (r.flags & MarkdownNodeRecord.Flag.listStyleMask) >> MarkdownNodeRecord.Flag.listStyleShift
                if r.extra != 1 {
                    output.lit("<ol start=\"")
                    output.number(Int(r.extra))
                    output.lit("\"")
                } else {
                    output.lit("<ol")
                }
                if style != 0 {
                    output.lit(" type=\"")
                    output.out.append(contentsOf: (MarkdownListStyle(rawValue: style)?.htmlType ?? "1").utf8)
                    output.lit("\"")
                }
                output.lit(">\n")
            } else {
                output.lit("<ul>\n")
            }
        case .item:
            output.cr()
            output.lit("<li>")
            if r.a == 1 {
                output.lit("<input type=\"checkbox\" disabled=\"\" /> ")
            } else if r.a == 2 {
                output.lit("<input type=\"checkbox\" checked=\"\" disabled=\"\" /> ")
            }
        case .heading:
            output.cr()
            output.lit("<h")
            output.byte(UInt8(ascii: "0") + r.a)
            output.byte(UInt8(ascii: ">"))
            renderInlines(r, &inline)
        case .codeBlock:
            output.cr()
            let info = r.extra >= 0 ? storage(extras[Int(r.extra)].aStart, extras[Int(r.extra)].aCount) : MDBytes(start: nil, count: 0)
            if info.isEmpty {
                output.lit("<pre><code>")
            } else {
                var e = 0
                while e < info.count && !MD.isSpace(info[e]) { e += 1 }
                output.lit("<pre><code class=\"language-")
                output.escape(MDBytes(rebasing: info[0..<e]))
                output.lit("\">")
            }
            output.escape(literal(r))
            output.lit("</code></pre>\n")
        case .htmlBlock:
            output.cr()
            output.raw(literal(r))
            output.cr()
        case .paragraph:
            if !isTightParagraph() {
                output.cr()
                output.lit("<p>")
            }
            renderInlines(r, &inline)
        case .thematicBreak:
            output.cr()
            output.lit("<hr />\n")
        case .table:
            output.cr()
            output.lit("<table>\n")
            tableHeaderOpen = false
            tableBodyOpen = false
        case .tableRow:
            if r.flags & MarkdownNodeRecord.Flag.variant != 0 {
                output.cr()
                output.lit("<thead>\n")
                tableHeaderOpen = true
            } else if !tableBodyOpen {
                if tableHeaderOpen {
                    output.cr()
                    output.lit("</thead>\n")
                    tableHeaderOpen = false
                }
                output.cr()
                output.lit("<tbody>\n")
                tableBodyOpen = true
            }
            output.cr()
            output.lit("<tr>\n")
            cellIndex = 0
        case .tableCell:
            let header = open.count >= 1 && open[open.count - 1].flags & MarkdownNodeRecord.Flag.variant != 0
            output.cr()
            if header { output.lit("<th") } else { output.lit("<td") }
            let col = cellIndex
            cellIndex += 1
            if open.count >= 2, open[open.count - 2].extra >= 0 {
                let e = extras[Int(open[open.count - 2].extra)]
                if col < Int(e.aCount) {
                    switch bytes[Int(e.aStart) + col] {
                    case 1: output.lit(" align=\"left\"")
                    case 2: output.lit(" align=\"center\"")
                    case 3: output.lit(" align=\"right\"")
                    default: break
                    }
                }
            }
            output.byte(UInt8(ascii: ">"))
            renderInlines(r, &inline)
        case .footnoteDefinition:
            output.cr()
            output.lit("<li id=\"fn-")
            output.escapeHref(storage(r.literalStart, r.literalCount))
            output.lit("\">\n")
        default:
            break
        }
        if Self.isContainer(r.kind) {
            open.append(
                OpenBlock(
                    kind: r.kind, flags: r.flags, extra: r.extra, depth: r.depth, id: id, record: r,
                    levels: r.kind == .blockQuote ? max(1, r.literalCount) : 1))
        }
    }

    /// A block ends: its end tag (a container leaves `open`). `isLastChild`: nothing follows it in its parent.
    mutating func exitBlock(_ r: BlockRecord, isLastChild: Bool) {
        if Self.isContainer(r.kind) { open.removeLast() }
        switch r.kind {
        case .blockQuote:
            for _ in 0..<max(1, r.literalCount) {
                output.cr()
                output.lit("</blockquote>\n")
                output.flushIfNeeded()
            }
        case .list:
            output.cr()
            if r.a == 1 { output.lit("</ol>\n") } else { output.lit("</ul>\n") }
        case .item:
            output.lit("</li>\n")
        case .heading:
            output.lit("</h")
            output.byte(UInt8(ascii: "0") + r.a)
            output.lit(">\n")
        case .paragraph:
            if isLastChild, let parent = open.last, parent.kind == .footnoteDefinition {
                renderBackrefs(parent.id, leading: true)
            }
            if !isTightParagraph() {
                output.lit("</p>\n")
            }
        case .table:
            if tableHeaderOpen {
                output.cr()
                output.lit("</thead>\n")
                tableHeaderOpen = false
            }
            if tableBodyOpen {
                output.cr()
                output.lit("</tbody>\n")
                tableBodyOpen = false
            }
            output.cr()
            output.lit("</table>\n")
        case .tableRow:
            output.cr()
            output.lit("</tr>\n")
            if r.flags & MarkdownNodeRecord.Flag.variant != 0 {
                output.cr()
                output.lit("</thead>\n")
                tableHeaderOpen = false
            }
        case .tableCell:
            let header = open.count >= 1 && open[open.count - 1].flags & MarkdownNodeRecord.Flag.variant != 0
            if header { output.lit("</th>") } else { output.lit("</td>") }
            output.byte(0x0A)
        case .footnoteDefinition:
            if lastChildOfExited != .paragraph {
                output.cr()
                renderBackrefs(exitedID, leading: false)
                output.cr()
            }
            output.lit("</li>\n")
        default:
            break
        }
        if !open.isEmpty { open[open.count - 1].lastChild = r.kind }
        output.flushIfNeeded()
    }

    /// The last child kind and id of the container `exitBlock` just took off `open`.
    var lastChildOfExited: MarkdownNodeKind? = nil
    var exitedID: Int32 = -1

    static func isContainer(_ kind: MarkdownNodeKind) -> Bool {
        switch kind {
        case .document, .blockQuote, .list, .item, .table, .tableRow, .footnoteDefinition: return true
        default: return false
        }
    }

    /// Whether the paragraph starting (or ending) is in an item of a tight list.
    func isTightParagraph() -> Bool {
        open.count >= 2 && open[open.count - 2].kind == .list && open[open.count - 2].flags & MarkdownNodeRecord.Flag.variant != 0
    }

    /// The inline content of a leaf through the inline parser (the direct path; the tree walks its nodes).
    mutating func renderInlines(_ r: BlockRecord, _ inline: inout InlineParser?) {
        guard inline != nil else { return }
        inline!.parse(literal(r), into: &self)
    }

    // MARK: The tree

    static func record(_ r: MarkdownNodeRecord) -> BlockRecord {
        BlockRecord(kind: r.kind, flags: r.flags, a: r.a, b: r.b, depth: 0, literalStart: r.literalStart, literalCount: r.literalCount, extra: r.extra)
    }

    /// Walks the nodes from `start` (the document, or a footnote definition at the end).
    mutating func renderTree(_ start: Int32, skipFootnoteDefinitions: Bool) {
        var none: InlineParser? = nil
        var current = start
        var entering = true
        while true {
            let r = nodes[Int(current)]
            var descend = entering && !r.kind.isLeaf && r.firstChild >= 0
            if r.kind.isBlock {
                if entering {
                    if r.kind == .footnoteDefinition && skipFootnoteDefinitions && current != start {
                        descend = false
                    } else {
                        enterBlock(Self.record(r), id: current, inline: &none)
                        // A paragraph, heading or cell holds inline nodes here: it is on `open` until they end.
                        if !Self.isContainer(r.kind) && !r.kind.isLeaf {
                            open.append(OpenBlock(kind: r.kind, flags: r.flags, extra: r.extra, depth: 0, id: current))
                        }
                    }
                } else {
                    if !Self.isContainer(r.kind) { open.removeLast() }
                    prepareExit(current)
                    // Only a paragraph asks (for a footnote's back-references); asking for every block would walk a
                    // run of definitions once for each of them.
                    exitBlock(Self.record(r), isLastChild: r.kind == .paragraph && current != start ? nextWritten(r.next) < 0 : r.next < 0)
                }
            } else if entering {
                if plainDepth > 0 { renderPlain(current, r) } else { renderInlineNode(current, r) }
            } else {
                if plainDepth > 0 {
                    if r.kind == .image { imageEnd() }
                } else {
                    switch r.kind {
                    case .emphasis: output.lit("</em>")
                    case .strong: output.lit("</strong>")
                    case .strikethrough: output.lit("</del>")
                    case .link: output.lit("</a>")
                    default: break
                    }
                }
            }
            if descend {
                current = r.firstChild
                entering = true
                continue
            }
            if entering && !r.kind.isLeaf && !(r.kind == .footnoteDefinition && skipFootnoteDefinitions && current != start) {
                // empty container: emit its exit
                entering = false
                continue
            }
            if current == start { return }
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

    /// Before a block's exit: for a footnote definition, its id and last child's kind (the tree knows them).
    mutating func prepareExit(_ node: Int32) {
        let r = nodes[Int(node)]
        exitedID = node
        var last = r.lastChild
        while last >= 0 && nodes[Int(last)].kind == .footnoteDefinition { last = nodes[Int(last)].prev }
        lastChildOfExited = last >= 0 ? nodes[Int(last)].kind : nil
    }

    /// The first of `node` and its next siblings that is written in place (footnote definitions are not), or -1.
    func nextWritten(_ node: Int32) -> Int32 {
        var n = node
        while n >= 0 && nodes[Int(n)].kind == .footnoteDefinition { n = nodes[Int(n)].next }
        return n
    }

    /// Inline nodes (the tree path).
    mutating func renderInlineNode(_ current: Int32, _ r: MarkdownNodeRecord) {
        switch r.kind {
        case .text:
            output.escape(storage(r.literalStart, r.literalCount))
        case .softBreak:
            output.byte(0x0A)
        case .lineBreak:
            output.lit("<br />\n")
        case .code:
            output.lit("<code>")
            output.escape(storage(r.literalStart, r.literalCount))
            output.lit("</code>")
        case .htmlInline:
            output.raw(storage(r.literalStart, r.literalCount))
        case .emphasis:
            output.lit("<em>")
        case .strong:
            output.lit("<strong>")
        case .strikethrough:
            output.lit("<del>")
        case .link, .image:
            let e = r.extra >= 0 ? extras[Int(r.extra)] : MarkdownExtra(aStart: 0, aCount: 0)
            linkStart(image: r.kind == .image, storage(e.aStart, e.aCount), storage(e.bStart, e.bCount))
        case .footnoteReference:
            if let def = definition(of: current) {
                footnoteReference(label: storage(r.literalStart, r.literalCount), definition: def, index: referenceIndex[Int64(current)])
            } else {
                output.lit("[^")
                output.escape(storage(r.literalStart, r.literalCount))
                output.lit("]")
            }
        default:
            break
        }
    }

    // MARK: The records (the direct path)

    /// Writes the records from `reader` deeper than `depth` (all of them for the main pass; with `single`,
    /// one block and its content). A footnote definition met in the main pass is skipped, its references
    /// only numbered (they count in document order, as the tree path's walk counts them), and where its
    /// records start is kept for writing it at the end.
    mutating func renderRecords(
        _ reader: inout BlockRecordReader, depth: Int32, skipFootnoteDefinitions: Bool, inline: inout InlineParser?, single: Bool = false
    ) {
        let base = open.count
        var first = true
        while let nextDepth = reader.peekDepth(), nextDepth > depth, first || !single || nextDepth > depth + 1 {
            let isStart = first && single
            first = false
            let before = reader.position
            let r = reader.next()
            while open.count > base, let top = open.last, top.depth >= r.depth { exitOpen() }
            if open.count > base, let top = open.last, top.depth + top.levels > r.depth {
                // Content of a level inside a run opened in one piece (levels split by later lines):
                // the levels below it end here.
                for _ in 0..<(top.depth + top.levels - r.depth) {
                    output.cr()
                    output.lit("</blockquote>\n")
                    output.flushIfNeeded()
                }
                open[open.count - 1].levels = r.depth - top.depth
            }
            if open.count > base, let top = open.last, top.depth + top.levels < r.depth {
                // Deeper than the innermost open block's content: levels of a block quote run split by a
                // later line, which kept no record of their own.
                let gap = BlockRecord(
                    kind: .blockQuote, flags: 0, a: 0, b: 0, depth: top.depth + top.levels, literalStart: 0,
                    literalCount: r.depth - top.depth - top.levels, extra: -1)
                enterBlock(gap, id: top.id, inline: &inline)
            }
            if r.kind == .footnoteDefinition && skipFootnoteDefinitions && !isStart {
                if single {
                    // Nested in the definition being written: written on its own.
                    while let d = reader.peekDepth(), d > r.depth { _ = reader.next() }
                    continue
                }
                definitionPositions[Int32(before.offset)] = before
                countingOnly = true
                while let d = reader.peekDepth(), d > r.depth {
                    let position = reader.position
                    let leaf = reader.next()
                    if leaf.kind == .footnoteDefinition {
                        definitionPositions[Int32(position.offset)] = position
                    } else if leaf.kind == .paragraph || leaf.kind == .heading || leaf.kind == .tableCell {
                        currentLeaf = Int32(position.offset)
                        renderInlines(leaf, &inline)
                    }
                }
                countingOnly = false
                continue
            }
            currentLeaf = Int32(before.offset)
            enterBlock(r, id: Int32(before.offset), inline: &inline)
            if !Self.isContainer(r.kind) {
                let next = reader.peekDepth() ?? 0
                var isLast = next < r.depth
                if next == r.depth && reader.peekKind() == .footnoteDefinition { isLast = Self.onlyDefinitionsFollow(reader, depth: r.depth) }
                exitBlock(r, isLastChild: isLast)
            }
        }
        while open.count > base { exitOpen() }
    }

    /// Whether every sibling left at `depth` is a footnote definition (written elsewhere, so a block before them
    /// is its parent's last).
    static func onlyDefinitionsFollow(_ reader: BlockRecordReader, depth: Int32) -> Bool {
        var probe = reader
        while let d = probe.peekDepth(), d >= depth {
            let r = probe.next()
            if d == depth && r.kind != .footnoteDefinition { return false }
        }
        return true
    }

    /// Ends the innermost open container of the records' walk.
    mutating func exitOpen() {
        let top = open[open.count - 1]
        exitedID = top.id
        lastChildOfExited = top.lastChild
        var r = top.record!
        if r.kind == .blockQuote { r.literalCount = top.levels }
        exitBlock(r, isLastChild: false)
    }

    /// Inline nodes inside an image's description: their text only (the tree path).
    mutating func renderPlain(_ current: Int32, _ r: MarkdownNodeRecord) {
        switch r.kind {
        case .text, .code, .htmlInline: output.escape(storage(r.literalStart, r.literalCount))
        case .softBreak, .lineBreak: output.byte(0x20)
        case .image: plainDepth += 1
        case .footnoteReference:
            // One with a definition is counted (`prepareFootnotes`) but has no text, as in cmark-gfm.
            guard definition(of: current) == nil else { break }
            output.lit("[^")
            output.escape(storage(r.literalStart, r.literalCount))
            output.lit("]")
        default: break
        }
    }

    mutating func linkStart(image: Bool, _ destination: MDBytes, _ title: MDBytes) {
        if image {
            output.lit("<img src=\"")
            if options.unsafeHTML || !HTMLOutput.isDangerousURL(destination) { output.escapeHref(destination) }
            output.lit("\" alt=\"")
            plainDepth = 1
            titleStarts.append(titles.count)
            titles.append(contentsOf: title)
            return
        }
        output.lit("<a href=\"")
        if options.unsafeHTML || !HTMLOutput.isDangerousURL(destination) { output.escapeHref(destination) }
        output.byte(UInt8(ascii: "\""))
        if !title.isEmpty {
            output.lit(" title=\"")
            output.escape(title)
            output.byte(UInt8(ascii: "\""))
        }
        output.byte(UInt8(ascii: ">"))
    }

    /// The end of an image inside alt text, or of the outermost one (`" title="…" />`).
    mutating func imageEnd() {
        plainDepth -= 1
        guard plainDepth == 0 else { return }
        output.byte(UInt8(ascii: "\""))
        let start = titleStarts.removeLast()
        if start < titles.count {
            output.lit(" title=\"")
            let t = titles
            t.withUnsafeBufferPointer { output.escape(MDBytes(rebasing: $0[start...])) }
            output.byte(UInt8(ascii: "\""))
        }
        titles.removeSubrange(start...)
        output.lit(" />")
    }

    /// A reference: numbered and counted now when it is met in document order (`index` nil), else with the
    /// index it was given then.
    mutating func footnoteReference(label: MDBytes, definition def: Int32, index: Int?) {
        number(def)
        let num = footnoteNumber[def] ?? 0
        let count: Int
        if let index {
            count = index
        } else {
            count = (footnoteRefCount[def] ?? 0) + 1
            footnoteRefCount[def] = count
        }
        let label = definitionLabel(def)
        output.lit("<sup class=\"footnote-ref\"><a href=\"#fn-")
        output.escapeHref(label)
        output.lit("\" id=\"fnref-")
        output.escapeHref(label)
        if count > 1 {
            output.byte(UInt8(ascii: "-"))
            output.number(count)
        }
        output.lit("\" data-footnote-ref>")
        output.number(num)
        output.lit("</a></sup>")
    }

    mutating func renderBackrefs(_ def: Int32, leading: Bool) {
        let label = definitionLabel(def)
        let count = max(1, footnoteRefCount[def] ?? 1)
        for i in 1...count {
            if leading || i > 1 { output.byte(0x20) }
            output.lit("<a href=\"#fnref-")
            output.escapeHref(label)
            if i > 1 {
                output.byte(UInt8(ascii: "-"))
                output.number(i)
            }
            output.lit("\" class=\"footnote-backref\" data-footnote-backref aria-label=\"Back to content\">↩")
            if i > 1 {
                output.lit("<sup class=\"footnote-ref\">")
                output.number(i)
                output.lit("</sup>")
            }
            output.lit("</a>")
            output.flushIfNeeded()
        }
    }

    // MARK: InlineSink (the direct path)

    mutating func text(_ subject: MDBytes, from: Int, to: Int, plain: Bool) {
        if countingOnly { return }
        if plain {
            output.append(MDBytes(rebasing: subject[from..<to]))
        } else {
            output.escape(MDBytes(rebasing: subject[from..<to]))
        }
        output.flushIfNeeded()
    }

    mutating func decodedText(_ bytes: MDBytes, from: Int, to: Int) {
        if countingOnly { return }
        output.escape(bytes)
        output.flushIfNeeded()
    }

    mutating func softBreak(at: Int) {
        if countingOnly { return }
        output.byte(plainDepth > 0 ? 0x20 : 0x0A)
        output.flushIfNeeded()
    }

    mutating func lineBreak(from: Int, to: Int) {
        if countingOnly { return }
        if plainDepth > 0 { output.byte(0x20) } else { output.lit("<br />\n") }
    }

    mutating func code(_ subject: MDBytes, contentFrom: Int, contentTo: Int, from: Int, to: Int) {
        if countingOnly { return }
        if plainDepth == 0 { output.lit("<code>") }
        output.escape(MDBytes(rebasing: subject[contentFrom..<contentTo]), lineEndingsAsSpaces: true)
        if plainDepth == 0 { output.lit("</code>") }
        output.flushIfNeeded()
    }

    mutating func rawHTML(_ subject: MDBytes, from: Int, to: Int) {
        if countingOnly { return }
        if plainDepth > 0 {
            output.escape(MDBytes(rebasing: subject[from..<to]))
        } else {
            output.raw(MDBytes(rebasing: subject[from..<to]))
        }
        output.flushIfNeeded()
    }

    mutating func enter(_ kind: MarkdownNodeKind, at: Int) {
        if countingOnly || plainDepth > 0 { return }
        switch kind {
        case .emphasis: output.lit("<em>")
        case .strong: output.lit("<strong>")
        default: output.lit("<del>")
        }
        output.flushIfNeeded()
    }

    mutating func exit(_ kind: MarkdownNodeKind, at: Int) {
        if countingOnly || plainDepth > 0 { return }
        switch kind {
        case .emphasis: output.lit("</em>")
        case .strong: output.lit("</strong>")
        default: output.lit("</del>")
        }
        output.flushIfNeeded()
    }

    mutating func enterLink(image: Bool, destination: MDBytes, title: MDBytes, at: Int) {
        if countingOnly { return }
        if plainDepth > 0 {
            if image { plainDepth += 1 }
            return
        }
        linkStart(image: image, destination, title)
    }

    mutating func exitLink(image: Bool, at: Int) {
        if countingOnly { return }
        if plainDepth > 0 {
            if image { imageEnd() }
            return
        }
        output.lit("</a>")
        output.flushIfNeeded()
    }

    mutating func footnoteReference(label: MDBytes, definition: Int32, from: Int, to: Int) {
        let key = Int64(currentLeaf) << 32 | Int64(UInt32(truncatingIfNeeded: from))
        if countingOnly || plainDepth > 0 {
            // Counted where it is met in document order; inside an image's description it has no text.
            number(definition)
            if referenceIndex[key] == nil {
                let count = (footnoteRefCount[definition] ?? 0) + 1
                footnoteRefCount[definition] = count
                if countingOnly { referenceIndex[key] = count }
            }
            return
        }
        footnoteReference(label: label, definition: definition, index: referenceIndex[key])
        output.flushIfNeeded()
    }
}

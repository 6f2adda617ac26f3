// One line against the open blocks (cmark's S_process_line): which open blocks it continues, which new
// blocks it starts, and where its text goes.

extension BlockParser {
    /// Processes the line `s[0...length]` (`s[length]` is its line ending).
    mutating func processLine(_ length: Int) {
        if streaming && nodes.count >= 2 * compactedCount + 4096 { compact() }
        let start = 0
        let end = length
        lineEnd = end
        offset = start
        column = 0
        blank = false
        firstNonspaceFrom = (-1, -1)
        partiallyConsumedTab = false
        thematicBreakKillPos = 0
        lineNumber += 1
        // A byte order mark (U+FEFF) before the first line is not text: `\u{FEFF}# Title` is a heading, as
        // cmark, GitHub and pandoc read it. Columns still count from the line's first byte.
        if lineNumber == 1, end - start >= 3, s[start] == 0xEF, s[start + 1] == 0xBB, s[start + 2] == 0xBF { offset = start + 3 }
        contentStart = offset
        if Self.lineShortcuts && (continuesTopLevelLeaf(end) || isBlankAtTopLevel()) { return }

        var allMatched = false
        if let lastMatched = checkOpenBlocks(&allMatched) {
            self.lastMatched = lastMatched
            unmatchedOpen = current != lastMatched
            var container = lastMatched
            openNewBlocks(&container, allMatched)
            addTextToContainer(container, lastMatched)
        }
        lastLineLength = Int32(lineEnd - lineStart)
    }

    /// Whether the commonest lines take the shortcuts below (always, but for the test that holds them to
    /// the full way: `LineShortcutTests`).
    nonisolated(unsafe) static var lineShortcuts = true

    /// The commonest lines, decided from their start: more text of a paragraph that is the document's last
    /// child (a letter or a non-ASCII character at the margin starts no block, interrupts nothing, and is
    /// no table delimiter row or setext underline), a line of a fenced code block that is the document's
    /// last child, its fence at the margin (no closing fence unless it starts, after at most three spaces,
    /// with the fence's character), and a line of an HTML block that is the document's last child (not
    /// blank). Such a line is added to the leaf as the full way (`checkOpenBlocks`, `openNewBlocks`,
    /// `addTextToContainer`) would add it, with the same flags; anything else takes the full way.
    @inline(__always)
    mutating func continuesTopLevelLeaf(_ length: Int) -> Bool {
        guard lineNumber > 1, current > 0, offset == 0 else { return false }
        let r = nodes[Int(current)]
        guard r.parent == 0, r.flags & MarkdownNodeRecord.Flag.open != 0 else { return false }
        let c = s[0]
        var closesHTML = false
        switch r.kind {
        case .paragraph:
            guard c >= 0x80 || (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z")) else { return false }
            findFirstNonspace()
        case .codeBlock:
            // A fence at the margin: nothing to strip from the line, which closes the block only when it
            // starts, after at most three spaces, with the fence's character.
            guard r.flags & MarkdownNodeRecord.Flag.variant != 0, info[Int(current)].fenceOffset == 0 else { return false }
            findFirstNonspace()
            guard indent > 3 || s[firstNonspace] != r.a else { return false }
        case .htmlBlock:
            // Any line but a blank one (which ends types 6 and 7) goes in whole; types 1 to 5 end on the line
            // that holds their end.
            findFirstNonspace()
            guard !blank else { return false }
            let type = Int(info[Int(current)].htmlType)
            closesHTML = type <= 5 && MD.htmlBlockEnd(type, s, firstNonspace, lineEnd)
        default:
            return false
        }
        listDepth = 0
        lastMatched = current
        unmatchedOpen = false
        nodes[Int(current)].flags &= ~MarkdownNodeRecord.Flag.lastLineBlank
        nodes[0].flags &= ~MarkdownNodeRecord.Flag.lastLineBlank
        addLine(current)
        if closesHTML { current = finalize(current) }
        lastLineLength = Int32(lineEnd - lineStart)
        return true
    }

    /// A blank line where nothing but the document is open, or a top-level paragraph or heading, which it
    /// closes: it starts nothing, and marks the document and its last child as ending with a blank line,
    /// as the full way does.
    @inline(__always)
    mutating func isBlankAtTopLevel() -> Bool {
        guard lineNumber > 1, offset == 0 else { return false }
        let c = s[0]
        guard c == 0x0A || c == 0x20 || c == 0x09 else { return false }
        if current != 0 {
            let r = nodes[Int(current)]
            guard r.parent == 0, r.kind == .paragraph || r.kind == .heading else { return false }
        }
        findFirstNonspace()
        guard blank else { return false }
        listDepth = 0
        lastMatched = 0
        unmatchedOpen = current != 0
        let last = nodes[0].lastChild
        if last >= 0 { nodes[Int(last)].flags |= MarkdownNodeRecord.Flag.lastLineBlank }
        nodes[0].flags |= MarkdownNodeRecord.Flag.lastLineBlank
        while current != 0 { current = finalize(current) }
        lastLineLength = Int32(lineEnd - lineStart)
        return true
    }

    mutating func checkOpenBlocks(_ allMatched: inout Bool) -> Int32? {
        var shouldContinue = true
        allMatched = false
        var container: Int32 = 0
        listDepth = 0
        var matchedAll = true
        while true {
            let last = nodes[Int(container)].lastChild
            guard last >= 0, isOpen(last) else { break }
            container = last
            findFirstNonspace()
            var ok = true
            switch kind(container) {
            case .blockQuote:
                let count = levels(container)
                var matched: Int32 = 0
                while indent <= 3 && s[firstNonspace] == UInt8(ascii: ">") {
                    advanceOffset(indent + 1, columns: true)
                    if MD.isSpaceOrTab(peek(offset)) { advanceOffset(1, columns: true) }
                    matched += 1
                    if matched == count { break }
                    findFirstNonspace()
                }
                if matched == 0 {
                    ok = false
                } else if matched < count {
                    // Part of a run continues: the rest is the first block this line does not continue.
                    container = splitRun(container, matched: matched)
                    ok = false
                }
            case .item:
                let inf = info[Int(container)]
                let need = Int(inf.markerOffset + inf.padding)
                if indent >= need {
                    advanceOffset(need, columns: true)
                } else if blank && nodes[Int(container)].firstChild >= 0 {
                    advanceOffset(firstNonspace - offset, columns: false)
                } else {
                    ok = false
                }
            case .footnoteDefinition:
                if indent >= 4 {
                    advanceOffset(4, columns: true)
                } else if blank {
                    // blank lines continue a footnote definition
                } else {
                    ok = false
                }
                if ok { listDepth += 1 }
            case .list:
                listDepth += 1
            case .codeBlock:
                if nodes[Int(container)].flags & MarkdownNodeRecord.Flag.variant == 0 {
                    if indent >= codeIndent {
                        advanceOffset(codeIndent, columns: true)
                    } else if blank {
                        advanceOffset(firstNonspace - offset, columns: false)
                    } else {
                        ok = false
                    }
                } else {
                    var matched = 0
                    let fc = nodes[Int(container)].a
                    if indent <= 3 && s[firstNonspace] == fc {
                        matched = scanCloseCodeFence(firstNonspace, fc)
                    }
                    if matched >= Int(nodes[Int(container)].b) {
                        shouldContinue = false
                        advanceOffset(matched, columns: false)
                        current = finalize(container)
                        ok = false
                    } else {
                        var i = info[Int(container)].fenceOffset
                        while i > 0 && MD.isSpaceOrTab(peek(offset)) {
                            advanceOffset(1, columns: true)
                            i -= 1
                        }
                    }
                }
            case .heading:
                ok = false
            case .htmlBlock:
                let t = info[Int(container)].htmlType
                if t >= 6 && blank { ok = false }
            case .paragraph:
                if blank { ok = false }
            case .table:
                if !tableRowMatches() { ok = false }
            default:
                break
            }
            if !ok {
                matchedAll = false
                break
            }
        }
        if matchedAll {
            allMatched = true
        } else {
            container = nodes[Int(container)].parent
        }
        if !shouldContinue { return nil }
        return container
    }

    mutating func openNewBlocks(_ container: inout Int32, _ allMatched: Bool) {
        var maybeLazy = kind(current) == .paragraph
        var contType = kind(container)
        while contType != .codeBlock && contType != .htmlBlock {
            findFirstNonspace()
            let indented = indent >= codeIndent
            let c = s[firstNonspace]
            if !indented && c == UInt8(ascii: ">") {
                advanceOffset(firstNonspace + 1 - offset, columns: false)
                if MD.isSpaceOrTab(peek(offset)) { advanceOffset(1, columns: true) }
                if streaming && kind(container) == .blockQuote && nodes[Int(container)].firstChild < 0
                    && nodes[Int(container)].startLine == lineNumber
                {
                    // A quote opened on this line and still empty: one more level of the same run.
                    nodes[Int(container)].literalCount += 1
                } else {
                    container = addChild(container, .blockQuote, startColumn: firstNonspace - lineStart + 1)
                    if streaming { nodes[Int(container)].literalCount = 1 }
                }
            } else if !indented && c == UInt8(ascii: "#"), case let m = scanATXHeadingStart(firstNonspace), m > 0 {
                let headingStart = firstNonspace
                advanceOffset(firstNonspace + m - offset, columns: false)
                container = addChild(container, .heading, startColumn: headingStart - lineStart + 1)
                var level = 0
                var h = headingStart
                while s[h] == UInt8(ascii: "#") {
                    level += 1
                    h += 1
                }
                nodes[Int(container)].a = UInt8(level)
            } else if !indented && (c == UInt8(ascii: "`") || c == UInt8(ascii: "~")),
                case let m = scanOpenCodeFence(firstNonspace), m > 0
            {
                container = addChild(container, .codeBlock, startColumn: firstNonspace - lineStart + 1)
                nodes[Int(container)].flags |= MarkdownNodeRecord.Flag.variant
                nodes[Int(container)].a = c
                nodes[Int(container)].b = UInt8(min(m, 255))
                info[Int(container)].fenceOffset = Int32(firstNonspace - offset)
                advanceOffset(firstNonspace + m - offset, columns: false)
            } else if !indented && c == UInt8(ascii: "<"),
                case let t = htmlStart(contType == .paragraph || maybeLazy), t > 0
            {
                container = addChild(container, .htmlBlock, startColumn: firstNonspace - lineStart + 1)
                info[Int(container)].htmlType = UInt8(t)
            } else if !indented && contType == .paragraph && (c == UInt8(ascii: "=") || c == UInt8(ascii: "-")),
                case let lev = scanSetextHeadingLine(firstNonspace), lev > 0
            {
                // Resolve reference definitions first; a paragraph of only definitions can't become a heading.
                if resolveReferenceDefinitionsForSetext(container) {
                    nodes[Int(container)].kind = .heading
                    nodes[Int(container)].a = UInt8(lev)
                    nodes[Int(container)].flags |= MarkdownNodeRecord.Flag.variant
                    advanceOffset(lineEnd - offset, columns: false)
                }
            } else if !indented && !(contType == .paragraph && !allMatched) && thematicBreakKillPos <= firstNonspace
                && (c == UInt8(ascii: "*") || c == UInt8(ascii: "-") || c == UInt8(ascii: "_"))
                && scanThematicBreak(firstNonspace)
            {
                container = addChild(container, .thematicBreak, startColumn: firstNonspace - lineStart + 1)
                advanceOffset(lineEnd - offset, columns: false)
            } else if !indented && options.footnotes && c == UInt8(ascii: "[") && listDepth < maxListDepth,
                case let (m, ls, le) = scanFootnoteDefinition(firstNonspace), m > 0
            {
                let defStart = firstNonspace
                advanceOffset(firstNonspace + m - offset, columns: false)
                container = addChild(container, .footnoteDefinition, startColumn: defStart - lineStart + 1)
                let st = Int32(bytes.count)
                bytes.append(contentsOf: MDBytes(rebasing: s[ls..<le]))
                nodes[Int(container)].literalStart = st
                nodes[Int(container)].literalCount = Int32(le - ls)
                listDepth += 1
            } else if !indented && listDepth < maxListDepth,
                case let (m, data) = parseListMarker(firstNonspace, interruptsParagraph: contType == .paragraph), m > 0
            {
                var data = data
                advanceOffset(firstNonspace + m - offset, columns: false)
                let saveTab = partiallyConsumedTab
                let saveOffset = offset
                let saveColumn = column
                while column - saveColumn <= 5 && MD.isSpaceOrTab(peek(offset)) {
                    advanceOffset(1, columns: true)
                }
                let i = column - saveColumn
                if i >= 5 || i < 1 || peek(offset) == 0x0A {
                    data.padding = Int32(m + 1)
                    offset = saveOffset
                    column = saveColumn
                    partiallyConsumedTab = saveTab
                    if i > 0 { advanceOffset(1, columns: true) }
                } else {
                    data.padding = Int32(m + i)
                }
                data.markerOffset = Int32(indent)
                let startCol = firstNonspace - lineStart + 1
                if contType != .list || !listsMatch(container, data) {
                    container = addChild(container, .list, startColumn: startCol)
                    nodes[Int(container)].a = data.ordered ? 1 : 0
                    nodes[Int(container)].b = data.delim
                    nodes[Int(container)].extra = data.start
                    listDepth += 1
                }
                container = addChild(container, .item, startColumn: startCol)
                info[Int(container)].markerOffset = data.markerOffset
                info[Int(container)].padding = data.padding
                nodes[Int(container)].b = data.delim
                nodes[Int(container)].a = 0
                if data.ordered { nodes[Int(container)].flags |= MarkdownNodeRecord.Flag.variant }
                // GFM task list item: "[ ]" / "[x]" right after the marker.
                // (cmark-gfm: the rest of that line is paragraph text, no further block starts.)
                if options.taskLists && openTaskItem(container) { break }
            } else if indented && !maybeLazy && !blank {
                advanceOffset(codeIndent, columns: true)
                container = addChild(container, .codeBlock, startColumn: offset - lineStart + 1)
            } else if options.tables && !indented && contType == .paragraph, tryOpenTable(&container) {
                // table header consumed the line
            } else if options.tables && !indented && contType == .table && !blank, openTableRow(&container) {
                // body row consumed the line
            } else {
                break
            }
            if BlockParser.acceptsLines(kind(container)) { break }
            contType = kind(container)
            if contType == .table || contType == .tableRow { break }
            maybeLazy = false
        }
    }

    mutating func addTextToContainer(_ containerIn: Int32, _ lastMatched: Int32) {
        var container = containerIn
        findFirstNonspace()
        let lastChild = nodes[Int(container)].lastChild
        if blank && lastChild >= 0 {
            nodes[Int(lastChild)].flags |= MarkdownNodeRecord.Flag.lastLineBlank
        }
        let ctype = kind(container)
        let r = nodes[Int(container)]
        let lastLineBlank =
            blank && ctype != .blockQuote && ctype != .heading && ctype != .thematicBreak
            && !(ctype == .codeBlock && r.flags & MarkdownNodeRecord.Flag.variant != 0)
            && !(ctype == .item && r.firstChild < 0 && r.startLine == lineNumber)
        if lastLineBlank {
            nodes[Int(container)].flags |= MarkdownNodeRecord.Flag.lastLineBlank
        } else {
            nodes[Int(container)].flags &= ~MarkdownNodeRecord.Flag.lastLineBlank
        }
        // Ancestors of the container never end with a blank line (O(depth), like matching the
        // container prefixes; list depth is capped).
        var tmp = container
        while true {
            let p = nodes[Int(tmp)].parent
            if p < 0 { break }
            nodes[Int(p)].flags &= ~MarkdownNodeRecord.Flag.lastLineBlank
            tmp = p
        }

        if current != lastMatched && container == lastMatched && !blank && kind(current) == .paragraph {
            // lazy continuation line
            addLine(current)
            return
        }
        while current != lastMatched {
            current = finalize(current)
        }
        switch kind(container) {
        case .codeBlock:
            addLine(container)
        case .htmlBlock:
            addLine(container)
            let t = Int(info[Int(container)].htmlType)
            if t >= 1 && t <= 5 && MD.htmlBlockEnd(t, s, firstNonspace, lineEnd) {
                container = finalize(container)
            }
        case .tableRow:
            current = nodes[Int(container)].parent
            return
        case .table, .tableCell:
            break
        default:
            if blank {
                // nothing
            } else if BlockParser.acceptsLines(kind(container)) {
                if kind(container) == .heading && nodes[Int(container)].flags & MarkdownNodeRecord.Flag.variant == 0 {
                    chopTrailingHashtags()
                }
                advanceOffset(firstNonspace - offset, columns: false)
                addLine(container)
            } else {
                container = addChild(container, .paragraph, startColumn: firstNonspace - lineStart + 1)
                advanceOffset(firstNonspace - offset, columns: false)
                addLine(container)
            }
        }
        current = container
    }

    /// For ATX headings: drops the closing sequence of #s by moving lineEnd... (we trim the
    /// line in place by shortening `lineEnd` virtually: content is added up to the new end).
    mutating func chopTrailingHashtags() {
        // rtrim
        var e = lineEnd
        while e > offset && MD.isSpace(s[e - 1]) { e -= 1 }
        var n = e
        while n > offset && s[n - 1] == UInt8(ascii: "#") { n -= 1 }
        if n != e {
            if n == offset || MD.isSpaceOrTab(s[n - 1]) {
                var m = n
                while m > offset && MD.isSpaceOrTab(s[m - 1]) { m -= 1 }
                e = m
            }
        }
        headingEnd = e
    }
}

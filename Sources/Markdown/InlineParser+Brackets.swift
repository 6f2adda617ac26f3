#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The bracket stack: `[` and `![`, active, inactive and dead brackets, what a `]` makes of them (links,
// images, footnote references; read ahead once when a closer needs to know), and emphasis inside a link.

private let maxLinkLabelLength = 1000

extension InlineParser {
    mutating func pushBracket(image: Bool, start: Int) {
        topBracketAfter = false
        brackets.append(Bracket(position: start, image: image))
        if image { imageBrackets += 1 } else { activeLinkBrackets += 1 }
        if closeBracketsLeft >= 0 || brackets.count >= 2 { updateDeadFloor() }
        checkSession()
    }

    /// Counts the `]` left (once per block, when a second bracket opens or a closer would wait behind
    /// one: most blocks never need it) and moves `deadFloor` up over the brackets beyond their reach.
    mutating func updateDeadFloor() {
        if closeBracketsLeft < 0 {
            var count = 0
            if let base = s.baseAddress, pos < end {
                var p = UnsafeRawPointer(base + pos)
                let stop = UnsafeRawPointer(base + end)
                while p < stop, let found = memchr(p, 0x5D, stop - p) {
                    count += 1
                    p = UnsafeRawPointer(found) + 1
                }
            }
            closeBracketsLeft = count
        }
        while deadFloor < brackets.count - closeBracketsLeft {
            if isActive(deadFloor) {
                if brackets[deadFloor].isImage { imageBrackets -= 1 } else { activeLinkBrackets -= 1 }
            }
            deadFloor += 1
        }
    }

    /// Whether the bracket at `index` of the stack can still make a link or image.
    @inline(__always)
    func isActive(_ index: Int) -> Bool {
        index >= deadFloor && (index >= linkFloor || brackets[index].isImage)
    }

    /// The index of the first mark at or after `position` (marks are in source order).
    func firstMark(atOrAfter position: Int) -> Int {
        var low = emitted
        var high = marks.count
        while low < high {
            let middle = (low + high) / 2
            if Int(marks[middle].start) < position { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Takes the top bracket off the stack (`image`: it is an image's). A bracket that made nothing is
    /// text: it left no mark.
    private mutating func popBracket(image: Bool) {
        guard brackets.popLast() != nil else { return }
        if image {
            imageBrackets -= 1
        } else if brackets.count >= linkFloor {
            activeLinkBrackets -= 1
        }
        linkFloor = min(linkFloor, brackets.count)
        inactiveFloor = min(inactiveFloor, brackets.count)
        topBracketAfter = true
        checkSession()
    }

    /// What the `]` that closes `bracket` (the top one, active) will make of it, read ahead from `pos`
    /// once per bracket: `.link` (a link or image), `.text` (its `]` makes nothing, or never comes), or
    /// `.unknown` when something before that `]` could change which `]` it is or what it does: another
    /// bracket, a code span, an autolink or raw HTML (`` ` `` or `<`), a footnote label. Only escapes are
    /// skipped, as the scan skips them. The bytes read are those up to the next such byte, after the
    /// bracket, so each is read ahead at most once per block; the link test is `handleCloseBracket`'s,
    /// without its effects (the title memo it shares only records a title that never closes).
    mutating func outcomeAhead(of bracket: Bracket) -> BracketOutcome {
        if bracketAhead.position == bracket.position { return bracketAhead.outcome }
        var outcome = BracketOutcome.unknown
        var p = pos
        scan: while true {
            guard p < end else {
                outcome = .text
                break
            }
            switch s[p] {
            case UInt8(ascii: "["), UInt8(ascii: "`"), UInt8(ascii: "<"):
                break scan
            case UInt8(ascii: "\\"):
                p += p + 1 < end && MD.isASCIIPunct(s[p + 1]) ? 2 : 1
            case UInt8(ascii: "]"):
                outcome = linkWouldBeMade(bracket, closeStart: p)
                break scan
            default:
                p += 1
            }
        }
        bracketAhead = (bracket.position, outcome)
        return outcome
    }

    /// `handleCloseBracket`'s test, without its effects: whether the `]` at `closeStart` makes `bracket`
    /// a link or image (`.unknown` for a footnote reference's label, which that test treats apart).
    private mutating func linkWouldBeMade(_ bracket: Bracket, closeStart: Int) -> BracketOutcome {
        let after = closeStart + 1
        let textStart = bracket.position + (bracket.isImage ? 2 : 1)
        if after < end && s[after] == UInt8(ascii: "(") {
            let sp = MD.skipSpacechars(s, after + 1, end)
            if let (destEnd, _, _) = MD.scanLinkDestination(s, sp, end) ?? emptyDestination(sp) {
                let startTitle = MD.skipSpacechars(s, destEnd, end)
                var endTitle = startTitle
                if startTitle != destEnd, let te = scanTitleMemo(startTitle) { endTitle = te }
                let endAll = MD.skipSpacechars(s, endTitle, end)
                if endAll < end && s[endAll] == UInt8(ascii: ")") { return .link }
            }
        }
        var labelRange: (Int, Int)? = nil
        if let (_, ls, lend) = MD.scanLinkLabel(s, after, end) {
            labelRange = (ls, lend)
        } else if after + 1 < end && s[after] == UInt8(ascii: "[") && s[after + 1] == UInt8(ascii: "]") {
            labelRange = (after + 1, after + 1)
        }
        if (labelRange == nil || labelRange!.0 == labelRange!.1) && !topBracketAfter {
            labelRange = (textStart, closeStart)
        }
        if let (ls, le) = labelRange, le - ls <= maxLinkLabelLength, le > ls, !references.isEmpty {
            MD.normalizeLabel(s, ls, le, into: &label)
            if label.withUnsafeBufferPointer({ references.index($0) }) != nil { return .link }
        }
        if options.footnotes && closeStart - textStart >= 2 && s[textStart] == UInt8(ascii: "^") { return .unknown }
        return .text
    }

    mutating func handleCloseBracket<Sink: InlineSink & ~Copyable>(_ sink: inout Sink) {
        let closeStart = pos
        pos += 1
        let initialPos = pos
        guard let opener = brackets.last else { return }
        // (The top bracket is never dead: this `]` is one of those left, when they are counted.)
        if closeBracketsLeft > 0 { closeBracketsLeft -= 1 }
        let isImage = opener.isImage
        if !isActive(brackets.count - 1) {
            popBracket(image: false)
            bracketsChanged(&sink)
            return
        }
        // Where the bracket's text starts: just after `[` or `![`.
        let textStart = Int(opener.position) + (isImage ? 2 : 1)
        // What the start's mark keeps (`InlineMark.data`): an inline link's `]`, or minus one more than
        // its reference definition's index.
        var linkData: Int32 = Int32(truncatingIfNeeded: closeStart)
        var matched = false

        // Inline link
        if pos < end && s[pos] == UInt8(ascii: "(") {
            let sp = MD.skipSpacechars(s, pos + 1, end)
            if let (destEnd, ds, de) = MD.scanLinkDestination(s, sp, end) ?? emptyDestination(sp) {
                let startTitle = MD.skipSpacechars(s, destEnd, end)
                var endTitle = startTitle
                if startTitle != destEnd, let te = scanTitleMemo(startTitle) {
                    endTitle = te
                }
                let endAll = MD.skipSpacechars(s, endTitle, end)
                if endAll < end && s[endAll] == UInt8(ascii: ")") {
                    // Kept in the recent-link cache; its start, emitted later, finds it there or scans
                    // again (`inlineLink(closedAt:)`).
                    var link = InlineLink(destinationStart: Int32(ds), destinationCount: Int32(de - ds), titleStart: 0, titleCount: 0, inSubject: true)
                    if endTitle > startTitle {
                        link.titleStart = Int32(startTitle + 1)
                        link.titleCount = Int32(endTitle - 1 - (startTitle + 1))
                    }
                    if recentLinks == nil {
                        recentLinks = GrowableBuffer()
                        for _ in 0..<Self.recentLinkCount { recentLinks.append(RecentLink(close: -1, link: link)) }
                    }
                    recentLinks[closeStart & (Self.recentLinkCount - 1)] = RecentLink(close: Int32(truncatingIfNeeded: closeStart), link: link)
                    recentLinkSlots |= 1 << UInt64(closeStart & (Self.recentLinkCount - 1))
                    pos = endAll + 1
                    matched = true
                } else {
                    pos = initialPos
                }
            }
        }
        if !matched {
            // Reference link: full, collapsed or shortcut.
            var labelRange: (Int, Int)? = nil
            var foundLabel = false
            if let (le, ls, lend) = MD.scanLinkLabel(s, pos, end) {
                labelRange = (ls, lend)
                foundLabel = true
                pos = le
            } else if pos + 1 < end && s[pos] == UInt8(ascii: "[") && s[pos + 1] == UInt8(ascii: "]") {
                // collapsed "[]": empty label
                labelRange = (pos + 1, pos + 1)
                foundLabel = true
                pos += 2
            }
            if !foundLabel { pos = initialPos }
            if (!foundLabel || labelRange!.0 == labelRange!.1) && !topBracketAfter {
                labelRange = (textStart, initialPos - 1)
                foundLabel = true
            }
            if foundLabel, let (ls, le) = labelRange, le - ls <= maxLinkLabelLength, le > ls, !references.isEmpty {
                MD.normalizeLabel(s, ls, le, into: &label)
                if let index = label.withUnsafeBufferPointer({ references.index($0) }) {
                    linkData = -Int32(truncatingIfNeeded: index) - 1
                    matched = true
                }
            }
            if !matched && options.footnotes {
                // Footnote reference [^label]
                let ls = textStart
                let le = initialPos - 1
                if le - ls >= 2 && s[ls] == UInt8(ascii: "^") && le - ls <= maxLinkLabelLength {
                    MD.normalizeLabel(s, ls + 1, le, into: &label)
                    if let definition = label.withUnsafeBufferPointer({ footnotes.value($0) }) {
                        pos = initialPos
                        makeFootnoteReference(opener, image: isImage, definition: definition, end: initialPos, &sink)
                        return
                    }
                }
            }
            if !matched {
                popBracket(image: isImage)
                pos = initialPos
                bracketsChanged(&sink)
                return
            }
        }

        // The bracket's start is a late mark (the marks of the link's text are already made), and `]…`
        // its end.
        addLateMark(InlineMark(isImage ? .imageOpen : .linkOpen, opener.position, data: linkData, width: isImage ? 2 : 1))
        _ = appendMark(InlineMark(isImage ? .imageClose : .linkClose, closeStart, data: Int32(truncatingIfNeeded: pos)))

        processLinkEmphasis(opener.position)
        popBracket(image: isImage)
        if !isImage {
            // Every earlier link opener is inactive now.
            linkFloor = brackets.count
            activeLinkBrackets = 0
        }
        checkSession()
        bracketsChanged(&sink)
    }

    /// After a bracket left the stack or was deactivated: closers that waited behind active brackets are
    /// processed once none is left, and what is final is emitted.
    private mutating func bracketsChanged<Sink: InlineSink & ~Copyable>(_ sink: inout Sink) {
        if activeBrackets == 0 && firstUnprocessed >= 0 {
            processEmphasis(stackBottom: -1, from: firstUnprocessed, link: false)
            firstUnprocessed = -1
        }
        emitFinished(&sink)
    }

    /// Emphasis inside the text of a link or image whose bracket is at `bracket`: matched on its own
    /// (its own openers_bottom), then every delimiter after the bracket leaves the stack. (cmark bounds
    /// this by the top of the stack when the bracket was pushed; while a bracket is active nothing before
    /// it leaves the stack, so that is the same as the delimiters after it.)
    private mutating func processLinkEmphasis(_ bracket: Int) {
        let bottom = Int32(truncatingIfNeeded: bracket)
        // The first delimiter after the bracket.
        var first = delimiters.count
        while first > 0 && delimiters[first - 1].start > bottom { first -= 1 }
        // Closers matched ahead (a session, a speculative pass) are done: the pass starts at the first
        // unprocessed one (every delimiter before it is processed).
        let from = firstUnprocessed < 0 ? delimiters.count : max(first, firstUnprocessed)
        if let current = session, current.position == bracket {
            // The rest, with the session's openers_bottom.
            processEmphasis(stackBottom: bottom, from: from, link: false, inSession: true)
            endSession(linkMade: true)
        } else {
            for i in 0..<10 { linkBottoms[i] = bottom }
            processEmphasis(stackBottom: bottom, from: from, link: true)
        }
        // The pass changed nothing below `first`: what is above the bottom is from there on.
        for j in first..<delimiters.count { retire(delimiters[j]) }
        delimiters.truncate(to: first)
        // Every unprocessed delimiter was above the bracket (delimiters wait only behind an active bracket).
        if firstUnprocessed >= first { firstUnprocessed = -1 }
    }

    func emptyDestination(_ sp: Int) -> (Int, Int, Int)? {
        // An empty destination is allowed before ')' or whitespace.
        if sp < end && (s[sp] == UInt8(ascii: ")") || MD.isSpace(s[sp])) { return (sp, sp, sp) }
        return nil
    }

    private mutating func scanTitleMemo(_ p: Int) -> Int? {
        guard p < end else { return nil }
        let qi: Int
        switch s[p] {
        case UInt8(ascii: "\""): qi = 0
        case UInt8(ascii: "'"): qi = 1
        case UInt8(ascii: "("): qi = 2
        default: return nil
        }
        if qi == 0 && p >= noTitleFrom.0 { return nil }
        if qi == 1 && p >= noTitleFrom.1 { return nil }
        if let e = MD.scanLinkTitle(s, p, end) { return e }
        // A title that runs off the end without its closing delimiter can't close from any later
        // position either (for parentheses: unless a '(' intervenes, so only memoise quotes).
        if qi == 0 { noTitleFrom.0 = p } else if qi == 1 { noTitleFrom.1 = p }
        return nil
    }

    private mutating func makeFootnoteReference<Sink: InlineSink & ~Copyable>(
        _ opener: Bracket, image: Bool, definition: Int32, end referenceEnd: Int, _ sink: inout Sink
    ) {
        processLinkEmphasis(opener.position)
        // The reference replaces the opener and everything after it (an image opener's "!" stays text).
        // No link or image can have been made inside: a link deactivates the bracket, and a label holding
        // an image's brackets matches no definition (labels have no unescaped brackets). Still, late marks
        // there would go too.
        let start = opener.position + (image ? 1 : 0)
        marks.truncate(to: firstMark(atOrAfter: opener.position))
        if lateCount > 0 { dropLateMarks(from: opener.position) }
        _ = appendMark(InlineMark(.footnoteReference, start, data: definition, width: referenceEnd - start))
        popBracket(image: image)
        bracketsChanged(&sink)
    }
}

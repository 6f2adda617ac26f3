// Delimiter runs (`*`, `_`, `~`): the delimiter stack, emphasis matched on it as soon as no open link bracket
// can change the result (cmark's process_emphasis with openers_bottom), and the sessions of the one active
// bracket whose closers are matched as they come.

extension InlineParser {
    mutating func handleDelim<Sink: InlineSink & ~Copyable>(_ c: UInt8, _ sink: inout Sink) {
        let start = pos
        let before = MD.scalarBefore(s, pos, 0)
        while pos < end && s[pos] == c { pos += 1 }
        let n = pos - start
        // GFM strikethrough: runs of one or two tildes only.
        if c == UInt8(ascii: "~") && n > 2 { return }
        let after: UInt32 = pos < end ? MD.decode(s, pos, end).0 : 0x0A
        let afterSpace = MD.isUnicodeSpace(after)
        let beforeSpace = MD.isUnicodeSpace(before)
        let afterPunct = MD.isUnicodePunctOrSymbol(after)
        let beforePunct = MD.isUnicodePunctOrSymbol(before)
        let leftFlanking = !afterSpace && (!afterPunct || beforeSpace || beforePunct)
        let rightFlanking = !beforeSpace && (!beforePunct || afterSpace || afterPunct)
        let canOpen: Bool
        let canClose: Bool
        if c == UInt8(ascii: "_") {
            canOpen = leftFlanking && (!rightFlanking || beforePunct)
            canClose = rightFlanking && (!leftFlanking || afterPunct)
        } else {
            canOpen = leftFlanking
            canClose = rightFlanking
        }
        guard canOpen || canClose else { return }
        let flags = (canOpen ? InlineMark.Flag.canOpen : 0) | (canClose ? InlineMark.Flag.canClose : 0)
        let entry: Delimiter
        if n <= CompactMatches.maxLength {
            entry = Delimiter(start: start, width: n, flags: flags)
        } else {
            // A longer run keeps its length, flags and matches in a record.
            entry = Delimiter(start: start, record: emphasis.count)
            emphasis.append(
                InlineEmphasis(
                    length: Int32(truncatingIfNeeded: n), remaining: Int32(truncatingIfNeeded: n), closeFirst: -1, closeCount: 0,
                    lastOpen: -1, flags: flags))
        }
        if firstUnprocessed < 0 { firstUnprocessed = delimiters.count }
        delimiters.append(entry)
        if canClose && activeBrackets > 0 && closeBracketsLeft < 0 {
            // It would wait behind a bracket: is that one dead?
            updateDeadFloor()
            checkSession()
        }
        if canClose && activeBrackets == 0 {
            processEmphasis(stackBottom: -1, from: firstUnprocessed, link: false)
            firstUnprocessed = -1
            emitFinished(&sink)
        } else if canClose && activeBrackets == 1, let top = brackets.last, isActive(brackets.count - 1),
            delimiters[0].start > Int32(truncatingIfNeeded: top.position)
        {
            if session == nil {
                session = (brackets.count - 1, top.position)
                if sessionBottoms.isEmpty { sessionBottoms = [Int32](repeating: -2, count: 10) }
                for i in 0..<10 { sessionBottoms[i] = -2 }
            }
            // (A session for another bracket has ended: see endSession's callers.)
            if let current = session, current.bracket == brackets.count - 1, current.position == top.position {
                processEmphasis(stackBottom: -1, from: firstUnprocessed, link: false, inSession: true)
                firstUnprocessed = -1
            }
        } else if canClose && activeBrackets == 1, let top = brackets.last, isActive(brackets.count - 1),
            firstUnprocessed >= 0, delimiters[firstUnprocessed].start > Int32(truncatingIfNeeded: top.position),
            case let outcome = outcomeAhead(of: top), outcome != .unknown
        {
            // Delimiters before the bracket, every unprocessed one after it, and its `]` read ahead.
            if outcome == .link {
                // Its text is a link's: matched within it, as the pass at its `]` would (a session of its
                // own, whose openers_bottom goes with the link).
                if session == nil {
                    session = (brackets.count - 1, top.position)
                    if sessionBottoms.isEmpty { sessionBottoms = [Int32](repeating: -2, count: 10) }
                    for i in 0..<10 { sessionBottoms[i] = -2 }
                }
                if let current = session, current.bracket == brackets.count - 1, current.position == top.position {
                    processEmphasis(
                        stackBottom: Int32(truncatingIfNeeded: top.position), from: firstUnprocessed, link: false, inSession: true)
                    firstUnprocessed = -1
                }
            } else {
                // It stays text: its closers are the block's, as if it were not there.
                processEmphasis(stackBottom: -1, from: firstUnprocessed, link: false)
                firstUnprocessed = -1
                emitFinished(&sink)
            }
        } else if canClose && activeBrackets == 1, session == nil, let top = brackets.last, isActive(brackets.count - 1),
            speculationStopped.map({ $0.bracket != brackets.count - 1 || $0.position != top.position }) ?? true
        {
            let stop = processEmphasis(
                stackBottom: Int32(truncatingIfNeeded: top.position), from: firstUnprocessed, link: false, speculative: true)
            firstUnprocessed = stop
            if stop >= 0 { speculationStopped = (brackets.count - 1, top.position) }
        }
    }

    /// The session's bracket is done with: `linkMade`, its text was matched as a link's (the session's
    /// openers_bottom goes, as cmark's at a link's end); else it is text, and the block-wide openers_bottom
    /// takes what the session set (the same values the block-wide pass would have set: openers before the
    /// bracket there were none).
    mutating func endSession(linkMade: Bool) {
        guard session != nil else { return }
        session = nil
        if !linkMade {
            for i in 0..<10 where sessionBottoms[i] != -2 { bottoms[i] = sessionBottoms[i] }
        }
    }

    /// Ends the session when its bracket is no longer on the stack as it was, or no longer active (a link
    /// made after it, or more brackets open than `]` left).
    mutating func checkSession() {
        guard let current = session else { return }
        if current.bracket >= brackets.count || brackets[current.bracket].position != current.position || !isActive(current.bracket) {
            endSession(linkMade: false)
        }
    }

    /// A delimiter run's length as scanned.
    @inline(__always)
    private func delimiterLength(_ m: InlineMark) -> Int32 {
        m.width != 0 ? Int32(m.width) : emphasis[Int(m.data)].length
    }

    /// Where a mark ends in the subject (see `InlineMark`).
    @inline(__always)
    func markEnd(_ m: InlineMark) -> Int {
        switch m.kind {
        case .code, .html, .autolinkURI, .autolinkEmail, .wwwLink, .urlLink: return Int(m.data)
        case .linkClose, .imageClose: return Int(m.data)
        case .delimiter: return Int(m.start) + Int(delimiterLength(m))
        case .linkOpen, .imageOpen, .footnoteReference: return Int(m.start) + Int(m.width)
        }
    }

    @inline(__always)
    private func flags(_ d: Delimiter) -> UInt8 { d.isCompact ? d.compactFlags : emphasis[d.record].flags }

    @inline(__always)
    private func length(_ d: Delimiter) -> Int32 { d.isCompact ? d.width : emphasis[d.record].length }

    @inline(__always)
    private func remaining(_ d: Delimiter) -> Int32 {
        d.isCompact ? d.width - CompactMatches.used(d.matches) : emphasis[d.record].remaining
    }

    @inline(__always)
    private func bottomIndex(_ d: Delimiter) -> Int {
        // As cmark / commonmark.js 0.31: one bound for '_', six for '*' (by can-open and
        // length mod 3); '~' (cmark-gfm) by length mod 3. The single '_' bound is part of the
        // reference behaviour, not only an optimisation.
        switch s[Int(d.start)] {
        case UInt8(ascii: "*"): return (flags(d) & InlineMark.Flag.canOpen != 0 ? 3 : 0) + Int(length(d) % 3)
        case UInt8(ascii: "_"): return 6
        default: return 7 + Int(length(d) % 3)
        }
    }

    /// A delimiter run leaves the stack: a run that matched becomes a mark (among the late ones: marks
    /// after it may exist), one that did not is text and leaves nothing.
    mutating func retire(_ d: Delimiter) {
        if d.isCompact {
            guard d.matches != 0 else { return }
            var m = InlineMark(.delimiter, Int(d.start), data: d.matches, width: Int(d.width))
            m.flags = d.compactFlags | InlineMark.Flag.compact
            addLateMark(m)
        } else {
            let e = emphasis[d.record]
            guard e.closeCount > 0 || e.lastOpen >= 0 else { return }
            var m = InlineMark(.delimiter, Int(d.start), data: Int32(d.record), width: e.length <= Int32(UInt16.max) ? Int(e.length) : 0)
            m.flags = e.flags
            addLateMark(m)
        }
    }

    /// cmark's process_emphasis over the closers from `delimiters[start]` on, above `stackBottom` (a
    /// position: delimiters after it; -1 for all). The block-wide pass leaves the delimiters that may
    /// still open in the stack; a link's pass removes everything above its bottom, as cmark does.
    ///
    /// cmark's stack is a doubly linked list; here it is an array, compacted in the one pass: the closers
    /// are read in order from `start`, and what stays in the stack is written back below them. Every
    /// removal cmark makes is of delimiters between an opener and the closer being processed, all of
    /// them at the top of what has been written, so removing them is moving the write position down.
    /// What leaves the stack is retired (`retire`).
    /// `speculative`: only while each closer finds an opener after `stackBottom` (the one active
    /// bracket's position); at the first that does not, the pass stops, and that closer and the rest stay
    /// in the stack unprocessed. No openers_bottom is written before that. Returns where they start (-1:
    /// all processed).
    @discardableResult
    mutating func processEmphasis(stackBottom: Int32, from start: Int, link: Bool, inSession: Bool = false, speculative: Bool = false) -> Int {
        guard start >= 0 && start < delimiters.count else { return -1 }
        // The openers_bottom array in use, swapped out of `self` for the pass (no copy).
        var bottoms: [Int32] = []
        if inSession { swap(&bottoms, &sessionBottoms) } else if link { swap(&bottoms, &linkBottoms) } else { swap(&bottoms, &self.bottoms) }
        defer {
            if inSession { swap(&bottoms, &sessionBottoms) } else if link { swap(&bottoms, &linkBottoms) } else { swap(&bottoms, &self.bottoms) }
        }
        var write = start
        var read = start
        let count = delimiters.count
        while read < count {
            var closer = delimiters[read]
            read += 1
            let closerFlags = flags(closer)
            guard closerFlags & InlineMark.Flag.canClose != 0 else {
                delimiters[write] = closer
                write += 1
                continue
            }
            let bi = bottomIndex(closer)
            let cChar = s[Int(closer.start)]
            let cLen = length(closer)
            var k = write - 1
            var found = false
            while k >= 0 {
                let opener = delimiters[k]
                guard opener.start > stackBottom && opener.start > bottoms[bi] else { break }
                let openerFlags = flags(opener)
                if openerFlags & InlineMark.Flag.canOpen != 0 && s[Int(opener.start)] == cChar {
                    let oLen = length(opener)
                    if !(closerFlags & InlineMark.Flag.canOpen != 0 || openerFlags & InlineMark.Flag.canClose != 0)
                        || cLen % 3 == 0 || (oLen + cLen) % 3 != 0
                    {
                        found = true
                        break
                    }
                }
                k -= 1
            }
            guard found else {
                if speculative {
                    // This closer and the rest wait, moved down onto what was written.
                    let rest = count - (read - 1)
                    if write != read - 1 {
                        for j in 0..<rest { delimiters[write + j] = delimiters[read - 1 + j] }
                    }
                    delimiters.truncate(to: write + rest)
                    return write
                }
                bottoms[bi] = write > 0 ? delimiters[write - 1].start : -1
                if closerFlags & InlineMark.Flag.canOpen != 0 {
                    delimiters[write] = closer
                    write += 1
                } else {
                    retire(closer)
                }
                continue
            }
            var opener = delimiters[k]
            if cChar == UInt8(ascii: "~") {
                let count = remaining(closer)
                if remaining(opener) == count {
                    // The delimiters between them end up inside the new node: they leave, and so do both.
                    recordMatch(opener: &opener, closer: &closer, count: count)
                    for j in (k + 1)..<write { retire(delimiters[j]) }
                    retire(opener)
                    retire(closer)
                    write = k
                }
                // Different lengths (~ vs ~~): as cmark-gfm, the closer is dropped (text) and the opener stays.
                continue
            }
            let use: Int32 = (remaining(closer) >= 2 && remaining(opener) >= 2) ? 2 : 1
            recordMatch(opener: &opener, closer: &closer, count: use)
            for j in (k + 1)..<write { retire(delimiters[j]) }
            if remaining(opener) == 0 {
                retire(opener)
                write = k
            } else {
                delimiters[k] = opener
                write = k + 1
            }
            if remaining(closer) > 0 {
                // The closer is processed again (back in its place, read - 1, which is at or above write).
                delimiters[read - 1] = closer
                read -= 1
            } else {
                retire(closer)
            }
        }
        delimiters.truncate(to: write)
        return -1
    }

    /// Records that `count` characters of `opener` and of `closer` made one match: in a compact run's
    /// bits, or in its record and the match log (one entry, shared by both edges when both have records;
    /// a closer's entries stay consecutive, since it is matched again at once until it is done).
    private mutating func recordMatch(opener: inout Delimiter, closer: inout Delimiter, count: Int32) {
        var index: Int32 = -1
        if !opener.isCompact || !closer.isCompact {
            index = Int32(matches.count)
            matches.append(InlineMatch(count: count, previousOpen: -1))
        }
        if opener.isCompact {
            opener.matches = CompactMatches.addingOpen(opener.matches, uses: count)
        } else {
            let o = opener.record
            matches[Int(index)].previousOpen = emphasis[o].lastOpen
            emphasis[o].lastOpen = index
            emphasis[o].remaining -= count
        }
        if closer.isCompact {
            closer.matches = CompactMatches.addingClose(closer.matches, uses: count)
        } else {
            let c = closer.record
            if emphasis[c].closeCount == 0 { emphasis[c].closeFirst = index }
            emphasis[c].closeCount += 1
            emphasis[c].remaining -= count
        }
    }
}

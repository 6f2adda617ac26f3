// Emission: the marks that can no longer change go to the sink in document order, merged with the late marks.

extension InlineParser {
    /// Emits what can no longer change: the marks before the first delimiter still in the stack and the
    /// first active bracket. Resets the arrays when nothing is pending.
    mutating func emitFinished<Sink: InlineSink & ~Copyable>(_ sink: inout Sink) {
        var before = delimiters.isEmpty ? Int.max : Int(delimiters[0].start)
        while inactiveFloor < brackets.count && !isActive(inactiveFloor) { inactiveFloor += 1 }
        if inactiveFloor < brackets.count { before = min(before, brackets[inactiveFloor].position) }
        var limit = marks.count
        if before != Int.max {
            if limitCache.position != before {
                // Looked up once per boundary (this runs every few marks): the marks before it stay as
                // they are while it is the boundary.
                limitCache = (before, firstMark(atOrAfter: before))
            }
            limit = limitCache.mark
        }
        if limit - emitted < 64 && limit < marks.count && lateCount < 64 { return }
        emit(upTo: limit, lateBefore: before, final: false, &sink)
        if emitted == marks.count && delimiters.isEmpty && brackets.isEmpty && lateCount == 0 {
            resetMarks()
            emitted = 0
            limitCache = (-1, 0)
        }
    }

    /// Emits marks `emitted..<limit`, the late marks that start before `lateBefore` in their place among
    /// them, and the text before them; with `final`, every late mark and the text after them too.
    mutating func emit<Sink: InlineSink & ~Copyable>(upTo limit: Int, lateBefore: Int, final: Bool, _ sink: inout Sink) {
        var i = emitted
        while true {
            let m: InlineMark
            let lateStart = firstLateStart
            if lateStart != Int32.max, Int(lateStart) < lateBefore, i >= limit || lateStart < marks[i].start {
                m = popLateMark()
            } else if i < limit {
                m = marks[i]
                i += 1
            } else {
                break
            }
            let start = Int(m.start)
            let mEnd = markEnd(m)
            switch m.kind {
            case .delimiter where m.flags & InlineMark.Flag.compact != 0:
                let d = m.data
                guard d != 0 else { break }
                let isTilde = s[start] == UInt8(ascii: "~")
                var p = start
                let closes = CompactMatches.closeCount(d)
                if closes > 0 {
                    emitText(upTo: start, &sink)
                    for k in 0..<closes {
                        let count = CompactMatches.closeUses(d, k)
                        sink.exit(isTilde ? .strikethrough : count == 1 ? .emphasis : .strong, at: p + count - 1)
                        p += count
                    }
                    textStart = p
                }
                let opens = CompactMatches.openCount(d)
                if opens > 0 {
                    var q = p + Int(Int32(m.width) - CompactMatches.used(d))
                    emitText(upTo: q, &sink)
                    for k in stride(from: opens - 1, through: 0, by: -1) {
                        let count = CompactMatches.openUses(d, k)
                        sink.enter(isTilde ? .strikethrough : count == 1 ? .emphasis : .strong, at: q)
                        q += count
                    }
                    textStart = mEnd
                }
            case .delimiter:
                guard m.data >= 0 else { break }
                let e = emphasis[Int(m.data)]
                let isTilde = s[start] == UInt8(ascii: "~")
                var p = start
                if e.closeCount > 0 {
                    emitText(upTo: start, &sink)
                    for k in Int(e.closeFirst)..<Int(e.closeFirst + e.closeCount) {
                        let count = Int(matches[k].count)
                        sink.exit(isTilde ? .strikethrough : count == 1 ? .emphasis : .strong, at: p + count - 1)
                        p += count
                    }
                    textStart = p
                }
                if e.lastOpen >= 0 {
                    var q = p + Int(e.remaining)
                    emitText(upTo: q, &sink)
                    var k = Int(e.lastOpen)
                    while k >= 0 {
                        let count = Int(matches[k].count)
                        sink.enter(isTilde ? .strikethrough : count == 1 ? .emphasis : .strong, at: q)
                        q += count
                        k = Int(matches[k].previousOpen)
                    }
                    textStart = mEnd
                }
            case .linkOpen, .imageOpen:
                emitText(upTo: start, &sink)
                emitLinkStart(m.data >= 0 ? inlineLink(closedAt: Int(m.data)) : referenceLink(Int(-m.data - 1)), image: m.kind == .imageOpen, at: start, &sink)
                textStart = mEnd
            case .linkClose, .imageClose:
                emitText(upTo: start, &sink)
                let image = m.kind == .imageClose
                if !image { linkDepth -= 1 }
                sink.exitLink(image: image, at: mEnd - 1)
                textStart = mEnd
            case .code:
                emitText(upTo: start, &sink)
                emitCode(m, &sink)
                textStart = mEnd
            case .html:
                emitText(upTo: start, &sink)
                sink.rawHTML(s, from: start, to: mEnd)
                textStart = mEnd
            case .autolinkURI, .autolinkEmail:
                emitText(upTo: start, &sink)
                scratch.removeAll(keepingCapacity: true)
                if m.kind == .autolinkEmail { scratch.append(contentsOf: "mailto:".utf8) }
                let textOffset = scratch.count
                // Entities (not backslash escapes) are decoded in autolinks, as cmark does.
                var k = start + 1
                while k < mEnd - 1 {
                    if s[k] == UInt8(ascii: "&") {
                        let n = MD.unescapeEntity(s, k + 1, mEnd - 1, into: &scratch)
                        if n > 0 {
                            k += 1 + n
                            continue
                        }
                    }
                    scratch.append(s[k])
                    k += 1
                }
                scratch.withUnsafeBufferPointer { d in
                    sink.enterLink(image: false, destination: d, title: MDBytes(start: nil, count: 0), at: start)
                    sink.decodedText(MDBytes(rebasing: d[textOffset...]), from: start + 1, to: mEnd - 1)
                    sink.exitLink(image: false, at: mEnd - 1)
                }
                textStart = mEnd
            case .wwwLink, .urlLink:
                emitText(upTo: start, &sink)
                scratch.removeAll(keepingCapacity: true)
                if m.kind == .wwwLink { scratch.append(contentsOf: "http://".utf8) }
                scratch.append(contentsOf: MDBytes(rebasing: s[start..<mEnd]))
                scratch.withUnsafeBufferPointer { d in
                    sink.enterLink(image: false, destination: d, title: MDBytes(start: nil, count: 0), at: start)
                }
                sink.text(s, from: start, to: mEnd, plain: false)
                sink.exitLink(image: false, at: mEnd - 1)
                textStart = mEnd
            case .footnoteReference:
                emitText(upTo: start, &sink)
                sink.footnoteReference(label: MDBytes(rebasing: s[(start + 2)..<(mEnd - 1)]), definition: m.data, from: start, to: mEnd)
                textStart = mEnd
            }
        }
        emitted = limit
        if final { emitText(upTo: end, &sink) }
    }

    /// The destination and title of the inline link whose `]` is at `close`: its `(…)` scanned again as
    /// `handleCloseBracket` scanned it when it made the link (a title scan that failed there fails here).
    private func inlineLink(closedAt close: Int) -> InlineLink {
        if let recentLinks {
            let recent = recentLinks[close & (Self.recentLinkCount - 1)]
            if Int(recent.close) == close { return recent.link }
        }
        let sp = MD.skipSpacechars(s, close + 2, end)
        let (destEnd, ds, de) = MD.scanLinkDestination(s, sp, end) ?? emptyDestination(sp) ?? (sp, sp, sp)
        var link = InlineLink(destinationStart: Int32(ds), destinationCount: Int32(de - ds), titleStart: 0, titleCount: 0, inSubject: true)
        let startTitle = MD.skipSpacechars(s, destEnd, end)
        if startTitle != destEnd, let endTitle = MD.scanLinkTitle(s, startTitle, end), endTitle > startTitle {
            link.titleStart = Int32(startTitle + 1)
            link.titleCount = Int32(endTitle - 1 - (startTitle + 1))
        }
        return link
    }

    private func referenceLink(_ index: Int) -> InlineLink {
        let ref = references.value(at: index)
        return InlineLink(
            destinationStart: ref.destStart, destinationCount: ref.destCount, titleStart: ref.titleStart, titleCount: ref.titleCount,
            inSubject: false)
    }

    private mutating func emitLinkStart<Sink: InlineSink & ~Copyable>(_ link: InlineLink, image: Bool, at: Int, _ sink: inout Sink) {
        if !image { linkDepth += 1 }
        if !link.inSubject {
            let d = MDBytes(rebasing: storage[Int(link.destinationStart)..<Int(link.destinationStart + link.destinationCount)])
            let t = MDBytes(rebasing: storage[Int(link.titleStart)..<Int(link.titleStart + link.titleCount)])
            sink.enterLink(image: image, destination: d, title: t, at: at)
            return
        }
        let ds = Int(link.destinationStart)
        let de = ds + Int(link.destinationCount)
        let ts = Int(link.titleStart)
        let te = ts + Int(link.titleCount)
        scratch.removeAll(keepingCapacity: true)
        titleScratch.removeAll(keepingCapacity: true)
        MD.appendUnescaped(s, ds, de, into: &scratch)
        MD.appendUnescaped(s, ts, te, into: &titleScratch)
        scratch.withUnsafeBufferPointer { d in
            titleScratch.withUnsafeBufferPointer { t in
                sink.enterLink(image: image, destination: d, title: t, at: at)
            }
        }
    }

    private func emitCode<Sink: InlineSink & ~Copyable>(_ m: InlineMark, _ sink: inout Sink) {
        let open = Int(m.width)
        var a = Int(m.start) + open
        let mEnd = Int(m.data)
        var b = mEnd - open
        // Strip one space (or line ending) from each side when both are there and the content is not all spaces.
        if b - a >= 2 {
            let first = s[a]
            let last = s[b - 1]
            if (first == 0x20 || first == 0x0A) && (last == 0x20 || last == 0x0A) {
                var allSpace = true
                for k in a..<b where s[k] != 0x20 && s[k] != 0x0A {
                    allSpace = false
                    break
                }
                if !allSpace {
                    a += 1
                    b -= 1
                }
            }
        }
        sink.code(s, contentFrom: a, contentTo: b, from: Int(m.start), to: mEnd)
    }
}

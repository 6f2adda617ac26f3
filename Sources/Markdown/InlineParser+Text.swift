// The text between marks: escapes, entities and line breaks decoded as it is emitted, e-mail autolinks found in it.

/// Bytes that end a plain run when text is emitted: line ending, `\`, `&`.
private let emitClass: [Bool] = {
    var t = [Bool](repeating: false, count: 256)
    for c in "\n\\&".utf8 { t[Int(c)] = true }
    return t
}()

/// Text emission in one pass: line ending (1), `\` (2), `&` (3), and what HTML escapes (4).
private let textClass: [UInt8] = {
    var t = [UInt8](repeating: 0, count: 256)
    t[0x0A] = 1
    t[Int(UInt8(ascii: "\\"))] = 2
    t[Int(UInt8(ascii: "&"))] = 3
    for c in "<>\"".utf8 { t[Int(c)] = 4 }
    return t
}()

extension InlineParser {
    /// Emits the text from `textStart` to `limit`: backslash escapes and entities decoded, line endings as
    /// soft or hard breaks (spaces and tabs before them dropped, leading ones after them skipped), and,
    /// with GFM autolinks, e-mail addresses (outside links) as links.
    mutating func emitText<Sink: InlineSink & ~Copyable>(upTo limit: Int, _ sink: inout Sink) {
        var i = textStart
        textStart = limit
        guard i < limit else { return }
        if blockHasAt && linkDepth == 0 {
            emitTextByLine(i, limit, &sink)
            return
        }
        // One pass: runs of plain bytes go out whole; escapes, entities and line endings split them.
        var run = i
        var plain = true
        let table = textClass
        let base = s.baseAddress!
        table.withUnsafeBufferPointer { t in
            while i < limit {
                let k = t[Int(s[i])]
                if k == 0 {
                    // To the next byte of a class, eight bytes at a time.
                    i = SWAR.nextInText(in: base, from: i + 1, to: limit)
                    continue
                }
                switch k {
                case 4:
                    plain = false
                    i += 1
                case 1:
                    // A line ending: the spaces and tabs before it are dropped, those after it skipped.
                    var te = i
                    while te > run && (s[te - 1] == 0x20 || s[te - 1] == 0x09) { te -= 1 }
                    if run < te { sink.text(s, from: run, to: te, plain: plain) }
                    if i > 1 && s[i - 1] == 0x20 && s[i - 2] == 0x20 {
                        sink.lineBreak(from: i, to: i + 1)
                    } else {
                        sink.softBreak(at: i)
                    }
                    i += 1
                    while i < limit && (s[i] == 0x20 || s[i] == 0x09) { i += 1 }
                    run = i
                    plain = true
                case 2:
                    guard i + 1 < limit else {
                        i += 1
                        break
                    }
                    let d = s[i + 1]
                    if d == 0x0A {
                        // Backslash before a line ending: a hard break.
                        if run < i { sink.text(s, from: run, to: i, plain: plain) }
                        sink.lineBreak(from: i, to: i + 2)
                        i += 2
                        while i < limit && (s[i] == 0x20 || s[i] == 0x09) { i += 1 }
                        run = i
                        plain = true
                    } else if MD.isASCIIPunct(d) {
                        if run < i { sink.text(s, from: run, to: i, plain: plain) }
                        sink.text(s, from: i + 1, to: i + 2, plain: t[Int(d)] == 0)
                        i += 2
                        run = i
                        plain = true
                    } else {
                        i += 1
                    }
                default:
                    // `&`: an entity, or a literal ampersand.
                    lineScratch.removeAll(keepingCapacity: true)
                    let n = MD.unescapeEntity(s, i + 1, limit, into: &lineScratch)
                    if n > 0 {
                        if run < i { sink.text(s, from: run, to: i, plain: plain) }
                        let decoded = lineScratch
                        decoded.withUnsafeBufferPointer { sink.decodedText($0, from: i, to: i + 1 + n) }
                        i += 1 + n
                        run = i
                        plain = true
                    } else {
                        plain = false
                        i += 1
                    }
                }
            }
        }
        if run < limit { sink.text(s, from: run, to: limit, plain: plain) }
    }

    /// `emitText` a line at a time, for text where cmark-gfm looks for e-mail addresses.
    private mutating func emitTextByLine<Sink: InlineSink & ~Copyable>(_ start: Int, _ limit: Int, _ sink: inout Sink) {
        var i = start
        let emails = true
        var lineStart = i
        let base = s.baseAddress!
        while i < limit {
            // One line (or what is left of the region on it).
            var e = i
            while e < limit {
                // To the next line ending or backslash, eight bytes at a time.
                e = SWAR.first(of: 0x0A, 0x5C, 0x5C, in: base, from: e, to: limit)
                guard e < limit else { break }
                let c = s[e]
                if c == 0x0A { break }
                if c == UInt8(ascii: "\\") && e + 1 < limit {
                    let d = s[e + 1]
                    if d == 0x0A { break }
                    if MD.isASCIIPunct(d) {
                        e += 2
                        continue
                    }
                }
                e += 1
            }
            if e < limit && s[e] == 0x0A {
                // Drop the spaces and tabs before a line ending.
                var te = e
                while te > lineStart && (s[te - 1] == 0x20 || s[te - 1] == 0x09) { te -= 1 }
                emitSegment(lineStart, te, emails: emails, &sink)
                if e > 1 && s[e - 1] == 0x20 && s[e - 2] == 0x20 {
                    sink.lineBreak(from: e, to: e + 1)
                } else {
                    sink.softBreak(at: e)
                }
                i = e + 1
            } else if e < limit {
                // Backslash before a line ending: a hard break.
                emitSegment(lineStart, e, emails: emails, &sink)
                sink.lineBreak(from: e, to: e + 2)
                i = e + 2
            } else {
                emitSegment(lineStart, e, emails: emails, &sink)
                i = e
                break
            }
            while i < limit && (s[i] == 0x20 || s[i] == 0x09) { i += 1 }
            lineStart = i
        }
    }

    /// Text of one line: `s[from..<to]` holds no line ending.
    private mutating func emitSegment<Sink: InlineSink & ~Copyable>(_ from: Int, _ to: Int, emails: Bool, _ sink: inout Sink) {
        guard from < to else { return }
        let base = s.baseAddress!
        if emails {
            if SWAR.first(of: 0x40, 0x26, 0x26, in: base, from: from, to: to) < to {
                emitSegmentWithEmails(from, to, &sink)
                return
            }
        }
        var i = from
        var run = from
        let emitTable = emitClass
        emitTable.withUnsafeBufferPointer { table in
            while i < to {
                if !table[Int(s[i])] {
                    i = SWAR.first(of: 0x0A, 0x5C, 0x26, in: base, from: i + 1, to: to)
                    continue
                }
                let c = s[i]
                if c == UInt8(ascii: "\\") {
                    if i + 1 < to && MD.isASCIIPunct(s[i + 1]) {
                        if run < i { sink.text(s, from: run, to: i, plain: false) }
                        sink.text(s, from: i + 1, to: i + 2, plain: false)
                        i += 2
                        run = i
                    } else {
                        i += 1
                    }
                } else {
                    // `&`
                    lineScratch.removeAll(keepingCapacity: true)
                    let n = MD.unescapeEntity(s, i + 1, to, into: &lineScratch)
                    if n > 0 {
                        if run < i { sink.text(s, from: run, to: i, plain: false) }
                        lineScratch.withUnsafeBufferPointer { sink.decodedText($0, from: i, to: i + 1 + n) }
                        i += 1 + n
                        run = i
                    } else {
                        i += 1
                    }
                }
            }
        }
        if run < to { sink.text(s, from: run, to: to, plain: false) }
    }

    /// cmark-gfm's e-mail autolinks (its postprocess_text) on one line of text, decoded first, as cmark-gfm
    /// looks for them in the text nodes it has merged.
    private mutating func emitSegmentWithEmails<Sink: InlineSink & ~Copyable>(_ from: Int, _ to: Int, _ sink: inout Sink) {
        lineScratch.removeAll(keepingCapacity: true)
        MD.appendUnescaped(s, from, to, into: &lineScratch)
        let decoded = lineScratch
        decoded.withUnsafeBufferPointer { t in
            let size = t.count
            var offset = 0
            var done = 0
            var depth = 0
            while depth < 1000 {
                depth += 1
                guard offset < size else { break }
                var at = -1
                var i = offset
                while i < size {
                    if t[i] == UInt8(ascii: "@") {
                        at = i
                        break
                    }
                    i += 1
                }
                if at < 0 { break }
                let maxRewind = at - offset
                var rewind = 0
                while rewind < maxRewind {
                    let c = t[at - rewind - 1]
                    if MD.isAlnum(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
                        || c == UInt8(ascii: "_")
                    {
                        rewind += 1
                        continue
                    }
                    break
                }
                if rewind == 0 {
                    offset = at + 1
                    continue
                }
                var linkEnd = 0
                var nb = 0
                var np = 0
                let rest = size - at
                while linkEnd < rest {
                    let c = t[at + linkEnd]
                    if MD.isAlnum(c) {
                        linkEnd += 1
                        continue
                    }
                    if c == UInt8(ascii: "@") {
                        nb += 1
                    } else if c == UInt8(ascii: ".") && linkEnd < rest - 1 && MD.isAlnum(t[at + linkEnd + 1]) {
                        np += 1
                    } else if c != UInt8(ascii: "-") && c != UInt8(ascii: "_") {
                        break
                    }
                    linkEnd += 1
                }
                if linkEnd < 2 || nb != 1 || np == 0
                    || (!MD.isAlpha(t[at + linkEnd - 1]) && t[at + linkEnd - 1] != UInt8(ascii: "."))
                {
                    offset = at + 1
                    continue
                }
                linkEnd = Self.trimEmailEnd(t, at, linkEnd)
                if linkEnd == 0 {
                    offset = at + 1
                    continue
                }
                let emailStart = at - rewind
                let emailEnd = at + linkEnd
                if done < emailStart { sink.decodedText(MDBytes(rebasing: t[done..<emailStart]), from: from, to: to) }
                scratch.removeAll(keepingCapacity: true)
                scratch.append(contentsOf: "mailto:".utf8)
                scratch.append(contentsOf: MDBytes(rebasing: t[emailStart..<emailEnd]))
                scratch.withUnsafeBufferPointer { d in
                    sink.enterLink(image: false, destination: d, title: MDBytes(start: nil, count: 0), at: from)
                }
                sink.decodedText(MDBytes(rebasing: t[emailStart..<emailEnd]), from: from, to: to)
                sink.exitLink(image: false, at: max(from, to - 1))
                done = emailEnd
                offset = emailEnd
                if offset >= size { break }
            }
            if done < size { sink.decodedText(MDBytes(rebasing: t[done..<size]), from: from, to: to) }
        }
    }

    private static func trimEmailEnd(_ t: MDBytes, _ start: Int, _ linkEndIn: Int) -> Int {
        var linkEnd = linkEndIn
        while linkEnd > 0 {
            let c = t[start + linkEnd - 1]
            switch c {
            case UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"),
                UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "'"), UInt8(ascii: "\""):
                linkEnd -= 1
            default:
                return linkEnd
            }
        }
        return linkEnd
    }
}

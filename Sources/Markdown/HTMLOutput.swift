private let hrefSafe: [Bool] = {
    var t = [Bool](repeating: false, count: 256)
    for c in UInt8(ascii: "0")...UInt8(ascii: "9") { t[Int(c)] = true }
    for c in UInt8(ascii: "a")...UInt8(ascii: "z") { t[Int(c)] = true }
    for c in UInt8(ascii: "A")...UInt8(ascii: "Z") { t[Int(c)] = true }
    for c in "-_.+!*(),%#@?=;:/$~".utf8 { t[Int(c)] = true }
    return t
}()

private let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

/// The HTML being written: one reusable buffer, handed to `consumer` in chunks when there is one.
struct HTMLOutput: ~Copyable {
    var out: ByteBuffer
    let options: MarkdownOptions
    /// Receives the output in chunks of about `chunkSize` bytes (nil: everything stays in `out`).
    var consumer: ((MDBytes) -> Void)?
    static let chunkSize = 1 << 16
    /// The last byte handed to the consumer (`cr()` looks at the last byte written).
    var flushedLast: UInt8 = 0

    init(options: MarkdownOptions, capacity: Int, consumer: ((MDBytes) -> Void)? = nil) {
        self.options = options
        self.consumer = consumer
        out = ByteBuffer(capacity: consumer == nil ? capacity : Self.chunkSize + 4096)
    }

    /// Hands the buffer to the consumer once it holds a chunk.
    @inline(__always)
    mutating func flushIfNeeded() {
        if out.count >= Self.chunkSize, consumer != nil { flush() }
    }

    mutating func flush() {
        guard let consumer, let last = out.last else { return }
        flushedLast = last
        out.withUnsafeBufferPointer { consumer($0) }
        out.removeAll()
    }

    @inline(__always) mutating func lit(_ s: StaticString) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    @inline(__always) mutating func byte(_ c: UInt8) { out.append(c) }

    @inline(__always) mutating func cr() {
        let last = out.last ?? flushedLast
        if last != 0 && last != 0x0A { out.append(0x0A) }
    }

    /// Bytes as they are. A run longer than a chunk goes to the consumer piece by piece, so the buffer
    /// stays one chunk long whatever the text.
    mutating func append(_ b: MDBytes) {
        if consumer != nil && b.count > Self.chunkSize {
            var start = 0
            while start < b.count {
                let end = min(b.count, start + Self.chunkSize)
                out.append(contentsOf: MDBytes(rebasing: b[start..<end]))
                flushIfNeeded()
                start = end
            }
            return
        }
        out.append(contentsOf: b)
    }

    /// HTML-escapes `&`, `<`, `>`, `"`; with `lineEndingsAsSpaces`, also writes line endings as spaces
    /// (code span content). A long run is escaped piece by piece, as `append` writes one.
    mutating func escape(_ b: MDBytes, lineEndingsAsSpaces: Bool = false) {
        if consumer != nil && b.count > Self.chunkSize {
            var start = 0
            while start < b.count {
                let end = min(b.count, start + Self.chunkSize)
                escapeRun(MDBytes(rebasing: b[start..<end]), lineEndingsAsSpaces: lineEndingsAsSpaces)
                flushIfNeeded()
                start = end
            }
            return
        }
        escapeRun(b, lineEndingsAsSpaces: lineEndingsAsSpaces)
    }

    private mutating func escapeRun(_ b: MDBytes, lineEndingsAsSpaces: Bool) {
        let e = b.count
        guard e > 0, let base = b.baseAddress else { return }
        var i = 0
        var run = 0
        while true {
            // The next '"', '&', '<', '>' (and line ending, as a space): eight bytes at a time, then one.
            i = lineEndingsAsSpaces ? SWAR.next(in: base, from: i, to: e, escapingLineEndings: true)
                : SWAR.next(in: base, from: i, to: e, escapingLineEndings: false)
            if i >= e { break }
            if run < i { out.append(contentsOf: MDBytes(rebasing: b[run..<i])) }
            switch b[i] {
            case UInt8(ascii: "&"): lit("&amp;")
            case UInt8(ascii: "<"): lit("&lt;")
            case UInt8(ascii: ">"): lit("&gt;")
            case UInt8(ascii: "\""): lit("&quot;")
            default: out.append(0x20)
            }
            i += 1
            run = i
        }
        if run < e { out.append(contentsOf: MDBytes(rebasing: b[run..<e])) }
    }

    /// cmark's houdini_escape_href: safe bytes as is, `&` and `'` as entities, others %XX.
    mutating func escapeHref(_ b: MDBytes) {
        let table = hrefSafe
        table.withUnsafeBufferPointer { safe in
            var i = 0
            let e = b.count
            var run = 0
            while i < e {
                let c = b[i]
                if safe[Int(c)] {
                    i += 1
                    continue
                }
                if run < i { out.append(contentsOf: MDBytes(rebasing: b[run..<i])) }
                if c == UInt8(ascii: "&") {
                    lit("&amp;")
                } else if c == UInt8(ascii: "'") {
                    lit("&#x27;")
                } else {
                    out.append(UInt8(ascii: "%"))
                    out.append(hexDigits[Int(c >> 4)])
                    out.append(hexDigits[Int(c & 0xF)])
                }
                i += 1
                run = i
            }
            if run < e { out.append(contentsOf: MDBytes(rebasing: b[run..<e])) }
        }
    }

    /// Raw HTML: as is, or with the tag filter's `<` escaped, or omitted in safe mode.
    mutating func raw(_ b: MDBytes) {
        if !options.unsafeHTML {
            lit("<!-- raw HTML omitted -->")
            return
        }
        if !options.tagFilter {
            append(b)
            return
        }
        var i = 0
        let e = b.count
        var run = 0
        while i < e {
            if b[i] == UInt8(ascii: "<") && Self.isFilteredTag(b, i, e) {
                if run < i { out.append(contentsOf: MDBytes(rebasing: b[run..<i])) }
                lit("&lt;")
                run = i + 1
            }
            i += 1
        }
        if run < e { out.append(contentsOf: MDBytes(rebasing: b[run..<e])) }
    }

    /// cmark's safe mode: `javascript:`, `vbscript:`, `file:` and `data:` URLs (except
    /// `data:image/png|gif|jpeg|webp`) are dropped when raw HTML is not allowed.
    static func isDangerousURL(_ b: MDBytes) -> Bool {
        let e = b.count
        for scheme: StaticString in ["javascript:", "vbscript:", "file:", "data:"] where MD.matchesCI(b, 0, e, scheme) {
            if scheme.utf8CodeUnitCount == 5 && MD.matchesCI(b, 0, e, "data:") {
                for img: StaticString in ["data:image/png", "data:image/gif", "data:image/jpeg", "data:image/webp"]
                where MD.matchesCI(b, 0, e, img) {
                    return false
                }
            }
            return true
        }
        return false
    }

    static func isFilteredTag(_ b: MDBytes, _ p: Int, _ e: Int) -> Bool {
        var i = p + 1
        if i < e && b[i] == UInt8(ascii: "/") { i += 1 }
        for name: StaticString in ["title", "textarea", "style", "xmp", "iframe", "noembed", "noframes", "script", "plaintext"] {
            let n = name.utf8CodeUnitCount
            if i + n > e { continue }
            var ok = true
            let p0 = name.utf8Start
            for k in 0..<n where MD.lower(b[i + k]) != p0[k] {
                ok = false
                break
            }
            if !ok { continue }
            let j = i + n
            if j >= e { return false }
            let c = b[j]
            if MD.isSpace(c) || c == UInt8(ascii: ">") { return true }
            if c == UInt8(ascii: "/") && j + 1 < e && b[j + 1] == UInt8(ascii: ">") { return true }
            return false
        }
        return false
    }

    /// A decimal number, no allocation.
    mutating func number(_ n: Int) {
        if n < 0 {
            out.append(UInt8(ascii: "-"))
            number(0 - n)
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var v = n
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[count] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                count += 1
            } while v > 0
            while count > 0 {
                count -= 1
                out.append(d[count])
            }
        }
    }
}

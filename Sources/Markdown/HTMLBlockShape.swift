/// How Markdown reads raw HTML written as lines of their own: which HTML block (CommonMark §4.6) its first
/// line starts, and whether the whole of it comes back as that one block. The Markdown writer asks it where
/// blocks must be separated; the HTML reader, which raw HTML it may keep as an HTML block.
public enum HTMLBlockShape {
    /// The type (1–7) of the HTML block the first line of `html` starts, 0 for none. `interrupting`: the
    /// line would follow a paragraph's line, where type 7 cannot start.
    public static func type(_ html: some Collection<UInt8>, interrupting: Bool = false) -> Int {
        var line = Array(html.prefix { $0 != 0x0A })
        if line.last == 0x0D { line.removeLast() }
        var i = 0
        while i < line.count, i < 4, line[i] == 0x20 { i += 1 }
        guard i < 4, i < line.count, line[i] == UInt8(ascii: "<") else { return 0 }
        return line.withUnsafeBufferPointer { s in
            let t = MD.htmlBlockStart(s, i, s.count)
            if t > 0 { return t }
            return !interrupting && MD.htmlBlockStart7(s, i, s.count) ? 7 : 0
        }
    }

    /// Whether the block `html` starts ends only at a blank line (types 6 and 7), so that whatever follows
    /// it on the next line would be read as more of it.
    public static func endsAtBlankLine(_ html: some Collection<UInt8>) -> Bool {
        let t = type(html)
        if t >= 6 { return true }
        return t > 0 && !endsOnLastLine(Array(html), t)
    }

    /// Whether `html`, written as lines of its own where a block may start, reads back as exactly one HTML
    /// block holding all of it: its first line starts one; a block of type 1–5 meets its end condition on
    /// its last line and not before; one of type 6 or 7 has no blank line.
    public static func readsAsOneBlock(_ html: some Collection<UInt8>) -> Bool {
        let bytes = Array(html)
        let t = type(bytes)
        if t == 0 { return false }
        if t <= 5 { return endsOnLastLine(bytes, t) }
        var content = bytes[...]
        if content.last == 0x0A { content = content.dropLast() }
        var blank = true
        for b in content {
            if b == 0x0A {
                if blank { return false }
                blank = true
            } else if b != 0x20 && b != 0x09 && b != 0x0D && b != 0x0C {
                blank = false
            }
        }
        return !blank
    }

    /// Types 1–5: the first line with the end condition is the last line of `bytes` (a final line break
    /// aside).
    private static func endsOnLastLine(_ bytes: [UInt8], _ t: Int) -> Bool {
        var content = bytes[...]
        if content.last == 0x0A { content = content.dropLast() }
        return content.withUnsafeBufferPointer { s in
            var start = 0
            while start <= s.count {
                var end = start
                while end < s.count, s[end] != 0x0A { end += 1 }
                if MD.htmlBlockEnd(t, s, start, end) { return end == s.count }
                start = end + 1
            }
            return false
        }
    }
}

/// The line engine shared by the Markdown and plain-text writers (cmark's `render.c` in spirit): it writes
/// a prefix (block-quote markers, list indentation) at the start of every line, and separates blocks with
/// at most the number of line breaks asked for.
struct LineWriter {
    var out: [UInt8] = []
    /// Written at the start of each line.
    var prefix: [UInt8] = []
    /// True when nothing has been written on the current line yet (not even the prefix).
    private(set) var atLineStart = true
    /// True while only the prefix (and a list marker or quote marker) is on the current line.
    var beginContent = true
    /// Line breaks owed before the next output: 1 = end the line, 2 = also leave a blank line.
    var pendingBreaks = 0

    init(capacity: Int = 0) { out.reserveCapacity(capacity) }

    /// Writes the owed line breaks (blank lines carry the prefix without its trailing spaces).
    mutating func flushBreaks() {
        guard pendingBreaks > 0, !out.isEmpty else {
            pendingBreaks = 0
            return
        }
        if !atLineStart {
            out.append(0x0A)
            atLineStart = true
        }
        if pendingBreaks >= 2 {
            var end = prefix.count
            while end > 0, prefix[end - 1] == 0x20 { end -= 1 }
            out.append(contentsOf: prefix[..<end])
            out.append(0x0A)
        }
        pendingBreaks = 0
        beginContent = true
    }

    @inline(__always) private mutating func startLineIfNeeded() {
        if pendingBreaks > 0 { flushBreaks() }
        if atLineStart {
            out.append(contentsOf: prefix)
            atLineStart = false
            beginContent = true
        }
    }

    mutating func write(_ bytes: some Sequence<UInt8>) {
        startLineIfNeeded()
        out.append(contentsOf: bytes)
    }
    mutating func write(_ s: String) { write(s.utf8) }
    mutating func write(byte: UInt8) {
        startLineIfNeeded()
        out.append(byte)
    }

    /// Writes `bytes`, ending the line at every LF (so each line of a code block or HTML block gets the prefix).
    mutating func writeLines(_ bytes: ArraySlice<UInt8>) {
        var start = bytes.startIndex
        var i = start
        while i < bytes.endIndex {
            if bytes[i] == 0x0A {
                if i > start { write(bytes[start..<i]) }
                newline()
                start = i + 1
            }
            i += 1
        }
        if start < bytes.endIndex { write(bytes[start..<bytes.endIndex]) }
    }

    /// Ends the current line now (writing the prefix first if the line is still empty).
    mutating func newline() {
        if pendingBreaks > 0 { flushBreaks() }
        if atLineStart { out.append(contentsOf: prefix) }
        out.append(0x0A)
        atLineStart = true
        beginContent = true
    }

    /// Asks for at least `n` line breaks before the next output.
    mutating func breaks(_ n: Int) { pendingBreaks = max(pendingBreaks, n) }

    /// Ends the output with exactly one newline (when anything was written).
    mutating func finish() -> [UInt8] {
        if !atLineStart { out.append(0x0A) }
        return out
    }
}

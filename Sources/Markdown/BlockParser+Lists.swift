// List items: their markers (bullet and ordered), whether an item continues its list, and GFM task items.

extension BlockParser {
    struct ListData {
        var ordered = false
        var delim: UInt8 = 0  // bullet char or '.' / ')'
        var start: Int32 = 0
        var padding: Int32 = 0
        var markerOffset: Int32 = 0
    }

    func parseListMarker(_ p: Int, interruptsParagraph: Bool) -> (Int, ListData) {
        var pos = p
        let c = s[pos]
        var data = ListData()
        if c == UInt8(ascii: "*") || c == UInt8(ascii: "-") || c == UInt8(ascii: "+") {
            pos += 1
            guard MD.isSpace(s[pos]) else { return (0, data) }
            if interruptsParagraph {
                var i = pos
                while MD.isSpaceOrTab(s[i]) { i += 1 }
                if s[i] == 0x0A { return (0, data) }
            }
            data.ordered = false
            data.delim = c
        } else if MD.isDigit(c) {
            var start: Int32 = 0
            var digits = 0
            repeat {
                start = start * 10 + Int32(s[pos] - 48)
                pos += 1
                digits += 1
            } while digits < 9 && MD.isDigit(s[pos])
            if interruptsParagraph && start != 1 { return (0, data) }
            let d = s[pos]
            guard d == UInt8(ascii: ".") || d == UInt8(ascii: ")") else { return (0, data) }
            pos += 1
            guard MD.isSpace(s[pos]) else { return (0, data) }
            if interruptsParagraph {
                var i = pos
                while MD.isSpaceOrTab(s[i]) { i += 1 }
                if s[i] == 0x0A { return (0, data) }
            }
            data.ordered = true
            data.delim = d
            data.start = start
        } else {
            return (0, data)
        }
        return (pos - p, data)
    }

    func listsMatch(_ list: Int32, _ data: ListData) -> Bool {
        let r = nodes[Int(list)]
        return (r.a == 1) == data.ordered && r.b == data.delim
    }

    /// GFM task list item (cmark-gfm's scan_tasklist): the line must be
    /// `[ \t]* marker [ \t]+ "[" (" " | "x" | "X") "]" [ \t]+ …`, i.e. the item's marker
    /// starts the line (no other container prefix).
    mutating func openTaskItem(_ item: Int32) -> Bool {
        findFirstNonspace()
        let p = firstNonspace
        guard p + 4 <= lineEnd, s[p] == UInt8(ascii: "["), s[p + 2] == UInt8(ascii: "]") else { return false }
        let m = s[p + 1]
        guard m == 0x20 || m == UInt8(ascii: "x") || m == UInt8(ascii: "X") else { return false }
        guard MD.isSpaceOrTab(s[p + 3]) else { return false }
        var i = contentStart
        while MD.isSpaceOrTab(s[i]) { i += 1 }
        if s[i] == UInt8(ascii: "*") || s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "+") {
            i += 1
        } else {
            let d = i
            while MD.isDigit(s[i]) { i += 1 }
            guard i > d, s[i] == UInt8(ascii: ".") || s[i] == UInt8(ascii: ")") else { return false }
            i += 1
        }
        let afterMarker = i
        while MD.isSpaceOrTab(s[i]) { i += 1 }
        guard i > afterMarker, i == p else { return false }
        nodes[Int(item)].a = m == 0x20 ? 1 : 2
        advanceOffset(p + 3 - offset, columns: false)
        return true
    }
}

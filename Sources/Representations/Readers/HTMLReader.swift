/// Reads clipboard HTML into the readers' ``RichBlock`` model.
///
/// Handles what browsers and office suites actually put on the clipboard:
/// - Encodings: UTF-8 (with or without BOM; NUL bytes become U+FFFD), UTF-16LE/BE with a BOM, a UTF-16
///   charset declaration or UTF-16's byte pattern (old Firefox on X11), `<meta charset>` for windows-125x; Windows CF_HTML headers; `<!--StartFragment-->` markers,
///   the fragment read inside the elements open at its start (``content(_:)``).
/// - Google Docs: the `<b style="font-weight:normal" id="docs-internal-guid-…">` wrapper is not bold;
///   formatting comes from inline CSS (`font-weight:700`, `font-style:italic`, `line-through`, monospace
///   fonts); lists nested as sibling `<ul>`s.
/// - Microsoft Word: `MsoListParagraph` paragraphs with `mso-list:lN levelM` become real (nested) lists;
///   the `mso-list:Ignore` marker decides ordered or bullet.
/// - GitHub-rendered Markdown: heading anchors, copy buttons and SVG icons are dropped, task-list
///   checkboxes and `highlight-source-LANG` code blocks are kept.
/// - Scripts, styles and comments are dropped; unknown tags are unwrapped; white space collapses as a
///   browser renders it; tables become GFM tables when every cell is inline content, else stay HTML.
struct HTMLReader {
    /// - Parameter keepRawHTML: keep what Markdown cannot represent (comments, processing instructions,
    ///   declarations, unknown elements, layout containers such as `div`, scripts and styles, `<i>`/`<b>`
    ///   and other tags Markdown writes differently, links and images with attributes Markdown has no syntax
    ///   for, header-less tables) as their exact source, so the Markdown renders back to the same HTML, like
    ///   pandoc's `html+raw_html` (paragraphs, headings and lists stay Markdown and lose their attributes, as
    ///   there). Off by default: clipboard HTML drops and unwraps all these.
    static func read(_ bytes: [UInt8], keepRawHTML: Bool = false) -> [RichBlock] {
        let (html, fragmentRange) = content(decode(bytes))
        var range = fragmentRange
        // Kept raw HTML is the body's: the document's head (doctype, title, styles) is not content.
        if keepRawHTML { range = bodyRange(html, range) }
        let tree = HTMLTreeBuilder.parse(html[range], keepRaw: keepRawHTML)
        var converter = HTMLConverter()
        converter.keepRaw = keepRawHTML
        return withExtendedLifetime(tree) { converter.convert(tree.root) }
    }

    // MARK: Decoding

    /// The HTML as UTF-8 bytes, U+0000 replaced by U+FFFD.
    static func decode(_ bytes: [UInt8]) -> [UInt8] { withoutNUL(decodeCharset(bytes)) }

    private static func decodeCharset(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(String(decoding: bytes.dropFirst(3), as: UTF8.self).utf8) }
        if bytes.starts(with: [0xFF, 0xFE]) { return utf16(bytes.dropFirst(2), littleEndian: true) }
        if bytes.starts(with: [0xFE, 0xFF]) { return utf16(bytes.dropFirst(2), littleEndian: false) }
        if let littleEndian = utf16ByteOrder(bytes) { return utf16(bytes[...], littleEndian: littleEndian) }
        // NUL bytes that end the input are a C string's terminator or padding, not text.
        var bytes = bytes
        while bytes.last == 0 { bytes.removeLast() }
        // Declared single-byte charset (windows-125x / iso-8859-1) in the first kilobytes.
        if let codePage = declaredCodePage(bytes), !isValidUTF8(bytes) {
            var utf8: [UInt8] = []
            utf8.reserveCapacity(bytes.count)
            CodePage.forNumber(codePage).decode(bytes[...], into: &utf8)
            return utf8
        }
        if isValidUTF8(bytes) { return bytes }
        // Not UTF-8 and nothing declared: Windows-1252 is what browsers assume.
        var utf8: [UInt8] = []
        utf8.reserveCapacity(bytes.count)
        CodePage.cp1252.decode(bytes[...], into: &utf8)
        return utf8
    }

    /// U+0000 becomes U+FFFD: a NUL is no character of HTML text (the tokenizer's parse error; CommonMark
    /// replaces it so too), and Markdown or plain text must not carry it on.
    private static func withoutNUL(_ utf8: [UInt8]) -> [UInt8] {
        let first = utf8.withUnsafeBufferPointer { ByteScan.firstIndex(of: 0, in: $0, from: 0) }
        guard first < utf8.count else { return utf8 }
        var out = Array(utf8[..<first])
        out.reserveCapacity(utf8.count + 16)
        for b in utf8[first...] {
            if b == 0 { out += [0xEF, 0xBF, 0xBD] } else { out.append(b) }
        }
        return out
    }

    /// The byte order of UTF-16 without a byte order mark (old Firefox on X11 wrote `text/html` so): true
    /// little-endian, false big-endian, nil when the bytes are not UTF-16. NUL bytes alone are no evidence
    /// (UTF-8 HTML may hold some, and reading it as UTF-16 garbled it and lost its last byte). Evidence is a
    /// `charset=utf-16` declared in UTF-16 itself (the HTML standard reads one that is legible as ASCII as
    /// UTF-8), or UTF-16's pattern over the whole text: whole code units, the first one ASCII (markup starts
    /// with `<` or white space), a NUL in the high byte of at least a quarter of the units (markup is
    /// ASCII) and hardly ever in the low byte.
    static func utf16ByteOrder(_ bytes: [UInt8]) -> Bool? {
        var n = bytes.count
        // A terminating NUL byte some clipboard owners add is not part of the text.
        if n % 2 == 1, n > 0, bytes[n - 1] == 0 { n -= 1 }
        guard n >= 4, n % 2 == 0 else { return nil }
        let (even, odd) = bytes.withUnsafeBufferPointer { buf -> (Int, Int) in
            var even = 0
            var odd = 0
            var k = ByteScan.firstIndex(of: 0, in: buf, from: 0)
            while k < n {
                if k % 2 == 0 { even += 1 } else { odd += 1 }
                k = ByteScan.firstIndex(of: 0, in: buf, from: k + 1)
            }
            return (even, odd)
        }
        guard even + odd > 0 else { return nil }
        let units = n / 2
        for littleEndian in [true, false] {
            let (high, low) = littleEndian ? (odd, even) : (even, odd)
            guard high > low else { continue }
            if declaresUTF16(bytes, littleEndian: littleEndian) { return littleEndian }
            let firstIsASCII = littleEndian ? bytes[1] == 0 && bytes[0] != 0 && bytes[0] < 0x80 : bytes[0] == 0 && bytes[1] != 0 && bytes[1] < 0x80
            if firstIsASCII && high * 4 >= units && low * 16 <= high { return littleEndian }
        }
        return nil
    }

    /// Whether the first kilobytes, read as UTF-16 in this byte order, declare `charset=utf-16…`.
    private static func declaresUTF16(_ bytes: [UInt8], littleEndian: Bool) -> Bool {
        var ascii: [UInt8] = []
        let limit = min(bytes.count, 8192)
        var k = 0
        while k + 1 < limit {
            let (low, high) = littleEndian ? (bytes[k], bytes[k + 1]) : (bytes[k + 1], bytes[k])
            ascii.append(high == 0 && low < 0x80 ? (low >= 0x41 && low <= 0x5A ? low | 0x20 : low) : 0x3F)
            k += 2
        }
        let head = String(decoding: ascii, as: UTF8.self)
        guard let r = head.firstRange(of: "charset=") else { return false }
        return head[r.upperBound...].drop { $0 == "\"" || $0 == "'" || $0 == " " }.hasPrefix("utf-16")
    }

    /// Well-formed UTF-8 (Unicode table 3-7: no overlong forms, surrogates or values above U+10FFFF),
    /// checked eight ASCII bytes at a time.
    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buf -> Bool in
            guard let base = buf.baseAddress else { return true }
            let n = buf.count
            var i = 0
            @inline(__always) func cont(_ k: Int) -> Bool { k < n && buf[k] & 0xC0 == 0x80 }
            while i < n {
                while i + 8 <= n, UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 }
                guard i < n else { break }
                let b = buf[i]
                switch b {
                case 0x00...0x7F:
                    i += 1
                case 0xC2...0xDF:
                    guard cont(i + 1) else { return false }
                    i += 2
                case 0xE0...0xEF:
                    guard i + 1 < n else { return false }
                    let c = buf[i + 1]
                    let ok = b == 0xE0 ? (c >= 0xA0 && c <= 0xBF) : b == 0xED ? (c >= 0x80 && c <= 0x9F) : (c & 0xC0 == 0x80)
                    guard ok, cont(i + 2) else { return false }
                    i += 3
                case 0xF0...0xF4:
                    guard i + 1 < n else { return false }
                    let c = buf[i + 1]
                    let ok = b == 0xF0 ? (c >= 0x90 && c <= 0xBF) : b == 0xF4 ? (c >= 0x80 && c <= 0x8F) : (c & 0xC0 == 0x80)
                    guard ok, cont(i + 2), cont(i + 3) else { return false }
                    i += 4
                default:
                    return false
                }
            }
            return true
        }
    }

    private static func utf16(_ bytes: ArraySlice<UInt8>, littleEndian: Bool) -> [UInt8] {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var k = bytes.startIndex
        while k + 1 < bytes.endIndex {
            let a = UInt16(bytes[k])
            let b = UInt16(bytes[k + 1])
            units.append(littleEndian ? a | b << 8 : a << 8 | b)
            k += 2
        }
        while units.last == 0 { units.removeLast() }
        // A last odd byte is half a character: shown as U+FFFD, not dropped (a terminating NUL is dropped).
        if k < bytes.endIndex, bytes[k] != 0 { units.append(0xFFFD) }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }

    private static func declaredCodePage(_ bytes: [UInt8]) -> Int? {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self).lowercased()
        guard let r = head.firstRange(of: "charset=") else { return nil }
        let value = head[r.upperBound...].drop { $0 == "\"" || $0 == "'" || $0 == " " }.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        switch value {
        case "windows-1250": return 1250
        case "windows-1251": return 1251
        case "windows-1252", "iso-8859-1", "latin1", "us-ascii", "iso-8859-15": return 1252
        case "windows-1253": return 1253
        case "windows-1254": return 1254
        case "windows-1255": return 1255
        case "windows-1256": return 1256
        case "windows-1257": return 1257
        case "windows-1258": return 1258
        case "shift_jis", "shift-jis", "windows-31j": return 932
        case "gbk", "gb2312": return 936
        case "euc-kr": return 949
        case "big5": return 950
        default: return nil
        }
    }

    /// Strips a CF_HTML header and keeps only the clipboard fragment, in the context of the elements open
    /// where it starts (see ``content(_:)``).
    static func fragment(_ bytes: [UInt8]) -> [UInt8] {
        let (html, range) = content(bytes)
        return Array(html[range])
    }

    /// What to read of clipboard HTML: after any CF_HTML header (`Version:0.9 StartHTML:… StartFragment:…`),
    /// and when the selection is marked (`<!--StartFragment-->` … `<!--EndFragment-->`, else the header's
    /// `StartFragment:`/`EndFragment:` byte offsets), only the selection, preceded by the start tags of the
    /// elements open where it starts. Browsers paste a fragment that way: Qt puts the marker inside the first
    /// block (`<h1><!--StartFragment-->Title</h1>`), and a selection that starts in a list item or a table
    /// cell is still in its list or table. Returns the bytes and the range of them to read; the input itself
    /// when there is nothing to add.
    static func content(_ html: [UInt8]) -> (bytes: [UInt8], range: Range<Int>) {
        let header = headerEnd(html)
        guard let fragment = fragmentBounds(html, from: header) else { return (html, header..<html.count) }
        let context = HTMLTreeBuilder.openStartTags(html[header..<fragment.start])
        if context.isEmpty { return (html, fragment.content) }
        let bytes = context + html[fragment.content]
        return (bytes, 0..<bytes.count)
    }

    /// Where the HTML after a CF_HTML header starts (its first `<`); 0 when there is no header.
    private static func headerEnd(_ html: [UInt8]) -> Int {
        guard html.starts(with: "Version:".utf8) else { return 0 }
        return html.firstIndex(of: UInt8(ascii: "<")) ?? html.count
    }

    /// The selection: `start` where it begins (its start marker, or the header's offset) and the range of its
    /// content; nil when the input marks none.
    private static func fragmentBounds(_ html: [UInt8], from header: Int) -> (start: Int, content: Range<Int>)? {
        let b = header..<html.count
        let start = Array("<!--StartFragment-->".utf8)
        let end = Array("<!--EndFragment-->".utf8)
        if let s = find(start, in: html, b), let e = find(end, in: html, (s + start.count)..<b.upperBound) {
            return (s, (s + start.count)..<e)
        }
        // No markers: the header's offsets (UTF-8 byte offsets from the header's start), when they make sense.
        guard header > 0, let s = headerNumber(html, "StartFragment:", before: header),
            let e = headerNumber(html, "EndFragment:", before: header), header <= s, s <= e, e <= html.count
        else { return nil }
        return (s, s..<e)
    }

    /// The decimal value of a CF_HTML header field (`StartFragment:0000000141`).
    private static func headerNumber(_ html: [UInt8], _ field: String, before end: Int) -> Int? {
        let name = Array(field.utf8)
        guard let k = find(name, in: html, 0..<end, first: name[0]) else { return nil }
        var value = 0
        var digits = 0
        var j = k + name.count
        while j < end, html[j] >= 0x30, html[j] <= 0x39, digits < 12 {
            value = value * 10 + Int(html[j] - 0x30)
            digits += 1
            j += 1
        }
        return digits > 0 ? value : nil
    }

    /// The content of the `<body>` element inside `range` (ASCII case ignored), or `range` when there is none.
    static func bodyRange(_ bytes: [UInt8], _ range: Range<Int>) -> Range<Int> {
        func tag(_ name: String, from: Int) -> Int? {
            let n = Array(name.utf8)
            var k = from
            while k + n.count < range.upperBound {
                if bytes[k] == UInt8(ascii: "<") {
                    var same = true
                    for j in 0..<n.count where bytes[k + 1 + j] | 0x20 != n[j] {
                        same = false
                        break
                    }
                    let after = k + 1 + n.count
                    if same && (after >= range.upperBound || [0x20, 0x09, 0x0A, 0x0D, 0x0C, 0x3E, 0x2F].contains(bytes[after])) { return k }
                }
                k += 1
            }
            return nil
        }
        guard let open = tag("body", from: range.lowerBound) else { return range }
        guard let gt = bytes[open..<range.upperBound].firstIndex(of: UInt8(ascii: ">")) else { return range.upperBound..<range.upperBound }
        let end = tag("/body", from: gt + 1) ?? range.upperBound
        return (gt + 1)..<max(gt + 1, end)
    }

    /// The first position of `needle` (which starts with `first`, `<` unless told) in `bytes[range]`.
    private static func find(_ needle: [UInt8], in bytes: [UInt8], _ range: Range<Int>, first: UInt8 = UInt8(ascii: "<")) -> Int? {
        guard needle.count <= range.count else { return nil }
        return bytes.withUnsafeBufferPointer { buf -> Int? in
            let window = UnsafeBufferPointer(rebasing: buf[..<range.upperBound])
            let last = range.upperBound - needle.count
            var k = range.lowerBound
            while true {
                k = ByteScan.firstIndex(of: first, in: window, from: k)
                if k > last { return nil }
                var m = 1
                while m < needle.count, buf[k + m] == needle[m] { m += 1 }
                if m == needle.count { return k }
                k += 1
            }
        }
    }
}

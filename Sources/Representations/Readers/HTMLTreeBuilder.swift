/// An element or text node of the tolerant HTML tree.
final class HTMLNode {
    enum Kind { case element, text, comment }
    let kind: Kind
    /// Lower-case tag name for elements.
    let name: String
    var attributes: [(name: String, value: String)]
    var children: [HTMLNode] = []
    /// Text content (decoded) for text and comment nodes.
    var text: String

    /// What the tree builder and the converter need to know about the tag, looked up once per element.
    struct Flags: OptionSet {
        let rawValue: UInt8
        static let void = Flags(rawValue: 1)
        static let rawText = Flags(rawValue: 2)
        static let closesParagraph = Flags(rawValue: 4)
        static let dropped = Flags(rawValue: 8)
        /// Named by a case of ``HTMLConverter``'s block switch (see ``HTMLConverter/blockSwitchNames``).
        static let blockSwitch = Flags(rawValue: 16)
    }
    let flags: Flags

    static let tagFlags: [String: Flags] = {
        var t: [String: Flags] = [:]
        for n in HTMLTreeBuilder.voidElements { t[n, default: []].insert(.void) }
        for n in HTMLTreeBuilder.rawTextElements { t[n, default: []].insert(.rawText) }
        for n in HTMLTreeBuilder.closesParagraph { t[n, default: []].insert(.closesParagraph) }
        for n in HTMLConverter.dropped { t[n, default: []].insert(.dropped) }
        for n in HTMLConverter.blockSwitchNames { t[n, default: []].insert(.blockSwitch) }
        return t
    }()

    init(element name: String, attributes: [(name: String, value: String)] = [], flags: Flags? = nil) {
        kind = .element
        self.name = name
        self.attributes = attributes
        self.flags = flags ?? HTMLNode.tagFlags[name] ?? []
        text = ""
    }
    init(text: String) {
        kind = .text
        name = ""
        attributes = []
        flags = []
        self.text = text
    }
    init(comment: String) {
        kind = .comment
        name = "#comment"
        attributes = []
        flags = []
        text = comment
    }

    func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }
}

/// An HTML5-style tokenizer and a tolerant tree builder for clipboard HTML.
///
/// It follows the HTML5 tokenizer for tags, attributes (quoted, unquoted, duplicated), comments, bogus
/// comments (`<![if !supportLists]>`), doctype, CDATA and raw-text elements (`script`, `style`, `textarea`,
/// `title`…), and decodes character references. The tree builder is simpler than HTML5's: it closes
/// implied elements (`p` before a block, `li` before `li`, table cells and rows), ignores end tags with no
/// open element, treats `html`/`head`/`body` as transparent and caps nesting depth, so no input can make
/// it fail, loop or recurse without bound.
struct HTMLTreeBuilder {
    static let maxDepth = 400

    private let bytes: [UInt8]
    private var i = 0
    private var stack: [HTMLNode]
    let root = HTMLNode(element: "#root")

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        stack = [root]
    }

    static func parse(_ bytes: [UInt8]) -> HTMLNode {
        var b = HTMLTreeBuilder(bytes)
        b.run()
        return b.root
    }

    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
        "basefont", "bgsound", "frame", "keygen",
    ]
    static let rawTextElements: Set<String> = [
        "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext",
    ]
    /// Start tags that close an open `<p>`.
    static let closesParagraph: Set<String> = [
        "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl", "fieldset",
        "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "main",
        "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "ul", "li", "dd", "dt",
    ]

    // MARK: Tokenizer

    private mutating func run() {
        let n = bytes.count
        var textStart = 0
        while i < n {
            if bytes[i] != UInt8(ascii: "<") {
                // Skip to the next `<` in one scan of the text.
                let next = bytes.withUnsafeBufferPointer { buf -> Int in
                    var k = i + 1
                    while k < n, buf[k] != UInt8(ascii: "<") { k += 1 }
                    return k
                }
                i = next
                continue
            }
            // Possible markup at i.
            let lt = i
            guard i + 1 < n else { break }
            let c = bytes[i + 1]
            if c == UInt8(ascii: "!") || c == UInt8(ascii: "/") || c == UInt8(ascii: "?") || isASCIILetter(c) {
                flushText(textStart, lt)
                if !markup() {
                    // Not markup after all: the `<` is text.
                    textStart = lt
                    i = lt + 1
                    continue
                }
                textStart = i
            } else {
                i += 1
            }
        }
        flushText(textStart, n)
    }

    @inline(__always) private func isASCIILetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
    @inline(__always) private func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D }

    private mutating func flushText(_ start: Int, _ end: Int) {
        guard end > start else { return }
        let s = bytes.withUnsafeBufferPointer { all -> String in
            let run = UnsafeBufferPointer(rebasing: all[start..<end])
            if run.contains(UInt8(ascii: "&")) { return HTMLEntityDecoder.decode(run) }
            return String(decoding: run, as: UTF8.self)
        }
        appendText(s)
    }

    private mutating func appendText(_ s: String) {
        let parent = stack[stack.count - 1]
        if let last = parent.children.last, last.kind == .text {
            last.text += s
        } else {
            parent.children.append(HTMLNode(text: s))
        }
    }

    /// Parses markup at `i` (a `<`). Returns false when it is not markup (then it is text).
    private mutating func markup() -> Bool {
        let n = bytes.count
        let c = bytes[i + 1]
        if c == UInt8(ascii: "!") {
            if i + 3 < n, bytes[i + 2] == UInt8(ascii: "-"), bytes[i + 3] == UInt8(ascii: "-") {
                // Comment: ends at -->, or --!>, or (for <!--> and <!--->) right away.
                var j = i + 4
                if j < n, bytes[j] == UInt8(ascii: ">") {
                    i = j + 1
                    return true
                }
                if j + 1 < n, bytes[j] == UInt8(ascii: "-"), bytes[j + 1] == UInt8(ascii: ">") {
                    i = j + 2
                    return true
                }
                let start = j
                while j < n {
                    if bytes[j] == UInt8(ascii: "-"), j + 2 < n, bytes[j + 1] == UInt8(ascii: "-"), bytes[j + 2] == UInt8(ascii: ">") {
                        break
                    }
                    if bytes[j] == UInt8(ascii: "-"), j + 3 < n, bytes[j + 1] == UInt8(ascii: "-"), bytes[j + 2] == UInt8(ascii: "!"),
                        bytes[j + 3] == UInt8(ascii: ">")
                    {
                        break
                    }
                    j += 1
                }
                let comment = String(decoding: bytes[start..<min(j, n)], as: UTF8.self)
                stack[stack.count - 1].children.append(HTMLNode(comment: comment))
                i = j >= n ? n : (bytes[j + 2] == UInt8(ascii: ">") ? j + 3 : j + 4)
                return true
            }
            if i + 8 < n, String(decoding: bytes[i + 2..<i + 9], as: UTF8.self) == "[CDATA[" {
                var j = i + 9
                while j + 2 < n, !(bytes[j] == UInt8(ascii: "]") && bytes[j + 1] == UInt8(ascii: "]") && bytes[j + 2] == UInt8(ascii: ">")) {
                    j += 1
                }
                let end = min(j, n)
                appendText(String(decoding: bytes[(i + 9)..<max(i + 9, end)], as: UTF8.self))
                i = min(n, j + 3)
                return true
            }
            // Doctype or bogus comment (e.g. Word's <![if !supportLists]>): up to the next >.
            bogusComment(from: i + 2)
            return true
        }
        if c == UInt8(ascii: "?") {
            bogusComment(from: i + 2)
            return true
        }
        if c == UInt8(ascii: "/") {
            guard i + 2 < n else { return false }
            if bytes[i + 2] == UInt8(ascii: ">") {
                i += 3
                return true
            }
            if !isASCIILetter(bytes[i + 2]) {
                bogusComment(from: i + 2)
                return true
            }
            var j = i + 2
            let nameStart = j
            while j < n, !isSpace(bytes[j]), bytes[j] != UInt8(ascii: "/"), bytes[j] != UInt8(ascii: ">") { j += 1 }
            let name = lowercasedName(nameStart..<j)
            while j < n, bytes[j] != UInt8(ascii: ">") { j += 1 }
            i = min(n, j + 1)
            endTag(name)
            return true
        }
        // Start tag.
        var j = i + 1
        let nameStart = j
        while j < n, !isSpace(bytes[j]), bytes[j] != UInt8(ascii: "/"), bytes[j] != UInt8(ascii: ">") { j += 1 }
        let name = lowercasedName(nameStart..<j)
        var attributes: [(name: String, value: String)] = []
        var selfClosing = false
        while j < n {
            while j < n, isSpace(bytes[j]) || bytes[j] == UInt8(ascii: "/") {
                if bytes[j] == UInt8(ascii: "/") { selfClosing = true }
                j += 1
            }
            if j >= n { break }
            if bytes[j] == UInt8(ascii: ">") {
                j += 1
                break
            }
            selfClosing = false
            let an = j
            j += 1  // the first character may be '=' (HTML5 takes it as part of the name)
            while j < n, !isSpace(bytes[j]), bytes[j] != UInt8(ascii: "/"), bytes[j] != UInt8(ascii: ">"), bytes[j] != UInt8(ascii: "=") { j += 1 }
            let attrName = lowercasedName(an..<j)
            while j < n, isSpace(bytes[j]) { j += 1 }
            var value = ""
            if j < n, bytes[j] == UInt8(ascii: "=") {
                j += 1
                while j < n, isSpace(bytes[j]) { j += 1 }
                if j < n, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'") {
                    let q = bytes[j]
                    let vs = j + 1
                    j = vs
                    while j < n, bytes[j] != q { j += 1 }
                    value = String(decoding: bytes[vs..<min(j, n)], as: UTF8.self)
                    j = min(n, j + 1)
                } else {
                    let vs = j
                    while j < n, !isSpace(bytes[j]), bytes[j] != UInt8(ascii: ">") { j += 1 }
                    value = String(decoding: bytes[vs..<j], as: UTF8.self)
                }
                if value.utf8.contains(UInt8(ascii: "&")) { value = HTMLEntityDecoder.decode(value, inAttribute: true) }
            }
            if !attributes.contains(where: { $0.name == attrName }) { attributes.append((attrName, value)) }
        }
        i = min(j, n)
        let flags = HTMLNode.tagFlags[name] ?? []
        startTag(name, attributes, selfClosing: selfClosing, flags: flags)
        if flags.contains(.rawText) && !selfClosing {
            rawText(name)
        }
        return true
    }

    /// A tag or attribute name, lower-cased (ASCII) without going through `String.lowercased()`.
    private func lowercasedName(_ range: Range<Int>) -> String {
        if !bytes[range].contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return String(decoding: bytes[range], as: UTF8.self) }
        return String(decoding: bytes[range].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private mutating func bogusComment(from start: Int) {
        var j = start
        while j < bytes.count, bytes[j] != UInt8(ascii: ">") { j += 1 }
        let text = String(decoding: bytes[start..<min(j, bytes.count)], as: UTF8.self)
        stack[stack.count - 1].children.append(HTMLNode(comment: text))
        i = min(bytes.count, j + 1)
    }

    /// Content of a raw-text element up to its end tag.
    private mutating func rawText(_ name: String) {
        let n = bytes.count
        var j = i
        let lower = Array(name.utf8)
        while j < n {
            if bytes[j] == UInt8(ascii: "<"), j + 1 < n, bytes[j + 1] == UInt8(ascii: "/"), j + 2 + lower.count <= n {
                var match = true
                for (k, c) in lower.enumerated() where bytes[j + 2 + k] | 0x20 != c {
                    match = false
                    break
                }
                if match {
                    let after = j + 2 + lower.count
                    if after >= n || isSpace(bytes[after]) || bytes[after] == UInt8(ascii: ">") || bytes[after] == UInt8(ascii: "/") { break }
                }
            }
            j += 1
        }
        if j > i {
            var s = String(decoding: bytes[i..<j], as: UTF8.self)
            if (name == "textarea" || name == "title") && s.utf8.contains(UInt8(ascii: "&")) { s = HTMLEntityDecoder.decode(s) }
            appendText(s)
        }
        i = j
        if j < n {
            while i < n, bytes[i] != UInt8(ascii: ">") { i += 1 }
            i = min(n, i + 1)
        }
        endTag(name)
    }

    // MARK: Tree building

    private static let defaultScope: Set<String> = ["table", "td", "th", "#root"]
    private static let paragraphScope: Set<String> = ["table", "td", "th", "li", "#root", "blockquote", "div"]
    private static let listItemScope: Set<String> = ["ul", "ol", "table", "td", "th", "#root"]
    private static let definitionScope: Set<String> = ["dl", "table", "#root"]
    private static let cellScope: Set<String> = ["tr", "table", "#root"]
    private static let tableScope: Set<String> = ["table", "#root"]
    private static let selectScope: Set<String> = ["select", "#root"]
    private static let rootScope: Set<String> = ["#root"]
    private static let tableParts: Set<String> = ["table", "td", "th", "tr", "tbody", "thead", "tfoot"]

    private func isOpen(_ name: String, scopeStoppers: Set<String> = HTMLTreeBuilder.defaultScope) -> Int? {
        var k = stack.count - 1
        while k > 0 {
            if stack[k].name == name { return k }
            if scopeStoppers.contains(stack[k].name) { return nil }
            k -= 1
        }
        return nil
    }

    private mutating func startTag(_ name: String, _ attributes: [(name: String, value: String)], selfClosing: Bool, flags: HTMLNode.Flags) {
        switch name {
        case "html", "head", "body":
            // transparent; keep body/html attributes out of the tree
            return
        default:
            break
        }
        if flags.contains(.closesParagraph), let k = isOpen("p", scopeStoppers: Self.paragraphScope) {
            stack.removeSubrange(k...)
        }
        switch name {
        case "li":
            if let k = isOpen("li", scopeStoppers: Self.listItemScope) { stack.removeSubrange(k...) }
        case "dt", "dd":
            if let k = isOpen("dt", scopeStoppers: Self.definitionScope) { stack.removeSubrange(k...) }
            if let k = isOpen("dd", scopeStoppers: Self.definitionScope) { stack.removeSubrange(k...) }
        case "td", "th":
            if let k = isOpen("td", scopeStoppers: Self.cellScope) { stack.removeSubrange(k...) }
            if let k = isOpen("th", scopeStoppers: Self.cellScope) { stack.removeSubrange(k...) }
        case "tr":
            if let k = isOpen("tr", scopeStoppers: Self.tableScope) { stack.removeSubrange(k...) }
        case "thead", "tbody", "tfoot":
            for t in ["thead", "tbody", "tfoot"] {
                if let k = isOpen(t, scopeStoppers: Self.tableScope) { stack.removeSubrange(k...) }
            }
        case "option":
            if let k = isOpen("option", scopeStoppers: Self.selectScope) { stack.removeSubrange(k...) }
        case "a":
            if let k = isOpen("a") { stack.removeSubrange(k...) }
        case "h1", "h2", "h3", "h4", "h5", "h6":
            if let top = stack.last, top.name.count == 2, top.name.hasPrefix("h"), top.name != "hr" { stack.removeLast() }
        default:
            break
        }
        let node = HTMLNode(element: name, attributes: attributes, flags: flags)
        stack[stack.count - 1].children.append(node)
        if flags.contains(.void) || (selfClosing && name != "div" && name != "span" && name != "p") {
            return
        }
        if stack.count >= Self.maxDepth { return }  // too deep: children go to the current element
        stack.append(node)
    }

    private mutating func endTag(_ name: String) {
        switch name {
        case "html", "head", "body":
            return
        case "br":
            stack[stack.count - 1].children.append(HTMLNode(element: "br"))
            return
        case "p":
            if let k = isOpen("p") {
                stack.removeSubrange(k...)
            } else {
                stack[stack.count - 1].children.append(HTMLNode(element: "p"))
            }
            return
        default:
            break
        }
        if let k = isOpen(name, scopeStoppers: Self.tableParts.contains(name) ? Self.rootScope : Self.defaultScope) {
            stack.removeSubrange(k...)
        }
    }
}

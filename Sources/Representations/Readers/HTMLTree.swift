/// Every tag name the reader knows, as a small integer: the tree builder and the converter switch on these
/// instead of comparing strings. Other names are `.unknown` and keep their name in the tree's bytes.
enum HTMLTag: UInt8 {
    case unknown = 0, root
    case a, abbr, address, area, article, aside, audio, b, base, basefont, bgsound, blockquote, body, br, button
    case canvas, caption, center, cite, clipboardCopy, code, col, colgroup, dd, del, details, dfn, dialog, dir, div
    case dl, dt, em, embed, fieldset, figcaption, figure, font, footer, form, frame, frameset, h1, h2, h3, h4, h5
    case h6, head, header, hgroup, hr, html, i, iframe, img, input, ins, kbd, keygen, legend, li, link, listing
    case main, map, mark, math, menu, meta, nav, noembed, noframes, noscript, oP, object, ol, option, p, param
    case plaintext, pre, q, s, samp, script, search, section, select, small, source, span, strike, strong, style
    case sub, summary, sup, svg, table, tbody, td, template, textarea, tfoot, th, thead, title, toolTip, tr, track
    case tt, u, ul, video, wbr, xml, xmp
    static let names: [String] = [
        "", "#root", "a", "abbr", "address", "area", "article", "aside", "audio", "b", "base", "basefont", "bgsound",
        "blockquote", "body", "br", "button", "canvas", "caption", "center", "cite", "clipboard-copy", "code", "col",
        "colgroup", "dd", "del", "details", "dfn", "dialog", "dir", "div", "dl", "dt", "em", "embed", "fieldset",
        "figcaption", "figure", "font", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6",
        "head", "header", "hgroup", "hr", "html", "i", "iframe", "img", "input", "ins", "kbd", "keygen", "legend",
        "li", "link", "listing", "main", "map", "mark", "math", "menu", "meta", "nav", "noembed", "noframes",
        "noscript", "o:p", "object", "ol", "option", "p", "param", "plaintext", "pre", "q", "s", "samp", "script",
        "search", "section", "select", "small", "source", "span", "strike", "strong", "style", "sub", "summary", "sup",
        "svg", "table", "tbody", "td", "template", "textarea", "tfoot", "th", "thead", "title", "tool-tip", "tr",
        "track", "tt", "u", "ul", "video", "wbr", "xml", "xmp",

    ]

    private static let byName: [String: HTMLTag] = {
        var t: [String: HTMLTag] = [:]
        for (k, n) in names.enumerated() where k > 1 { t[n] = HTMLTag(rawValue: UInt8(k)) }
        return t
    }()

    /// The tag for an already lower-cased name.
    static func lookup(_ name: String) -> HTMLTag { byName[name] ?? .unknown }

    /// An open-addressed table from a name's hash to its tag (0 = empty), for ``lookup(bytes:)``.
    private static let slots = 1024
    private static let hashTable: [UInt8] = {
        var t = [UInt8](repeating: 0, count: slots)
        for (k, n) in names.enumerated() where k > 1 {
            var h = hash(Array(n.utf8)[...]) & (slots - 1)
            while t[h] != 0 { h = (h + 1) & (slots - 1) }
            t[h] = UInt8(k)
        }
        return t
    }()
    private static let nameBytes: [[UInt8]] = names.map { Array($0.utf8) }

    @inline(__always) private static func hash<C: Collection>(_ bytes: C) -> Int where C.Element == UInt8 {
        var h: UInt32 = 2_166_136_261
        for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
        return Int(h)
    }

    /// The tag for a name given as bytes in any ASCII case, without making a `String`.
    static func lookup(lowercasing bytes: UnsafeBufferPointer<UInt8>) -> HTMLTag {
        guard !bytes.isEmpty, bytes.count <= 14 else { return .unknown }
        var h: UInt32 = 2_166_136_261
        for b in bytes { h = (h ^ UInt32(b >= 0x41 && b <= 0x5A ? b | 0x20 : b)) &* 16_777_619 }
        var slot = Int(h) & (slots - 1)
        return nameBytes.withUnsafeBufferPointer { names -> HTMLTag in
            while true {
                let k = Int(hashTable[slot])
                if k == 0 { return .unknown }
                if names[k].count == bytes.count {
                    var same = true
                    names[k].withUnsafeBufferPointer { n in
                        for j in 0..<n.count {
                            let b = bytes[j]
                            if n[j] != (b >= 0x41 && b <= 0x5A ? b | 0x20 : b) {
                                same = false
                                break
                            }
                        }
                    }
                    if same { return HTMLTag(rawValue: UInt8(k))! }
                }
                slot = (slot + 1) & (slots - 1)
            }
        }
    }

    /// The tag for a lower-cased name given as bytes, without making a `String`.
    static func lookup(bytes: UnsafeBufferPointer<UInt8>) -> HTMLTag {
        guard !bytes.isEmpty, bytes.count <= 14 else { return .unknown }
        var h = hash(bytes) & (slots - 1)
        while true {
            let k = Int(hashTable[h])
            if k == 0 { return .unknown }
            if nameBytes[k].count == bytes.count && nameBytes[k].elementsEqual(bytes) { return HTMLTag(rawValue: UInt8(k))! }
            h = (h + 1) & (slots - 1)
        }
    }

    var name: String { HTMLTag.names[Int(rawValue)] }
    var isHeading: Bool { rawValue >= HTMLTag.h1.rawValue && rawValue <= HTMLTag.h6.rawValue }
}

/// One node of the arena-backed HTML tree: links, tag, and byte ranges into ``HTMLTree/bytes``.
struct HTMLNodeRecord {
    var kind: HTMLNode.Kind
    var tag: HTMLTag
    var flags: HTMLNode.Flags
    var parent: Int32 = -1
    var firstChild: Int32 = -1
    var lastChild: Int32 = -1
    var next: Int32 = -1
    /// Text (text and comment nodes) or name (unknown elements).
    var textStart: Int32 = 0
    var textCount: Int32 = 0
    var attributeStart: Int32 = 0
    var attributeCount: Int32 = 0
}

/// Where a node came from in the parsed HTML (keep-raw-HTML mode): the whole node is `start..<end`; an
/// element's start tag is `start..<openEnd` and its end tag `closeStart..<end` (`closeStart` is -1 when the
/// element was closed implicitly or by the end of the input).
struct HTMLSourceRange {
    var start: Int32
    var openEnd: Int32
    var closeStart: Int32
    var end: Int32
}

/// An attribute: lower-cased name and decoded value, both in ``HTMLTree/bytes``.
struct HTMLAttributeRecord {
    var nameStart: Int32
    var nameCount: Int32
    var valueStart: Int32
    var valueCount: Int32
}

/// The tolerant HTML tree: every node in one array and every string in one byte buffer, so building it
/// allocates a handful of arrays instead of an object per node, and dropping it frees them at once.
final class HTMLTree {
    let bytes: [UInt8]
    let attributes: [HTMLAttributeRecord]
    /// Node records (index 0 is the root). A buffer rather than an array so the rare edits (``remove(_:)``)
    /// and the many reads need no exclusivity checks.
    let nodes: UnsafeMutableBufferPointer<HTMLNodeRecord>
    /// Keep-raw-HTML mode only (else empty): the parsed HTML and each node's range in it, by node index.
    var source: [UInt8] = []
    var ranges: [HTMLSourceRange] = []

    init(nodes: [HTMLNodeRecord], bytes: [UInt8], attributes: [HTMLAttributeRecord]) {
        self.nodes = UnsafeMutableBufferPointer.allocate(capacity: max(1, nodes.count))
        _ = self.nodes.initialize(from: nodes)
        self.bytes = bytes
        self.attributes = attributes
    }

    deinit { nodes.deallocate() }

    var root: HTMLNode { HTMLNode(tree: self, id: 0) }

    /// Unlinks a node from its parent.
    func remove(_ node: HTMLNode) {
        let parent = nodes[Int(node.id)].parent
        guard parent >= 0 else { return }
        var previous: Int32 = -1
        var k = nodes[Int(parent)].firstChild
        while k >= 0 && k != node.id {
            previous = k
            k = nodes[Int(k)].next
        }
        guard k == node.id else { return }
        let next = nodes[Int(k)].next
        if previous >= 0 { nodes[Int(previous)].next = next } else { nodes[Int(parent)].firstChild = next }
        if nodes[Int(parent)].lastChild == k { nodes[Int(parent)].lastChild = previous }
        nodes[Int(k)].next = -1
        nodes[Int(k)].parent = -1
    }

    func string(_ start: Int32, _ count: Int32) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[Int(start)..<Int(start + count)]), as: UTF8.self) }
    }
}

/// A node of an ``HTMLTree``: a handle (the tree and an index), cheap to copy. The tree must outlive it.
struct HTMLNode {
    enum Kind: UInt8 { case element, text, comment }

    unowned(unsafe) let tree: HTMLTree
    let id: Int32

    init(tree: HTMLTree, id: Int32) {
        self.tree = tree
        self.id = id
    }

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

    static let tagFlags: [Flags] = {
        var t = [Flags](repeating: [], count: HTMLTag.names.count)
        func add(_ names: some Sequence<String>, _ f: Flags) {
            for n in names where HTMLTag.lookup(n) != .unknown { t[Int(HTMLTag.lookup(n).rawValue)].insert(f) }
        }
        add(HTMLTreeBuilder.voidElements, .void)
        add(HTMLTreeBuilder.rawTextElements, .rawText)
        add(HTMLTreeBuilder.closesParagraph, .closesParagraph)
        add(HTMLConverter.dropped, .dropped)
        add(HTMLConverter.blockSwitchNames, .blockSwitch)
        return t
    }()

    @inline(__always) var record: HTMLNodeRecord { tree.nodes[Int(id)] }
    var kind: Kind { record.kind }
    var tag: HTMLTag { record.tag }
    var flags: Flags { record.flags }
    /// Lower-case tag name for elements, `#comment` for comments, "" for text.
    var name: String {
        let r = record
        switch r.kind {
        case .text: return ""
        case .comment: return "#comment"
        case .element: return r.tag == .unknown ? tree.string(r.textStart, r.textCount) : r.tag.name
        }
    }
    /// Text content (decoded) of text and comment nodes.
    var text: String {
        let r = record
        return r.kind == .element ? "" : tree.string(r.textStart, r.textCount)
    }
    var children: HTMLChildren { HTMLChildren(tree: tree, start: record.firstChild) }

    var attributes: [(name: String, value: String)] {
        let r = record
        return (Int(r.attributeStart)..<Int(r.attributeStart + r.attributeCount)).map {
            let a = tree.attributes[$0]
            return (tree.string(a.nameStart, a.nameCount), tree.string(a.valueStart, a.valueCount))
        }
    }

    func attribute(_ name: String) -> String? {
        let r = record
        guard r.attributeCount > 0 else { return nil }
        var name = name
        return name.withUTF8 { want -> String? in
            tree.bytes.withUnsafeBufferPointer { bytes -> String? in
                for k in Int(r.attributeStart)..<Int(r.attributeStart + r.attributeCount) {
                    let a = tree.attributes[k]
                    guard Int(a.nameCount) == want.count else { continue }
                    if UnsafeBufferPointer(rebasing: bytes[Int(a.nameStart)..<Int(a.nameStart + a.nameCount)]).elementsEqual(want) {
                        return String(decoding: UnsafeBufferPointer(rebasing: bytes[Int(a.valueStart)..<Int(a.valueStart + a.valueCount)]), as: UTF8.self)
                    }
                }
                return nil
            }
        }
    }

    var hasAttributes: Bool { record.attributeCount > 0 }

    /// A text node of white space only (Unicode white space, as `Character.isWhitespace`).
    var isBlankText: Bool {
        let r = record
        var ascii = true
        let blank = tree.bytes.withUnsafeBufferPointer { buf -> Bool in
            for k in Int(r.textStart)..<Int(r.textStart + r.textCount) {
                let b = buf[k]
                if b >= 0x80 {
                    ascii = false
                    return false
                }
                if !(b == 0x20 || (b >= 0x09 && b <= 0x0D)) { return false }
            }
            return true
        }
        return ascii ? blank : text.allSatisfy(\.isWhitespace)
    }
}

/// The children of a node, first to last.
struct HTMLChildren: Sequence {
    unowned(unsafe) let tree: HTMLTree
    let start: Int32

    struct Iterator: IteratorProtocol {
        unowned(unsafe) let tree: HTMLTree
        var k: Int32
        mutating func next() -> HTMLNode? {
            guard k >= 0 else { return nil }
            let node = HTMLNode(tree: tree, id: k)
            k = tree.nodes[Int(k)].next
            return node
        }
    }
    func makeIterator() -> Iterator { Iterator(tree: tree, k: start) }
    var isEmpty: Bool { start < 0 }
    var first: HTMLNode? { start >= 0 ? HTMLNode(tree: tree, id: start) : nil }
}

enum ByteScan {
    /// The first index of `byte` in `buf[from..<buf.count]` (or `buf.count`), eight bytes at a time.
    @inline(__always)
    static func firstIndex(of byte: UInt8, in buf: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        guard let base = buf.baseAddress else { return buf.count }
        let n = buf.count
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        var k = from
        while k + 8 <= n {
            // A zero byte in (word ^ pattern) is a match; the lowest flagged byte is always a true one.
            let w = UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self) ^ pattern
            let m = (w &- 0x0101_0101_0101_0101) & ~w & 0x8080_8080_8080_8080
            if m != 0 { return k + m.trailingZeroBitCount / 8 }
            k += 8
        }
        while k < n, buf[k] != byte { k += 1 }
        return k
    }
}

/// Inline CSS and attribute values read on UTF-8 (clipboard HTML puts a `style` on nearly every element).
/// Each returns nil for text with non-ASCII bytes, where callers keep their `String` code.
enum ASCIICSS {
    /// Whether `text` contains `needle` (lower-case ASCII), ignoring ASCII case.
    static func contains(_ text: String, lowercased needle: String, ignoringCase: Bool = true) -> Bool? {
        var text = text
        var needle = needle
        return text.withUTF8 { t -> Bool? in
            needle.withUTF8 { n -> Bool? in
                var found = false
                for b in t where b >= 0x80 { return nil }
                guard n.count <= t.count else { return false }
                if n.isEmpty { return true }
                var k = 0
                while k + n.count <= t.count && !found {
                    var m = 0
                    while m < n.count {
                        let b = t[k + m]
                        if (ignoringCase && b >= 0x41 && b <= 0x5A ? b | 0x20 : b) != n[m] { break }
                        m += 1
                    }
                    if m == n.count { found = true }
                    k += 1
                }
                return found
            }
        }
    }

    /// The declarations of a `style` attribute, split at `;` and the first `:` (pieces with no `:` are
    /// skipped), lower-cased and not trimmed; `nil` when the style is not ASCII.
    static func declarations(_ style: String) -> [(property: String, value: String)]? {
        var style = style
        return style.withUTF8 { s -> [(property: String, value: String)]? in
            for b in s where b >= 0x80 { return nil }
            var out: [(property: String, value: String)] = []
            func lower(_ r: Range<Int>) -> String {
                String(unsafeUninitializedCapacity: r.count) { buf in
                    for (j, k) in r.enumerated() {
                        let b = s[k]
                        buf[j] = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
                    }
                    return r.count
                }
            }
            var start = 0
            while start < s.count {
                var end = start
                while end < s.count, s[end] != UInt8(ascii: ";") { end += 1 }
                var colon = start
                while colon < end, s[colon] != UInt8(ascii: ":") { colon += 1 }
                if colon < end { out.append((lower(start..<colon), lower((colon + 1)..<end))) }
                start = end + 1
            }
            return out
        }
    }
}

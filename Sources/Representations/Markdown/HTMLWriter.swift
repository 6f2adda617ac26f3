#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Renders a `MarkdownDocument` as HTML, byte-compatible with cmark (CommonMark) and
/// cmark-gfm (GFM: tables, strikethrough, task lists, tag filter, GitHub footnotes).
///
/// ```swift
/// let html: [UInt8] = HTMLWriter.render(doc, options: .gfm)
/// let text: String = HTMLWriter.renderString(doc, options: .gfm)
/// ```
/// Raw HTML passes through when `options.unsafeHTML` is true (the default, as the spec
/// tests expect); with `options.tagFilter`, `<script>`, `<title>`, … have their `<` escaped.
/// Footnote definitions are collected at the end in order of first reference, as GitHub
/// does; unreferenced definitions are dropped. The walk is iterative (no recursion).
public enum HTMLWriter {
    public static func render(_ document: MarkdownDocument, options: MarkdownOptions = .commonmark) -> [UInt8] {
        var w = Renderer(doc: document, options: options)
        w.run()
        return w.out
    }

    public static func renderString(_ document: MarkdownDocument, options: MarkdownOptions = .commonmark) -> String {
        String(decoding: render(document, options: options), as: UTF8.self)
    }
}

private let hrefSafe: [Bool] = {
    var t = [Bool](repeating: false, count: 256)
    for c in UInt8(ascii: "0")...UInt8(ascii: "9") { t[Int(c)] = true }
    for c in UInt8(ascii: "a")...UInt8(ascii: "z") { t[Int(c)] = true }
    for c in UInt8(ascii: "A")...UInt8(ascii: "Z") { t[Int(c)] = true }
    for c in "-_.+!*(),%#@?=;:/$~".utf8 { t[Int(c)] = true }
    return t
}()

private let htmlEscapeNeeded: [Bool] = {
    var t = [Bool](repeating: false, count: 256)
    for c in "&<>\"".utf8 { t[Int(c)] = true }
    return t
}()

private let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

private struct Renderer {
    let doc: MarkdownDocument
    let options: MarkdownOptions
    var out: [UInt8] = []
    /// footnote definition node -> number (1-based), in order of first reference.
    var footnoteNumber: [Int32: Int] = [:]
    var footnoteOrder: [Int32] = []
    var footnoteRefCount: [Int32: Int] = [:]
    var footnoteByLabel: [String: Int32] = [:]
    /// Local copies of the global tables (no lazy-global check per byte).
    let escapeTable = htmlEscapeNeeded
    let hrefTable = hrefSafe

    init(doc: MarkdownDocument, options: MarkdownOptions) {
        self.doc = doc
        self.options = options
        out.reserveCapacity(doc.bytes.count + doc.bytes.count / 2 + 4096)
    }

    @inline(__always) mutating func lit(_ s: StaticString) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    @inline(__always) mutating func cr() {
        if let last = out.last, last != 0x0A { out.append(0x0A) }
    }

    mutating func escape(_ start: Int32, _ count: Int32) {
        doc.bytes.withUnsafeBufferPointer { b in
            var i = Int(start)
            let e = Int(start + count)
            var run = i
            while i < e {
                let c = b[i]
                if c < 0x3F && escapeTable[Int(c)] {
                    if run < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<i])) }
                    switch c {
                    case UInt8(ascii: "&"): lit("&amp;")
                    case UInt8(ascii: "<"): lit("&lt;")
                    case UInt8(ascii: ">"): lit("&gt;")
                    default: lit("&quot;")
                    }
                    run = i + 1
                }
                i += 1
            }
            if run < e { out.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<e])) }
        }
    }

    mutating func escapeBytes(_ bytes: [UInt8]) {
        for c in bytes {
            switch c {
            case UInt8(ascii: "&"): lit("&amp;")
            case UInt8(ascii: "<"): lit("&lt;")
            case UInt8(ascii: ">"): lit("&gt;")
            case UInt8(ascii: "\""): lit("&quot;")
            default: out.append(c)
            }
        }
    }

    /// cmark's houdini_escape_href: safe bytes as is, `&` and `'` as entities, others %XX.
    mutating func escapeHref(_ start: Int32, _ count: Int32) {
        doc.bytes.withUnsafeBufferPointer { b in
            hrefTable.withUnsafeBufferPointer { safe in
                var i = Int(start)
                let e = Int(start + count)
                var run = i
                while i < e {
                    let c = b[i]
                    if safe[Int(c)] {
                        i += 1
                        continue
                    }
                    if run < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<i])) }
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
                if run < e { out.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<e])) }
            }
        }
    }

    mutating func raw(_ start: Int32, _ count: Int32) {
        if !options.unsafeHTML {
            lit("<!-- raw HTML omitted -->")
            return
        }
        if !options.tagFilter {
            out.append(contentsOf: doc.bytes[Int(start)..<Int(start + count)])
            return
        }
        let b = doc.bytes
        var i = Int(start)
        let e = Int(start + count)
        while i < e {
            let c = b[i]
            if c == UInt8(ascii: "<") && isFilteredTag(b, i, e) {
                lit("&lt;")
            } else {
                out.append(c)
            }
            i += 1
        }
    }

    /// cmark's safe mode: `javascript:`, `vbscript:`, `file:` and `data:` URLs (except
    /// `data:image/png|gif|jpeg|webp`) are dropped when raw HTML is not allowed.
    func isDangerousURL(_ start: Int32, _ count: Int32) -> Bool {
        let b = doc.bytes
        let s = Int(start)
        let e = Int(start + count)
        for scheme: StaticString in ["javascript:", "vbscript:", "file:", "data:"] where MD.matchesCI(b, s, e, scheme) {
            if scheme.utf8CodeUnitCount == 5 && MD.matchesCI(b, s, e, "data:") {
                for img: StaticString in ["data:image/png", "data:image/gif", "data:image/jpeg", "data:image/webp"]
                where MD.matchesCI(b, s, e, img) {
                    return false
                }
            }
            return true
        }
        return false
    }

    func isFilteredTag(_ b: [UInt8], _ p: Int, _ e: Int) -> Bool {
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

    mutating func number(_ n: Int) {
        out.append(contentsOf: Array(String(n).utf8))
    }

    // MARK: Footnotes

    mutating func prepareFootnotes() {
        // Map labels to definitions (first definition wins), then number by first reference.
        var hasAny = false
        for i in 0..<doc.nodes.count where doc.nodes[i].kind == .footnoteDefinition {
            let r = doc.nodes[i]
            let key = MD.normalizeLabel(doc.bytes, Int(r.literalStart), Int(r.literalStart + r.literalCount))
            if footnoteByLabel[key] == nil { footnoteByLabel[key] = Int32(i) }
            hasAny = true
        }
        guard hasAny else { return }
        doc.walk { ev in
            if ev.kind == .footnoteReference {
                let r = doc.nodes[Int(ev.node.rawValue)]
                let key = MD.normalizeLabel(doc.bytes, Int(r.literalStart), Int(r.literalStart + r.literalCount))
                if let def = footnoteByLabel[key], footnoteNumber[def] == nil {
                    footnoteOrder.append(def)
                    footnoteNumber[def] = footnoteOrder.count
                }
            }
            return .continue
        }
    }

    // MARK: Walk

    mutating func run() {
        prepareFootnotes()
        renderSubtree(0, skipFootnoteDefinitions: true)
        if !footnoteOrder.isEmpty {
            cr()
            lit("<section class=\"footnotes\" data-footnotes>\n<ol>\n")
            var i = 0
            while i < footnoteOrder.count {
                let def = footnoteOrder[i]
                renderSubtree(def, skipFootnoteDefinitions: false)
                i += 1
            }
            lit("</ol>\n</section>\n")
        }
    }

    func isTightParagraph(_ n: Int32) -> Bool {
        let p = doc.nodes[Int(n)].parent
        guard p >= 0 else { return false }
        let gp = doc.nodes[Int(p)].parent
        guard gp >= 0 else { return false }
        let g = doc.nodes[Int(gp)]
        return g.kind == .list && g.flags & MarkdownNodeRecord.Flag.variant != 0
    }

    mutating func renderSubtree(_ start: Int32, skipFootnoteDefinitions: Bool) {
        var current = start
        var entering = true
        // Alt text of images: nesting depth of image nodes being rendered as plain text.
        var plainDepth = 0
        var tableHeaderOpen = false
        var tableBodyOpen = false
        var cellIndex = 0
        while true {
            let r = doc.nodes[Int(current)]
            var descend = entering && !r.kind.isLeaf && r.firstChild >= 0
            if entering {
                if r.kind == .footnoteDefinition && skipFootnoteDefinitions {
                    descend = false
                } else if plainDepth > 0 {
                    switch r.kind {
                    case .text, .code, .htmlInline: escape(r.literalStart, r.literalCount)
                    case .softBreak, .lineBreak: out.append(0x20)
                    case .image: plainDepth += 1
                    case .footnoteReference:
                        lit("[^")
                        escape(r.literalStart, r.literalCount)
                        lit("]")
                    default: break
                    }
                } else {
                    switch r.kind {
                    case .document: break
                    case .blockQuote:
                        cr()
                        lit("<blockquote>\n")
                    case .list:
                        cr()
                        if r.a == 1 {
                            // A letter or roman style from rich text (never from Markdown): `type`.
                            let style = (r.flags & MarkdownNodeRecord.Flag.listStyleMask) >> MarkdownNodeRecord.Flag.listStyleShift
                            let type = style == 0 ? "" : " type=\"" + (MarkdownListStyle(rawValue: style)?.htmlType ?? "1") + "\""
                            if r.extra != 1 {
                                lit("<ol start=\"")
                                number(Int(r.extra))
                                lit("\"")
                                out.append(contentsOf: type.utf8)
                                lit(">\n")
                            } else {
                                lit("<ol")
                                out.append(contentsOf: type.utf8)
                                lit(">\n")
                            }
                        } else {
                            lit("<ul>\n")
                        }
                    case .item:
                        cr()
                        lit("<li>")
                        if r.a == 1 {
                            lit("<input type=\"checkbox\" disabled=\"\" /> ")
                        } else if r.a == 2 {
                            lit("<input type=\"checkbox\" checked=\"\" disabled=\"\" /> ")
                        }
                    case .heading:
                        cr()
                        lit("<h")
                        out.append(UInt8(ascii: "0") + r.a)
                        out.append(UInt8(ascii: ">"))
                    case .codeBlock:
                        cr()
                        let infoBytes = doc.codeInfoBytes(MarkdownDocument.NodeID(rawValue: current))
                        if infoBytes.isEmpty {
                            lit("<pre><code>")
                        } else {
                            var e = infoBytes.startIndex
                            while e < infoBytes.endIndex && !MD.isSpace(infoBytes[e]) { e += 1 }
                            lit("<pre><code class=\"language-")
                            escape(Int32(infoBytes.startIndex), Int32(e - infoBytes.startIndex))
                            lit("\">")
                        }
                        escape(r.literalStart, r.literalCount)
                        lit("</code></pre>\n")
                    case .htmlBlock:
                        cr()
                        raw(r.literalStart, r.literalCount)
                        cr()
                    case .paragraph:
                        if !isTightParagraph(current) {
                            cr()
                            lit("<p>")
                        }
                    case .thematicBreak:
                        cr()
                        lit("<hr />\n")
                    case .table:
                        cr()
                        lit("<table>\n")
                        tableHeaderOpen = false
                        tableBodyOpen = false
                    case .tableRow:
                        if r.flags & MarkdownNodeRecord.Flag.variant != 0 {
                            cr()
                            lit("<thead>\n")
                            tableHeaderOpen = true
                        } else if !tableBodyOpen {
                            if tableHeaderOpen {
                                cr()
                                lit("</thead>\n")
                                tableHeaderOpen = false
                            }
                            cr()
                            lit("<tbody>\n")
                            tableBodyOpen = true
                        }
                        cr()
                        lit("<tr>\n")
                        cellIndex = 0
                    case .tableCell:
                        let row = doc.nodes[Int(r.parent)]
                        let header = row.flags & MarkdownNodeRecord.Flag.variant != 0
                        cr()
                        lit(header ? "<th" : "<td")
                        let col = cellIndex
                        cellIndex += 1
                        let table = doc.nodes[Int(row.parent)]
                        if table.extra >= 0 {
                            let e = doc.extras[Int(table.extra)]
                            if col < Int(e.aCount) {
                                switch doc.bytes[Int(e.aStart) + col] {
                                case 1: lit(" align=\"left\"")
                                case 2: lit(" align=\"center\"")
                                case 3: lit(" align=\"right\"")
                                default: break
                                }
                            }
                        }
                        out.append(UInt8(ascii: ">"))
                    case .footnoteDefinition:
                        cr()
                        lit("<li id=\"fn-")
                        escapeHref(r.literalStart, r.literalCount)
                        lit("\">\n")
                    case .text:
                        escape(r.literalStart, r.literalCount)
                    case .softBreak:
                        out.append(0x0A)
                    case .lineBreak:
                        lit("<br />\n")
                    case .code:
                        lit("<code>")
                        escape(r.literalStart, r.literalCount)
                        lit("</code>")
                    case .htmlInline:
                        raw(r.literalStart, r.literalCount)
                    case .emphasis:
                        lit("<em>")
                    case .strong:
                        lit("<strong>")
                    case .strikethrough:
                        lit("<del>")
                    case .link:
                        lit("<a href=\"")
                        if r.extra >= 0 {
                            let e = doc.extras[Int(r.extra)]
                            if options.unsafeHTML || !isDangerousURL(e.aStart, e.aCount) {
                                escapeHref(e.aStart, e.aCount)
                            }
                            out.append(UInt8(ascii: "\""))
                            if e.bCount > 0 {
                                lit(" title=\"")
                                escape(e.bStart, e.bCount)
                                out.append(UInt8(ascii: "\""))
                            }
                        } else {
                            out.append(UInt8(ascii: "\""))
                        }
                        out.append(UInt8(ascii: ">"))
                    case .image:
                        lit("<img src=\"")
                        if r.extra >= 0 {
                            let e = doc.extras[Int(r.extra)]
                            if options.unsafeHTML || !isDangerousURL(e.aStart, e.aCount) {
                                escapeHref(e.aStart, e.aCount)
                            }
                        }
                        lit("\" alt=\"")
                        plainDepth = 1
                    case .footnoteReference:
                        renderFootnoteReference(current)
                    }
                }
            } else {
                // exit
                if plainDepth > 0 {
                    if r.kind == .image {
                        plainDepth -= 1
                        if plainDepth == 0 {
                            out.append(UInt8(ascii: "\""))
                            if r.extra >= 0 {
                                let e = doc.extras[Int(r.extra)]
                                if e.bCount > 0 {
                                    lit(" title=\"")
                                    escape(e.bStart, e.bCount)
                                    out.append(UInt8(ascii: "\""))
                                }
                            }
                            lit(" />")
                        }
                    }
                } else {
                    switch r.kind {
                    case .blockQuote:
                        cr()
                        lit("</blockquote>\n")
                    case .list:
                        cr()
                        lit(r.a == 1 ? "</ol>\n" : "</ul>\n")
                    case .item:
                        lit("</li>\n")
                    case .heading:
                        lit("</h")
                        out.append(UInt8(ascii: "0") + r.a)
                        lit(">\n")
                    case .paragraph:
                        let parent = r.parent
                        if parent >= 0 && doc.nodes[Int(parent)].kind == .footnoteDefinition
                            && doc.nodes[Int(parent)].lastChild == current
                        {
                            renderBackrefs(parent, leading: true)
                        }
                        if !isTightParagraph(current) {
                            lit("</p>\n")
                        }
                    case .table:
                        if tableHeaderOpen {
                            cr()
                            lit("</thead>\n")
                            tableHeaderOpen = false
                        }
                        if tableBodyOpen {
                            cr()
                            lit("</tbody>\n")
                            tableBodyOpen = false
                        }
                        cr()
                        lit("</table>\n")
                    case .tableRow:
                        cr()
                        lit("</tr>\n")
                        if r.flags & MarkdownNodeRecord.Flag.variant != 0 {
                            cr()
                            lit("</thead>\n")
                            tableHeaderOpen = false
                        }
                    case .tableCell:
                        let row = doc.nodes[Int(r.parent)]
                        lit(row.flags & MarkdownNodeRecord.Flag.variant != 0 ? "</th>" : "</td>")
                        out.append(0x0A)
                    case .footnoteDefinition:
                        let last = r.lastChild
                        if last < 0 || doc.nodes[Int(last)].kind != .paragraph {
                            cr()
                            renderBackrefs(current, leading: false)
                            cr()
                        }
                        lit("</li>\n")
                    case .emphasis: lit("</em>")
                    case .strong: lit("</strong>")
                    case .strikethrough: lit("</del>")
                    case .link: lit("</a>")
                    default: break
                    }
                }
            }
            if descend {
                current = r.firstChild
                entering = true
                continue
            }
            if entering && !r.kind.isLeaf && !(r.kind == .footnoteDefinition && skipFootnoteDefinitions) {
                // empty container: emit its exit
                entering = false
                continue
            }
            if current == start { return }
            if r.next >= 0 {
                current = r.next
                entering = true
            } else {
                current = r.parent
                entering = false
                if current < 0 { return }
            }
        }
    }

    mutating func renderFootnoteReference(_ n: Int32) {
        let r = doc.nodes[Int(n)]
        let key = MD.normalizeLabel(doc.bytes, Int(r.literalStart), Int(r.literalStart + r.literalCount))
        guard let def = footnoteByLabel[key], let num = footnoteNumber[def] else {
            lit("[^")
            escape(r.literalStart, r.literalCount)
            lit("]")
            return
        }
        let count = (footnoteRefCount[def] ?? 0) + 1
        footnoteRefCount[def] = count
        let d = doc.nodes[Int(def)]
        lit("<sup class=\"footnote-ref\"><a href=\"#fn-")
        escapeHref(d.literalStart, d.literalCount)
        lit("\" id=\"fnref-")
        escapeHref(d.literalStart, d.literalCount)
        if count > 1 {
            out.append(UInt8(ascii: "-"))
            number(count)
        }
        lit("\" data-footnote-ref>")
        number(num)
        lit("</a></sup>")
    }

    mutating func renderBackrefs(_ def: Int32, leading: Bool) {
        let d = doc.nodes[Int(def)]
        let count = max(1, footnoteRefCount[def] ?? 1)
        for i in 1...count {
            if leading || i > 1 { out.append(0x20) }
            lit("<a href=\"#fnref-")
            escapeHref(d.literalStart, d.literalCount)
            if i > 1 {
                out.append(UInt8(ascii: "-"))
                number(i)
            }
            lit("\" class=\"footnote-backref\" data-footnote-backref aria-label=\"Back to content\">↩")
            if i > 1 {
                lit("<sup class=\"footnote-ref\">")
                number(i)
                lit("</sup>")
            }
            lit("</a>")
        }
    }
}

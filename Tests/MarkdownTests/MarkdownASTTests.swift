import XCTest

@testable import Markdown

final class MarkdownASTTests: XCTestCase {
    func testParseTreeAndDump() {
        let doc = MarkdownParser.parse("# Hi *there*\n\n- [x] done\n- b\n", options: .gfm)
        XCTAssertEqual(
            doc.debugDump(),
            """
            document
              heading level=1
                text "Hi "
                emph
                  text "there"
              list type=bullet bullet="-" tight=true
                item task=checked
                  paragraph
                    text "done"
                item
                  paragraph
                    text "b"

            """)
    }

    func testSourcePositions() {
        let doc = MarkdownParser.parse("para *x*\n\n> quote\n", options: .commonmark)
        let kids = Array(doc.children(of: doc.root))
        XCTAssertEqual(kids.count, 2)
        XCTAssertEqual(doc.sourceRange(kids[0]).description, "1:1-1:8")
        XCTAssertEqual(doc.sourceRange(kids[1]).start, MarkdownSourcePosition(line: 3, column: 1))
        let emph = Array(doc.children(of: kids[0]))[1]
        XCTAssertEqual(doc.kind(emph), .emphasis)
        XCTAssertEqual(doc.sourceRange(emph).description, "1:6-1:8")
        // every node has a position
        for ev in doc.events where ev.phase == .enter {
            XCTAssertGreaterThan(doc.sourceRange(ev.node).start.line, 0, "\(ev.kind)")
        }
    }

    /// Table cells' positions, header and body alike: columns of their first and last
    /// bytes and of their text, after a paragraph the header line ends, inside containers, with escaped pipes,
    /// tabs and missing cells; as the parser has given them since tables came (the header row's end column 0
    /// included).
    func testTableCellPositions() {
        let documents = [
            "intro\n| a | b\\|c |\n|---|:-:|\n| 1 | 2 \\| 3 |\n|x\n",
            "> - | h1 |  h2 |\n>   | -- | --- |\n>   |  c1 | c2  |\n",
            "|a\t|\tb|\n|-|-|\n|\tc|d\t|\n",
        ]
        XCTAssertEqual(
            documents.map { MarkdownParser.parse($0, options: .gfm).debugDump(positions: true) }.joined(separator: "--\n"),
            """
            document [1:1-5:2]
              paragraph [1:1-2:12]
                text "intro" [1:1-1:5]
              table align=[none,center] [2:1-5:2]
                table_row header [2:1-2:0]
                  table_cell [2:3-2:4]
                    text "a" [2:3-2:3]
                  table_cell [2:7-2:11]
                    text "b|c" [2:7-2:9]
                table_row [4:1-4:14]
                  table_cell [4:3-4:4]
                    text "1" [4:3-4:3]
                  table_cell [4:7-4:13]
                    text "2 | 3" [4:7-4:11]
                table_row [5:1-5:2]
                  table_cell [5:2-5:2]
                    text "x" [5:2-5:2]
                  table_cell [5:3-5:0]
            --
            document [1:1-3:17]
              block_quote [1:1-3:17]
                list type=bullet bullet="-" tight=true [1:3-3:17]
                  item [1:3-3:17]
                    table align=[none,none] [1:5-3:17]
                      table_row header [1:5-1:0]
                        table_cell [1:7-1:9]
                          text "h1" [1:7-1:8]
                        table_cell [1:13-1:15]
                          text "h2" [1:13-1:14]
                      table_row [3:5-3:17]
                        table_cell [3:8-3:10]
                          text "c1" [3:8-3:9]
                        table_cell [3:13-3:16]
                          text "c2" [3:13-3:14]
            --
            document [1:1-3:7]
              table align=[none,none] [1:1-3:7]
                table_row header [1:1-1:0]
                  table_cell [1:2-1:3]
                    text "a" [1:2-1:2]
                  table_cell [1:6-1:6]
                    text "b" [1:6-1:6]
                table_row [3:1-3:7]
                  table_cell [3:3-3:3]
                    text "c" [3:3-3:3]
                  table_cell [3:5-3:6]
                    text "d" [3:5-3:5]

            """)
    }

    func testAttributes() {
        let md = """
            3) x
            4) y

            ```swift  extra
            let a = 1
            ```

            [link](/u "t") ![img](/i)

            | a | b |
            |:-:|--:|
            | 1 | 2 |

            Setext
            ===

            x[^n]

            [^n]: note
            """
        let doc = MarkdownParser.parse(md, options: .gfm)
        var seen: [MarkdownNodeKind: MarkdownDocument.NodeID] = [:]
        for ev in doc.events where ev.phase == .enter && seen[ev.kind] == nil { seen[ev.kind] = ev.node }
        let list = seen[.list]!
        XCTAssertEqual(doc.listAttributes(list), .ordered(start: 3, delimiter: .paren, tight: true))
        let code = seen[.codeBlock]!
        XCTAssertEqual(doc.codeInfo(code), "swift  extra")
        XCTAssertEqual(doc.literal(code), "let a = 1\n")
        XCTAssertTrue(doc.isFencedCodeBlock(code))
        XCTAssertEqual(doc.element(seen[.link]!), .link(destination: "/u", title: "t"))
        XCTAssertEqual(doc.element(seen[.image]!), .image(destination: "/i", title: ""))
        XCTAssertEqual(doc.tableAlignments(seen[.table]!), [.center, .right])
        XCTAssertTrue(doc.isTableHeaderRow(seen[.tableRow]!))
        XCTAssertEqual(doc.element(seen[.heading]!), .heading(level: 1, setext: true))
        XCTAssertEqual(doc.label(seen[.footnoteReference]!), "n")
        XCTAssertEqual(doc.label(seen[.footnoteDefinition]!), "n")
        XCTAssertNotNil(doc.parent(seen[.tableCell]!))
        XCTAssertEqual(doc.kind(doc.parent(seen[.tableCell]!)!), .tableRow)
    }

    func testBuilderAndRender() {
        var b = MarkdownDocument.Builder()
        b.open(.heading(level: 2))
        b.appendText("Hi")
        b.close()
        b.open(.paragraph)
        b.appendText("a ")
        b.appendText("& b")
        b.open(.emphasis)
        b.appendText("e")
        b.close()
        b.appendSoftBreak()
        b.open(.link(destination: "http://x.y/ä", title: "T"))
        b.appendText("l")
        b.close()
        b.close()
        b.open(.list(.bullet(tight: true)))
        b.open(.item(task: .unchecked))
        b.open(.paragraph)
        b.appendText("todo")
        b.close()
        b.close()
        b.close()
        b.append(.codeBlock(info: "sh"), literal: "ls <x>\n")
        b.append(.thematicBreak)
        let doc = b.finish()
        // text merging: "a " + "& b" is one node
        let para = Array(doc.children(of: doc.root))[1]
        XCTAssertEqual(doc.literal(doc.firstChild(para)!), "a & b")
        XCTAssertEqual(
            HTMLWriter.renderString(doc, options: .gfm),
            """
            <h2>Hi</h2>
            <p>a &amp; b<em>e</em>
            <a href="http://x.y/%C3%A4" title="T">l</a></p>
            <ul>
            <li><input type="checkbox" disabled="" /> todo</li>
            </ul>
            <pre><code class="language-sh">ls &lt;x&gt;
            </code></pre>
            <hr />

            """)
    }

    func testWalkEventsMatchIteratorAndSkip() {
        let doc = MarkdownParser.parse("> a *b*\n\n1. c\n", options: .commonmark)
        var walked: [String] = []
        doc.walk { ev in
            walked.append("\(ev.phase == .enter ? "+" : "-")\(ev.kind)")
            return .continue
        }
        let iterated = doc.events.map { "\($0.phase == .enter ? "+" : "-")\($0.kind)" }
        XCTAssertEqual(walked, iterated)
        XCTAssertEqual(
            walked,
            [
                "+document", "+block_quote", "+paragraph", "+text", "+emph", "+text", "-emph", "-paragraph",
                "-block_quote", "+list", "+item", "+paragraph", "+text", "-paragraph", "-item", "-list", "-document",
            ])
        var kinds: [MarkdownNodeKind] = []
        doc.walk { ev in
            if ev.phase == .enter { kinds.append(ev.kind) }
            return ev.kind == .blockQuote ? .skipChildren : .continue
        }
        XCTAssertEqual(kinds, [.document, .blockQuote, .list, .item, .paragraph, .text])
        var count = 0
        doc.walk { _ in
            count += 1
            return count == 3 ? .stop : .continue
        }
        XCTAssertEqual(count, 3)
    }

    func testInvalidUTF8AndNUL() {
        let doc = MarkdownParser.parse([0x61, 0xFF, 0x62, 0x00, 0xE2, 0x82], options: .commonmark)
        XCTAssertEqual(HTMLWriter.renderString(doc), "<p>a\u{FFFD}b\u{FFFD}\u{FFFD}</p>\n")
    }

    func testDialectOptions() {
        XCTAssertEqual(MarkdownOptions(dialect: "gfm"), .gfm)
        XCTAssertEqual(MarkdownOptions(dialect: "md"), .gfm)
        XCTAssertEqual(MarkdownOptions(dialect: "markdown"), .gfm)
        XCTAssertEqual(MarkdownOptions(dialect: "CommonMark"), .commonmark)
        XCTAssertNil(MarkdownOptions(dialect: "rst"))
        XCTAssertEqual(MarkdownParser.renderHTML("~~x~~ www.a.b", options: .commonmark), "<p>~~x~~ www.a.b</p>\n")
        XCTAssertEqual(
            MarkdownParser.renderHTML("~~x~~ www.a.b", options: .gfm),
            "<p><del>x</del> <a href=\"http://www.a.b\">www.a.b</a></p>\n")
    }

    func testSafeMode() {
        var safe = MarkdownOptions.commonmark
        safe.unsafeHTML = false
        XCTAssertEqual(
            MarkdownParser.renderHTML("<b>x</b> [a](javascript:alert(1)) ![i](data:image/png;base64,AA)\n\n<div>\n", options: safe),
            "<p><!-- raw HTML omitted -->x<!-- raw HTML omitted --> <a href=\"\">a</a> <img src=\"data:image/png;base64,AA\" alt=\"i\" /></p>\n<!-- raw HTML omitted -->\n")
    }

    /// A UTF-8 byte order mark before the first line is skipped, as cmark, GitHub and pandoc do; source
    /// positions still count it (they are byte columns in the input), so image references are found in place.
    func testByteOrderMarkBeforeTheFirstLine() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        XCTAssertEqual(HTMLWriter.renderString(MarkdownParser.parse(bom + Array("# Title\n\ntext\n".utf8), options: .gfm)),
            "<h1>Title</h1>\n<p>text</p>\n")
        XCTAssertEqual(MarkdownParser.renderHTML(String(decoding: bom + Array("- [x] done\n".utf8), as: UTF8.self), options: .gfm),
            "<ul>\n<li><input type=\"checkbox\" checked=\"\" disabled=\"\" /> done</li>\n</ul>\n")
        XCTAssertEqual(MarkdownParser.renderHTML(String(decoding: bom + Array("    code\n".utf8), as: UTF8.self)), "<pre><code>code\n</code></pre>\n")
        // Only before the first line: elsewhere U+FEFF is text.
        XCTAssertEqual(MarkdownParser.renderHTML("a\n\u{FEFF}# b\n"), "<p>a\n\u{FEFF}# b</p>\n")
    }

    func testCRLFInput() {
        XCTAssertEqual(MarkdownParser.renderHTML("a\r\nb\rc\r\n\r\n# h\r\n"), "<p>a\nb\nc</p>\n<h1>h</h1>\n")
    }

    /// The direct path to HTML (`renderHTML`: packed block records, compaction) gives the bytes the document
    /// gives, on the shapes where its bookkeeping differs most: footnote definitions nested in one another, in
    /// quotes and lists, referenced before and after, unused, and quotes nested many levels on one line.
    func testDirectPathAgreesWithTheDocumentOnNestedShapes() {
        let documents = [
            "[^a]\n\n[^a]: x\n    [^b]: y\n\n[^b]\n",
            "[^b] [^a]\n\n[^a]: one\n\n    [^b]: two\n\n        [^c]: three [^c]\n",
            "> [^a]: quoted\n> > [^b]: deeper [^a]\n\n[^b][^a]\n",
            "- [^a]: in a list\n  - [^b]: nested [^a]\n\n[^b]\n",
            "[^a]: unused\n    [^b]: used\n\n[^b]\n",
            ">>>>>> deep\n>>> less\n> one\n\n>>>>\n",
            "> > > a\n> > b\n> c\n>\n> > d\n",
            "[^x]\n\n[^x]: a\n    > [^y]: b\n    > - [^z]: c [^y]\n\n[^z] [^y]\n",
            "[^b] [^a]\n\n[^b]: y\n\n[^a]: x [^b]\n",
            "![x [^a]](u) [^a]\n\n[^a]: y ![z [^a]](v)\n",
        ]
        for text in documents {
            for options in [MarkdownOptions.gfm, .commonmark] {
                let bytes = Array(text.utf8)
                XCTAssertEqual(
                    String(decoding: MarkdownParser.renderHTML(bytes, options: options), as: UTF8.self),
                    String(decoding: HTMLWriter.render(MarkdownParser.parse(bytes, options: options), options: options), as: UTF8.self),
                    text)
            }
        }
    }

    /// The same on random documents made of the pieces where the two paths keep their books differently:
    /// block quote runs opened on one line and continued by fewer markers, lists, footnotes, fences, tables.
    func testDirectPathAgreesWithTheDocumentOnRandomDocuments() {
        let pieces = [
            ">", "> ", ">>", ">>> ", " >", ">>>>>>", "- ", "1. ", "  ", "    ", "x", "y z", "\n", "\n", "\n", "\n\n",
            "[^a]", "[^a]: ", "[^b]: ", "[^b]", "```\n", "# ", "*e*", "|a|b|\n|-|-|\n", "<div>\n", "---\n", "> - ", "\t",
        ]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        var failures = 0
        for _ in 0..<3000 {
            var text = ""
            for _ in 0..<(1 + next(40)) { text += pieces[next(pieces.count)] }
            let bytes = Array(text.utf8)
            let direct = MarkdownParser.renderHTML(bytes, options: .gfm)
            let tree = HTMLWriter.render(MarkdownParser.parse(bytes, options: .gfm), options: .gfm)
            if direct != tree {
                failures += 1
                if failures <= 3 { XCTFail("the direct path differs on \(text.debugDescription)") }
            }
        }
        XCTAssertEqual(failures, 0)
    }
}

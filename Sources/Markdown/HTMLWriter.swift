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
///
/// Markdown straight to HTML (`MarkdownParser.renderHTML`) uses the same renderer without building
/// the inline nodes: each paragraph, heading and table cell goes from the inline parser to the output.
public enum HTMLWriter {
    public static func render(_ document: MarkdownDocument, options: MarkdownOptions = .commonmark) -> [UInt8] {
        var result: [UInt8] = []
        document.nodes.withUnsafeBufferPointer { nodes in
            document.bytes.withUnsafeBufferPointer { bytes in
                document.extras.withUnsafeBufferPointer { extras in
                    var r = HTMLRenderer(
                        nodes: nodes, bytes: bytes, extras: extras,
                        output: HTMLOutput(options: options, capacity: bytes.count + bytes.count / 2 + 4096))
                    var none: InlineParser? = nil
                    r.run(inline: &none)
                    result = r.output.out.array()
                }
            }
        }
        return result
    }

    public static func renderString(_ document: MarkdownDocument, options: MarkdownOptions = .commonmark) -> String {
        String(decoding: render(document, options: options), as: UTF8.self)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// CommonMark 0.31.2 + GFM parser: bytes in, `MarkdownDocument` out.
///
/// Never throws and never traps: invalid UTF-8 and U+0000 become U+FFFD; CRLF and CR
/// line endings become LF. Runs in time linear in the input: list and footnote nesting is
/// capped at 100 levels (cmark-gfm's MAX_LIST_DEPTH), table cell fill-in at 0x80000 cells
/// per table, code-span backtick runs at 1000, link labels at 999 characters.
///
/// The in-process API used by `pbctl convert --from commonmark|gfm|markdown|md --to html`:
/// ```swift
/// let options = MarkdownOptions(dialect: "gfm")!          // .commonmark or .gfm
/// let document = MarkdownParser.parse(bytes, options: options)   // bytes: [UInt8]
/// let html: [UInt8] = HTMLWriter.render(document, options: options)
/// ```
/// Pass the same options to the writer (tag filter and footnote section are GFM output
/// rules). The document is a value (`Sendable`); see `MarkdownDocument` for traversal and
/// `MarkdownDocument.Builder` for building documents in code.
///
/// Straight to HTML, without the document's inline nodes (the same bytes, faster, in memory bounded by
/// the input; the output can be taken in chunks as it is made):
/// ```swift
/// let html: [UInt8] = MarkdownParser.renderHTML(bytes, options: .gfm)
/// MarkdownParser.renderHTML(buffer, options: .gfm) { chunk in write(chunk) }
/// let html2: String = MarkdownParser.renderHTML("# Hi\n", options: .gfm)
/// ```
public enum MarkdownParser {
    /// Parses UTF-8 (or arbitrary) bytes.
    /// Inputs are capped at 1 GiB (node and storage offsets are 32-bit); longer input is cut there.
    public static let maximumInputLength = 1 << 30

    public static func parse(_ bytes: [UInt8], options: MarkdownOptions = .commonmark) -> MarkdownDocument {
        bytes.withUnsafeBufferPointer { parse($0, options: options) }
    }

    /// Parses any byte collection (e.g. `Data`, `ArraySlice<UInt8>`), in place when its bytes are contiguous.
    public static func parse<Bytes: Collection>(_ bytes: Bytes, options: MarkdownOptions = .commonmark)
        -> MarkdownDocument where Bytes.Element == UInt8
    {
        if let document = bytes.withContiguousStorageIfAvailable({ parse($0, options: options) }) { return document }
        return parse(Array(bytes), options: options)
    }

    /// Parses a string.
    public static func parse(_ string: String, options: MarkdownOptions = .commonmark) -> MarkdownDocument {
        var text = string
        return text.withUTF8 { parse($0, options: options) }
    }

    /// Parses the bytes behind a buffer pointer (valid for the call).
    public static func parse(_ input: UnsafeBufferPointer<UInt8>, options: MarkdownOptions = .commonmark) -> MarkdownDocument {
        let input = capped(input)
        let scratch = MarkdownScratch.take()
        var blocks = scratch.blockParser(options: options, positions: true)
        blocks.parseBlocks(input, nodesPerByte: 12)
        var inline = scratch.inlineParser(options: options)
        inline.references = blocks.refmap
        inline.footnotes = blocks.footnoteMap
        var builder = InlineTreeBuilder(nodes: [], extras: [])
        swap(&builder.parents, &scratch.parents)
        swap(&builder.newBytes, &scratch.newBytes)
        swap(&builder.nodes, &blocks.nodes)
        swap(&builder.extras, &blocks.extras)
        swap(&builder.segments, &blocks.segments)
        var bytes: [UInt8] = []
        swap(&bytes, &blocks.bytes)
        for b in blocks.inlineBlocks {
            let r = builder.nodes[Int(b)]
            let base = Int(r.literalStart)
            let count = Int(r.literalCount)
            // A leaf's content is parsed into its children: the leaf keeps no literal of its own.
            builder.nodes[Int(b)].literalCount = 0
            let info = blocks.info[Int(b)]
            bytes.withUnsafeBufferPointer { all in
                inline.storage = all
                let subject = MDBytes(rebasing: all[base..<(base + count)])
                builder.begin(
                    block: b, subject: subject, subjectBase: Int32(base), bytesBase: Int32(all.count),
                    segStart: Int(info.segStart), segCount: Int(info.segCount))
                inline.parse(subject, into: &builder)
            }
            if !builder.newBytes.isEmpty { bytes.append(contentsOf: builder.newBytes) }
        }
        let document = MarkdownDocument(nodes: builder.nodes, bytes: bytes, extras: builder.extras)
        swap(&builder.parents, &scratch.parents)
        swap(&builder.newBytes, &scratch.newBytes)
        inline.detach()
        scratch.blocks = blocks
        scratch.inline = inline
        MarkdownScratch.give(scratch, inputSize: input.count)
        return document
    }

    /// Parses and renders to HTML bytes in one step.
    public static func renderHTML(_ bytes: [UInt8], options: MarkdownOptions = .commonmark) -> [UInt8] {
        bytes.withUnsafeBufferPointer { render($0, options: options, consumer: nil) }
    }

    /// Parses and renders to HTML bytes in one step, from the bytes behind a buffer pointer.
    public static func renderHTML(_ input: UnsafeBufferPointer<UInt8>, options: MarkdownOptions = .commonmark) -> [UInt8] {
        render(input, options: options, consumer: nil)
    }

    /// Parses and renders to HTML bytes in one step, from any contiguous byte collection (e.g. `Data`).
    public static func renderHTML<Bytes: Collection>(_ bytes: Bytes, options: MarkdownOptions = .commonmark) -> [UInt8]
    where Bytes.Element == UInt8 {
        if let html = bytes.withContiguousStorageIfAvailable({ render($0, options: options, consumer: nil) }) { return html }
        return renderHTML(Array(bytes), options: options)
    }

    /// Parses and renders to an HTML string in one step.
    public static func renderHTML(_ string: String, options: MarkdownOptions = .commonmark) -> String {
        var text = string
        return String(decoding: text.withUTF8 { render($0, options: options, consumer: nil) }, as: UTF8.self)
    }

    /// Parses and renders to HTML, handing the HTML to `write` in chunks of about 64 KiB as it is made, so
    /// the whole output never exists at once. Each chunk is valid only during the call.
    public static func renderHTML(
        _ input: UnsafeBufferPointer<UInt8>, options: MarkdownOptions = .commonmark,
        into write: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        withoutActuallyEscaping(write) { write in
            _ = render(input, options: options, consumer: write)
        }
    }

    static func capped(_ input: MDBytes) -> MDBytes {
        input.count > maximumInputLength ? MDBytes(rebasing: input[0..<maximumInputLength]) : input
    }

    /// The direct path: blocks, then each leaf through the inline parser into the HTML renderer.
    static func render(_ input: MDBytes, options: MarkdownOptions, consumer: ((MDBytes) -> Void)?) -> [UInt8] {
        let input = capped(input)
        if let last = input.last, last != 0x0A {
            // Lines are read in place, and leaves refer to them, but the last one needs its line ending:
            // one copy of the input with it, rather than copies of that line's text in three buffers.
            var terminated: [UInt8] = []
            terminated.reserveCapacity(input.count + 1)
            terminated.append(contentsOf: input)
            terminated.append(0x0A)
            return terminated.withUnsafeBufferPointer { render($0, options: options, consumer: consumer) }
        }
        let scratch = MarkdownScratch.take()
        var blocks = scratch.blockParser(options: options, positions: false)
        blocks.referenceInput = true
        blocks.streaming = true
        blocks.parseBlocks(input, nodesPerByte: 64)
        var inline: InlineParser? = scratch.inlineParser(options: options)
        inline!.references = blocks.refmap
        inline!.footnotes = blocks.footnoteMap
        let records = blocks.records.bytes
        let bytes = blocks.bytes
        let extras = blocks.extras
        var result: [UInt8] = []
        records.withUnsafeBufferPointer { records in
            bytes.withUnsafeBufferPointer { bytes in
                extras.withUnsafeBufferPointer { extras in
                    inline!.storage = bytes
                    var renderer = HTMLRenderer(
                        nodes: UnsafeBufferPointer<MarkdownNodeRecord>(start: nil, count: 0), bytes: bytes, extras: extras,
                        output: HTMLOutput(options: options, capacity: input.count + input.count / 4 + 4096, consumer: consumer))
                    renderer.records = records
                    renderer.input = input
                    renderer.run(inline: &inline)
                    result = renderer.output.out.array()
                }
            }
        }
        inline!.detach()
        blocks.input = MDBytes(start: nil, count: 0)
        scratch.blocks = blocks
        scratch.inline = inline
        MarkdownScratch.give(scratch, inputSize: input.count)
        return result
    }
}

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
/// ```swift
/// let doc = MarkdownParser.parse(Array("# Hi\n".utf8), options: .gfm)
/// let html: [UInt8] = HTMLWriter.render(doc, options: .gfm)
/// // or, in one step:
/// let html2: String = MarkdownParser.renderHTML("# Hi\n", options: .gfm)
/// ```
public enum MarkdownParser {
    /// Parses UTF-8 (or arbitrary) bytes.
    /// Inputs are capped at 1 GiB (node and storage offsets are 32-bit); longer input is cut there.
    public static let maximumInputLength = 1 << 30

    public static func parse(_ bytes: [UInt8], options: MarkdownOptions = .commonmark) -> MarkdownDocument {
        if bytes.count > maximumInputLength {
            return parse(Array(bytes[0..<maximumInputLength]), options: options)
        }
        var p = BlockParser(input: bytes, options: options)
        return p.run()
    }

    /// Parses any byte collection (e.g. `Data`, `ArraySlice<UInt8>`).
    public static func parse<Bytes: Collection>(_ bytes: Bytes, options: MarkdownOptions = .commonmark)
        -> MarkdownDocument where Bytes.Element == UInt8
    {
        parse(Array(bytes), options: options)
    }

    /// Parses a string.
    public static func parse(_ string: String, options: MarkdownOptions = .commonmark) -> MarkdownDocument {
        parse(Array(string.utf8), options: options)
    }

    /// Parses and renders to HTML bytes in one step.
    public static func renderHTML(_ bytes: [UInt8], options: MarkdownOptions = .commonmark) -> [UInt8] {
        HTMLWriter.render(parse(bytes, options: options), options: options)
    }

    /// Parses and renders to an HTML string in one step.
    public static func renderHTML(_ string: String, options: MarkdownOptions = .commonmark) -> String {
        String(decoding: renderHTML(Array(string.utf8), options: options), as: UTF8.self)
    }
}

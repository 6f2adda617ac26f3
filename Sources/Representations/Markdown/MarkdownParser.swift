#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// CommonMark 0.31.2 + GFM parser: bytes in, `MarkdownDocument` out.
///
/// Never throws and never traps: invalid UTF-8 and U+0000 become U+FFFD. Runs in time
/// linear in the input (nesting depth is capped as cmark does).
///
/// ```swift
/// let doc = MarkdownParser.parse(Array("# Hi\n".utf8), options: .gfm)
/// let html: [UInt8] = HTMLWriter.render(doc, options: .gfm)
/// // or, in one step:
/// let html2: String = MarkdownParser.renderHTML("# Hi\n", options: .gfm)
/// ```
public enum MarkdownParser {
    /// Parses UTF-8 (or arbitrary) bytes.
    public static func parse(_ bytes: [UInt8], options: MarkdownOptions = .commonmark) -> MarkdownDocument {
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

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Renders a `MarkdownDocument` as HTML, byte-compatible with cmark / cmark-gfm.
public enum HTMLWriter {
    public static func render(_ document: MarkdownDocument, options: MarkdownOptions = .commonmark) -> [UInt8] {
        []
    }
    public static func renderString(_ document: MarkdownDocument, options: MarkdownOptions = .commonmark) -> String {
        String(decoding: render(document, options: options), as: UTF8.self)
    }
}

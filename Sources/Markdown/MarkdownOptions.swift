#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Parser and renderer options: which GFM extensions are on.
///
/// `.commonmark` is strict CommonMark 0.31.2; `.gfm` turns on every GitHub extension
/// (tables, strikethrough, extended autolinks, task list items, tag filter, footnotes).
public struct MarkdownOptions: Sendable, Equatable {
    public var tables: Bool
    public var strikethrough: Bool
    /// Extended (www., http(s)://, e-mail) autolinks.
    public var autolinks: Bool
    public var taskLists: Bool
    /// Disallowed raw HTML: `<title>`, `<script>`, … get their `<` escaped on output.
    public var tagFilter: Bool
    public var footnotes: Bool
    /// Pass raw HTML through (cmark's `--unsafe`); when false, raw HTML is replaced by
    /// `<!-- raw HTML omitted -->` and `javascript:`, `vbscript:`, `file:` and non-image
    /// `data:` link/image URLs are dropped (cmark's default safe mode). Default true.
    public var unsafeHTML: Bool

    public init(
        tables: Bool = false, strikethrough: Bool = false, autolinks: Bool = false, taskLists: Bool = false,
        tagFilter: Bool = false, footnotes: Bool = false, unsafeHTML: Bool = true
    ) {
        self.tables = tables
        self.strikethrough = strikethrough
        self.autolinks = autolinks
        self.taskLists = taskLists
        self.tagFilter = tagFilter
        self.footnotes = footnotes
        self.unsafeHTML = unsafeHTML
    }

    /// Strict CommonMark 0.31.2.
    public static let commonmark = MarkdownOptions()
    /// GitHub Flavored Markdown: all extensions on.
    public static let gfm = MarkdownOptions(
        tables: true, strikethrough: true, autolinks: true, taskLists: true, tagFilter: true, footnotes: true)

    /// Options for a `--from` dialect name: `commonmark`, `gfm`, `markdown`, `md`
    /// (the last two mean GFM). Nil for an unknown name.
    public init?(dialect: String) {
        switch dialect.lowercased() {
        case "commonmark", "cmark": self = .commonmark
        case "gfm", "markdown", "md", "github": self = .gfm
        default: return nil
        }
    }
}

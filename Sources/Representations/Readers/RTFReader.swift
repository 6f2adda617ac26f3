import Markdown

/// Reads RTF into the readers' ``RichBlock`` model.
///
/// The reader is a state machine over ``RTFTokenizer`` tokens. Groups push and pop the whole character and
/// paragraph state (including `\ucN` and the current destination). Finished paragraphs are recorded with
/// their properties, then ``RTFBlockBuilder`` turns the flat paragraph list into headings, lists, tables,
/// code blocks and quotes. Nothing here throws: malformed input yields whatever could be recovered.
struct RTFReader {
    /// Limits that keep hostile input from using unbounded memory or time.
    static let maxGroupDepth = 1024

    /// The Markdown document for `bytes`, or nil when no block could be recovered.
    static func document(_ bytes: [UInt8]) -> MarkdownDocument? {
        var parser = RTFParser(bytes)
        parser.run()
        var builder = RTFBlockBuilder(
            items: parser.items, footnotes: parser.footnotes, lists: parser.listLevels, overrides: parser.listOverrides,
            bodyFontSize: parser.bodyFontSize(), text: parser.text, links: parser.fieldURLs, images: parser.images)
        return builder.build()
    }
}

struct RTFRunStyle: Equatable {
    var bold = false
    var italic = false
    var strike = false
    var underline = false
    var monospace = false
    var vertical: Int8 = 0  // 1 superscript, -1 subscript
}

/// A run of one paragraph: plain data (no references), so paragraphs cost one allocation and no reference
/// counting. Text lives in the parser's one UTF-8 buffer (``RTFParser/text``); `start..<start+count` is the run's
/// range there for `.text`, the image's index in ``RTFParser/images`` for `.image`, the note number for
/// `.footnoteReference`.
struct RTFRun {
    enum Kind: UInt8 { case text, lineBreak, image, footnoteReference }
    var kind: Kind
    var style: RTFRunStyle
    var size: Int32
    /// Index in ``RTFParser/fieldURLs`` of the HYPERLINK the run is in, or -1.
    var link: Int32
    var start: Int
    var count: Int
    var end: Int { start + count }
}

struct RTFParagraph {
    var runs: [RTFRun] = []
    var outlineLevel: Int? = nil
    var list: Int = 0  // \lsN (0 = none)
    var level: Int = 0  // \ilvlN
    var marker: String? = nil  // \listtext / \pntext content
    var legacyLevel: Int? = nil  // \pnlvlN, 10 = bullet, 11 = body (numbered)
    var legacyStart: Int? = nil
    var legacyStyle: MarkdownListStyle? = nil  // \pndec, \pnlcrm, \pnucltr…
    var alignment: MarkdownTableAlignment = .none  // \qr, \qc
    /// A table nested in a table cell (`\itap2`, `\nestcell`, `\nestrow`), standing in the cell where it
    /// appears; its cells' paragraphs.
    var nested: [[[RTFParagraph]]]? = nil
    var leftIndent: Int = 0
    var firstLineIndent: Int = 0  // \fiN, relative to leftIndent
    var borderBottom = false
    func hasText(_ text: [UInt8]) -> Bool { nested != nil || runs.contains { $0.kind != .text || !RTFText.isBlank(text, $0) } }
}

enum RTFItem {
    case paragraph(RTFParagraph)
    case table(rows: [[[RTFParagraph]]], headerRows: Int)
}

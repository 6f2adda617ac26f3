/// A node's kind together with its attributes (not its literal, not its children).
/// Used to build nodes (`Builder.open`, `Builder.append`) and returned by
/// `MarkdownDocument.element(_:)`.
public enum MarkdownElement: Sendable, Equatable {
    case document
    case blockQuote
    case list(MarkdownListAttributes)
    case item(task: MarkdownTaskState? = nil)
    /// Literal: the code (each line ending in "\n").
    case codeBlock(info: String = "", fenced: Bool = true)
    /// Literal: the raw HTML.
    case htmlBlock
    case paragraph
    case heading(level: Int, setext: Bool = false)
    case thematicBreak
    case table(alignments: [MarkdownTableAlignment])
    case tableRow(header: Bool)
    case tableCell
    case footnoteDefinition(label: String)
    /// Literal: the text.
    case text
    case softBreak
    case lineBreak
    /// Literal: the code span content.
    case code
    /// Literal: the raw HTML.
    case htmlInline
    case emphasis
    case strong
    case strikethrough
    case link(destination: String, title: String = "")
    case image(destination: String, title: String = "")
    case footnoteReference(label: String)

    public var kind: MarkdownNodeKind {
        switch self {
        case .document: return .document
        case .blockQuote: return .blockQuote
        case .list: return .list
        case .item: return .item
        case .codeBlock: return .codeBlock
        case .htmlBlock: return .htmlBlock
        case .paragraph: return .paragraph
        case .heading: return .heading
        case .thematicBreak: return .thematicBreak
        case .table: return .table
        case .tableRow: return .tableRow
        case .tableCell: return .tableCell
        case .footnoteDefinition: return .footnoteDefinition
        case .text: return .text
        case .softBreak: return .softBreak
        case .lineBreak: return .lineBreak
        case .code: return .code
        case .htmlInline: return .htmlInline
        case .emphasis: return .emphasis
        case .strong: return .strong
        case .strikethrough: return .strikethrough
        case .link: return .link
        case .image: return .image
        case .footnoteReference: return .footnoteReference
        }
    }
}

/// Bullet or ordered list.
public enum MarkdownListType: UInt8, Sendable { case bullet, ordered }

/// The delimiter after an ordered list number (`1.` or `1)`); `.none` for bullet lists.
public enum MarkdownListDelimiter: UInt8, Sendable { case none, period, paren }

/// How an ordered list numbers its items: Markdown has only decimal numbers, but rich text shows
/// letters and roman numerals (`a.`, `iv.`, `B)`), which the RTF and HTML readers keep and the
/// plain-text, HTML and RTF writers write back.
public enum MarkdownListStyle: UInt8, Sendable, CaseIterable {
    case decimal, lowerAlpha, upperAlpha, lowerRoman, upperRoman

    /// The marker for item number `n` (1-based): `3`, `c`, `C`, `iii`, `III`. Letters continue `z`, `aa`,
    /// `ab`…; roman numerals past 3999 fall back to decimal.
    public func marker(_ n: Int) -> String {
        switch self {
        case .decimal: return String(n)
        case .lowerAlpha, .upperAlpha:
            guard n > 0 else { return String(n) }
            var value = n
            var letters: [Character] = []
            while value > 0 {
                value -= 1
                letters.insert(Character(Unicode.Scalar(UInt8(97 + value % 26))), at: 0)
                value /= 26
            }
            let text = String(letters)
            return self == .upperAlpha ? text.uppercased() : text
        case .lowerRoman, .upperRoman:
            guard n > 0, n < 4000 else { return String(n) }
            let table: [(Int, String)] = [
                (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"),
                (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
            ]
            var value = n
            var text = ""
            for (amount, symbol) in table {
                while value >= amount {
                    text += symbol
                    value -= amount
                }
            }
            return self == .upperRoman ? text.uppercased() : text
        }
    }

    /// The number a marker stands for in this style (`c` → 3, `iv` → 4); nil when it is not one.
    public func value(of marker: String) -> Int? {
        switch self {
        case .decimal: return Int(marker)
        case .lowerAlpha, .upperAlpha:
            guard !marker.isEmpty, marker.count <= 3, marker.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
            return marker.lowercased().unicodeScalars.reduce(0) { $0 * 26 + Int($1.value) - 96 }
        case .lowerRoman, .upperRoman:
            let lowered = marker.lowercased()
            guard !lowered.isEmpty, lowered.count <= 15 else { return nil }
            for n in 1..<4000 where MarkdownListStyle.lowerRoman.marker(n) == lowered { return n }
            return nil
        }
    }

    /// HTML's `<ol type>`: `1`, `a`, `A`, `i`, `I`.
    public var htmlType: String {
        switch self {
        case .decimal: return "1"
        case .lowerAlpha: return "a"
        case .upperAlpha: return "A"
        case .lowerRoman: return "i"
        case .upperRoman: return "I"
        }
    }
}

/// GFM task list item state (`- [ ]` / `- [x]`).
public enum MarkdownTaskState: UInt8, Sendable { case unchecked, checked }

/// GFM table column alignment.
public enum MarkdownTableAlignment: UInt8, Sendable { case none, left, center, right }

/// Attributes of a list node.
public struct MarkdownListAttributes: Sendable, Equatable {
    public var type: MarkdownListType
    /// First number of an ordered list (0 for bullet lists).
    public var start: Int
    public var delimiter: MarkdownListDelimiter
    /// `-`, `+` or `*` for bullet lists (as a byte); 0 for ordered lists.
    public var bulletChar: UInt8
    /// A tight list renders its paragraphs without `<p>`.
    public var tight: Bool
    /// How an ordered list's numbers are shown (always decimal from Markdown).
    public var style: MarkdownListStyle

    public init(
        type: MarkdownListType = .bullet, start: Int = 0, delimiter: MarkdownListDelimiter = .none,
        bulletChar: UInt8 = UInt8(ascii: "-"), tight: Bool = true, style: MarkdownListStyle = .decimal
    ) {
        self.type = type
        self.start = start
        self.delimiter = delimiter
        self.bulletChar = type == .bullet ? bulletChar : 0
        self.tight = tight
        self.style = type == .ordered ? style : .decimal
    }

    public static func bullet(_ char: UInt8 = UInt8(ascii: "-"), tight: Bool = true) -> Self {
        .init(type: .bullet, start: 0, delimiter: .none, bulletChar: char, tight: tight)
    }
    public static func ordered(
        start: Int = 1, delimiter: MarkdownListDelimiter = .period, tight: Bool = true, style: MarkdownListStyle = .decimal
    ) -> Self {
        .init(type: .ordered, start: start, delimiter: delimiter, bulletChar: 0, tight: tight, style: style)
    }
}

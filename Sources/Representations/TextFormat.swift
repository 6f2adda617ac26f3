#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The text formats pbctl reads and writes, by the names users type: the one vocabulary behind
/// `convert --from/--to`, `paste --as`, `copy --from`, the producers and the negotiator's conversions.
///
/// A format is a type plus, for Markdown, a dialect: both dialects are held as
/// `net.daringfireball.markdown`, and Markdown held on a pasteboard is read as GFM (CommonMark with
/// GitHub's extensions, a superset for everything but the extensions' syntax).
public enum TextFormat: String, Sendable, CaseIterable {
    /// Strict CommonMark 0.31.2.
    case commonmark
    /// GitHub Flavored Markdown (also what `markdown`/`md` mean).
    case gfm
    case html
    case rtf
    /// Plain text (UTF-8).
    case text

    /// Every name a user may type, with the format it means.
    public static let names: [(name: String, format: TextFormat)] = [
        ("commonmark", .commonmark), ("cm", .commonmark), ("cmark", .commonmark),
        ("gfm", .gfm), ("markdown", .gfm), ("md", .gfm), ("github", .gfm),
        ("html", .html), ("htm", .html), ("xhtml", .html),
        ("rtf", .rtf),
        ("text", .text), ("txt", .text), ("plain", .text), ("plaintext", .text),
    ]

    /// The names as help text shows them: `commonmark, gfm (markdown, md), html, rtf, text`: each format
    /// by its own name, with its best-known other names.
    public static let namesDescription = allCases.map { format in
        let aliases = format == .gfm ? ["markdown", "md"] : []
        return format.rawValue + (aliases.isEmpty ? "" : " (" + aliases.joined(separator: ", ") + ")")
    }.joined(separator: ", ")

    /// The format for a name (any case); nil for an unknown name.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let entry = Self.names.first(where: { $0.name == lowered }) else { return nil }
        self = entry.format
    }

    /// The type a document of this format is held as.
    public var type: TypeIdentifier {
        switch self {
        case .commonmark, .gfm: return .markdown
        case .html: return .html
        case .rtf: return .rtf
        case .text: return .utf8PlainText
        }
    }

    /// The format a held type is read as, when pbctl converts it: Markdown as GFM, any plain text as
    /// text. Nil for a type pbctl does not convert.
    public init?(type: TypeIdentifier) {
        switch type {
        case .markdown: self = .gfm
        case .html: self = .html
        case .rtf: self = .rtf
        case .utf8PlainText, .plainText: self = .text
        default: return nil
        }
    }

    /// Whether both are Markdown (of either dialect).
    public var isMarkdown: Bool { self == .commonmark || self == .gfm }

    /// The paste request `--as FORMAT` makes: plain text is `--plain` (rendered from the richest
    /// source); GFM, HTML and RTF take an offered representation of their type as it is; CommonMark
    /// converts even offered Markdown, which is held as GFM.
    public var pasteRequest: PasteRequest {
        switch self {
        case .text: return PasteRequest(.plain)
        case .commonmark: return PasteRequest(.format(type, takesOffered: false), dialect: rawValue)
        case .gfm, .html, .rtf: return PasteRequest(.format(type, takesOffered: true), dialect: rawValue)
        }
    }

    /// The format a paste's choice converts to: its type, in the dialect the request carried.
    public init?(_ choice: PasteRequest.Choice) {
        guard let target = choice.convertTo else { return nil }
        if let dialect = choice.dialect, let format = TextFormat(rawValue: dialect), format.type == target {
            self = format
        } else {
            self.init(type: target)
        }
    }
}


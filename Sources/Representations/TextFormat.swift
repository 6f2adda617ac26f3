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

    /// The names as help text shows them: `commonmark, gfm (markdown, md), html, rtf, text`.
    public static let namesDescription = "commonmark, gfm (markdown, md), html, rtf, text"

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
        case .commonmark: return PasteRequest(.format(type, takesOffered: false))
        case .gfm, .html, .rtf: return PasteRequest(.format(type, takesOffered: true))
        }
    }
}

extension Conversion {
    /// Whether pbctl converts `source` into `target`: every pair of the text formats it reads and
    /// writes goes through one AST. The same type converts to itself only where a dialect differs, which
    /// a paste request asks for explicitly (``PasteRequest/Mode/format(_:takesOffered:)``).
    @Sendable public static func canConvert(_ source: TypeIdentifier, _ target: TypeIdentifier) -> Bool {
        TextFormat(type: source) != nil && TextFormat(type: target) != nil
    }

    /// Converts held bytes of `source` into `target`'s format.
    /// - Throws: ``PasteboardError`` `.typeNotOffered` when either type is not a text format pbctl
    ///   converts, `.invalidData` when nothing usable is in the input.
    public static func produce(
        _ data: Data, from source: TypeIdentifier, to target: TextFormat, options: ConversionOptions = ConversionOptions()
    ) throws -> Data {
        guard let from = TextFormat(type: source) else {
            throw PasteboardError(.typeNotOffered, "cannot produce \(target.type) from \(source)")
        }
        return try convert(data, from: from, to: target, options: options)
    }

    /// `convert` on `Data`, with the error worded for the user (`.invalidData`, exit 65).
    public static func convert(_ data: Data, from: TextFormat, to: TextFormat, options: ConversionOptions = ConversionOptions())
        throws -> Data
    {
        do {
            return Data(try convert([UInt8](data), from: from, to: to, options: options))
        } catch let error as RepresentationError {
            throw PasteboardError(.invalidData, "nothing usable in the \(from.rawValue) input: \(error)")
        }
    }

    /// What backends call to produce a derived representation they hold only as a promise or a
    /// record (the store, an X11 or Wayland owner, the daemon): the target type's format.
    @Sendable public static func produceRepresentation(_ source: TypeIdentifier, _ data: Data, _ target: TypeIdentifier) throws -> Data {
        guard let format = TextFormat(type: target) else {
            throw PasteboardError(.typeNotOffered, "cannot produce \(target) from \(source)")
        }
        return try produce(data, from: source, to: format)
    }
}

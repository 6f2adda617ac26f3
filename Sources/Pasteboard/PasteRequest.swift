#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a paste asks for, and the decision for one item: the paste policy, apart from any command line.
///
/// Modes, from the narrowest:
/// - ``Mode/exact(_:)``: that type as it is, or an error listing what is offered (`paste --type`);
/// - ``Mode/accept(_:)``: the consumer's list in preference order, converting when nothing offered
///   fits (`paste --accept`, and what a backend's consumer asks for), decided by ``Negotiator``;
/// - ``Mode/format(_:takesOffered:)``: always this format, converting from the original (else the
///   richest convertible type) when it is not offered (`paste --as`);
/// - ``Mode/plain``: plain text, rendered from the richest source unless plain text was copied
///   (`paste --plain`);
/// - ``Mode/preferRTF``: RTF when offered, else the default ladder (macOS `pbpaste -Prefer rtf`);
/// - ``Mode/standard``: the default ladder (``PasteRequest/defaultType(_:registry:)``).
public struct PasteRequest: Sendable, Equatable {
    public enum Mode: Sendable, Equatable {
        case exact(TypeIdentifier)
        case accept([TypeIdentifier])
        /// `takesOffered`: whether an offered representation of the type already is the asked form.
        /// False where a type holds several forms (Markdown's dialects): the original is converted too.
        case format(TypeIdentifier, takesOffered: Bool)
        case plain
        case preferRTF
        case standard
    }

    /// The decision for one item: read `read`, and convert it to `convertTo` (in `dialect`, where the
    /// type holds several: Markdown's CommonMark or GFM) when set.
    public struct Choice: Sendable, Equatable {
        public var read: TypeIdentifier
        public var convertTo: TypeIdentifier?
        /// The form of `convertTo` the conversion writes; nil for the type's usual one.
        public var dialect: String?

        public init(read: TypeIdentifier, convertTo: TypeIdentifier? = nil, dialect: String? = nil) {
            self.read = read
            self.convertTo = convertTo
            self.dialect = dialect
        }
    }

    public var mode: Mode
    /// The form a ``Mode/format(_:takesOffered:)`` conversion writes, carried into its ``Choice``: the
    /// request keeps what was asked (`paste --as commonmark`), so nothing downstream guesses it back.
    public var dialect: String?

    public init(_ mode: Mode = .standard, dialect: String? = nil) {
        self.mode = mode
        self.dialect = dialect
    }

    /// Whether the bytes are handed over exactly as held (no conversion, no re-encoding of UTF-16).
    public var isExact: Bool { if case .exact = mode { return true } else { return false } }

    /// The choice for one item.
    /// - Parameters:
    ///   - offered: the item's types in offer order, with what each derived one came from.
    ///   - canConvert: which conversions exist (``Negotiator/canConvert``).
    /// - Throws: ``PasteboardError`` `.typeNotOffered` (exit 1) naming what is offered.
    public func choose(
        _ offered: [TypeSummary], registry: TypeRegistry,
        canConvert: @escaping @Sendable (TypeIdentifier, TypeIdentifier) -> Bool
    ) throws -> Choice {
        let types = offered.map(\.type)
        guard !types.isEmpty else { throw PasteboardError.empty("the item offers no type") }
        let negotiator = Negotiator(registry: registry, canConvert: canConvert)
        switch mode {
        case .exact(let requested):
            guard types.contains(requested) else {
                throw PasteboardError(.typeNotOffered, "\(requested) is not offered; offered: " + Self.list(types))
            }
            return Choice(read: requested)
        case .accept(let accepting):
            var decision = negotiator.choose(offered: offered, accepting: accepting)
            // Text is never made from the HTML or RTF that carries an image's picture (see textSources).
            if case .convert(let from, let to) = decision, registry.conforms(to, to: .plainText),
                let source = offered.first(where: { $0.type == from })?.derivedFrom, registry.conforms(source, to: .image)
            {
                let sources = offered.filter { summary in !(summary.derivedFrom.map { registry.conforms($0, to: .image) } ?? false) }
                decision = sources.isEmpty ? nil : negotiator.choose(offered: sources, accepting: accepting)
            }
            switch decision {
            case .use(let type): return Choice(read: type)
            case .convert(let from, let to): return Choice(read: from, convertTo: to)
            case nil:
                throw PasteboardError(
                    .typeNotOffered,
                    "none of " + Self.list(accepting) + " is offered or can be converted to; offered: " + Self.list(types))
            }
        case .format(let target, let takesOffered):
            let sources = registry.conforms(target, to: .plainText) ? try Self.textSources(offered, registry: registry) : offered
            var choice = try Self.converting(to: target, sources, negotiator, takesOffered: takesOffered)
            if choice.convertTo == target { choice.dialect = dialect }
            return choice
        case .plain:
            let offered = try Self.textSources(offered, registry: registry)
            let types = offered.map(\.type)
            // Plain text as it was copied stays as it is; anything richer (Markdown included) is rendered.
            if let original = Negotiator.original(of: offered), original != .markdown,
                registry.conforms(original, to: .plainText)
            {
                return Choice(read: original)
            }
            // Nothing richer than plain text on offer (an X11 owner of plain text): take it as it is.
            let rich: Set<TypeIdentifier> = [.markdown, .html, .rtf, .textBundle]
            if !types.contains(where: rich.contains), let text = types.first(where: { registry.conforms($0, to: .plainText) }) {
                return Choice(read: text)
            }
            return try Self.converting(to: .utf8PlainText, offered, negotiator, takesOffered: false)
        case .preferRTF:
            if types.contains(.rtf) { return Choice(read: .rtf) }
            return Choice(read: Self.standardType(offered, registry: registry))
        case .standard:
            return Choice(read: Self.standardType(offered, registry: registry))
        }
    }

    /// `target` itself when offered and `takesOffered`, else a conversion from the original, else from
    /// the richest offered type that converts; `target` as it is when nothing converts.
    static func converting(
        to target: TypeIdentifier, _ offered: [TypeSummary], _ negotiator: Negotiator, takesOffered: Bool
    ) throws -> Choice {
        let types = offered.map(\.type)
        if takesOffered, types.contains(target) { return Choice(read: target) }
        // Without `takesOffered` the target type itself is a source too (a dialect to convert), but
        // only as the original: a derived copy of the target is no better than its own source.
        let original = Negotiator.original(of: offered)
        var sources = negotiator.rankedByRichness(types).filter {
            ($0 != target || (!takesOffered && $0 == original)) && negotiator.canConvert($0, target)
        }
        if let original, let at = sources.firstIndex(of: original) {
            sources.remove(at: at)
            sources.insert(original, at: 0)
        }
        if let source = sources.first { return Choice(read: source, convertTo: target) }
        if types.contains(target) { return Choice(read: target) }
        throw PasteboardError(.typeNotOffered, "nothing offered converts to \(target); offered: " + list(types))
    }

    /// What plain text may come from. A picture has no text: the HTML and RTF made from an image (to
    /// carry the picture) are no source of plain text, so an image copy pastes as text nowhere (exit 1).
    static func textSources(_ offered: [TypeSummary], registry: TypeRegistry) throws -> [TypeSummary] {
        let sources = offered.filter { summary in !(summary.derivedFrom.map { registry.conforms($0, to: .image) } ?? false) }
        guard sources.contains(where: { !registry.conforms($0.type, to: .image) }) else {
            throw PasteboardError(.typeNotOffered, "the item is an image: it holds no text; offered: " + list(offered.map(\.type)))
        }
        return sources
    }

    /// The default ladder, except that an image copied here pastes as the image itself, not as the
    /// HTML or RTF made from it to carry the picture.
    static func standardType(_ offered: [TypeSummary], registry: TypeRegistry) -> TypeIdentifier {
        if let original = Negotiator.original(of: offered), registry.conforms(original, to: .image),
            offered.contains(where: { $0.derivedFrom == original })
        {
            return original
        }
        return defaultType(offered.map(\.type), registry: registry)
    }

    /// The type a plain paste writes: plain text first (a terminal wants what was copied), then the
    /// richer text forms, then whatever is there.
    public static func defaultType(_ offered: [TypeIdentifier], registry: TypeRegistry) -> TypeIdentifier {
        let ladder: [(TypeIdentifier) -> Bool] = [
            { $0 == .utf8PlainText },
            { registry.conforms($0, to: .plainText) && registry.textEncoding(of: $0) == .utf8 },
            { registry.conforms($0, to: .plainText) },
            { $0 == .html }, { $0 == .rtf },
            { registry.isText($0) },
        ]
        for rung in ladder {
            if let match = offered.first(where: rung) { return match }
        }
        return offered[0]
    }

    static func list(_ types: [TypeIdentifier]) -> String { types.map(\.rawValue).joined(separator: ", ") }
}

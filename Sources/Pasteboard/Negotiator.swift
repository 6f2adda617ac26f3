/// Picks the representation a paste gets: a pure function of what is offered and what the consumer
/// accepts.
///
/// Rules, in order:
/// 1. An offered type the consumer names exactly comes before one that merely conforms to a type it
///    names (as NSPasteboard's `availableType(from:)`).
/// 2. Among those, the original comes before anything derived from it whenever the consumer accepts
///    it: Markdown pasted into a Markdown consumer stays Markdown, never Markdown → RTF → Markdown.
/// 3. Then the consumer's own preference order; where one accepted type admits several offered ones
///    (`public.text`), the richest by ``ranking``.
/// 4. Only when nothing offered is accepted: a conversion, from the original when it can be
///    converted, else from the richest offered type that can, to the first accepted type reachable.
public struct Negotiator: Sendable {
    /// What the negotiator decided.
    public enum Decision: Equatable, Sendable {
        /// Hand over this offered type as it is.
        case use(TypeIdentifier)
        /// Convert the offered `from` into the accepted `to`.
        case convert(from: TypeIdentifier, to: TypeIdentifier)
    }

    /// The text types by richness, richest first: the order in which rich text is preferred when the
    /// consumer's list does not decide. Types not listed rank below all listed ones, in offer order.
    public static let defaultRanking: [TypeIdentifier] = [
        .textBundle, .html, .rtf, .markdown, .utf8PlainText, .utf16PlainText, .plainText,
    ]

    public var registry: TypeRegistry
    public var ranking: [TypeIdentifier]
    /// Which conversions exist: `canConvert(from, to)`.
    public var canConvert: @Sendable (TypeIdentifier, TypeIdentifier) -> Bool

    public init(
        registry: TypeRegistry = .standard, ranking: [TypeIdentifier] = Negotiator.defaultRanking,
        canConvert: @escaping @Sendable (TypeIdentifier, TypeIdentifier) -> Bool = { _, _ in false }
    ) {
        self.registry = registry
        self.ranking = ranking
        self.canConvert = canConvert
    }

    /// The decision for one item, or nil when nothing offered is accepted and no conversion reaches an
    /// accepted type.
    /// - Parameters:
    ///   - offered: the item's types in offer order, with what each derived one came from.
    ///   - accepting: the consumer's accepted types, most preferred first.
    public func choose(offered: [TypeSummary], accepting: [TypeIdentifier]) -> Decision? {
        guard !offered.isEmpty, !accepting.isEmpty else { return nil }
        let offeredTypes = offered.map(\.type)
        let original = Self.original(of: offered)

        // 1 + 2 + 3: exact matches.
        let exact = accepting.filter { offeredTypes.contains($0) }
        if let original, exact.contains(original) { return .use(original) }
        if let first = exact.first { return .use(first) }

        // Conforming matches, per accepted type in the consumer's order.
        for accepted in accepting {
            let conforming = offeredTypes.filter { registry.conforms($0, to: accepted) }
            guard !conforming.isEmpty else { continue }
            if let original, conforming.contains(original) { return .use(original) }
            return .use(richest(conforming))
        }

        // 4: conversion, from the original first, then by richness.
        var sources = rankedByRichness(offeredTypes)
        if let original, let index = sources.firstIndex(of: original) {
            sources.remove(at: index)
            sources.insert(original, at: 0)
        }
        for accepted in accepting {
            if let source = sources.first(where: { canConvert($0, accepted) }) {
                return .convert(from: source, to: accepted)
            }
        }
        return nil
    }

    /// The representation the others derive from: the one type not derived from another, when the
    /// offer says so. Offers without provenance (an X11 owner's targets all look original) have none.
    public static func original(of offered: [TypeSummary]) -> TypeIdentifier? {
        let originals = offered.filter { $0.derivedFrom == nil }
        guard originals.count == 1 else { return nil }
        return originals[0].type
    }

    /// `types` ordered richest first; unranked types keep their order after the ranked ones.
    public func rankedByRichness(_ types: [TypeIdentifier]) -> [TypeIdentifier] {
        let indexed = types.enumerated().map { (offset, type) -> (Int, Int, TypeIdentifier) in
            (rank(type), offset, type)
        }
        return indexed.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    }

    func richest(_ types: [TypeIdentifier]) -> TypeIdentifier { rankedByRichness(types)[0] }

    func rank(_ type: TypeIdentifier) -> Int {
        if let index = ranking.firstIndex(of: type) { return index }
        // A type conforming to a ranked one ranks just after it.
        for (index, ranked) in ranking.enumerated() where registry.conforms(type, to: ranked) {
            return index
        }
        return ranking.count
    }
}

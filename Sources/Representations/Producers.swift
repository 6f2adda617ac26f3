#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// Turns one source into every representation it can honestly offer: the original first, then the
/// derived ones as promises produced on first request.
///
/// | source | offers |
/// |---|---|
/// | Markdown | Markdown (original), HTML, RTF, plain text |
/// | HTML | HTML (original), RTF, rendered plain text |
/// | RTF | RTF (original), HTML, plain text |
/// | an image (PNG, JPEG, GIF, BMP, TIFF, WebP) | the original, then PNG, JPEG, BMP, TIFF, WebP, an HTML `<img>`, RTF with the picture |
/// | plain text, anything else | the original only: no invented richness |
///
/// The plain text a Markdown copy offers is, by default, the Markdown source itself: Markdown is
/// plain text, and a terminal or code editor should get exactly what was copied. With
/// ``PlainTextChoice/rendered`` it is the rendered text instead (what "paste as plain text" gives).
public enum Producers {
    public enum PlainTextChoice: String, Sendable, CaseIterable {
        /// Markdown's plain text is its source.
        case source
        /// Markdown's plain text is rendered (no markup).
        case rendered
    }

    /// The derived types a source of `type` offers, in order.
    public static func derivedTypes(for type: TypeIdentifier) -> [TypeIdentifier] {
        switch type {
        case .markdown: return [.html, .rtf, .utf8PlainText]
        case .html: return [.rtf, .utf8PlainText]
        case .rtf: return [.html, .utf8PlainText]
        case let image where ImageRepresentations.isImage(image): return ImageRepresentations.derivedTypes(for: image)
        default: return []
        }
    }

    /// An item holding `data` as `type` plus every derived representation, promised.
    /// - Parameters:
    ///   - convert: produces a derived representation from the original's bytes (the same function
    ///     backends use to produce derived representations they hold only as records).
    public static func item(
        original data: Data, type: TypeIdentifier, metadata: ItemMetadata = ItemMetadata(),
        plainText: PlainTextChoice = .source, convert: @escaping RepresentationProducer
    ) -> Item {
        var representations = [Representation(type: type, data: data)]
        for target in derivedTypes(for: type) {
            if type == .markdown, target == .utf8PlainText, plainText == .source {
                // The same bytes, held as data: nothing to produce, and nothing a backend could
                // produce differently later.
                representations.append(Representation(type: target, data: data, derivedFrom: type))
            } else {
                representations.append(
                    Representation(type: target, derivedFrom: type) { try convert(type, data, target) })
            }
        }
        return Item(representations: representations, metadata: metadata)
    }

    /// An item that arrived whole from elsewhere — kept by the daemon from another application, recalled
    /// from the history, received from a device or a remote pbctl — offering what a `pbctl copy` of its
    /// original would: every representation it holds kept as it is (the owner's own bytes first), and
    /// each derived type a copy would offer and it lacks, promised from the original and produced only
    /// when asked for. The original is its first image that is no derived one, else its first Markdown,
    /// HTML or RTF that is none; an item with neither (plain text, files, anything else) is returned as
    /// it is: no invented richness.
    public static func completed(_ item: Item, plainText: PlainTextChoice = .source, convert: @escaping RepresentationProducer) -> Item {
        let originals = item.representations.filter { $0.derivedFrom == nil }
        guard
            let original = originals.first(where: { ImageRepresentations.isImage($0.type) })
                ?? originals.first(where: { [.markdown, .html, .rtf].contains($0.type) })
        else { return item }
        var completed = item
        let source = original.type
        for target in derivedTypes(for: source) where item.representation(for: target) == nil {
            if source == .markdown, target == .utf8PlainText, plainText == .source, let data = try? original.data() {
                // The same bytes, held as data (as ``item(original:type:metadata:plainText:convert:)`` holds
                // them): a backend that produces what it holds as a record would render them instead.
                completed.set(Representation(type: target, data: data, derivedFrom: source))
            } else {
                completed.set(Representation(type: target, derivedFrom: source) { try convert(source, try original.data(), target) })
            }
        }
        return completed
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a backend reports about one offered representation without producing its bytes.
public struct TypeSummary: Sendable, Codable, Equatable {
    public var type: TypeIdentifier
    /// Size in bytes when known.
    public var size: Int?
    /// The type this one is derived from, nil for an original.
    public var derivedFrom: TypeIdentifier?

    public init(type: TypeIdentifier, size: Int? = nil, derivedFrom: TypeIdentifier? = nil) {
        self.type = type
        self.size = size
        self.derivedFrom = derivedFrom
    }
}

/// What a backend reports about one item.
public struct ItemSummary: Sendable, Codable, Equatable {
    public var types: [TypeSummary]
    public var metadata: ItemMetadata

    public init(types: [TypeSummary], metadata: ItemMetadata) {
        self.types = types
        self.metadata = metadata
    }
}

/// Where pasteboards live: in memory (tests), a file-backed store (no display), or X11 selections.
///
/// Every call names its pasteboard. Items are numbered from 0 in the order they were written.
public protocol PasteboardBackend: AnyObject {
    /// Replaces the pasteboard's content with `items` and returns the new change count.
    @discardableResult
    func write(_ items: [Item], to pasteboard: PasteboardName) throws -> Int

    /// The items currently held, without their bytes; empty when the pasteboard is clear.
    func items(in pasteboard: PasteboardName) throws -> [ItemSummary]

    /// The bytes of one representation of one item.
    /// - Throws: ``PasteboardError`` `.empty` when there is no such item, `.typeNotOffered` when the
    ///   item does not offer `type`.
    func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data

    /// Empties the pasteboard (the change count still rises).
    func clear(_ pasteboard: PasteboardName) throws

    /// A number that rises on every write or clear and never goes back.
    func changeCount(of pasteboard: PasteboardName) throws -> Int
}

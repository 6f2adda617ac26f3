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
    /// Of a representation left out: its owner went away before sending all of it (nil: not so).
    public var cutShort: Bool?

    public init(type: TypeIdentifier, size: Int? = nil, derivedFrom: TypeIdentifier? = nil, cutShort: Bool? = nil) {
        self.type = type
        self.size = size
        self.derivedFrom = derivedFrom
        self.cutShort = cutShort
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

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Produces a derived representation (`target`) from the bytes of the one it derives from (`source`).
public typealias RepresentationProducer =
    @Sendable (_ source: TypeIdentifier, _ data: Data, _ target: TypeIdentifier) throws -> Data

/// The description of one stored representation: its type, where its bytes are, where it came from.
public struct RepresentationRecord: Codable, Sendable, Equatable {
    public var type: TypeIdentifier
    /// Byte count; nil for a derived representation whose bytes are produced on demand.
    public var size: Int?
    public var derivedFrom: TypeIdentifier?
    /// The file holding the bytes (file store only).
    public var file: String?
    /// The bytes are held in memory by another process, never on disk (sensitive content).
    public var held: Bool?
    /// In an ``ItemArchive``: the bytes are those of this earlier representation of the item, stored
    /// once (Markdown's plain text is its source).
    public var sameBytesAs: TypeIdentifier?

    public init(type: TypeIdentifier, size: Int?, derivedFrom: TypeIdentifier?, file: String? = nil, held: Bool? = nil,
                sameBytesAs: TypeIdentifier? = nil) {
        self.type = type
        self.size = size
        self.derivedFrom = derivedFrom
        self.file = file
        self.held = held
        self.sameBytesAs = sameBytesAs
    }
}

public struct ItemRecord: Codable, Sendable, Equatable {
    public var metadata: ItemMetadata
    public var representations: [RepresentationRecord]

    public init(metadata: ItemMetadata, representations: [RepresentationRecord]) {
        self.metadata = metadata
        self.representations = representations
    }

    public var summary: ItemSummary {
        ItemSummary(
            types: representations.map { TypeSummary(type: $0.type, size: $0.size, derivedFrom: $0.derivedFrom) },
            metadata: metadata)
    }
}

/// A self-contained byte form of a list of items, for handing them to another process over a pipe.
///
/// Layout: the magic `PBA1`, a 4-byte little-endian header length, a JSON header (``ItemRecord``s),
/// then every stored representation's bytes in header order. Derived representations travel as
/// records only and are produced again on the other side.
public enum ItemArchive {
    static let magic: [UInt8] = Array("PBA1".utf8)

    /// Encodes `items`, producing promised originals. Derived representations keep only their record
    /// when `producer` will be available to the reader.
    public static func encode(_ items: [Item], keepDerivedLazy: Bool = true) throws -> Data {
        var out = Data()
        for part in try encodedParts(items, keepDerivedLazy: keepDerivedLazy) { out.append(part) }
        return out
    }

    /// The archive as consecutive parts (the header, then each stored representation's bytes as the
    /// item holds them), so a large item is written out without first being copied into one buffer.
    /// A derived representation with the same bytes as an earlier one of its item is stored once.
    public static func encodedParts(_ items: [Item], keepDerivedLazy: Bool = true) throws -> [Data] {
        var records: [ItemRecord] = []
        var blobs: [Data] = []
        for item in items {
            var reps: [RepresentationRecord] = []
            var stored: [(type: TypeIdentifier, data: Data)] = []
            for rep in item.representations {
                if keepDerivedLazy, rep.derivedFrom != nil, case .promised = rep.content {
                    reps.append(RepresentationRecord(type: rep.type, size: nil, derivedFrom: rep.derivedFrom))
                    continue
                }
                let data = try rep.data()
                if rep.derivedFrom != nil, data.count > 0,
                    let same = stored.first(where: { $0.data.count == data.count && $0.data == data })
                {
                    reps.append(RepresentationRecord(type: rep.type, size: 0, derivedFrom: rep.derivedFrom,
                                                     sameBytesAs: same.type))
                    continue
                }
                reps.append(RepresentationRecord(type: rep.type, size: data.count, derivedFrom: rep.derivedFrom))
                blobs.append(data)
                stored.append((rep.type, data))
            }
            records.append(ItemRecord(metadata: item.metadata, representations: reps))
        }
        let header = try JSONEncoder().encode(records)
        var head = Data(magic)
        var length = UInt32(header.count).littleEndian
        withUnsafeBytes(of: &length) { head.append(contentsOf: $0) }
        head.append(header)
        return [head] + blobs
    }

    /// Decodes an archive. Derived representations without bytes become promises fulfilled by
    /// `producer` from their source's bytes.
    /// The representations' bytes share `archive`'s storage (slices, not copies).
    public static func decode(_ archive: Data, producer: RepresentationProducer? = nil) throws -> [Item] {
        let base = archive.startIndex
        let count = archive.count
        guard count >= 8, archive[base..<(base + 4)].elementsEqual(magic) else {
            throw PasteboardError(.corrupt, "not a pasteboard archive")
        }
        let length = Int(UInt32(archive[base + 4]) | UInt32(archive[base + 5]) << 8 | UInt32(archive[base + 6]) << 16
            | UInt32(archive[base + 7]) << 24)
        guard length <= count - 8 else { throw PasteboardError(.corrupt, "truncated pasteboard archive") }
        let records: [ItemRecord]
        do {
            records = try JSONDecoder().decode([ItemRecord].self, from: Data(archive[(base + 8)..<(base + 8 + length)]))
        } catch {
            throw PasteboardError(.corrupt, "damaged pasteboard archive header")
        }
        var offset = 8 + length
        var items: [Item] = []
        for record in records {
            var stored: [TypeIdentifier: Data] = [:]
            var representations: [Representation] = []
            var lazy: [RepresentationRecord] = []
            for rep in record.representations {
                if let same = rep.sameBytesAs {
                    guard let data = stored[same] else {
                        throw PasteboardError(.corrupt, "pasteboard archive refers to a missing representation")
                    }
                    stored[rep.type] = data
                    representations.append(Representation(type: rep.type, data: data, derivedFrom: rep.derivedFrom))
                } else if let size = rep.size {
                    guard size >= 0, size <= count - offset else {
                        throw PasteboardError(.corrupt, "truncated pasteboard archive")
                    }
                    let data = slice(archive, (base + offset)..<(base + offset + size))
                    offset += size
                    stored[rep.type] = data
                    representations.append(Representation(type: rep.type, data: data, derivedFrom: rep.derivedFrom))
                } else {
                    lazy.append(rep)
                }
            }
            let final = stored
            var item = Item(representations: representations, metadata: record.metadata)
            for rep in lazy {
                item.set(Representation.derived(rep.type, from: rep.derivedFrom, stored: { final }, producer: producer))
            }
            // Keep the recorded order.
            items.append(Item(
                representations: record.representations.compactMap { item.representation(for: $0.type) },
                metadata: record.metadata))
        }
        return items
    }
}

extension ItemArchive {
    /// The bytes of `range` as a Data indexed from 0. Large ranges share `archive`'s storage, which
    /// the slice keeps alive (the archive may be a mapping of megabytes): no copy per representation.
    static func slice(_ archive: Data, _ range: Range<Int>) -> Data {
        guard range.count >= 1 << 16 else { return Data(archive[range]) }
        return archive.withUnsafeBytes { raw in
            // A Data this large lives in stable heap (or mapped) storage, never inline.
            let pointer = UnsafeMutableRawPointer(mutating: raw.baseAddress! + (range.lowerBound - archive.startIndex))
            return Data(bytesNoCopy: pointer, count: range.count, deallocator: .custom { _, _ in
                withExtendedLifetime(archive) {}
            })
        }
    }
}

extension Representation {
    /// A promise for `type`, produced from the stored bytes of `source` by `producer`.
    static func derived(
        _ type: TypeIdentifier, from source: TypeIdentifier?, stored: @escaping @Sendable () -> [TypeIdentifier: Data],
        producer: RepresentationProducer?
    ) -> Representation {
        Representation(type: type, derivedFrom: source) {
            guard let source, let data = stored()[source] else {
                throw PasteboardError(.corrupt, "\(type) is derived from a representation that is not stored")
            }
            guard let producer else {
                throw PasteboardError(.unavailable, "no converter available to produce \(type) from \(source)")
            }
            return try producer(source, data, type)
        }
    }
}

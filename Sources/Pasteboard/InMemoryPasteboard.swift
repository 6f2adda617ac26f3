import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A backend that keeps everything in memory: the test double, and the holder of sensitive items that
/// must never reach disk.
public final class InMemoryPasteboard: PasteboardBackend, Sendable {
    public var info: BackendInfo { BackendInfo(name: "memory") }

    private struct Board {
        var items: [Item] = []
        var changeCount = 0
        /// Promised representations produced once, cached by (item, type).
        var produced: [Int: [TypeIdentifier: Data]] = [:]
    }

    private let boards = Mutex<[PasteboardName: Board]>([:])

    public init() {}

    @discardableResult
    public func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int {
        boards.withLock { boards in
            var board = boards[pasteboard, default: Board()]
            board.items = items
            board.produced = [:]
            board.changeCount += 1
            boards[pasteboard] = board
            return board.changeCount
        }
    }

    public func items(in pasteboard: PasteboardName) throws -> [ItemSummary] {
        boards.withLock { boards in
            (boards[pasteboard]?.items ?? []).map { item in
                ItemSummary(
                    types: item.representations.map {
                        TypeSummary(type: $0.type, size: $0.knownSize, derivedFrom: $0.derivedFrom)
                    },
                    metadata: item.metadata)
            }
        }
    }

    /// The whole item, providers included (for re-serving it elsewhere).
    public func item(_ index: Int, in pasteboard: PasteboardName) -> Item? {
        boards.withLock { boards in
            guard let items = boards[pasteboard]?.items, items.indices.contains(index) else { return nil }
            return items[index]
        }
    }

    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data {
        let (representation, cached, generation): (Representation, Data?, Int) = try boards.withLock { boards in
            guard let board = boards[pasteboard], board.items.indices.contains(index) else {
                throw PasteboardError.empty()
            }
            guard let representation = board.items[index].representation(for: type) else {
                throw PasteboardError(.typeNotOffered, "\(type) is not offered")
            }
            return (representation, board.produced[index]?[type], board.changeCount)
        }
        if let cached { return cached }
        // Produce outside the lock: a conversion may take a while and may read other types.
        let data = try representation.data()
        if case .promised = representation.content {
            boards.withLock { boards in
                if boards[pasteboard]?.changeCount == generation {
                    boards[pasteboard]?.produced[index, default: [:]][type] = data
                }
            }
        }
        return data
    }

    public func clear(_ pasteboard: PasteboardName) throws {
        boards.withLock { boards in
            var board = boards[pasteboard, default: Board()]
            board.items = []
            board.produced = [:]
            board.changeCount += 1
            boards[pasteboard] = board
        }
    }

    public func changeCount(of pasteboard: PasteboardName) throws -> Int {
        boards.withLock { $0[pasteboard]?.changeCount ?? 0 }
    }
}

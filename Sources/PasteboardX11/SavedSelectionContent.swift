#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// Content fetched from another client, served back under the same targets with the same reply types.
public final class SavedSelectionContent: SelectionContentSource {
    public struct Entry: Sendable {
        public var target: XAtom
        public var name: String
        public var content: ServedContent
    }

    public private(set) var entries: [Entry] = []
    public var targets: [XAtom] { entries.map(\.target) }
    public var targetNames: [String] { entries.map(\.name) }
    public var totalBytes: Int { entries.reduce(0) { $0 + $1.content.bytes.count } }
    public var isEmpty: Bool { entries.isEmpty }

    public init() {}

    public func add(_ entry: Entry) { entries.append(entry) }

    public func content(for target: XAtom) -> ServedContent? {
        entries.first { $0.target == target }?.content
    }
}

/// A vanished owner's content served again: its own targets as it gave them, then the derived ones a
/// copy of it would offer that it did not (another image format, RTF from its HTML).
final class RestoredContent: SelectionContentSource {
    let kept: SavedSelectionContent
    let derived: ItemContentSource
    let targets: [XAtom]

    init(kept: SavedSelectionContent, derived: ItemContentSource) {
        self.kept = kept
        self.derived = derived
        let own = Set(kept.targets)
        targets = kept.targets + derived.targets.filter { !own.contains($0) }
    }

    func content(for target: XAtom) -> ServedContent? { kept.content(for: target) ?? derived.content(for: target) }
}

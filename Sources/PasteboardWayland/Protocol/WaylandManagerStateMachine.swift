#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// `pbctl daemon` on Wayland deciding, as a pure state machine: which selection to fetch, keep, record or
/// offer again, and when. The driver (`WaylandClipboardManager`) feeds it the selection events and the
/// fetches' results, and performs its actions (fetching with a ``WaylandFetchStateMachine``, serving with a
/// `WaylandSelectionOwner`).
///
/// - The clipboard is always watched; the primary selection with ``Configuration/primary`` (kept and
///   offered again) or ``Configuration/recordPrimary`` (recorded only), when the compositor has it.
/// - A new selection is fetched unless it is the manager's own offer. Content marked sensitive or
///   transient is neither fetched, kept nor recorded, and clears what was kept before it: a password
///   manager's clearing is not undone.
/// - A cleared selection is offered again when something is kept for it and nobody serves it, at most
///   five times a second (a program that clears it at once, again and again, makes no busy loop).
public struct WaylandManagerStateMachine: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Keep the primary selection too and offer it again (`--primary`).
        public var primary: Bool
        /// Record the primary selection in the history, even without ``primary``.
        public var recordPrimary: Bool
        public init(primary: Bool = false, recordPrimary: Bool = false) {
            self.primary = primary
            self.recordPrimary = recordPrimary
        }
    }

    /// What is kept of a selection: the content, and each type's MIME names as its owner offered them.
    public struct Kept: Sendable {
        public var item: Item
        public var names: [TypeIdentifier: [String]]
        public init(item: Item, names: [TypeIdentifier: [String]] = [:]) {
            self.item = item
            self.names = names
        }
    }

    public enum Action: Sendable, CustomStringConvertible {
        /// Fetch every type of `offer` (its MIME types `mimes`), then report with ``fetched(primary:_:metadata:)``.
        case fetch(primary: Bool, offer: UInt32, mimes: [String])
        /// Offer `kept` again as the selection, after pausing `pause` nanoseconds; report the source with
        /// ``serving(primary:source:ownOffer:)``.
        case serve(primary: Bool, kept: Kept, pause: UInt64)
        /// Hand `item` to the history (`skipped`: the types left out for their size).
        case record(Item, primary: Bool, skipped: [TypeSummary])
        /// Another client made a new selection offering `mimes`: a change to count.
        case changed(primary: Bool, mimes: [String])
        case log(String)

        public var description: String {
            switch self {
            case .fetch(let primary, let offer, _): "fetch \(Self.name(primary)) offer \(offer)"
            case .serve(let primary, let kept, let pause):
                "serve \(Self.name(primary)) \(kept.item.representations.map(\.type.rawValue))" + (pause > 0 ? " after a pause" : "")
            case .record(let item, let primary, let skipped):
                "record \(Self.name(primary)) \(item.representations.map(\.type.rawValue)) skipped \(skipped.map(\.type.rawValue))"
            case .log(let line): "log \(line)"
            case .changed(let primary, let mimes): "changed \(Self.name(primary)) \(mimes)"
            }
        }
        static func name(_ primary: Bool) -> String { primary ? "primary" : "clipboard" }
    }

    private struct Slot: Sendable {
        let primary: Bool
        var kept: Kept?
        /// The source the manager serves the selection from, while it does.
        var source: UInt32?
        /// The offer the compositor made of that source (never fetched back).
        var ownOffer: UInt32?
        /// A selection not looked at yet (.some(nil): cleared).
        var next: UInt32?? = nil
        /// When the selection was offered again lately.
        var serves: [UInt64] = []
        var name: String { primary ? "primary selection" : "clipboard" }
    }

    public let configuration: Configuration
    private var slots: [Slot] = []

    public init(configuration: Configuration) { self.configuration = configuration }

    /// What is kept of the clipboard (or of the primary selection).
    public func kept(primary: Bool = false) -> Kept? { slots.first(where: { $0.primary == primary })?.kept }

    /// Whether the primary selection is watched.
    public var watchesPrimary: Bool { slots.contains { $0.primary } }

    /// The selection (primary or not) the manager serves from `source`; nil when it serves none from it.
    public func selection(servedBy source: UInt32) -> Bool? { slots.first(where: { $0.source == source })?.primary }

    /// Whether selection changes wait to be looked at (``step(now:offers:)``).
    public var hasPendingChanges: Bool { slots.contains { $0.next != nil } }

    // MARK: Inputs

    /// At start, the selections as the compositor has them; `restore` (the history's newest entry) is
    /// served when the clipboard is empty.
    public mutating func start(selection: UInt32?, primarySelection: UInt32?, supportsPrimary: Bool, restore: Item?) -> [Action] {
        var actions: [Action] = []
        var clipboard = Slot(primary: false)
        clipboard.next = .some(selection)
        if selection == nil, let restore, !restore.representations.isEmpty {
            clipboard.kept = Kept(item: restore)
            actions.append(.log("the clipboard is empty: serving the newest history entry"))
        }
        slots = [clipboard]
        if configuration.primary || configuration.recordPrimary {
            if supportsPrimary {
                var primary = Slot(primary: true)
                primary.next = .some(primarySelection)
                slots.append(primary)
            } else {
                actions.insert(.log("the compositor offers no primary selection to clipboard managers: keeping the clipboard only"), at: 0)
            }
        }
        return actions
    }

    /// A selection event: `offer` (nil: cleared) is looked at when it is still the selection `current`
    /// (else a later event for it is on its way).
    public mutating func selectionChanged(primary: Bool, offer: UInt32?, current: UInt32?) {
        guard offer == current, let index = slots.firstIndex(where: { $0.primary == primary }) else { return }
        slots[index].next = .some(offer)
    }

    /// Looks at the selection changes not looked at yet, one slot after the other: what to fetch, forget
    /// or serve. `offers` are the live offers' MIME types.
    public mutating func step(now: UInt64, offers: ObjectTable<[String]>) -> [Action] {
        var actions: [Action] = []
        for index in slots.indices {
            guard let selection = slots[index].next else { continue }
            slots[index].next = nil
            actions += look(at: selection, in: index, now: now, offers: offers)
        }
        return actions
    }

    /// The fetch of a ``Action/fetch(primary:offer:mimes:)`` ended with `fetched`; `metadata` is the
    /// content's (from the offer's markers, and the time).
    public mutating func fetched(primary: Bool, _ fetched: WaylandFetchStateMachine.Fetched, metadata: ItemMetadata) -> [Action] {
        guard let index = slots.firstIndex(where: { $0.primary == primary }) else { return [] }
        let name = slots[index].name
        let records = !primary || configuration.recordPrimary
        // One rule for every keeper (FetchVerdict): whole or not kept.
        let verdict = FetchVerdict(
            fetched: fetched.representations.map { TypeSummary(type: $0.type, size: $0.knownSize) }, skipped: fetched.skipped)
        switch verdict {
        case .cutShort(let skipped):
            // What was fetched of an owner that went away mid-transfer is dropped, and so is what was
            // kept before it (the clipboard it replaced is gone too); the history lists the content as
            // not kept, saying why.
            slots[index].kept = nil
            var actions: [Action] = [.log("new \(name) content not kept: \(FetchVerdict.cutShortReason)")]
            if records {
                actions.append(.record(Item(representations: [], metadata: metadata), primary: primary, skipped: skipped))
            }
            return actions
        case .nothing(let skipped):
            var actions: [Action] = [.log("new \(name) content: nothing could be fetched")]
            // Listed all the same when it was too large to keep.
            if verdict.records, records {
                actions.append(.record(Item(representations: [], metadata: metadata), primary: primary, skipped: skipped))
            }
            return actions
        case .keep:
            break
        }
        let item = Item(representations: fetched.representations, metadata: metadata)
        slots[index].kept = Kept(item: item, names: fetched.names)
        var actions: [Action] = [
            .log("kept \(item.representations.count) types of the \(name): \(item.representations.map(\.type.rawValue).joined(separator: ", "))")
        ]
        if records { actions.append(.record(item, primary: primary, skipped: fetched.skipped)) }
        return actions
    }

    /// A ``Action/serve(primary:kept:pause:)`` is done (or an item handed in, ``adopt(_:)``, is served):
    /// `source` serves the selection, which the compositor now offers as `ownOffer`.
    public mutating func serving(primary: Bool, source: UInt32, ownOffer: UInt32?, again: Bool = true) -> [Action] {
        guard let index = slots.firstIndex(where: { $0.primary == primary }) else { return [] }
        slots[index].source = source
        slots[index].ownOffer = ownOffer
        return again ? [.log("the \(slots[index].name) was cleared: serving the kept content again")] : []
    }

    /// An item handed in to be the clipboard (a device's, a remote pbctl's): it is what is kept now, and
    /// the manager serves it (then reports with ``serving(primary:source:ownOffer:again:)``).
    public mutating func adopt(_ item: Item) -> Kept {
        let kept = Kept(item: item)
        if let index = slots.firstIndex(where: { !$0.primary }) { slots[index].kept = kept }
        return kept
    }

    /// The owner serving from `source` stopped serving (another client took the selection).
    public mutating func stoppedServing(source: UInt32) {
        guard let index = slots.firstIndex(where: { $0.source == source }) else { return }
        slots[index].source = nil
        slots[index].ownOffer = nil
    }

    // MARK: Decisions

    private mutating func look(at selection: UInt32?, in index: Int, now: UInt64, offers: ObjectTable<[String]>) -> [Action] {
        let slot = slots[index]
        guard let offer = selection else {
            // Cleared: offered again when something is kept and nobody serves it (the primary selection
            // only with `--primary`).
            guard let kept = slot.kept, slot.source == nil, !slot.primary || configuration.primary else { return [] }
            slots[index].serves = slot.serves.filter { now &- $0 < 1_000_000_000 } + [now]
            return [.serve(primary: slot.primary, kept: kept, pause: slots[index].serves.count > 5 ? 200_000_000 : 0)]
        }
        guard offer != slot.ownOffer, let mimes = offers[offer], !mimes.isEmpty else { return [] }  // the manager's own offer
        let flags = ClipboardMarkers.flags(offered: mimes)
        if flags.contains(.sensitive) || flags.contains(.transient) {
            slots[index].kept = nil
            return [.changed(primary: slot.primary, mimes: mimes), .log("new \(slot.name) content marked sensitive or transient: not kept")]
        }
        return [.changed(primary: slot.primary, mimes: mimes), .fetch(primary: slot.primary, offer: offer, mimes: mimes)]
    }
}

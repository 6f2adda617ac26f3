#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// One selection change seen by ``X11SelectionWatcher``.
public struct SelectionChange: Sendable, Equatable {
    /// Counts the changes seen since the watcher started, from 1.
    public var changeCount: Int
    public var selection: X11Selection
    /// The new owner window, 0 when the selection was cleared or its owner went away.
    public var owner: XWindow
    public var targets: [String]
    public var types: [TypeIdentifier]
    /// The owner marks its content as a secret (`x-kde-passwordManagerHint: secret`, or nspasteboard.org's
    /// ConcealedType).
    public var sensitive: Bool
}

/// Reports selection changes from XFixes events (no polling).
public final class X11SelectionWatcher {
    public let connection: XConnection
    public let selections: [X11Selection]
    public let negotiation: TargetNegotiation
    public var stepTimeout: Double = 5
    private var changeCount = 0
    private var lastOwner: [X11Selection: XWindow] = [:]

    public init(connection: XConnection, selections: [X11Selection], registry: TypeRegistry = .standard) throws {
        self.connection = connection
        self.selections = selections
        self.negotiation = TargetNegotiation(registry: registry)
        for selection in selections {
            try connection.watchSelection(connection.atoms[selection.knownAtom], window: connection.utilityWindow)
        }
        try connection.flush()
    }

    /// A reader for `selection` on the watcher's connection (to fetch content for a change).
    public func reader(for selection: X11Selection) -> X11SelectionReader {
        X11SelectionReader(connection: connection, selection: selection, stepTimeout: stepTimeout)
    }

    /// Waits for the next change (until `deadline`, monotonic nanoseconds; nil: forever).
    public func next(deadline: UInt64? = nil) throws -> SelectionChange? {
        while true {
            guard let event = try connection.nextEvent(deadline: deadline) else { return nil }
            guard case .selectionChanged(_, let atom, let owner, _, _) = event,
                let selection = selections.first(where: { connection.atoms[$0.knownAtom] == atom })
            else { continue }
            return try describe(selection, owner: owner)
        }
    }

    private func describe(_ selection: X11Selection, owner: XWindow) throws -> SelectionChange {
        changeCount += 1
        lastOwner[selection] = owner
        var targets: [String] = []
        if owner != 0 {
            targets = (try? reader(for: selection).targets()) ?? []
        }
        let types = negotiation.types(forTargets: targets.filter { !ClipboardMarkers.isMarker($0) })
        // KDE's hint carries a value ("secret"), read when offered; the other markers count by presence.
        let hint = ClipboardMarkers.offersHint(targets) ? hintValue(selection) : nil
        let sensitive = ClipboardMarkers.flags(offered: targets, hintValue: hint).contains(.sensitive)
        return SelectionChange(changeCount: changeCount, selection: selection, owner: owner, targets: targets,
                               types: types, sensitive: sensitive)
    }

    /// The value of KDE's hint, nil when it cannot be read.
    private func hintValue(_ selection: X11Selection) -> Data? {
        var value = Data()
        guard (try? reader(for: selection).read(target: ClipboardMarkers.passwordHint) { value.append($0) }) != nil else { return nil }
        return value
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The decisions of the clipboard manager (`pbctl daemon`) as pure logic: which targets to fetch
/// when saving (SAVE_TARGETS, freedesktop Clipboard Manager spec) or keeping a copy of the current
/// owner's content, what counts as sensitive, how to answer requests on CLIPBOARD_MANAGER, and when
/// an owner's disappearance calls for restoring the last content.
///
/// The driver (``X11ClipboardManager``) performs the fetches (each a ``SelectionFetchStateMachine``) and
/// claims; this type only decides. CLIPBOARD is always watched; PRIMARY with `pbctl daemon --primary`,
/// or only to be recorded (`history.primary`), in which case it is never restored.
public struct ClipboardManagerStateMachine: Sendable {
    /// Size caps for one save or one snapshot.
    public struct Limits: Sendable, Equatable {
        /// Most bytes kept for one target.
        public var maxTargetBytes: Int
        /// Most bytes kept in all.
        public var maxTotalBytes: Int
        /// Most targets fetched.
        public var maxTargets: Int

        public init(maxTargetBytes: Int, maxTotalBytes: Int, maxTargets: Int) {
            self.maxTargetBytes = maxTargetBytes
            self.maxTotalBytes = maxTotalBytes
            self.maxTargets = maxTargets
        }

        /// SAVE_TARGETS: everything the exiting application lists, within reason.
        public static let save = Limits(maxTargetBytes: 64 << 20, maxTotalBytes: 256 << 20, maxTargets: 64)
        /// The copy kept of every owner's content: text, rich text and one image format.
        public static let snapshot = Limits(maxTargetBytes: 16 << 20, maxTotalBytes: 64 << 20, maxTargets: 24)
    }

    /// Protocol and side-effect targets, never fetched: converting them either means nothing to keep
    /// (TARGETS, TIMESTAMP), recurses (MULTIPLE, SAVE_TARGETS) or has side effects on the owner
    /// (DELETE, INSERT_*). PIXMAP is a server resource that dies with its owner.
    public static let neverFetched: Set<String> = [
        KnownAtom.targets.rawValue, KnownAtom.multiple.rawValue, KnownAtom.timestamp.rawValue,
        KnownAtom.saveTargets.rawValue, KnownAtom.delete.rawValue, KnownAtom.insertSelection.rawValue,
        KnownAtom.insertProperty.rawValue, KnownAtom.targetSizes.rawValue, KnownAtom.pixmap.rawValue,
        "_NET_MAX_SELECTION_SIZE", "BITMAP", "DRAWABLE", "COLORMAP", "CLIENT_WINDOW", "LENGTH",
    ]


    /// The targets to convert for a SAVE_TARGETS request: protocol and side-effect targets dropped,
    /// duplicates and empty names removed, at most `limits.maxTargets`, the most useful first
    /// (``ranked(_:)``): an owner listing hundreds of private targets before its text keeps its text.
    public static func targetsToSave(_ names: [String], limits: Limits = .save) -> [String] {
        var seen = Set<String>()
        return Array(ranked(names.filter { !$0.isEmpty && !neverFetched.contains($0) && seen.insert($0).inserted })
            .prefix(limits.maxTargets))
    }

    /// The targets kept from every owner (to restore when it vanishes): text and rich text, file lists,
    /// and image/png only (an image owner such as GTK offers a dozen encodings of one picture, each
    /// produced on request); the most useful first, at most `limits.maxTargets`.
    public static func targetsToSnapshot(_ names: [String], limits: Limits = .snapshot) -> [String] {
        func kept(_ name: String) -> Bool {
            switch name {
            case KnownAtom.utf8String.rawValue, KnownAtom.string.rawValue, KnownAtom.text.rawValue,
                KnownAtom.compoundText.rawValue, "application/rtf", "application/x-rtf",
                "x-special/gnome-copied-files", "application/x-kde-cutselection", "image/png":
                return true
            default:
                return name.hasPrefix("text/")
            }
        }
        return targetsToSave(names.filter(kept), limits: limits)
    }

    /// The targets kept from a PRIMARY owner (`pbctl daemon --primary`): its plain text only, as the
    /// "keep primary" option of clipboard managers keeps it (a terminal's selection is text).
    public static func textTargetsToSnapshot(_ names: [String], limits: Limits = .snapshot) -> [String] {
        func kept(_ name: String) -> Bool {
            switch name {
            case KnownAtom.utf8String.rawValue, KnownAtom.string.rawValue, KnownAtom.text.rawValue,
                KnownAtom.compoundText.rawValue:
                return true
            default:
                return name == KnownAtom.textPlain.rawValue || name.hasPrefix(KnownAtom.textPlain.rawValue + ";")
            }
        }
        return targetsToSave(names.filter(kept), limits: limits)
    }

    // MARK: Ranking

    /// The targets a cap keeps first, best first within each group: the markers (tiny, and what says the
    /// content is sensitive), text, rich text, images (PNG first), file lists. What paste and the
    /// history need; any other target comes after them, in the order offered.
    static let preferred: [[String]] = [
        [ClipboardMarkers.passwordHint, ClipboardMarkers.concealed, ClipboardMarkers.transient, ClipboardMarkers.autoGenerated],
        [KnownAtom.utf8String.rawValue, KnownAtom.textPlainUTF8.rawValue, KnownAtom.textPlain.rawValue, KnownAtom.string.rawValue,
         KnownAtom.text.rawValue, KnownAtom.compoundText.rawValue],
        [KnownAtom.textHTML.rawValue, "text/rtf", "application/rtf", "application/x-rtf", "text/richtext", "text/markdown",
         "text/x-markdown"],
        ["image/png", "image/jpeg", "image/gif", "image/webp", "image/tiff", "image/bmp", "image/svg+xml"],
        ["text/uri-list", "x-special/gnome-copied-files", "application/x-kde-cutselection"],
    ]

    /// The names of ``preferred``, best first: what a fetch looks for by atom in a TARGETS list too long
    /// to look every name up.
    public static let preferredNames: [String] = preferred.flatMap { $0 }

    /// Where `name` ranks (lower first); nil for a target kept only after every ranked one. A `text/plain`
    /// with another charset ranks after the text targets; an image type ``preferred`` does not name
    /// ranks after PNG's group (images), before file lists.
    public static func rank(of name: String) -> Int? {
        let folded = name.lowercased().filter { $0 != " " }
        var position = 0
        for (group, names) in preferred.enumerated() {
            if let index = names.firstIndex(where: { $0.lowercased() == folded }) { return 2 * (position + index) }
            position += names.count
            if group == 1, folded.hasPrefix(KnownAtom.textPlain.rawValue + ";") { return 2 * position - 1 }
            if group == 3, folded.hasPrefix("image/") { return 2 * position - 1 }
        }
        return nil
    }

    /// `names` with the ranked ones (``rank(of:)``) first, best first (equal ranks in the order offered),
    /// then the others in the order offered.
    public static func ranked(_ names: [String]) -> [String] {
        let ranks = names.map(rank(of:))
        let order = names.indices.sorted { a, b in
            switch (ranks[a], ranks[b]) {
            case let (x?, y?): return x != y ? x < y : a < b
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): return a < b
            }
        }
        return order.map { names[$0] }
    }

    /// How sensitive the offered targets say the content is.
    public enum Sensitivity: Sendable, Equatable {
        /// No marker: the content may be kept.
        case none
        /// `x-kde-passwordManagerHint` is offered: its value decides (``isSecret(hintValue:)``).
        case askHint
        /// A nspasteboard.org Concealed or Transient marker: never keep.
        case sensitive
    }

    /// What the markers among `targets` say (``ClipboardMarkers``): concealed or transient content is
    /// never kept; KDE's hint has to be read first.
    public static func sensitivity(of targets: [String]) -> Sensitivity {
        if !ClipboardMarkers.flags(offered: targets.filter { !ClipboardMarkers.offersHint([$0]) })
            .isDisjoint(with: [.sensitive, .transient])
        {
            return .sensitive
        }
        return ClipboardMarkers.offersHint(targets) ? .askHint : .none
    }

    /// The KDE hint's value, as ``ClipboardMarkers/isSecret(hintValue:)`` reads it.
    public static func isSecret(hintValue: Data?) -> Bool { ClipboardMarkers.isSecret(hintValue: hintValue) }

    // MARK: Requests on CLIPBOARD_MANAGER

    /// The answer to one `SelectionRequest` on CLIPBOARD_MANAGER.
    public enum ManagerReply: Sendable, Equatable {
        /// Write this property (type, format 32, items) into `property`, then notify.
        case write(property: XAtom, type: XAtom, items: [UInt32])
        /// Save the clipboard, then acknowledge with a zero-length NULL property in `property`.
        case save(property: XAtom, requestedTargets: XAtom?)
        /// `pbctl copy` hands over an item: read the ItemArchive in `property`, take CLIPBOARD with it,
        /// acknowledge like a save.
        case serve(property: XAtom)
        case refuse
    }

    public let atoms: KnownAtoms
    /// Selections watched only so that their content is recorded (PRIMARY with `history.primary` and
    /// without `--primary`): their owners' content is fetched, but never restored when they vanish.
    public let recordOnly: Set<XAtom>

    /// Answers a request on CLIPBOARD_MANAGER while we own it since `acquired`.
    /// A property of None is an obsolete requestor's: the target names the property (ICCCM §2.2).
    /// Requests stamped before our claim are answered too: GTK 4 stamps SAVE_TARGETS with the time it
    /// claimed CLIPBOARD, which may predate the daemon (gnome-settings-daemon does not check either).
    public func managerRequest(_ request: SelectionRequest, acquired: XTimestamp) -> ManagerReply {
        let property = request.property == PredefinedAtom.none ? request.target : request.property
        switch request.target {
        case atoms[.targets]:
            return .write(property: property, type: PredefinedAtom.atom,
                          items: [atoms[.targets], atoms[.timestamp], atoms[.saveTargets], atoms[.pbctlServe]])
        case atoms[.timestamp]:
            return .write(property: property, type: PredefinedAtom.integer, items: [acquired])
        case atoms[.saveTargets]:
            // The property (when given) lists the targets to save, type ATOM; when absent the manager
            // asks the owner for TARGETS (Qt deletes it on purpose; GTK 3 passes None after set_text).
            return .save(property: property,
                         requestedTargets: request.property == PredefinedAtom.none ? nil : request.property)
        case atoms[.pbctlServe]:
            // The archive travels in the property: an obsolete requestor (None) has none to give.
            return request.property == PredefinedAtom.none ? .refuse : .serve(property: request.property)
        default:
            return .refuse
        }
    }

    // MARK: Owner tracking

    /// What the driver does after an ownership change of a watched selection.
    public enum Action: Sendable, Equatable {
        /// Fetch and keep the content of the new owner `owner` (dropping what was kept, and any fetch of
        /// an earlier owner still in progress).
        case snapshot(owner: XWindow)
        /// The owner vanished (client closed or window destroyed) and left the selection empty: claim it
        /// with the kept content, if the selection is still unowned.
        case restore
        /// The owner vanished while its content was being fetched: end that fetch now with what it
        /// handed over, then report it with ``snapshotFinished(selection:owner:kept:)``, which decides.
        case finishFetch
        /// Forget the kept content (deliberately cleared, or nothing worth keeping).
        case forget
        case nothing
    }

    /// What is known of one watched selection (CLIPBOARD, and PRIMARY with `pbctl daemon --primary`).
    public struct Tracking: Sendable, Equatable {
        /// The foreign owner we last saw (0: none).
        public var currentOwner: XWindow = 0
        /// The owner whose content we keep (nil: nothing kept).
        public var snapshotOwner: XWindow?
        /// The owner whose content is being fetched (nil: no fetch in progress). The driver drops a
        /// fetch whose owner is no longer this one.
        public var fetching: XWindow?
        /// `fetching` vanished before the fetch ended.
        public var fetchedOwnerVanished = false

        public init() {}
    }

    private var tracked: [XAtom: Tracking] = [:]

    /// What is known of `selection`.
    public func tracking(_ selection: XAtom) -> Tracking { tracked[selection] ?? Tracking() }

    /// The foreign CLIPBOARD owner we last saw (0: none).
    public var currentOwner: XWindow { tracking(atoms[.clipboard]).currentOwner }
    /// The CLIPBOARD owner whose content we keep (nil: nothing kept).
    public var snapshotOwner: XWindow? { tracking(atoms[.clipboard]).snapshotOwner }

    public init(atoms: KnownAtoms, recordOnly: Set<XAtom> = []) {
        self.atoms = atoms
        self.recordOnly = recordOnly
    }

    /// An XFixes selection-notify for `selection`. `ours`: the windows through which we own selections.
    public mutating func selectionChanged(selection: XAtom, kind: SelectionChangeKind, owner: XWindow,
                                          ours: Set<XWindow>) -> Action {
        var state = tracking(selection)
        defer { tracked[selection] = state }
        switch kind {
        case .setOwner:
            state.fetching = nil
            state.fetchedOwnerVanished = false
            if ours.contains(owner) {
                // We claimed it (restore or save): nothing foreign to follow.
                state.currentOwner = 0
                return .nothing
            }
            state.currentOwner = owner
            state.snapshotOwner = nil
            if owner == 0 {
                // SetSelectionOwner None: a deliberate clear, never undone.
                return .forget
            }
            state.fetching = owner
            return .snapshot(owner: owner)
        case .windowDestroyed, .clientClosed:
            let vanished = state.currentOwner
            state.currentOwner = 0
            guard vanished != 0 else { return .nothing }
            if state.fetching == vanished {
                state.fetchedOwnerVanished = true
                return .finishFetch
            }
            guard state.snapshotOwner == vanished, !recordOnly.contains(selection) else { return .nothing }
            return .restore
        }
    }

    /// ``selectionChanged(selection:kind:owner:ours:)`` for CLIPBOARD.
    public mutating func selectionChanged(kind: SelectionChangeKind, owner: XWindow, ours: Set<XWindow>) -> Action {
        selectionChanged(selection: atoms[.clipboard], kind: kind, owner: owner, ours: ours)
    }

    /// The driver fetched (or failed to fetch) `owner`'s content of `selection`: `kept` is false when
    /// nothing was kept (sensitive, empty, or the owner failed). Returns ``Action/restore`` when the
    /// owner vanished during the fetch and something was kept.
    @discardableResult
    public mutating func snapshotFinished(selection: XAtom, owner: XWindow, kept: Bool) -> Action {
        var state = tracking(selection)
        defer { tracked[selection] = state }
        // A fetch superseded by a newer owner, a clear or our own claim keeps nothing.
        guard state.fetching == owner else { return .nothing }
        state.fetching = nil
        if state.fetchedOwnerVanished {
            state.fetchedOwnerVanished = false
            state.snapshotOwner = nil
            return kept && state.currentOwner == 0 && !recordOnly.contains(selection) ? .restore : .nothing
        }
        state.snapshotOwner = kept && owner == state.currentOwner ? owner : nil
        return .nothing
    }

    /// ``snapshotFinished(selection:owner:kept:)`` for CLIPBOARD.
    @discardableResult
    public mutating func snapshotFinished(owner: XWindow, kept: Bool) -> Action {
        snapshotFinished(selection: atoms[.clipboard], owner: owner, kept: kept)
    }

    /// The kept content of `selection` now lives in our own ownership (restored, saved or handed over by
    /// `pbctl copy`): nothing foreign to follow, and any fetch in progress is moot.
    public mutating func claimed(_ selection: XAtom) {
        tracked[selection] = Tracking()
    }

    /// ``claimed(_:)`` for CLIPBOARD.
    public mutating func claimed() { claimed(atoms[.clipboard]) }
}

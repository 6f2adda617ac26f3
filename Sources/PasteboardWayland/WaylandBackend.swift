#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DetachedProcess
import Pasteboard
import SystemIO

/// The Wayland clipboard as a ``PasteboardBackend`` through data-control (`ext_data_control_v1`, else
/// `zwlr_data_control_v1`): no window and no focus needed, as wl-clipboard and clipboard managers work.
/// `general` is the selection, `primary` the primary selection.
///
/// Reading asks the owner to write the chosen MIME type into a pipe. Writing offers every representation
/// under its MIME types and serves them from a detached owner (this process forked, as wl-copy does)
/// until another client takes the selection.
///
/// Contract for the CLI: `WaylandBackend(environment:registry:)` throws `.unavailable` (exit 69) when
/// `WAYLAND_DISPLAY` names no compositor, or the compositor offers no data-control protocol (GNOME).
public final class WaylandBackend: PasteboardBackend {
    public let connection: WaylandConnection
    public let registry: TypeRegistry
    /// How the background owner starts (fork, or a spawned `pbctl __serve-wayland`) and where it logs.
    public var ownerLaunch = OwnerLaunch()
    /// Seconds each step of a paste may take before the owner counts as stalled.
    public var stepTimeout: Double = 5

    /// The plain-text MIME types wl-copy offers, preferred first.
    public static let textMIMETypes = TypeRegistry.plainTextMIMETypes
    /// Offered alongside content a password manager marks secret (KDE's convention).
    public static let passwordHint = ClipboardMarkers.passwordHint

    /// Where the daemon's lock goes: `$XDG_RUNTIME_DIR`, else `$TMPDIR`, else `/tmp`.
    let lockFolder: String

    public init(environment: [String: String], registry: TypeRegistry = .standard) throws {
        self.registry = registry
        lockFolder = ProcessLock.folder(environment: environment)
        if let timeout = environment["PBCTL_WAYLAND_TIMEOUT"].flatMap(Double.init), timeout > 0 { stepTimeout = timeout }
        connection = try Self.connect(
            display: environment["WAYLAND_DISPLAY"], runtimeDirectory: environment["XDG_RUNTIME_DIR"], stepTimeout: stepTimeout)
        try drainEvents()
    }

    /// Connects to the compositor `WAYLAND_DISPLAY` names and binds its data-control device (what every
    /// client here needs, the fast paste included: no type registry involved). The first selection
    /// events are applied when it returns.
    /// - Throws: `.unavailable` with the reason (no compositor, no data-control).
    /// (Strings, not the environment table: a dictionary keyed by String costs the fast paste a scan of
    /// every protocol conformance in the binary.)
    public static func connect(display: String?, runtimeDirectory: String?, stepTimeout: Double = 5) throws -> WaylandConnection {
        guard let display, !display.isEmpty else {
            throw PasteboardError(.unavailable, "no Wayland compositor: WAYLAND_DISPLAY is not set")
        }
        guard let path = WaylandConnection.socketPath(display: display, runtimeDirectory: runtimeDirectory) else {
            throw PasteboardError(.unavailable, "WAYLAND_DISPLAY=\(display) is relative but XDG_RUNTIME_DIR is not set")
        }
        let connection = try WaylandConnection(path: path)
        let deadline = { MonotonicClock.nanoseconds() + UInt64(stepTimeout * 1e9) }
        connection.send(connection.client.getRegistry())
        try connection.roundTrip(deadline: deadline())
        guard let bind = connection.client.bindDataControl() else {
            if let (global, _) = connection.client.availableManager {
                // A headless compositor with no seat: data-control is there, but no clipboard to control.
                throw PasteboardError(
                    .unavailable,
                    "the Wayland compositor at \(path) offers data-control (\(global.interface) v\(global.version)) but no seat: "
                        + "without a seat there is no clipboard")
            }
            throw PasteboardError(
                .unavailable,
                "the Wayland compositor at \(path) offers no data-control protocol (ext_data_control_manager_v1 or "
                    + "zwlr_data_control_manager_v1; GNOME has neither)")
        }
        connection.send(bind)
        // The first selection events come right after the device is bound.
        try connection.roundTrip(deadline: deadline())
        return connection
    }

    func deadline(_ seconds: Double? = nil) -> UInt64 { MonotonicClock.nanoseconds() + UInt64((seconds ?? stepTimeout) * 1e9) }

    public var info: BackendInfo {
        let client = connection.client
        let manager = client.family.map { "\($0.managerInterface) v\(client.managerVersion)" } ?? "no data-control"
        return BackendInfo(name: "wayland", detail: "\(connection.path), \(manager)")
    }

    /// Events that arrived already (selection changes), read without waiting: applied, nothing else to do
    /// for a reader (a reader's descriptor in a `send`, for a source this connection no longer serves, is
    /// closed).
    private func drainEvents() throws {
        while let event = try connection.nextEvent(deadline: MonotonicClock.nanoseconds()) {
            if case .fatal(let message) = event { throw PasteboardError(.unavailable, message) }
            if case .send(_, _, let fd) = event { WaylandPipes.close(fd) }
        }
    }

    /// The selection's offer, its MIME types cached by the client as the compositor announced them (the
    /// way `X11Backend` caches targets per owner): current as of the events that have arrived, read
    /// without waiting, so listing the types and reading one cost no round trip. The connection's own
    /// round trips (registry, then device) have brought the selection of when it was made.
    private func offer(_ pasteboard: PasteboardName) throws -> UInt32? {
        try drainEvents()
        switch pasteboard {
        case .general: return connection.client.selection
        case .primary:
            guard connection.client.supportsPrimary else {
                throw PasteboardError(.unavailable, "this compositor's data-control has no primary selection (wlr version 1)")
            }
            return connection.client.primarySelection
        default:
            throw PasteboardError(.unavailable, "Wayland has no pasteboard '\(pasteboard)' (use general or primary, or --backend store)")
        }
    }

    // MARK: Types

    /// The type a MIME type stands for.
    public func type(forMIME mime: String) -> TypeIdentifier {
        if Self.textMIMETypes.contains(mime) || String(mime.lowercased().filter { $0 != " " }) == "text/plain;charset=utf-8" {
            return .utf8PlainText
        }
        return registry.type(forMIMEType: mime)
    }

    /// The type a MIME type stands for in an offer of `mimes`: the generic text names (`text/plain`,
    /// STRING, TEXT) are Latin-1 text where the owner offers `text/plain;charset=iso-8859-1` and no UTF-8
    /// name (pbctl's offer of text that is not UTF-8), so what reads them gets Latin-1, not broken UTF-8.
    public func type(forMIME mime: String, among mimes: [String]) -> TypeIdentifier {
        let type = type(forMIME: mime)
        guard type == .utf8PlainText, !mimes.contains("UTF8_STRING"),
            mimes.contains(where: { $0.lowercased() == TypeRegistry.latin1TextMIMETypes[0] }),
            !mimes.contains(where: { String($0.lowercased().filter { $0 != " " }) == "text/plain;charset=utf-8" })
        else { return type }
        return String(mime.lowercased().filter { $0 != " " }) == "text/plain;charset=utf-8" ? type : .latin1PlainText
    }

    /// The MIME types a representation of `type` is offered under, preferred first.
    public func mimeTypes(for type: TypeIdentifier) -> [String] {
        if type == .utf8PlainText { return Self.textMIMETypes }
        if type == .latin1PlainText { return TypeRegistry.latin1TextMIMETypes }
        return registry.tags(of: type, .mimeType)
    }

    /// What an offer's marker types say (``ClipboardMarkers``; the hint, unread here, counts as secret).
    public func metadata(forMIMEs mimes: [String]) -> ItemMetadata {
        ItemMetadata(created: Date(), flags: ClipboardMarkers.flags(offered: mimes))
    }

    public func items(in pasteboard: PasteboardName) throws -> [ItemSummary] {
        guard let offer = try offer(pasteboard), let mimes = connection.client.offers[offer], !mimes.isEmpty else { return [] }
        let metadata = metadata(forMIMEs: mimes)
        var seen = Set<TypeIdentifier>()
        var types: [TypeSummary] = []
        for mime in mimes where !ClipboardMarkers.isMarker(mime) {
            let type = type(forMIME: mime, among: mimes)
            if seen.insert(type).inserted { types.append(TypeSummary(type: type)) }
        }
        guard !types.isEmpty else { return [] }
        return [ItemSummary(types: types, metadata: metadata)]
    }

    // MARK: Reading

    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data {
        let sink = DataSink()
        try read(type, item: index, from: pasteboard, into: sink)
        return sink.data
    }

    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws {
        guard index == 0, let offer = try offer(pasteboard), let mimes = connection.client.offers[offer], !mimes.isEmpty else {
            throw PasteboardError.empty()
        }
        let preferred = mimeTypes(for: type).filter(mimes.contains)
        let others = mimes.filter { !preferred.contains($0) && !ClipboardMarkers.isMarker($0) && self.type(forMIME: $0, among: mimes) == type }
        guard let mime = (preferred + others).first else { throw PasteboardError(.typeNotOffered, "\(type) is not offered") }
        try receive(offer: offer, mime: mime, primary: pasteboard == .primary, into: sink)
    }

    /// Asks the owner of `offer` to write `mime` into a pipe and copies what it writes into `sink` until
    /// the owner closes it; each read waits at most ``stepTimeout``, and more than `limit` bytes stop the
    /// transfer with `.refused`.
    /// - Throws: `.unavailable` when the owner went away before the end (``TransferCompleteness``);
    ///   with `supersede`, ``WaylandConnection/Superseded`` when a newer selection arrives first.
    /// - Returns: whether the end is confirmed as the owner's own (false only with `.deferred`: then
    ///   ``probe(offer:mime:primary:supersede:)`` after the offer's last transfer confirms it).
    @discardableResult
    public func receive(
        offer: UInt32, mime: String, primary: Bool, into sink: any RepresentationSink, limit: Int? = nil,
        confirmation: WaylandConnection.Confirmation = .here, supersede: Bool = false
    ) throws -> Bool {
        try connection.receive(
            offer: offer, mime: mime, primary: primary, into: sink, limit: limit, stepTimeout: stepTimeout, confirmation: confirmation,
            supersede: supersede)
    }

    /// Whether the owner of `offer` still answers a request for `mime` (one byte read): what confirms the
    /// transfers before it whole (``WaylandConnection/probe(offer:mime:primary:stepTimeout:supersede:)``).
    public func probe(offer: UInt32, mime: String, primary: Bool, supersede: Bool = false) throws -> Bool {
        try connection.probe(offer: offer, mime: mime, primary: primary, stepTimeout: stepTimeout, supersede: supersede)
    }

    // MARK: Writing and clearing

    public func clear(_ pasteboard: PasteboardName) throws {
        _ = try offer(pasteboard)
        connection.send(connection.client.setSelection(nil, primary: pasteboard == .primary))
        try connection.roundTrip(deadline: deadline())
        countChange(primary: pasteboard == .primary, offering: [])
    }

    /// The compositor's change count as every pbctl process there sees it (``WaylandChangeCounter``:
    /// every change while `pbctl daemon` runs, pbctl's own copies and clears, and other programs' changes
    /// of the offered types); this connection's own count where that file cannot be kept.
    public func changeCount(of pasteboard: PasteboardName) throws -> Int {
        let offer = try self.offer(pasteboard)
        let fingerprint = SelectionFingerprint.of(offer.flatMap { connection.client.offers[$0] })
        return changeCounter.record(.observed, primary: pasteboard == .primary, fingerprint: fingerprint) ?? connection.client.changes
    }

    /// The change count shared by the processes on this compositor.
    var changeCounter: WaylandChangeCounter { WaylandChangeCounter(folder: lockFolder, socket: connection.path) }

    /// A copy or clear of this process took the selection, now offering `mimes`: counted here unless a
    /// daemon runs on this compositor, which sees the new selection and counts it (once).
    func countChange(primary: Bool, offering mimes: [String]) {
        guard daemonLock.holder() == nil else { return }
        changeCounter.record(.changed, primary: primary, fingerprint: SelectionFingerprint.of(mimes))
    }

    /// The daemon saw another client's new selection offering `mimes`.
    func countForeignChange(primary: Bool, offering mimes: [String]) {
        changeCounter.record(.changed, primary: primary, fingerprint: SelectionFingerprint.of(mimes))
    }

    /// The MIME types an owner of `item` offers (its types under their MIME names, then the markers).
    func offeredMIMETypes(_ item: Item) -> [String] {
        WaylandOwnerStateMachine(
            types: item.representations.map(\.type), sensitive: item.metadata.flags.contains(.sensitive),
            transient: item.metadata.flags.contains(.transient), mimeTypes: mimeTypes(for:), configuration: .init()
        ).offeredMIMETypes
    }

    /// Serves the first item as `options` say: from this process (`foreground`), by this process forked
    /// (as wl-copy does), or by a spawned `pbctl __serve-wayland`.
    @discardableResult
    public func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int {
        guard pasteboard == .general || pasteboard == .primary else {
            throw PasteboardError(.unavailable, "Wayland has no pasteboard '\(pasteboard)' (use general or primary, or --backend store)")
        }
        guard let first = items.first else {
            try clear(pasteboard)
            return 0
        }
        if pasteboard == .primary, !connection.client.supportsPrimary {
            throw PasteboardError(.unavailable, "this compositor's data-control has no primary selection (wlr version 1)")
        }
        let item = options.served(first)
        let primary = pasteboard == .primary
        if options.foreground {
            try serve(item, on: pasteboard, options: options) {}
            return 1
        }
        // The usual background owner: this process forked (as wl-copy does), on this connection.
        if !ownerLaunch.alwaysSpawn {
            let owner = self.owner(item, primary: primary, options: options)
            let deadline = deadline()
            if try DetachedProcess.forkOwner(keeping: [connection.fd], claim: { try owner.claim(deadline: deadline) }, serve: owner.run) {
                countChange(primary: primary, offering: owner.machine.offeredMIMETypes)
                return 1
            }
        }
        // A process with several threads cannot fork safely: a fresh pbctl (`__serve-x11`, `__serve-wayland`) serves.
        let request = ServeRequest(
                backend: info.name, display: nil, pasteboard: pasteboard, pasteOnce: options.pasteOnce,
                clearAfter: options.lifetime(sensitive: item.metadata.flags.contains(.sensitive)))
        try DetachedProcess.spawnOwner(ownerLaunch, request, serving: item)
        countChange(primary: primary, offering: offeredMIMETypes(item))
        return 1
    }

    private func owner(_ item: Item, primary: Bool, options: CopyOptions) -> WaylandSelectionOwner {
        WaylandSelectionOwner(
            connection: connection, item: item, primary: primary, mimeTypes: mimeTypes(for:),
            pasteOnce: options.pasteOnce, lifetime: options.lifetime(sensitive: item.metadata.flags.contains(.sensitive)),
            log: ownerLaunch.log)
    }
}

extension WaylandBackend: SelectionServing {
    /// Serves `item` from this process until another client takes the selection (or the one paste, or
    /// the lifetime `options` give, ends): what `copy --foreground` and a spawned owner do.
    public func serve(_ item: Item, on pasteboard: PasteboardName, options: CopyOptions, ready: () -> Void) throws {
        let primary = pasteboard == .primary
        if primary, !connection.client.supportsPrimary {
            throw PasteboardError(.unavailable, "this compositor's data-control has no primary selection (wlr version 1)")
        }
        let served = options.served(item)
        let owner = self.owner(served, primary: primary, options: options)
        try owner.claim(deadline: deadline())
        countChange(primary: primary, offering: owner.machine.offeredMIMETypes)
        ready()
        try owner.run()
    }
}

extension WaylandBackend: NativeOffer {
    public var nativeVocabulary: NativeVocabulary { .mimeTypes }

    /// The offer's MIME types, as the owner announced them (markers included).
    public func offeredNames(in pasteboard: PasteboardName) throws -> [String] {
        guard let offer = try offer(pasteboard) else { return [] }
        return connection.client.offers[offer] ?? []
    }

    /// The bytes the owner writes for `name`, one of the MIME types it offers.
    @discardableResult
    public func read(name: String, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws -> String? {
        guard let offer = try offer(pasteboard), let mimes = connection.client.offers[offer], !mimes.isEmpty else {
            throw PasteboardError.empty()
        }
        guard mimes.contains(name) else { throw PasteboardError(.typeNotOffered, "\(name) is not offered") }
        try receive(offer: offer, mime: name, primary: pasteboard == .primary, into: sink)
        return name
    }
}

extension WaylandBackend: PasteboardWatching {
    /// Selection events as they come (no polling). It waits for the next event without a deadline, by
    /// design: a watch lasts until `body` says stop or the compositor goes away.
    public func watch(_ pasteboard: PasteboardName, _ body: (PasteboardChange) throws -> Bool) throws {
        let primary = pasteboard == .primary
        if primary, !connection.client.supportsPrimary {
            throw PasteboardError(.unavailable, "this compositor's data-control has no primary selection (wlr version 1)")
        }
        while let event = try connection.nextEvent(deadline: nil) {
            switch event {
            case .fatal(let message): throw PasteboardError(.unavailable, message)
            case .finished: throw PasteboardError(.unavailable, "the Wayland seat went away")
            case .send(_, _, let fd):
                WaylandPipes.close(fd)  // a watch serves nothing
            case .selection(let isPrimary, let offer) where isPrimary == primary:
                let summary = offer == nil ? [] : try items(inOffer: offer!)
                let fingerprint = SelectionFingerprint.of(offer.flatMap { connection.client.offers[$0] })
                let count = changeCounter.record(.observed, primary: primary, fingerprint: fingerprint) ?? connection.client.changes
                let change = PasteboardChange(
                    changeCount: count, owner: offer.map { "offer \($0)" },
                    types: summary.first?.types.map(\.type) ?? [], sensitive: summary.first?.metadata.flags.contains(.sensitive) ?? false)
                guard try body(change) else { return }
            default:
                continue
            }
        }
    }

    private func items(inOffer offer: UInt32) throws -> [ItemSummary] {
        guard let mimes = connection.client.offers[offer], !mimes.isEmpty else { return [] }
        let metadata = metadata(forMIMEs: mimes)
        var seen = Set<TypeIdentifier>()
        let types = mimes.filter { !ClipboardMarkers.isMarker($0) }.map(type(forMIME:)).filter { seen.insert($0).inserted }
        return types.isEmpty ? [] : [ItemSummary(types: types.map { TypeSummary(type: $0) }, metadata: metadata)]
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DetachedProcess
import Pasteboard

/// The X11 selections as a ``PasteboardBackend``: `general` is CLIPBOARD, `primary` is PRIMARY, `secondary`
/// is SECONDARY, and `cut-buffer` is cut buffer 0 (`X11Backend+CutBuffer.swift`).
///
/// Reading converts from whichever client owns the selection. Writing hands the items to a detached
/// owner process (``DetachedProcess``) so the content outlives `pbctl copy`, or serves them in
/// this process with ``CopyOptions/foreground``.
public final class X11Backend: PasteboardBackend {
    public let connection: XConnection
    public let display: String
    /// How the background owner starts (fork, or a spawned `pbctl __serve-x11`) and where it logs.
    public var ownerLaunch = OwnerLaunch()
    /// Let a running `pbctl daemon` serve CLIPBOARD copies (not PRIMARY, sensitive, transient,
    /// --paste-once or --clear-after ones) instead of starting a background owner.
    public var handToDaemon = true
    /// Seconds each step of a paste may take before the owner counts as stalled.
    public var stepTimeout: Double {
        get { configuredStepTimeout ?? 5 }
        set { configuredStepTimeout = newValue }
    }
    /// The per-step deadline when one was set (`PBCTL_X11_TIMEOUT`): the daemon's fetches keep their own
    /// shorter default otherwise.
    public private(set) var configuredStepTimeout: Double?
    public let negotiation: TargetNegotiation
    private var cachedTargets: [X11Selection: (owner: XWindow, targets: [String])] = [:]

    /// Connects to `display` (`$DISPLAY`, as the caller read it).
    /// - Throws: ``PasteboardError`` `.unavailable` when no X server answers.
    public init(display: String, registry: TypeRegistry = .standard) throws {
        self.display = display
        self.connection = try XConnection(display: display)
        self.negotiation = TargetNegotiation(registry: registry)
    }

    func selection(_ pasteboard: PasteboardName) throws -> X11Selection {
        guard let selection = X11Selection(pasteboard: pasteboard) else {
            throw PasteboardError(
                .unavailable, "X11 has no pasteboard '\(pasteboard)' (use general or primary, or --backend store)")
        }
        return selection
    }

    private var readers: [X11Selection: X11SelectionReader] = [:]

    /// One reader per selection for the backend's life: it keeps its server timestamp and XFixes
    /// subscription, so a `types` then `read` costs no extra round trips for them.
    private func reader(_ selection: X11Selection) -> X11SelectionReader {
        if let reader = readers[selection] {
            reader.stepTimeout = stepTimeout
            return reader
        }
        let reader = X11SelectionReader(connection: connection, selection: selection, stepTimeout: stepTimeout)
        readers[selection] = reader
        return reader
    }

    /// The owner's targets by name (cached while the same window owns the selection).
    public func targets(of selection: X11Selection) throws -> [String] {
        let reader = reader(selection)
        let owner = try reader.owner()
        guard owner != 0 else { return [] }
        if let cached = cachedTargets[selection], cached.owner == owner { return cached.targets }
        let targets = try Self.mapFailure { try reader.targets() }
        cachedTargets[selection] = (owner, targets)
        return targets
    }

    // MARK: PasteboardBackend

    public var info: BackendInfo { BackendInfo(name: "x11", detail: display) }

    /// Serves the first item as `options` say: from this process (`foreground`), by a running `pbctl
    /// daemon` (plain CLIPBOARD copies), by this process forked, or by a spawned `pbctl __serve-x11`.
    @discardableResult
    public func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int {
        if pasteboard == Self.cutBufferPasteboard { return try writeCutBuffer(items) }
        let selection = try selection(pasteboard)
        guard let first = items.first else {
            try clear(pasteboard)
            return 0
        }
        let item = options.served(first)
        let clearAfter = options.lifetime(sensitive: item.metadata.flags.contains(.sensitive))
        if options.foreground {
            try serve(item, on: pasteboard, options: options) {}
            return 1
        }
        if handToDaemon, selection == .clipboard, !options.pasteOnce, options.afterPaste == nil, clearAfter == nil,
            item.metadata.flags.isDisjoint(with: [.sensitive, .transient]), try handToClipboardManager(item)
        {
            return 1
        }
        if !ownerLaunch.alwaysSpawn, try serveFromFork(item, selection: selection, options: options) { return 1 }
        let request = ServeRequest(backend: info.name, display: display, pasteboard: pasteboard, pasteOnce: options.pasteOnce, clearAfter: clearAfter)
        try DetachedProcess.spawnOwner(ownerLaunch, request, serving: item)
        return 1
    }

    private func owner(_ options: CopyOptions, for item: Item) -> X11SelectionOwner {
        var ownerOptions = X11SelectionOwner.Options()
        ownerOptions.pasteOnce = options.pasteOnce
        ownerOptions.clearAfter = options.lifetime(sensitive: item.metadata.flags.contains(.sensitive))
        ownerOptions.registry = negotiation.registry
        ownerOptions.log = ownerLaunch.log
        ownerOptions.afterPaste = options.afterPaste
        return X11SelectionOwner(connection: connection, options: ownerOptions)
    }

    /// The usual background owner: this process forked, serving `item` on this backend's connection.
    /// False when the process cannot fork safely (more than one thread); the caller spawns instead.
    private func serveFromFork(_ item: Item, selection: X11Selection, options: CopyOptions) throws -> Bool {
        let owner = owner(options, for: item)
        let connection = self.connection
        let forked = try DetachedProcess.forkOwner(
            keeping: [connection.fileDescriptor], claim: { try owner.claim(item, selections: [selection]) }, serve: owner.run)
        if forked { connection.handOverToChild() }
        return forked
    }

    public func items(in pasteboard: PasteboardName) throws -> [ItemSummary] {
        if pasteboard == Self.cutBufferPasteboard { return try cutBufferItems() }
        let targets = try targets(of: try selection(pasteboard))
        guard !targets.isEmpty else { return [] }
        // Markers are flags, not content (the hint, unread here, counts as secret).
        let metadata = ItemMetadata(created: Date(), flags: ClipboardMarkers.flags(offered: targets))
        let types = negotiation.types(forTargets: targets.filter { !ClipboardMarkers.isMarker($0) })
        guard !types.isEmpty else { return [] }
        return [ItemSummary(types: types.map { TypeSummary(type: $0) }, metadata: metadata)]
    }

    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data {
        var data = Data()
        try read(type, item: index, from: pasteboard) { data.append($0) }
        return data
    }

    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws {
        try read(type, item: index, from: pasteboard) { try sink.write($0) }
    }

    /// Streams one type's bytes to `sink` as they arrive (text decoded to UTF-8), for large pastes.
    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName,
                     into sink: (Data) throws -> Void) throws {
        if pasteboard == Self.cutBufferPasteboard {
            guard index == 0, let bytes = try readCutBuffer() else { throw PasteboardError.empty() }
            guard type == .utf8PlainText else { throw PasteboardError(.typeNotOffered, "\(type) is not offered") }
            return try sink(bytes)
        }
        let selection = try selection(pasteboard)
        let targets = try targets(of: selection)
        guard index == 0, !targets.isEmpty else { throw PasteboardError.empty() }
        let candidates = negotiation.targets(for: type, offered: targets)
        guard !candidates.isEmpty else { throw PasteboardError(.typeNotOffered, "\(type) is not offered") }
        let reader = reader(selection)
        var lastError: Error = PasteboardError(.typeNotOffered, "\(type) is not offered")
        for target in candidates {
            var delivered = false
            do {
                try reader.readDecoded(target: target) { chunk in
                    delivered = true
                    try sink(chunk)
                }
                return
            } catch let failure as ConversionFailure where !delivered && (failure == .refused || failure.isMissingProperty) {
                // A None property, or one named and never set: the owner refused this target.
                lastError = PasteboardError(.typeNotOffered, "the selection owner refused \(target)")
                continue
            } catch let failure as ConversionFailure {
                throw Self.pasteboardError(failure)
            }
        }
        throw lastError
    }

    public func clear(_ pasteboard: PasteboardName) throws {
        if pasteboard == Self.cutBufferPasteboard { return try clearCutBuffer() }
        let atom = connection.atoms[try selection(pasteboard).knownAtom]
        let time = try connection.serverTime()
        connection.setSelectionOwner(atom, window: 0, time: time)
        try connection.flush()
        _ = try connection.selectionOwner(atom)
    }

    /// The owner's acquisition timestamp (TIMESTAMP), 0 when nobody owns the selection. X11 has no
    /// change counter; the timestamp rises with every copy (it wraps after 49.7 days).
    public func changeCount(of pasteboard: PasteboardName) throws -> Int {
        if pasteboard == Self.cutBufferPasteboard { return try readCutBuffer() == nil ? 0 : 1 }
        let reader = reader(try selection(pasteboard))
        guard try reader.owner() != 0 else { return 0 }
        var bytes = Data()
        do {
            try reader.read(target: KnownAtom.timestamp.rawValue) { bytes.append($0) }
        } catch is ConversionFailure {
            return 0
        }
        return Int(PropertyValue(type: PredefinedAtom.integer, format: 32, bytes: bytes).items32?.first ?? 0)
    }

    public static func pasteboardError(_ failure: ConversionFailure) -> PasteboardError {
        switch failure {
        case .refused: return PasteboardError(.typeNotOffered, failure.description)
        case .timedOut: return PasteboardError(.timedOut, failure.description)
        case .tooLarge: return PasteboardError(.refused, failure.description)
        case .malformed: return PasteboardError(.io, failure.description)
        }
    }

    static func mapFailure<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let failure as ConversionFailure { throw pasteboardError(failure) }
    }
}

extension X11Backend: PasteboardWatching {
    /// XFixes selection events: no polling.
    public func watch(_ pasteboard: PasteboardName, _ body: (PasteboardChange) throws -> Bool) throws {
        let watcher = try X11SelectionWatcher(
            connection: connection, selections: [try selection(pasteboard)], registry: negotiation.registry)
        watcher.stepTimeout = stepTimeout
        while let change = try watcher.next() {
            let event = PasteboardChange(
                changeCount: change.changeCount, owner: change.owner == 0 ? nil : "0x" + String(change.owner, radix: 16),
                types: change.types, sensitive: change.sensitive)
            guard try body(event) else { return }
        }
    }
}

extension X11Backend: SelectionServing {
    public func serve(_ item: Item, on pasteboard: PasteboardName, options: CopyOptions, ready: () -> Void) throws {
        let served = options.served(item)
        let owner = owner(options, for: served)
        try owner.claim(served, selections: [try selection(pasteboard)])
        ready()
        try owner.run()
    }
}

extension X11Backend: NativeOffer {
    public var nativeVocabulary: NativeVocabulary { .x11Targets }

    /// The owner's TARGETS, as it lists them.
    public func offeredNames(in pasteboard: PasteboardName) throws -> [String] {
        if pasteboard == Self.cutBufferPasteboard { return try readCutBuffer() == nil ? [] : ["STRING"] }
        return try targets(of: try selection(pasteboard))
    }

    /// Converts the selection to `name` as the owner answers it, listed or not (xclip answers any
    /// target), undecoded.
    @discardableResult
    public func read(name: String, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws -> String? {
        if pasteboard == Self.cutBufferPasteboard {
            guard let bytes = try readCutBuffer() else { throw PasteboardError.empty() }
            try sink.write(bytes)
            return "STRING"
        }
        let reader = reader(try selection(pasteboard))
        guard try reader.owner() != 0 else { throw PasteboardError.empty() }
        do {
            return try reader.read(target: name) { try sink.write($0) }.type
        } catch let failure as ConversionFailure {
            // A reply naming a property the owner never set reads as nothing, of no type, as xclip and
            // xsel read it (an empty selection, exit 0).
            if failure.isMissingProperty { return nil }
            throw Self.pasteboardError(failure)
        }
    }
}

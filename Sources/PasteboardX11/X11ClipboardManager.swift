#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import Pasteboard

/// CARDINAL (X11/Xatom.h), the type of the process id on the manager window.
private let cardinalAtom: XAtom = 6

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

/// `pbctl daemon`: the clipboard manager of one display.
///
/// Owns CLIPBOARD_MANAGER (ICCCM §2.8: server timestamp, verified, MANAGER message on the root window),
/// answers SAVE_TARGETS from exiting applications by fetching their targets and taking CLIPBOARD over
/// (freedesktop Clipboard Manager spec, as gnome-settings-daemon does), keeps a copy of each CLIPBOARD
/// owner's text, rich text and PNG (never content marked sensitive) and serves it again when that owner
/// exits without handing its content over. One event loop on one connection; every fetch has per-step
/// deadlines and size caps, so a dying or stalled owner costs at most a few seconds, never the daemon.
public final class X11ClipboardManager {
    public struct Options: Sendable {
        /// The display's name, for messages.
        public var displayName = ""
        /// Take CLIPBOARD_MANAGER from a running manager instead of refusing to start.
        public var replace = false
        /// Seconds allowed for each step of a fetch (answering, each INCR chunk).
        public var stepTimeout: Double = 2
        /// Seconds allowed for a whole save or snapshot; targets not fetched by then are skipped.
        public var fetchDeadline: Double = 8
        public var saveLimits: ClipboardManagerStateMachine.Limits = .save
        public var snapshotLimits: ClipboardManagerStateMachine.Limits = .snapshot
        /// Called with one line for each notable event.
        public var log: (@Sendable (String) -> Void)?
        /// The registry whose X11 tags the targets of items handed over by `pbctl copy` come from.
        public var registry: TypeRegistry = .standard
        /// Produces the derived representations of items handed over by `pbctl copy` (HTML from Markdown…).
        public var producer: RepresentationProducer?
        /// Largest ItemArchive accepted from `pbctl copy` (bigger copies keep their own owner process).
        public var maxHandoffBytes = 64 << 20
        public init() {}
    }

    /// Why ``run()`` returned.
    public enum Exit: Sendable, Equatable {
        /// Another client took CLIPBOARD_MANAGER (a new manager, `--replace`).
        case replaced
        /// The connection to the X server was lost (server exit, or the daemon was told to stop).
        case connectionLost
    }

    public let connection: XConnection
    public let owner: X11SelectionOwner
    public private(set) var machine: ClipboardManagerStateMachine
    private let options: Options
    private let managerWindow: XWindow
    private var managerTime: XTimestamp = 0
    private var snapshot: SavedSelectionContent?
    private let clipboardAtom: XAtom
    private let managerAtom: XAtom
    /// SAVE_TARGETS requests answered with success (for tests and logs).
    public private(set) var savesCompleted = 0

    public init(connection: XConnection, options: Options = Options()) {
        self.connection = connection
        self.options = options
        var ownerOptions = X11SelectionOwner.Options()
        ownerOptions.log = options.log
        ownerOptions.registry = options.registry
        owner = X11SelectionOwner(connection: connection, options: ownerOptions)
        machine = ClipboardManagerStateMachine(atoms: connection.atoms)
        // A dedicated window for the manager selection (ICCCM §2.8); it needs no events.
        managerWindow = connection.createWindow(eventMask: 0)
        clipboardAtom = connection.atoms[.clipboard]
        managerAtom = connection.atoms[.clipboardManager]
    }

    /// The running manager, if any: its window and, for a pbctl daemon, its process id.
    public static func runningManager(on connection: XConnection) throws -> (window: XWindow, pid: Int32?)? {
        let window = try connection.selectionOwner(connection.atoms[.clipboardManager])
        guard window != 0 else { return nil }
        let value = try? connection.getProperty(window: window, property: connection.atoms[.pbctlDaemon], length: 1)
        let pid = value?.items32?.first.map { Int32(bitPattern: $0) }
        return (window, pid)
    }

    /// Becomes the display's clipboard manager and keeps a copy of the current CLIPBOARD content.
    /// - Throws: ``PasteboardError`` `.unavailable` when another manager runs (and `replace` is false),
    ///   when the server lacks XFixes, or when the claim is lost at once.
    public func start() throws {
        if !options.replace, let running = try Self.runningManager(on: connection) {
            if let pid = running.pid {
                throw PasteboardError(.unavailable, "pbctl daemon already running on \(options.displayName) (pid \(pid))")
            }
            throw PasteboardError(
                .unavailable,
                "another clipboard manager owns CLIPBOARD_MANAGER on \(options.displayName) (window 0x\(String(running.window, radix: 16))); use --replace to take over")
        }
        guard connection.xfixesFirstEvent != nil else {
            throw PasteboardError(.unavailable, "the X server has no XFixes extension")
        }
        connection.changeProperty(PropertyWrite(
            window: managerWindow, property: connection.atoms[.pbctlDaemon], type: cardinalAtom, format: 32,
            bytes: PropertyValue.bytes(of: [UInt32(bitPattern: getpid())])))
        let time = try connection.serverTime()
        connection.setSelectionOwner(managerAtom, window: managerWindow, time: time)
        guard try connection.selectionOwner(managerAtom) == managerWindow else {
            throw PasteboardError(.unavailable, "could not take CLIPBOARD_MANAGER on \(options.displayName)")
        }
        managerTime = time
        connection.announceManager(selection: managerAtom, owner: managerWindow, time: time)
        try connection.watchSelection(clipboardAtom, window: connection.utilityWindow)
        try connection.flush()
        let current = try connection.selectionOwner(clipboardAtom)
        if current != 0 {
            try act(machine.selectionChanged(kind: .setOwner, owner: current, ours: owner.ownerWindows))
        }
    }

    /// Serves and watches until another manager takes over or the connection is lost.
    /// An error while handling one event (a server timestamp that did not come in time, a protocol error
    /// from a vanished window) is logged and the loop goes on; only a lost connection ends it.
    public func run() throws -> Exit {
        while true {
            do {
                let event = try connection.nextEvent(deadline: owner.machine.nextDeadline)
                let now = monotonicNanoseconds()
                if let event, try handle(event, now: now) == .replaced {
                    connection.destroyWindow(managerWindow)
                    owner.giveUp(wipe: true)
                    try? connection.flush()
                    return .replaced
                }
                try owner.expireTransfers(now: now)
                try connection.flush()
            } catch {
                if connection.isBroken { return .connectionLost }
                options.log?("error: \(error)")
            }
        }
    }

    private enum Outcome { case handled, replaced }

    private func handle(_ event: X11Event, now: UInt64) throws -> Outcome {
        switch event {
        case .selectionRequest(let request) where request.selection == managerAtom:
            try answerManagerRequest(request)
        case .selectionClear(_, let selection, let time) where selection == managerAtom:
            if time == 0 || !time.isEarlier(than: managerTime) {
                options.log?("another client took CLIPBOARD_MANAGER")
                return .replaced
            }
        case .selectionChanged(let kind, let selection, let newOwner, _, _) where selection == clipboardAtom:
            try act(machine.selectionChanged(kind: kind, owner: newOwner, ours: owner.ownerWindows))
        default:
            try owner.handle(event, now: now)
        }
        return .handled
    }

    private func act(_ action: ClipboardManagerStateMachine.Action) throws {
        switch action {
        case .snapshot(let window):
            snapshot = nil
            let kept = try fetch(targets: nil, limits: options.snapshotLimits, purpose: "keep")
            if let kept, !kept.isEmpty { snapshot = kept }
            machine.snapshotFinished(owner: window, kept: snapshot != nil)
            if let snapshot {
                options.log?("kept \(snapshot.targetNames.joined(separator: ",")) (\(snapshot.totalBytes) bytes) of 0x\(String(window, radix: 16))")
            }
        case .restore:
            guard let kept = snapshot, try connection.selectionOwner(clipboardAtom) == 0 else { return }
            do {
                try owner.claim(source: kept, selections: [.clipboard])
                machine.claimed()
                options.log?("the owner exited: restored \(kept.targetNames.joined(separator: ","))")
            } catch let error as PasteboardError where error.code == .unavailable && !connection.isBroken {
                options.log?("could not restore: \(error.message)")
            }
        case .forget:
            snapshot = nil
        case .nothing:
            break
        }
    }

    // MARK: CLIPBOARD_MANAGER requests

    private func answerManagerRequest(_ request: SelectionRequest) throws {
        switch machine.managerRequest(request, acquired: managerTime) {
        case .refuse:
            reply(request, property: PredefinedAtom.none)
        case .write(let property, let type, let items):
            let write = PropertyWrite(window: request.requestor, property: property, type: type, format: 32,
                                      bytes: PropertyValue.bytes(of: items))
            let failed = try connection.changePropertiesChecked([write]) != nil
            reply(request, property: failed ? PredefinedAtom.none : property)
        case .save(let property, let listProperty):
            let ok = try save(request, listProperty: listProperty)
            guard ok else {
                reply(request, property: PredefinedAtom.none)
                return
            }
            // Side-effect target done: a zero-length property of type NULL (ICCCM §2.6.3), and only now the
            // SelectionNotify, after every transfer, since the application exits when it arrives.
            let write = PropertyWrite(window: request.requestor, property: property, type: connection.atoms[.null],
                                      format: 32, bytes: Data())
            let failed = try connection.changePropertiesChecked([write]) != nil
            reply(request, property: failed ? PredefinedAtom.none : property)
            savesCompleted += 1
        case .serve(let property):
            guard try serve(request, property: property) else {
                reply(request, property: PredefinedAtom.none)
                return
            }
            let write = PropertyWrite(window: request.requestor, property: property, type: connection.atoms[.null],
                                      format: 32, bytes: Data())
            let failed = try connection.changePropertiesChecked([write]) != nil
            reply(request, property: failed ? PredefinedAtom.none : property)
        }
        try connection.flush()
    }

    /// Takes CLIPBOARD with the item `pbctl copy` left in `property` on its window (an ItemArchive).
    /// Sensitive and transient items are refused: they belong to their own short-lived owner.
    private func serve(_ request: SelectionRequest, property: XAtom) throws -> Bool {
        guard let value = try? connection.getProperty(
            window: request.requestor, property: property, length: UInt32(options.maxHandoffBytes / 4), delete: true),
            value.exists, value.format == 8, value.bytesAfter == 0,
            let item = try? ItemArchive.decode(value.bytes, producer: options.producer).first,
            !item.metadata.flags.contains(.sensitive), !item.metadata.flags.contains(.transient)
        else {
            options.log?("refused an item handed over by window 0x\(String(request.requestor, radix: 16))")
            return false
        }
        do {
            try owner.claim(item, selections: [.clipboard])
        } catch let error as PasteboardError where !(error.code == .unavailable && connection.isBroken) {
            options.log?("could not serve a copied item: \(error.message)")
            return false
        }
        snapshot = nil
        machine.claimed()
        options.log?("serving an item from pbctl copy: \(owner.servedTargetNames.joined(separator: ","))")
        return true
    }

    private func reply(_ request: SelectionRequest, property: XAtom) {
        connection.sendSelectionNotify(SelectionNotify(
            requestor: request.requestor, selection: request.selection, target: request.target, property: property,
            time: request.time))
    }

    /// Saves the CLIPBOARD owner's targets (those listed in `listProperty` on the requestor's window, or
    /// all it offers) and takes CLIPBOARD over with them. Returns false when nothing could be saved.
    private func save(_ request: SelectionRequest, listProperty: XAtom?) throws -> Bool {
        if owner.machine.owns(clipboardAtom) {
            // We hold CLIPBOARD already (a restore, an earlier save): the content is safe.
            return true
        }
        var listed: [String]?
        if let listProperty,
            let value = try? connection.getProperty(window: request.requestor, property: listProperty, length: 4096),
            value.exists, value.type == PredefinedAtom.atom, let items = value.items32
        {
            listed = try connection.names(of: items.filter { $0 != 0 }).compactMap { $0 }
        }
        guard let saved = try fetch(targets: listed?.isEmpty == false ? listed : nil, limits: options.saveLimits,
                                    purpose: "save"),
            !saved.isEmpty
        else { return false }
        do {
            try owner.claim(source: saved, selections: [.clipboard])
        } catch let error as PasteboardError where error.code == .unavailable && !connection.isBroken {
            options.log?("could not take CLIPBOARD after saving: \(error.message)")
            return false
        }
        snapshot = nil
        machine.claimed()
        options.log?("saved \(saved.targetNames.joined(separator: ",")) (\(saved.totalBytes) bytes) for an exiting application")
        return true
    }

    // MARK: Fetching

    /// Fetches CLIPBOARD's content: `targets` when given (SAVE_TARGETS with a list), else what the owner
    /// offers. Returns nil when the owner marks its content sensitive, refuses TARGETS or vanishes.
    private func fetch(targets listed: [String]?, limits: ClipboardManagerStateMachine.Limits,
                       purpose: String) throws -> SavedSelectionContent? {
        let deadline = monotonicNanoseconds() &+ UInt64(max(0.1, options.fetchDeadline) * 1e9)
        let reader = X11SelectionReader(connection: connection, selection: .clipboard,
                                        stepTimeout: options.stepTimeout, maxBytes: limits.maxTargetBytes)
        let offered: [String]
        do {
            offered = try reader.targets()
        } catch let error as PasteboardError where error.code == .unavailable && connection.isBroken {
            throw error
        } catch {
            // No TARGETS: only a list the application gave can be tried.
            guard let listed else {
                options.log?("\(purpose): the owner answered no TARGETS (\(error))")
                return nil
            }
            offered = listed
        }
        // Markers count wherever they appear: in what the owner offers or in the list it asks us to save.
        switch ClipboardManagerStateMachine.sensitivity(of: offered + (listed ?? [])) {
        case .sensitive:
            options.log?("\(purpose): content marked concealed or transient, not kept")
            return nil
        case .askHint:
            var value = Data()
            let read = try? reader.read(target: KnownAtom.passwordManagerHint.rawValue) { chunk in
                if value.count < 256 { value.append(chunk) }
            }
            if ClipboardManagerStateMachine.isSecret(hintValue: read == nil ? nil : value) {
                options.log?("\(purpose): content marked secret (x-kde-passwordManagerHint), not kept")
                return nil
            }
        case .none:
            break
        }
        let names = listed.map { ClipboardManagerStateMachine.targetsToSave($0, limits: limits) }
            ?? (purpose == "save"
                ? ClipboardManagerStateMachine.targetsToSave(offered, limits: limits)
                : ClipboardManagerStateMachine.targetsToSnapshot(offered, limits: limits))
        let saved = SavedSelectionContent()
        var total = 0
        for name in names where name != KnownAtom.passwordManagerHint.rawValue {
            guard monotonicNanoseconds() < deadline else {
                options.log?("\(purpose): deadline reached, skipped the remaining targets")
                break
            }
            var bytes = Data()
            let result: (type: String?, format: UInt8)
            do {
                result = try reader.read(target: name) { chunk in
                    bytes.append(chunk)
                    if total + bytes.count > limits.maxTotalBytes { throw ConversionFailure.tooLarge(limit: limits.maxTotalBytes) }
                    // An owner that trickles INCR chunks just inside each step's deadline must not hold
                    // the loop beyond the whole fetch's.
                    if monotonicNanoseconds() >= deadline { throw ConversionFailure.timedOut(phase: "fetch deadline") }
                }
            } catch let failure as ConversionFailure {
                switch failure {
                case .refused, .tooLarge, .malformed:
                    options.log?("\(purpose): \(name) skipped: \(failure)")
                    continue
                case .timedOut:
                    // The owner stalled or exited: what it did not hand over is lost.
                    options.log?("\(purpose): \(name): \(failure)")
                    return saved.isEmpty ? nil : saved
                }
            } catch let error as PasteboardError where !(error.code == .unavailable && connection.isBroken) {
                options.log?("\(purpose): \(name): \(error.message)")
                if error.code == .timedOut { return saved.isEmpty ? nil : saved }
                continue
            }
            let target = try connection.intern(name)
            let type = try result.type.map { try connection.intern($0) } ?? target
            let format = [8, 16, 32].contains(result.format) ? result.format : 8
            guard bytes.count % Int(format / 8) == 0 else { continue }
            total += bytes.count
            saved.add(.init(target: target, name: name, content: ServedContent(type: type, format: format, bytes: bytes)))
        }
        return saved
    }
}

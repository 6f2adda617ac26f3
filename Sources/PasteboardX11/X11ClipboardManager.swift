#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import Pasteboard
import SystemIO

/// CARDINAL (X11/Xatom.h), the type of the process id on the manager window.
private let cardinalAtom: XAtom = 6

/// A fetch in progress: its state machine, what it is for, and the owner it reads.
private final class Fetch {
    enum Purpose {
        /// The copy kept of the owner of `selection`.
        case snapshot
        /// SAVE_TARGETS: answer `request` (acknowledging in `property`) once the content is saved.
        case save(request: SelectionRequest, property: XAtom)
    }

    let purpose: Purpose
    let selection: X11Selection
    let owner: XWindow
    var machine: SelectionFetchStateMachine

    init(purpose: Purpose, selection: X11Selection, owner: XWindow, machine: SelectionFetchStateMachine) {
        self.purpose = purpose
        self.selection = selection
        self.owner = owner
        self.machine = machine
    }

    var isSave: Bool { if case .save = purpose { true } else { false } }
}

/// `pbctl daemon`: the clipboard manager of one display.
///
/// Owns CLIPBOARD_MANAGER (ICCCM §2.8: server timestamp, verified, MANAGER message on the root window),
/// answers SAVE_TARGETS from exiting applications by fetching their targets and taking CLIPBOARD over
/// (freedesktop Clipboard Manager spec, as gnome-settings-daemon does), keeps a copy of each CLIPBOARD
/// owner's text, rich text and PNG (never content marked sensitive) and serves it again when that owner
/// exits without handing its content over; with ``KeepOptions/primary`` it does the same for PRIMARY's text
/// (with ``KeepOptions/recordPrimary`` alone, PRIMARY's text is recorded but never restored).
/// One event loop on one connection: fetches are state machines (``SelectionFetchStateMachine``) driven
/// by the same events as the transfers the daemon serves, so a stalled owner delays no paste; every
/// fetch has per-step deadlines and size caps.
public final class X11ClipboardManager {
    /// How the manager works the X11 protocol: its bounds and deadlines. What the daemon asks of it
    /// (primary, replace, sizes, the hooks, the inbox) is ``KeepOptions``, taken whole.
    public struct Tuning: Sendable {
        /// The display's name, for messages.
        public var displayName = ""
        /// Seconds allowed for each step of a fetch (answering, each INCR chunk).
        public var stepTimeout: Double = 2
        /// Seconds allowed for a whole save or snapshot; targets not fetched by then are skipped.
        public var fetchDeadline: Double = 8
        public var saveLimits: ClipboardManagerStateMachine.Limits = .save
        public var snapshotLimits: ClipboardManagerStateMachine.Limits = .snapshot
        /// The bounds of a CLIPBOARD snapshot taken to be recorded (every target an owner offers); each
        /// target is also held to ``KeepOptions/maximumRecordedSize``.
        public var recordLimits = ClipboardManagerStateMachine.Limits(maxTargetBytes: 64 << 20, maxTotalBytes: 256 << 20, maxTargets: 64)
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
    /// What the daemon asks: ``KeepOptions/record`` hears each new content kept of CLIPBOARD (and of
    /// PRIMARY when ``KeepOptions/recordsPrimary``) and each item `pbctl copy` hands over; with it,
    /// CLIPBOARD snapshots take every target an owner offers, within ``Tuning/recordLimits``.
    private let options: KeepOptions
    private let tuning: Tuning
    /// ``Tuning/recordLimits`` held to ``KeepOptions/maximumRecordedSize``.
    private let recordLimits: ClipboardManagerStateMachine.Limits
    private let managerWindow: XWindow
    private var managerTime: XTimestamp = 0
    /// The content kept of each watched selection's current (or vanished) owner.
    private var snapshots: [X11Selection: SavedSelectionContent] = [:]
    /// Fetches in progress: at most one snapshot per selection and one save.
    private var fetches: [Fetch] = []
    /// Requestor windows of fetches that ended, and when to destroy them: an owner may still answer a
    /// request it was sent (late, or a new fetch overtook it), and a client on plain Xlib, or xsel, exits
    /// on the BadWindow it would get for a destroyed window. Later writes land in a property nobody reads.
    private var retiredWindows: [(window: XWindow, destroyAt: UInt64)] = []
    /// How long a retired window lives, and how many may wait at most (the oldest then goes early).
    static let retiredWindowLifetime: UInt64 = 30_000_000_000
    static let maxRetiredWindows = 64
    private let watched: [X11Selection]
    private let clipboardAtom: XAtom
    private let managerAtom: XAtom
    /// SAVE_TARGETS requests answered with success (for tests and logs).
    public private(set) var savesCompleted = 0

    public init(connection: XConnection, options: KeepOptions = KeepOptions(), tuning: Tuning = Tuning()) {
        self.connection = connection
        self.options = options
        self.tuning = tuning
        var recordLimits = tuning.recordLimits
        recordLimits.maxTargetBytes = options.maximumRecordedSize
        self.recordLimits = recordLimits
        var ownerOptions = X11SelectionOwner.Options()
        ownerOptions.log = options.log
        ownerOptions.registry = options.registry
        owner = X11SelectionOwner(connection: connection, options: ownerOptions)
        // PRIMARY is watched to be restored (`--primary`), or only to be recorded (`history.primary`).
        let recordsPrimary = options.recordsPrimary && options.record != nil
        machine = ClipboardManagerStateMachine(
            atoms: connection.atoms, recordOnly: !options.primary && recordsPrimary ? [connection.atoms[.primary]] : [])
        // A dedicated window for the manager selection (ICCCM §2.8); it needs no events.
        managerWindow = connection.createWindow(eventMask: 0)
        clipboardAtom = connection.atoms[.clipboard]
        managerAtom = connection.atoms[.clipboardManager]
        watched = options.primary || recordsPrimary ? [.clipboard, .primary] : [.clipboard]
    }

    private func atom(_ selection: X11Selection) -> XAtom { connection.atoms[selection.knownAtom] }

    private func watchedSelection(_ atom: XAtom) -> X11Selection? {
        watched.first { self.atom($0) == atom }
    }

    /// The running manager, if any: its window and, for a pbctl daemon, its process id.
    public static func runningManager(on connection: XConnection) throws -> (window: XWindow, pid: Int32?)? {
        let window = try connection.selectionOwner(connection.atoms[.clipboardManager])
        guard window != 0 else { return nil }
        let value = try? connection.getProperty(window: window, property: connection.atoms[.pbctlDaemon], length: 1)
        let pid = value?.items32?.first.map { Int32(bitPattern: $0) }
        return (window, pid)
    }

    /// Becomes the display's clipboard manager and starts keeping a copy of the current CLIPBOARD (and,
    /// with ``KeepOptions/primary`` or ``KeepOptions/recordPrimary``, PRIMARY) content.
    /// - Throws: ``PasteboardError`` `.unavailable` when another manager runs (and `replace` is false),
    ///   when the server lacks XFixes, or when the claim is lost at once.
    public func start() throws {
        if !options.replace, let running = try Self.runningManager(on: connection) {
            if let pid = running.pid {
                throw PasteboardError(.unavailable, "pbctl daemon already running on \(tuning.displayName) (pid \(pid))")
            }
            throw PasteboardError(
                .unavailable,
                "another clipboard manager owns CLIPBOARD_MANAGER on \(tuning.displayName) (window 0x\(String(running.window, radix: 16))); use --replace to take over")
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
            throw PasteboardError(.unavailable, "could not take CLIPBOARD_MANAGER on \(tuning.displayName)")
        }
        managerTime = time
        connection.announceManager(selection: managerAtom, owner: managerWindow, time: time)
        for selection in watched {
            try connection.watchSelection(atom(selection), window: connection.utilityWindow)
        }
        try connection.flush()
        for selection in watched {
            let current = try connection.selectionOwner(atom(selection))
            if current != 0 {
                try selectionChanged(selection, kind: .setOwner, newOwner: current)
            }
        }
        try connection.flush()
    }

    /// Serves and watches until another manager takes over or the connection is lost.
    /// An error while handling one event (a server timestamp that did not come in time, a protocol error
    /// from a vanished window) is logged and the loop goes on; only a lost connection ends it.
    public func run() throws -> Exit {
        while true {
            do {
                var wake = owner.machine.nextDeadline
                for fetch in fetches {
                    if let deadline = fetch.machine.nextDeadline { wake = min(wake ?? deadline, deadline) }
                }
                if let retired = retiredWindows.first { wake = min(wake ?? retired.destroyAt, retired.destroyAt) }
                let event = try connection.nextEvent(deadline: wake, alsoWaitingOn: options.inbox?.descriptor)
                let now = MonotonicClock.nanoseconds()
                if let inbox = options.inbox, let offered = inbox.takeNewest() { try serveOffered(offered) }
                if let event, try handle(event, now: now) == .replaced {
                    for fetch in fetches { cancel(fetch) }
                    connection.destroyWindow(managerWindow)
                    owner.giveUp(wipe: true)
                    try? connection.flush()
                    return .replaced
                }
                try owner.expireTransfers(now: now)
                for fetch in fetches where (fetch.machine.nextDeadline ?? .max) <= now {
                    try perform(fetch, fetch.machine.tick(now: now))
                }
                while let retired = retiredWindows.first, retired.destroyAt <= now {
                    connection.destroyWindow(retired.window)
                    retiredWindows.removeFirst()
                }
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
        case .selectionNotify(let notify, _):
            if let fetch = fetches.first(where: { $0.machine.window == notify.requestor }) {
                try perform(fetch, fetch.machine.selectionNotify(notify, now: now))
            } else {
                try owner.handle(event, now: now)
            }
        case .propertyNotify(let window, let atom, _, let deleted)
        where fetches.contains(where: { $0.machine.window == window }):
            if let fetch = fetches.first(where: { $0.machine.window == window }) {
                try perform(fetch, fetch.machine.propertyNotify(window: window, atom: atom, deleted: deleted, now: now))
            }
        case .selectionChanged(let kind, let selection, let newOwner, _, _):
            if let watchedSelection = watchedSelection(selection) {
                try selectionChanged(watchedSelection, kind: kind, newOwner: newOwner)
            }
        default:
            try owner.handle(event, now: now)
        }
        return .handled
    }

    // MARK: Watching owners

    private func selectionChanged(_ selection: X11Selection, kind: SelectionChangeKind, newOwner: XWindow) throws {
        let selectionAtom = atom(selection)
        let previous = machine.tracking(selectionAtom).currentOwner
        let action = machine.selectionChanged(selection: selectionAtom, kind: kind, owner: newOwner,
                                              ours: owner.ownerWindows)
        // A save follows the application that asked for it: a newer owner makes it moot (the exiting
        // application's content is no longer the clipboard), a vanished one ends it with what it gave.
        if selection == .clipboard, let save = fetches.first(where: \.isSave) {
            if kind == .setOwner, newOwner != save.owner {
                options.log?("save: CLIPBOARD changed owner meanwhile, not saved")
                cancel(save)
            } else if kind != .setOwner, previous == save.owner || previous == 0 {
                try perform(save, save.machine.ownerVanished(now: MonotonicClock.nanoseconds()))
            }
        }
        try act(action, selection: selection)
    }

    private func act(_ action: ClipboardManagerStateMachine.Action, selection: X11Selection) throws {
        let selectionAtom = atom(selection)
        // Snapshots the state machine no longer expects (superseded, cleared, claimed by us) are dropped.
        for fetch in fetches where !fetch.isSave && fetch.selection == selection
            && machine.tracking(selectionAtom).fetching != fetch.owner
        {
            cancel(fetch)
        }
        switch action {
        case .snapshot(let window):
            snapshots[selection] = nil
            let recording = options.record != nil && selection == .clipboard
            var configuration = SelectionFetchStateMachine.Configuration(
                choice: recording ? .save : selection == .clipboard ? .snapshot : .text,
                limits: recording ? recordLimits : tuning.snapshotLimits)
            configuration.stepTimeout = nanoseconds(tuning.stepTimeout)
            configuration.fetchTimeout = nanoseconds(tuning.fetchDeadline)
            try startFetch(.snapshot, selection: selection, owner: window, configuration: configuration)
        case .finishFetch:
            if let fetch = fetches.first(where: { !$0.isSave && $0.selection == selection }) {
                try perform(fetch, fetch.machine.ownerVanished(now: MonotonicClock.nanoseconds()))
            }
        case .restore:
            guard let kept = snapshots[selection], try connection.selectionOwner(selectionAtom) == 0 else { return }
            do {
                try owner.claim(source: restoredContent(kept), selections: [selection])
                machine.claimed(selectionAtom)
                options.log?("the \(label(selection)) owner exited: restored \(kept.targetNames.joined(separator: ","))")
            } catch let error as PasteboardError where error.code == .unavailable && !connection.isBroken {
                options.log?("could not restore \(label(selection)): \(error.message)")
            }
        case .forget:
            snapshots[selection] = nil
        case .nothing:
            break
        }
    }

    private func label(_ selection: X11Selection) -> String { selection == .clipboard ? "CLIPBOARD" : "PRIMARY" }

    private func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(max(0.05, seconds) * 1e9) }

    // MARK: Fetching

    private func startFetch(_ purpose: Fetch.Purpose, selection: X11Selection, owner window: XWindow,
                            configuration: SelectionFetchStateMachine.Configuration) throws {
        // A window of its own for each fetch: a late answer for a dropped fetch cannot be taken for
        // the answer to a newer one.
        let requestor = connection.createWindow(eventMask: XConnection.propertyChangeMask)
        let fetch = Fetch(purpose: purpose, selection: selection, owner: window, machine: SelectionFetchStateMachine(
            atoms: connection.atoms, selection: atom(selection), window: requestor, configuration: configuration))
        fetches.append(fetch)
        let time: XTimestamp
        do {
            time = try connection.serverTime()
        } catch {
            cancel(fetch)
            throw error
        }
        try perform(fetch, fetch.machine.start(now: MonotonicClock.nanoseconds(), time: time))
    }

    /// Drops a fetch (whatever the owner still sends lands in its retired window); a save is refused.
    private func cancel(_ fetch: Fetch) {
        guard let index = fetches.firstIndex(where: { $0 === fetch }) else { return }
        fetches.remove(at: index)
        retire(fetch.machine.window)
        if case .save(let request, _) = fetch.purpose { reply(request, property: PredefinedAtom.none) }
    }

    private func retire(_ window: XWindow) {
        if retiredWindows.count >= Self.maxRetiredWindows {
            connection.destroyWindow(retiredWindows.removeFirst().window)
        }
        retiredWindows.append((window, MonotonicClock.nanoseconds() &+ Self.retiredWindowLifetime))
    }

    /// Performs a fetch's actions; the server's answers (round trips that never wait on the owner) are
    /// fed back at once, the owner's come through ``handle(_:now:)``.
    private func perform(_ fetch: Fetch, _ actions: [SelectionFetchStateMachine.Action]) throws {
        // Dropped meanwhile (by another fetch's outcome in the same pass): its window is gone.
        guard fetches.contains(where: { $0 === fetch }) else { return }
        var queue = actions
        var index = 0
        while index < queue.count {
            let action = queue[index]
            index += 1
            switch action {
            case .deleteProperty(let window, let property):
                connection.deleteProperty(window: window, property: property)
            case .convertSelection(let selection, let target, let property, let requestor, let time):
                connection.convertSelection(selection: selection, target: target, property: property,
                                            requestor: requestor, time: time)
            case .getProperty(let window, let property, let offset, let delete):
                do {
                    let value = try connection.getProperty(window: window, property: property, offset: offset,
                                                           delete: delete)
                    queue += fetch.machine.propertyValue(value, now: MonotonicClock.nanoseconds())
                } catch is XProtocolError {
                    queue += fetch.machine.propertyUnreadable(now: MonotonicClock.nanoseconds())
                }
            case .lookUpNames(let atoms):
                queue += fetch.machine.namesResolved(try connection.names(of: atoms), now: MonotonicClock.nanoseconds())
            case .intern(let names):
                queue += fetch.machine.interned(try connection.intern(names), now: MonotonicClock.nanoseconds())
            case .replaceWindow(let old):
                retire(old)
                let fresh = connection.createWindow(eventMask: XConnection.propertyChangeMask)
                queue += fetch.machine.windowReplaced(fresh, now: MonotonicClock.nanoseconds())
            case .log(let line):
                options.log?("\(fetch.isSave ? "save" : "keep \(label(fetch.selection))"): \(line)")
            case .finished(let outcome):
                try finished(fetch, outcome)
            }
        }
        try connection.flush()
    }

    private func finished(_ fetch: Fetch, _ outcome: SelectionFetchStateMachine.Outcome) throws {
        guard let index = fetches.firstIndex(where: { $0 === fetch }) else { return }
        fetches.remove(at: index)
        retire(fetch.machine.window)
        let purpose = fetch.isSave ? "save" : "keep \(label(fetch.selection))"
        var content: SavedSelectionContent?
        var verdict = FetchVerdict.nothing(skipped: [])
        var recorded = Item(metadata: ItemMetadata(created: Date()))
        switch outcome {
        case .kept(let entries):
            if !entries.isEmpty {
                let saved = SavedSelectionContent()
                for entry in entries {
                    saved.add(.init(target: entry.target, name: entry.name,
                                    content: ServedContent(type: entry.type, format: entry.format, bytes: entry.bytes)))
                }
                content = saved
            }
            // One rule for every keeper (FetchVerdict): whole or not kept, what was too large listed.
            let fetched = content.map(keptTypes) ?? []
            verdict = FetchVerdict(fetched: fetched, skipped: skippedTypes(fetch.machine.skipped, besides: fetched))
            if case .cutShort = verdict {
                options.log?("\(purpose): new content not kept: \(FetchVerdict.cutShortReason)")
            }
            if !verdict.keeps { content = nil }
            if let content, options.record != nil { recorded = item(from: content) }
        case .sensitive(let reason):
            options.log?("\(purpose): \(reason), not kept")
        case .failed(let reason):
            options.log?("\(purpose): \(reason)")
        }
        switch fetch.purpose {
        case .snapshot:
            let selectionAtom = atom(fetch.selection)
            guard machine.tracking(selectionAtom).fetching == fetch.owner else { return }
            // Kept only to be restored: a selection watched only to be recorded is never restored.
            snapshots[fetch.selection] = machine.recordOnly.contains(selectionAtom) ? nil : content
            if let content {
                options.log?("kept \(label(fetch.selection)) \(content.targetNames.joined(separator: ",")) (\(content.totalBytes) bytes) of 0x\(String(fetch.owner, radix: 16))")
            }
            // What was left out for its size, or cut short, is recorded too: listed as not kept.
            if verdict.records, let record = options.record, fetch.selection == .clipboard || options.recordsPrimary {
                record(KeptContent(
                    item: recorded, application: application(owning: fetch.owner), selection: fetch.selection.rawValue,
                    skipped: verdict.skipped))
            }
            try act(machine.snapshotFinished(selection: selectionAtom, owner: fetch.owner, kept: content != nil),
                    selection: fetch.selection)
        case .save(let request, let property):
            try finishSave(request, property: property, saved: content, from: fetch.owner)
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
            try startSave(request, property: property, listProperty: listProperty)
        case .serve(let property):
            guard try serve(request, property: property) else {
                reply(request, property: PredefinedAtom.none)
                return
            }
            acknowledge(request, property: property)
        }
        try connection.flush()
    }

    /// Side-effect target done: a zero-length property of type NULL (ICCCM §2.6.3), then SelectionNotify.
    private func acknowledge(_ request: SelectionRequest, property: XAtom) {
        let write = PropertyWrite(window: request.requestor, property: property, type: connection.atoms[.null],
                                  format: 32, bytes: Data())
        let failed = (try? connection.changePropertiesChecked([write])) != nil
        reply(request, property: failed ? PredefinedAtom.none : property)
    }

    /// Takes CLIPBOARD with the item `pbctl copy` left in `property` on its window (an ItemArchive).
    /// Sensitive and transient items are refused: they belong to their own short-lived owner.
    private func serve(_ request: SelectionRequest, property: XAtom) throws -> Bool {
        guard let value = try? connection.getProperty(
            window: request.requestor, property: property, length: UInt32(tuning.maxHandoffBytes / 4), delete: true),
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
        claimedClipboard()
        options.log?("serving an item from pbctl copy: \(owner.servedTargetNames.joined(separator: ","))")
        options.record?(KeptContent(item: item, application: item.metadata.sourceApplication, selection: X11Selection.clipboard.rawValue, skipped: []))
        return true
    }

    /// Takes CLIPBOARD with an item handed in (a device's, a remote pbctl's), served from this process and
    /// recorded with its origin, as an item `pbctl copy` hands over is.
    private func serveOffered(_ offered: OfferedItem) throws {
        let item = options.complete?(offered.item) ?? offered.item
        do {
            try owner.claim(item, selections: [.clipboard])
        } catch let error as PasteboardError where !(error.code == .unavailable && connection.isBroken) {
            options.log?("could not serve an item from \(offered.origin.label): \(error.message)")
            return
        }
        claimedClipboard()
        options.log?("serving an item from \(offered.origin.label): \(owner.servedTargetNames.joined(separator: ","))")
        options.record?(
            KeptContent(
                item: offered.item, application: offered.origin.label, selection: X11Selection.clipboard.rawValue, skipped: [], origin: offered.origin))
    }

    /// Serves `item` on CLIPBOARD when nobody owns it (the daemon starting with the history's newest
    /// entry). False when CLIPBOARD has an owner or the claim fails.
    @discardableResult
    public func serveIfEmpty(_ item: Item) throws -> Bool {
        guard try connection.selectionOwner(clipboardAtom) == 0 else { return false }
        do {
            try owner.claim(item, selections: [.clipboard])
        } catch let error as PasteboardError where !(error.code == .unavailable && connection.isBroken) {
            options.log?("could not serve the newest history entry: \(error.message)")
            return false
        }
        claimedClipboard()
        options.log?("CLIPBOARD was empty: serving the newest history entry (\(owner.servedTargetNames.joined(separator: ",")))")
        return true
    }

    /// What a vanished owner's kept targets are served as: those targets byte for byte, then what a
    /// `pbctl copy` of that content would offer besides (``KeepOptions/complete``), produced when asked for.
    func restoredContent(_ kept: SavedSelectionContent) -> any SelectionContentSource {
        guard let complete = options.complete else { return kept }
        let derived = Item(representations: complete(item(from: kept)).representations.filter { $0.derivedFrom != nil })
        guard !derived.representations.isEmpty,
            let source = try? ItemContentSource(
                item: derived, atoms: connection.atoms, negotiation: TargetNegotiation(registry: options.registry), intern: { try self.connection.intern($0) })
        else { return kept }
        return RestoredContent(kept: kept, derived: source)
    }

    /// The kept targets as an item: each target's type once (the first target of a type wins; text
    /// targets are decoded to UTF-8), protocol and marker targets left out.
    func item(from content: SavedSelectionContent) -> Item {
        let negotiation = TargetNegotiation(registry: options.registry)
        var item = Item(metadata: ItemMetadata(created: Date()))
        var seen = Set<TypeIdentifier>()
        let typeNames = (try? connection.names(of: content.entries.map(\.content.type))) ?? []
        for (index, entry) in content.entries.enumerated() {
            guard !ClipboardMarkers.isMarker(entry.name) else { continue }
            let type = negotiation.type(forTarget: entry.name)
            guard !TargetNegotiation.protocolTargets.contains(entry.name), seen.insert(type).inserted else { continue }
            var bytes = entry.content.bytes
            if type == .utf8PlainText || entry.name == KnownAtom.textHTML.rawValue {
                var transcoder = TextTranscoder(mode: TextTranscoder.mode(target: entry.name, replyType: index < typeNames.count ? typeNames[index] : nil))
                bytes = transcoder.feed(bytes) + transcoder.finish()
            }
            item.set(Representation(type: type, data: bytes))
        }
        return item
    }

    /// The types of the kept targets, as ``item(from:)`` holds them (each once, the first target's size),
    /// without decoding them.
    func keptTypes(_ content: SavedSelectionContent) -> [TypeSummary] {
        let negotiation = TargetNegotiation(registry: options.registry)
        var seen = Set<TypeIdentifier>()
        var types: [TypeSummary] = []
        for entry in content.entries where !ClipboardMarkers.isMarker(entry.name)
            && !TargetNegotiation.protocolTargets.contains(entry.name)
        {
            let type = negotiation.type(forTarget: entry.name)
            if seen.insert(type).inserted { types.append(TypeSummary(type: type, size: entry.content.bytes.count)) }
        }
        return types
    }

    /// The types of targets left out for their size, each once, leaving out protocol and marker targets
    /// and the types `item` holds (another target of the same type was kept); a target cut short is
    /// listed even so (``FetchVerdict`` lists each type once).
    func skippedTypes(_ skipped: [SelectionFetchStateMachine.Skipped], besides kept: [TypeSummary]) -> [TypeSummary] {
        let negotiation = TargetNegotiation(registry: options.registry)
        let held = Set(kept.map(\.type))
        var seen = Set<TypeIdentifier>()
        var types: [TypeSummary] = []
        for target in skipped {
            guard !ClipboardMarkers.isMarker(target.name),
                  !TargetNegotiation.protocolTargets.contains(target.name) else { continue }
            let type = negotiation.type(forTarget: target.name)
            guard target.cutShort || !held.contains(type), seen.insert(type).inserted else { continue }
            types.append(TypeSummary(type: type, size: target.size, cutShort: target.cutShort ? true : nil))
        }
        return types
    }

    /// The application owning `window`: its `WM_CLASS` class, else the executable of its `_NET_WM_PID`.
    func application(owning window: XWindow) -> String? {
        if let value = try? connection.getProperty(window: window, property: PredefinedAtom.wmClass, length: 256),
            value.format == 8, !value.bytes.isEmpty
        {
            let parts = value.bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if let name = parts.last, !name.isEmpty { return name }
        }
        if let atom = try? connection.intern("_NET_WM_PID"),
            let value = try? connection.getProperty(window: window, property: atom, length: 1),
            let pid = value.items32?.first, pid > 0
        {
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
            if count > 0 {
                let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return path.split(separator: "/").last.map(String.init)
            }
        }
        return nil
    }

    /// CLIPBOARD is ours now: what was kept and what was being fetched of earlier owners is moot.
    private func claimedClipboard() {
        snapshots[.clipboard] = nil
        machine.claimed(clipboardAtom)
        for fetch in fetches where fetch.selection == .clipboard {
            if fetch.isSave { options.log?("save: dropped, CLIPBOARD has newer content") }
            cancel(fetch)
        }
    }

    private func reply(_ request: SelectionRequest, property: XAtom) {
        connection.sendSelectionNotify(SelectionNotify(
            requestor: request.requestor, selection: request.selection, target: request.target, property: property,
            time: request.time))
    }

    /// Starts saving the CLIPBOARD owner's targets (those listed in `listProperty` on the requestor's
    /// window, or all it offers); the request is answered when the save ends (``finishSave``), since the
    /// application exits when the answer arrives. Meanwhile the daemon goes on serving.
    private func startSave(_ request: SelectionRequest, property: XAtom, listProperty: XAtom?) throws {
        if owner.machine.owns(clipboardAtom) {
            // We hold CLIPBOARD already (a restore, an earlier save): the content is safe.
            acknowledge(request, property: property)
            savesCompleted += 1
            return
        }
        let clipboardOwner = try connection.selectionOwner(clipboardAtom)
        guard clipboardOwner != 0, !fetches.contains(where: \.isSave) else {
            options.log?(clipboardOwner == 0 ? "save: CLIPBOARD has no owner" : "save: another save is in progress")
            reply(request, property: PredefinedAtom.none)
            return
        }
        var listed: [String]?
        if let listProperty,
            let value = try? connection.getProperty(window: request.requestor, property: listProperty, length: 4096),
            value.exists, value.type == PredefinedAtom.atom, let items = value.items32
        {
            listed = try connection.names(of: items.filter { $0 != 0 }).compactMap { $0 }
        }
        var configuration = SelectionFetchStateMachine.Configuration(
            choice: .save, listed: listed?.isEmpty == false ? listed : nil, limits: tuning.saveLimits)
        configuration.stepTimeout = nanoseconds(tuning.stepTimeout)
        configuration.fetchTimeout = nanoseconds(tuning.fetchDeadline)
        try startFetch(.save(request: request, property: property), selection: .clipboard, owner: clipboardOwner,
                       configuration: configuration)
    }

    /// Takes CLIPBOARD over with what was saved (unless a newer owner took it meanwhile) and answers the
    /// exiting application: success only once we serve its content.
    private func finishSave(_ request: SelectionRequest, property: XAtom, saved: SavedSelectionContent?,
                            from application: XWindow) throws {
        let current = try connection.selectionOwner(clipboardAtom)
        guard let saved, current == application || current == 0 else {
            reply(request, property: PredefinedAtom.none)
            return
        }
        do {
            try owner.claim(source: saved, selections: [.clipboard])
        } catch let error as PasteboardError where error.code == .unavailable && !connection.isBroken {
            options.log?("could not take CLIPBOARD after saving: \(error.message)")
            reply(request, property: PredefinedAtom.none)
            return
        }
        claimedClipboard()
        options.log?("saved \(saved.targetNames.joined(separator: ",")) (\(saved.totalBytes) bytes) for an exiting application")
        acknowledge(request, property: property)
        savesCompleted += 1
    }
}

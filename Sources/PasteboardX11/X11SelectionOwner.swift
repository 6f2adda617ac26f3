#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

/// The X11 selections pbctl can own or read.
public enum X11Selection: String, Sendable, CaseIterable {
    case clipboard, primary
    /// SECONDARY: what `xclip -selection secondary` and `xsel -s` use (Emacs); neither watched nor kept
    /// by the daemon.
    case secondary

    var knownAtom: KnownAtom {
        switch self {
        case .clipboard: return .clipboard
        case .primary: return .primary
        case .secondary: return .secondary
        }
    }

    /// The pasteboard named `secondary`.
    public static let secondaryPasteboard = PasteboardName("secondary")!

    /// The selection for a pasteboard name (`general` is CLIPBOARD, `primary` is PRIMARY, `secondary`
    /// is SECONDARY).
    public init?(pasteboard: PasteboardName) {
        switch pasteboard {
        case .general: self = .clipboard
        case .primary: self = .primary
        case Self.secondaryPasteboard: self = .secondary
        default: return nil
        }
    }
}

/// Owns selections and serves them: the driver of ``SelectionOwnerStateMachine``.
///
/// Runs one event loop on one connection; every INCR transfer has its own deadline, so a stalled or
/// dead requestor never blocks the others.
public final class X11SelectionOwner {
    public struct Options: Sendable {
        /// Stop after serving one paste of content (protocol targets such as TARGETS do not count).
        public var pasteOnce = false
        /// Give the selections up and wipe the data after this many seconds.
        public var clearAfter: Double?
        /// Deadline for each INCR step of a requestor, in seconds.
        public var stepTimeout: Double = 5
        /// Called with one line for each notable event (transfers aborted, ownership lost).
        public var log: (@Sendable (String) -> Void)?
        /// The registry whose X11 tags the offered targets come from (declared types included).
        public var registry: TypeRegistry = .standard
        /// Heard after each content transfer with the count so far; false gives the selections up
        /// (``CopyOptions/afterPaste``).
        public var afterPaste: (@Sendable (Int) -> Bool)?
        public init() {}
    }

    /// Replies up to this size are written without a checked round trip.
    static let uncheckedReplyBytes = 64 << 10

    public let connection: XConnection
    public private(set) var machine: SelectionOwnerStateMachine
    private var options: Options
    private var sources: [XAtom: ItemContentSource] = [:]
    private var ownWindows: Set<XWindow> = []
    private var windows: [XAtom: XWindow] = [:]
    private var clearDeadline: UInt64?
    private var servedContent = false
    /// Content transfers handed over completely (for tests and `--paste-once`).
    public private(set) var completedTransfers = 0

    public init(connection: XConnection, options: Options = Options()) {
        self.connection = connection
        self.options = options
        var configuration = SelectionOwnerStateMachine.Configuration.forServer(
            maxRequestBytes: connection.maximumRequestBytes)
        configuration.stepTimeout = UInt64(max(0.05, options.stepTimeout) * 1e9)
        machine = SelectionOwnerStateMachine(atoms: connection.atoms, configuration: configuration)
        ownWindows.insert(connection.utilityWindow)
    }

    /// Takes ownership of `selections` with a fresh server timestamp and verifies it with
    /// GetSelectionOwner (ICCCM §2.1).
    /// - Throws: ``PasteboardError`` `.unavailable` when another client kept the selection.
    public func claim(_ item: Item, selections: [X11Selection]) throws {
        let source = try ItemContentSource(
            item: item, atoms: connection.atoms, negotiation: TargetNegotiation(registry: options.registry),
            intern: connection.intern)
        let time = try connection.serverTime()
        for selection in selections {
            let atom = connection.atoms[selection.knownAtom]
            let window = windows[atom] ?? {
                let window = selection == .clipboard ? connection.utilityWindow : connection.createWindow()
                ownWindows.insert(window)
                windows[atom] = window
                return window
            }()
            connection.setSelectionOwner(atom, window: window, time: time)
            guard try connection.selectionOwner(atom) == window else {
                throw PasteboardError(.unavailable, "could not take ownership of the \(selection.rawValue) selection")
            }
            sources[atom] = source
            machine.claimed(atom, window: window, time: time, source: source)
        }
        if let clearAfter = options.clearAfter {
            clearDeadline = MonotonicClock.nanoseconds() &+ UInt64(max(0, clearAfter) * 1e9)
        }
        try connection.flush()
    }

    /// Takes ownership of `selections` serving `source` as it is (content saved from another client by
    /// the clipboard manager), with a fresh server timestamp, verified like ``claim(_:selections:)``.
    /// - Throws: ``PasteboardError`` `.unavailable` when another client kept the selection.
    public func claim(source: SelectionContentSource, selections: [X11Selection]) throws {
        let time = try connection.serverTime()
        for selection in selections {
            let atom = connection.atoms[selection.knownAtom]
            let window = windows[atom] ?? {
                let window = selection == .clipboard ? connection.utilityWindow : connection.createWindow()
                ownWindows.insert(window)
                windows[atom] = window
                return window
            }()
            connection.setSelectionOwner(atom, window: window, time: time)
            guard try connection.selectionOwner(atom) == window else {
                throw PasteboardError(.unavailable, "could not take ownership of the \(selection.rawValue) selection")
            }
            sources[atom] = source as? ItemContentSource
            machine.claimed(atom, window: window, time: time, source: source)
        }
        try connection.flush()
    }

    /// The windows through which this owner holds selections.
    public var ownerWindows: Set<XWindow> { ownWindows }

    /// Drops INCR transfers whose requestor missed its deadline (for drivers that run their own loop
    /// and pass events to ``handle(_:now:)``).
    public func expireTransfers(now: UInt64) throws {
        try perform(machine.tick(now: now), now: now)
    }

    /// The target names served for the claimed item.
    public var servedTargetNames: [String] { sources.values.first?.targetNames ?? [] }

    /// Whether the loop has nothing left to do: no selection owned and no transfer in flight.
    public var isFinished: Bool { machine.ownedSelections.isEmpty && !machine.hasTransfers }

    /// Serves requests until every selection is lost (another client copied) or given up, and every
    /// transfer in flight has ended.
    public func run() throws {
        while !isFinished {
            try step(until: nil)
        }
        try settle()
    }

    /// Waits until the server has processed everything sent, and reads what it sent back, before the
    /// caller closes the connection. A process that exits right after its last reply (`--paste-once`)
    /// otherwise closes its socket with the server's SelectionClear for it unread; the kernel then
    /// resets the server's end, and the server can drop the reply still queued behind it: the
    /// requestor waits forever for a SelectionNotify that was sent but never processed.
    public func settle() throws {
        try connection.sync()
        while let event = try connection.nextEvent(deadline: MonotonicClock.nanoseconds()) {
            _ = try? handle(event, now: MonotonicClock.nanoseconds())
        }
        try connection.flush()
    }

    /// Handles events until `deadline` (monotonic nanoseconds) or until the owner has finished.
    public func step(until deadline: UInt64?) throws {
        var wake = machine.nextDeadline
        if let clearDeadline { wake = min(wake ?? clearDeadline, clearDeadline) }
        if let deadline { wake = min(wake ?? deadline, deadline) }
        let event = try connection.nextEvent(deadline: wake)
        let now = MonotonicClock.nanoseconds()
        if let event { try handle(event, now: now) }
        try perform(machine.tick(now: now), now: now)
        if let clearDeadline, now >= clearDeadline {
            self.clearDeadline = nil
            giveUp(wipe: true)
        }
        try connection.flush()
    }

    /// Handles one event that belongs to the owner side; returns false for events it does not handle.
    @discardableResult
    public func handle(_ event: X11Event, now: UInt64) throws -> Bool {
        switch event {
        case .selectionRequest(let request):
            if let log = options.log {
                let names = (try? connection.names(of: [request.target, request.property])) ?? []
                log("request \(names.first.flatMap { $0 } ?? "?") into \(names.last.flatMap { $0 } ?? "None") from 0x\(String(request.requestor, radix: 16))")
            }
            try perform(machine.handle(request, now: now), now: now)
        case .selectionClear(_, let selection, let time):
            guard machine.owns(selection), !machine.isStaleClear(selection: selection, time: time) else { return true }
            machine.released(selection)
            sources[selection] = nil
            options.log?("another client took the selection")
        case .propertyNotify(let window, let atom, _, let deleted):
            guard !ownWindows.contains(window) else { return false }
            try perform(machine.propertyNotify(window: window, atom: atom, deleted: deleted, now: now), now: now)
        case .destroyNotify(let window):
            try perform(machine.windowDestroyed(window), now: now)
        case .error(let code, _, let resource):
            if code == XProtocolError.badWindow.rawValue, !ownWindows.contains(resource) {
                try perform(machine.windowDestroyed(resource), now: now)
            }
        default:
            return false
        }
        return true
    }

    /// Gives every selection up (SetSelectionOwner None with our acquisition time) and optionally
    /// wipes the data, transfers in flight included.
    public func giveUp(wipe: Bool) {
        for selection in machine.ownedSelections {
            if let time = machine.acquisitionTime(of: selection) {
                connection.setSelectionOwner(selection, window: 0, time: time)
            }
            machine.released(selection)
        }
        if wipe {
            for source in sources.values { source.wipe() }
            var fresh = SelectionOwnerStateMachine(atoms: connection.atoms, configuration: machine.configuration)
            swap(&fresh, &machine)
        }
        sources = [:]
    }

    private func perform(_ actions: [SelectionOwnerStateMachine.Action], now: UInt64) throws {
        for action in actions {
            switch action {
            case .reply(let writes, let notify):
                if writes.reduce(0, { $0 + $1.bytes.count }) <= Self.uncheckedReplyBytes {
                    // Small replies go out without waiting for the server: a vanished requestor's
                    // BadWindow comes back as an error event (handled above), and a BadAlloc cannot
                    // happen at this size. The check's round trip would double a small paste's latency.
                    for write in writes { connection.changeProperty(write) }
                    connection.sendSelectionNotify(notify)
                } else if let error = try connection.changePropertiesChecked(writes) {
                    var refusal = notify
                    refusal.property = PredefinedAtom.none
                    connection.sendSelectionNotify(refusal)
                    options.log?("reply to window 0x\(String(notify.requestor, radix: 16)) failed: \(error)")
                    try perform(machine.writeFailed(window: notify.requestor), now: now)
                } else {
                    connection.sendSelectionNotify(notify)
                }
            case .sendNotify(let notify):
                connection.sendSelectionNotify(notify)
            case .writeChunk(let write):
                connection.changeProperty(write)
            case .fetchMultipleParameters(let request):
                let parameters = try? connection.getProperty(window: request.requestor, property: request.property,
                                                             length: 4096)
                try perform(machine.handleMultiple(request, parameters: parameters, now: now), now: now)
            case .watchWindow(let window):
                if !ownWindows.contains(window) {
                    connection.selectEvents(on: window, mask: XConnection.propertyChangeMask | XConnection.structureNotifyMask)
                }
            case .unwatchWindow(let window):
                if !ownWindows.contains(window) { connection.selectEvents(on: window, mask: 0) }
            case .transferCompleted:
                completedTransfers += 1
                if (options.pasteOnce || options.afterPaste?(completedTransfers) == false) && !servedContent {
                    servedContent = true
                    giveUp(wipe: false)
                }
            case .transferAborted(let key, let reason):
                options.log?("transfer to \(key) aborted: \(reason)")
            }
        }
        try connection.flush()
    }
}

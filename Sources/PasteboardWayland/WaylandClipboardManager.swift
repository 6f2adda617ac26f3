#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

/// `pbctl daemon` on Wayland: keeps the clipboard when its owner exits, as wl-clip-persist does, and
/// hands each new content to the history.
///
/// Wayland has no clipboard-manager handover (X11's SAVE_TARGETS): when an owner exits, the compositor
/// clears the selection. So the manager fetches every type of each new selection as it appears (one
/// representation per type, each within ``KeepOptions/maximumRecordedSize`` and the backend's step
/// timeout), and when the selection is cleared it offers the last content again from this process,
/// serving it (``WaylandSelectionOwner``) until another client takes the selection. Content marked
/// sensitive or transient is neither kept nor recorded, and clears what was kept before it: a password
/// manager's clearing is not undone.
///
/// The decisions are `Protocol/WaylandManagerStateMachine`'s (which selection to fetch, keep, record or
/// offer again) and `Protocol/WaylandFetchStateMachine`'s (which types, under which names, within which
/// cap and deadline); this class performs them. One event loop on one connection; fetching happens only
/// while another client owns the selection, so it never delays a paste the manager serves.
public final class WaylandClipboardManager {
    /// How the manager works: its bounds. What the daemon asks of it (primary, the largest
    /// representation kept, the hooks, the inbox) is ``KeepOptions``, taken whole: a representation
    /// larger than ``KeepOptions/maximumRecordedSize`` is neither kept nor recorded, and
    /// ``KeepOptions/record`` hears each new content kept (the clipboard's; the primary selection's too
    /// when ``KeepOptions/recordsPrimary``), with the types left out for their size (the item may then
    /// hold nothing).
    public struct Tuning: Sendable {
        /// At most this many types are kept of one content.
        public var maxTypes = 64
        /// Seconds a whole fetch may take; types not fetched by then are left out.
        public var fetchDeadline: Double = 8
        public init() {}
    }

    public let backend: WaylandBackend
    public let options: KeepOptions
    public let tuning: Tuning
    /// The decisions: which selection to fetch, keep, record or serve again.
    private var machine: WaylandManagerStateMachine
    /// The owners serving a kept content again, and those whose selection was taken while transfers were
    /// still under way (stepped until they are done).
    private var owners: [WaylandSelectionOwner] = []

    /// The clipboard's content offered again when it is cleared.
    public var kept: Item? { machine.kept()?.item }

    public init(backend: WaylandBackend, options: KeepOptions, tuning: Tuning = Tuning()) {
        self.backend = backend
        self.options = options
        self.tuning = tuning
        machine = WaylandManagerStateMachine(configuration: .init(primary: options.primary, recordPrimary: options.recordsPrimary))
    }

    /// Runs until the compositor goes away (`.unavailable`); `restore` is served first when the
    /// clipboard is empty at start (the history's newest entry). It waits for the compositor's events
    /// by design, each wait at most a second while transfers are under way, else a minute.
    public func run(restore: Item?) throws {
        let connection = backend.connection
        try connection.roundTrip(deadline: backend.deadline())
        let client = connection.client
        try perform(machine.start(
            selection: client.selection, primarySelection: client.primarySelection, supportsPrimary: client.supportsPrimary,
            restore: restore))
        while true {
            // Every event already read goes to the machine first: a selection that superseded a fetch
            // is what the next step looks at (not the abandoned one again).
            if try connection.hasBufferedEvents() {
                try dispatch(try connection.nextEvent(deadline: MonotonicClock.nanoseconds()))
                continue
            }
            if machine.hasPendingChanges {
                try perform(machine.step(now: MonotonicClock.nanoseconds(), offers: connection.client.offers))
                continue
            }
            // An owner done (the selection taken, its transfers over) has its source destroyed, as the
            // protocol asks: a daemon that serves again and again leaves no source behind.
            if owners.contains(where: \.isDone) {
                for owner in owners where owner.isDone {
                    if let destroy = connection.client.destroy(owner.offeredSource) { connection.send(destroy) }
                }
                owners.removeAll { $0.isDone }
                try connection.flush(deadline: MonotonicClock.nanoseconds() + 2_000_000_000)
            }
            // The socket, every transfer still writing and the inbox, in one poll.
            let transfers = owners.map { ($0, $0.transferDescriptors) }
            let inbox = options.inbox.map { [WaylandPipes.Wait.readable($0.descriptor)] } ?? []
            let waits = [WaylandPipes.Wait.readable(connection.fd)] + transfers.flatMap { $0.1.map(WaylandPipes.Wait.writable) } + inbox
            let ready = try WaylandPipes.poll(waits, milliseconds: waits.count > 1 + inbox.count ? 1000 : 60_000)
            if !inbox.isEmpty, ready.last == true, let offered = options.inbox?.takeNewest() {
                try serveOffered(offered)
                continue
            }
            var index = 1
            for (owner, descriptors) in transfers {
                owner.serviceTransfers(descriptors, ready: ready[index..<(index + descriptors.count)])
                index += descriptors.count
            }
            if ready[0] {
                try dispatch(try connection.nextEvent(deadline: MonotonicClock.nanoseconds() + 1_000_000))
            }
        }
    }

    /// One event: a selection change goes to the machine, a `send` or `cancelled` to the owner of its
    /// source.
    private func dispatch(_ event: DataControlClient.Event?) throws {
        guard let event else { return }
        let client = backend.connection.client
        switch event {
        case .fatal(let message):
            throw PasteboardError(.unavailable, message)
        case .finished:
            throw PasteboardError(.unavailable, "the Wayland seat went away")
        case .send(let source, _, let fd):
            guard let owner = owners.first(where: { $0.offeredSource == source }) else {
                WaylandPipes.close(fd)  // for a source no longer served
                return
            }
            try owner.handle(event)
        case .cancelled(let source):
            guard let owner = owners.first(where: { $0.offeredSource == source }) else { return }
            // Its transfers under way are finished from this loop, beside everything else.
            if try owner.handle(event) { machine.stoppedServing(source: source) }
        case .selection(let primary, let offer):
            machine.selectionChanged(primary: primary, offer: offer, current: primary ? client.primarySelection : client.selection)
        default:
            return
        }
    }

    private func perform(_ actions: [WaylandManagerStateMachine.Action]) throws {
        for action in actions {
            switch action {
            case .log(let line):
                options.log?(line)
            case .record(let item, let primary, let skipped):
                options.record?(KeptContent(item: item, application: nil, selection: primary ? "primary" : "clipboard", skipped: skipped))
            case .changed(let primary, let mimes):
                backend.countForeignChange(primary: primary, offering: mimes)
            case .fetch(let primary, let offer, let mimes):
                options.log?("fetching the \(primary ? "primary selection" : "clipboard") (offer \(offer), \(mimes.count) types)")
                guard let fetched = fetch(offer, primary: primary, mimes: mimes) else {
                    // A newer selection came first: its event waits to be dispatched, and is fetched
                    // next. A primary selection left for the clipboard is not fetched again: its owner
                    // may be the one that stalls, and a fetch holds up every paste the daemon serves.
                    options.log?("the fetch of the \(primary ? "primary selection" : "clipboard") was abandoned for a newer selection")
                    continue
                }
                try perform(machine.fetched(primary: primary, fetched, metadata: backend.metadata(forMIMEs: mimes)))
            case .serve(let primary, let kept, let pause):
                if pause > 0 { WaylandPipes.pause(nanoseconds: pause) }
                try serve(kept, primary: primary)
            }
        }
    }

    /// Serves an item handed in (a device's, a remote pbctl's) as the clipboard, keeps it, and records it
    /// with its origin.
    private func serveOffered(_ offered: OfferedItem) throws {
        let kept = machine.adopt(offered.item)
        try serve(kept, primary: false, again: false)
        options.log?("serving an item from \(offered.origin.label)")
        options.record?(KeptContent(item: offered.item, application: offered.origin.label, selection: "clipboard", skipped: [], origin: offered.origin))
    }

    /// Offers `kept` again as the selection, from this process, until another client takes it.
    private func serve(_ kept: WaylandManagerStateMachine.Kept, primary: Bool, again: Bool = true) throws {
        let names = kept.names
        let owner = WaylandSelectionOwner(
            connection: backend.connection, item: options.complete?(kept.item) ?? kept.item, primary: primary,
            mimeTypes: { type in
                var mimes = self.backend.mimeTypes(for: type)
                for mime in names[type] ?? [] where !mimes.contains(mime) { mimes.append(mime) }
                return mimes
            },
            pasteOnce: false, lifetime: nil, log: options.log)
        try owner.claim(deadline: backend.deadline())
        owners.append(owner)
        let client = backend.connection.client
        let ownOffer = primary ? client.primarySelection : client.selection
        // The same content again: not a change, but what the selection offers now (readers compare it).
        backend.changeCounter.record(.settled, primary: primary, fingerprint: SelectionFingerprint.of(ownOffer.flatMap { client.offers[$0] }))
        try perform(machine.serving(primary: primary, source: owner.offeredSource, ownOffer: ownOffer, again: again))
    }

    /// Fetches every type of `offer`, as a ``WaylandFetchStateMachine`` decides, one receive after the
    /// other (each wait within the backend's step timeout, the whole within the fetch deadline), then,
    /// when an end of data was not confirmed as the owner's own, asks the offer once more
    /// (``WaylandConnection/probe(offer:mime:primary:stepTimeout:supersede:)``): a dead owner can never
    /// answer it, so nothing cut short by an owner's death is kept, however late the compositor reports
    /// that death. The compositor's events are read all along: nil when a newer selection came before
    /// the fetch was done (the fetch is abandoned, its pipe closed, as X11's keeper drops a stalled fetch
    /// when another client takes the selection).
    private func fetch(_ offer: UInt32, primary: Bool, mimes: [String]) -> WaylandFetchStateMachine.Fetched? {
        var fetch = WaylandFetchStateMachine(
            mimes: mimes,
            configuration: .init(
                maxRepresentationBytes: options.maximumRecordedSize, maxTypes: tuning.maxTypes,
                fetchDeadline: UInt64(max(0, tuning.fetchDeadline) * 1e9)),
            now: MonotonicClock.nanoseconds(), type: backend.type(forMIME:), mimeTypes: backend.mimeTypes(for:))
        var actions = fetch.start(now: MonotonicClock.nanoseconds())
        while !actions.isEmpty {
            let action = actions.removeFirst()
            switch action {
            case .log(let line):
                options.log?(line)
            case .receive(let mime):
                let sink = CappedSink(limit: options.maximumRecordedSize, drainUntil: fetch.deadline, now: MonotonicClock.nanoseconds)
                var failure: (any Error)?
                var confirmed = true
                do {
                    confirmed = try backend.receive(offer: offer, mime: mime, primary: primary, into: sink, confirmation: .deferred, supersede: true)
                } catch is WaylandConnection.Superseded {
                    return nil
                } catch {
                    failure = error
                }
                actions += fetch.received(sink.outcome(error: failure, confirmed: confirmed), now: MonotonicClock.nanoseconds())
            case .probe(let mime):
                do {
                    let alive = try backend.probe(offer: offer, mime: mime, primary: primary, supersede: true)
                    actions += fetch.probed(alive: alive, now: MonotonicClock.nanoseconds())
                } catch is WaylandConnection.Superseded {
                    return nil
                } catch {
                    actions += fetch.probed(alive: nil, reason: (error as? PasteboardError)?.message ?? "\(error)", now: MonotonicClock.nanoseconds())
                }
            case .finished(let fetched):
                return fetched
            }
        }
        return WaylandFetchStateMachine.Fetched(representations: [], names: [:], skipped: [])
    }
}

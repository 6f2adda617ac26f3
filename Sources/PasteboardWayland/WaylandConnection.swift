// One client's conversation with the compositor: the socket (`Connection/WaylandSocket`, which frames
// and carries bytes and descriptors and knows no protocol) and the data-control client
// (`Protocol/DataControlClient`, which knows the protocol and does no I/O), joined: each message is
// decoded with the client's signatures and handed to it before the next is decoded (an event can
// create the object the next one is for). It makes no system call itself.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

public final class WaylandConnection {
    public let socket: WaylandSocket
    public var client = DataControlClient()
    /// Events decoded and not handled yet.
    private var pending: [DataControlClient.Event] = []
    /// Round trips made (`wl_display.sync` sent and its `done` awaited): what a paste costs in waits on
    /// the compositor, beside the transfer itself. Two for a paste: the registry, then the bound device.
    public private(set) var roundTrips = 0
    /// Of ``roundTrips``, those made after a transfer to watch whether its owner died at its end
    /// (``TransferCompleteness``): only for an empty transfer, a transient offer or an offer taken
    /// meanwhile; any other is confirmed by a probe.
    public private(set) var confirmationRoundTrips = 0
    /// Second requests made to confirm that an owner was alive after its transfers ended
    /// (``probe(offer:mime:primary:stepTimeout:supersede:)``): none for a small paste written at once.
    public private(set) var probes = 0

    public var fd: Int32 { socket.fd }
    public var path: String { socket.path }

    /// The socket: `display` (`$WAYLAND_DISPLAY`) absolute, or relative to `runtimeDirectory`
    /// (`$XDG_RUNTIME_DIR`).
    public static func socketPath(display: String?, runtimeDirectory: String?) -> String? {
        WaylandSocket.socketPath(display: display, runtimeDirectory: runtimeDirectory)
    }

    /// Connects to the compositor.
    /// - Throws: ``PasteboardError`` `.unavailable` when nothing listens there.
    public convenience init(path: String) throws {
        self.init(socket: try WaylandSocket(path: path))
    }

    public init(socket: WaylandSocket) {
        self.socket = socket
    }

    deinit {
        // A reader's descriptor in an event nobody took: closed, never left open.
        for case .send(_, _, let fd) in pending { WaylandPipes.close(fd) }
    }

    /// A connection over a socket already connected (a test plays the compositor on the other end).
    convenience init(connected socketFD: Int32, path: String) {
        self.init(socket: WaylandSocket(connected: socketFD, path: path))
    }

    // MARK: Sending

    public func send(_ message: WaylandMessage) { socket.send(message) }

    public func send(_ messages: [WaylandMessage]) { socket.send(messages) }

    /// Writes what is queued; see ``WaylandSocket/flush(deadline:)``.
    public func flush(deadline: UInt64) throws { try socket.flush(deadline: deadline) }

    // MARK: Receiving

    /// The next event, reading from the socket until one is whole or `deadline` passes (nil on timeout).
    /// A deadline already passed reads what has arrived, without waiting. With `deadline` nil it waits
    /// without end: only `watch` does, waiting for events by design.
    /// - Throws: ``PasteboardError`` `.unavailable` when the compositor goes away or breaks the protocol.
    public func nextEvent(deadline: UInt64?) throws -> DataControlClient.Event? {
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            if try decodeOne() { continue }
            // Requests queued meanwhile (offers destroyed) go out before waiting.
            if socket.hasQueuedOutput { try socket.flush(deadline: MonotonicClock.nanoseconds() + 2_000_000_000) }
            guard try socket.read(deadline: deadline) else { return nil }
        }
    }

    /// Whether an event can be had without reading the socket: one decoded already, or a whole message
    /// among the bytes received (a round trip reads past its `done`). An owner polling the socket must
    /// ask this first: poll does not see what was read already.
    public func hasBufferedEvents() throws -> Bool {
        while pending.isEmpty, try decodeOne() {}
        return !pending.isEmpty
    }

    /// Dispatches events until a `wl_display.sync` comes back; the events met meanwhile are kept in order.
    public func roundTrip(deadline: UInt64) throws {
        let (sync, callback) = client.sync()
        send(sync)
        try flush(deadline: deadline)
        roundTrips += 1
        var kept: [DataControlClient.Event] = []
        while true {
            guard let event = try nextEvent(deadline: deadline) else {
                pending = kept + pending
                throw PasteboardError(.timedOut, "the Wayland compositor did not answer in time")
            }
            if event == .done(callback: callback) { break }
            if case .fatal(let message) = event { throw PasteboardError(.unavailable, message) }
            kept.append(event)
        }
        pending = kept + pending
    }

    /// Decodes and applies one whole message from what was received; false when none is whole yet.
    private func decodeOne() throws -> Bool {
        guard let message = try socket.nextMessage(signature: { client.eventSignature(object: $0, opcode: $1) }) else {
            return false
        }
        if let event = client.handle(message) { pending.append(event) }
        if !client.queuedRequests.isEmpty { socket.send(client.takeQueuedRequests()) }
        return true
    }

    // MARK: Transfers

    /// A newer selection replaced the one a transfer reads from (``receive(offer:mime:primary:into:limit:stepTimeout:confirmation:supersede:)``
    /// with `supersede`): the transfer was abandoned, its pipe closed; the newer selection's event waits
    /// among the events.
    public struct Superseded: Error, Sendable {}

    /// How the end of a transfer is told from an owner's death mid-write (``TransferCompleteness``).
    public enum Confirmation: Sendable, Equatable {
        /// Decided here: by a second request to the same offer (``probe(offer:mime:primary:stepTimeout:supersede:)``),
        /// or, for an offer marked transient (an owner that serves one paste) or an empty transfer, by
        /// watching the selection a moment.
        case here
        /// Left to the caller, which probes once after its last transfer of the offer: ``receive(offer:mime:primary:into:limit:stepTimeout:confirmation:supersede:)``
        /// returns false when the end is not confirmed.
        case deferred
    }

    /// The selection of that kind the client has now.
    private func current(primary: Bool) -> UInt32? { primary ? client.primarySelection : client.selection }

    /// With `supersede`: throws ``Superseded`` when `offer` is no longer the selection and a newer one
    /// is (a clearing is no newer selection: the verdict on the transfer says what it means), or, for
    /// the primary selection, when the clipboard changed or was cleared since `since` (an index in
    /// ``pending``): the clipboard never waits on the primary selection (a new one is fetched, a
    /// cleared one served again, at once).
    private func checkSuperseded(offer: UInt32, primary: Bool, since: Int) throws {
        if let now = current(primary: primary), now != offer { throw Superseded() }
        guard primary else { return }
        for event in pending[min(since, pending.count)...] {
            if case .selection(false, _) = event { throw Superseded() }
        }
    }

    /// Asks the owner of `offer` (the selection, or the primary selection) to write `mime` into a pipe
    /// and moves what it writes into `sink` until the owner closes it (`splice` where the sink takes it);
    /// each wait lasts at most `stepTimeout` seconds, and more than `limit` bytes stop the transfer with
    /// `.refused`. The request goes out, then the pipe is read, the socket watched beside it. After the
    /// end, ``TransferCompleteness`` tells an owner that finished from one that died mid-write: a small
    /// transfer written at once is whole; one whose selection was cleared meanwhile is cut short (but
    /// for an offer marked transient, whose owner clears on purpose); anything else is confirmed as
    /// `confirmation` says. A transfer cut short throws `.unavailable` (exit 69), after its bytes went to
    /// `sink` (the caller discards them). With `supersede`, a newer selection arriving before the end
    /// abandons the transfer (``Superseded``). The events met are left for the caller, in order.
    /// Returns whether the end is confirmed (false only with `.deferred`).
    @discardableResult
    public func receive(
        offer: UInt32, mime: String, primary: Bool, into sink: any RepresentationSink, limit: Int? = nil, stepTimeout: Double,
        confirmation: Confirmation = .here, supersede: Bool = false
    ) throws -> Bool {
        var completeness = TransferCompleteness(oneWrite: WaylandPipes.pipeCapacity)
        let since = pending.count
        if supersede { try checkSuperseded(offer: offer, primary: primary, since: since) }
        guard current(primary: primary) == offer else {
            // Cleared (its owner gone) before it was asked: the offer is destroyed, nothing can be had.
            throw PasteboardError(.unavailable, "the Wayland clipboard's owner went away before it sent \(mime)")
        }
        var looked = pending.count
        // Every event that arrived since the request: a clearing of this selection is what counts.
        func lookAtEvents(writerClosed: Bool) throws {
            for event in pending[looked...] {
                if case .selection(let isPrimary, nil) = event, isPrimary == primary { completeness.selectionCleared(writerClosed: writerClosed) }
            }
            looked = pending.count
            if supersede { try checkSuperseded(offer: offer, primary: primary, since: since) }
        }
        let asked = MonotonicClock.nanoseconds()
        let received = try WaylandPipes.receive(
            mime: mime, into: sink, limit: limit, stepTimeout: stepTimeout,
            watch: (socket.fd, { [self] writerClosed in
                try socket.readAvailable()
                while try decodeOne() {}
                try lookAtEvents(writerClosed: writerClosed)
            })
        ) { writeEnd in
            send(client.receive(offer, mime: mime, fd: writeEnd))
            try flush(deadline: MonotonicClock.nanoseconds() + UInt64(stepTimeout * 1e9))
        }
        // What arrived with the end of data (read already, or on the socket) counts too.
        try socket.readAvailable()
        while try decodeOne() {}
        try lookAtEvents(writerClosed: true)
        let transient = ClipboardMarkers.flags(offered: client.offers[offer] ?? []).contains(.transient)
        var verdict = completeness.verdict(received: received, duration: MonotonicClock.nanoseconds() - asked, transient: transient)
        if verdict == .confirm {
            if received > 0, !transient, confirmation == .deferred { return false }
            if received > 0, !transient, current(primary: primary) == offer {
                // A second request to the same offer: an owner alive after the end of data writes again
                // (so that end was its own); a dead one never can (the compositor closes the descriptor).
                let alive = try probe(offer: offer, mime: mime, primary: primary, stepTimeout: stepTimeout, supersede: supersede)
                verdict = alive ? .whole : .cutShort
            } else {
                // Nothing arrived, a transient offer, or the selection taken by another client (its
                // offer gone): the selection is watched a moment.
                verdict = try confirmByWatching(completeness, primary: primary, since: looked, stepTimeout: stepTimeout)
            }
        }
        if verdict == .cutShort {
            throw PasteboardError(
                .unavailable, "the Wayland clipboard's owner went away while it was sending \(mime): what arrived may be cut short")
        }
        return true
    }

    /// Asks the owner of `offer` for `mime` once more and reads at most one byte: true when it writes one
    /// (it was alive after every earlier end of data of that offer, so those ends were its own), false
    /// when the pipe ends unwritten (an owner that died: the compositor closes the descriptor it cannot
    /// pass on). Throws `.unavailable` when the offer is no longer the selection (cleared: its owner
    /// went away), and, with `supersede`, ``Superseded`` when a newer selection arrives meanwhile.
    public func probe(offer: UInt32, mime: String, primary: Bool, stepTimeout: Double, supersede: Bool = false) throws -> Bool {
        let since = pending.count
        if supersede { try checkSuperseded(offer: offer, primary: primary, since: since) }
        guard current(primary: primary) == offer else {
            throw PasteboardError(.unavailable, "the Wayland clipboard's owner went away before its transfers could be confirmed whole")
        }
        probes += 1
        return try WaylandPipes.probe(
            mime: mime, stepTimeout: stepTimeout,
            watch: (socket.fd, { [self] _ in
                try socket.readAvailable()
                while try decodeOne() {}
                if supersede { try checkSuperseded(offer: offer, primary: primary, since: since) }
            })
        ) { writeEnd in
            send(client.receive(offer, mime: mime, fd: writeEnd))
            try flush(deadline: MonotonicClock.nanoseconds() + UInt64(stepTimeout * 1e9))
        }
    }

    /// The timing rule, for what a second request cannot confirm (an empty transfer; an owner that
    /// serves one paste, which then refuses every other): round trips until ``TransferCompleteness/grace``
    /// is over or the selection's clearing is seen; each brings what the compositor did before it
    /// answered.
    private func confirmByWatching(_ completeness: TransferCompleteness, primary: Bool, since: Int, stepTimeout: Double) throws -> TransferCompleteness.Verdict {
        let start = min(since, pending.count)
        let end = MonotonicClock.nanoseconds() + completeness.grace
        var cleared = false
        while !cleared {
            try roundTrip(deadline: MonotonicClock.nanoseconds() + UInt64(stepTimeout * 1e9))
            confirmationRoundTrips += 1
            cleared = pending[start...].contains { event in
                if case .selection(let isPrimary, nil) = event { return isPrimary == primary }
                return false
            }
            let now = MonotonicClock.nanoseconds()
            guard now < end else { break }
            if !cleared { _ = try socket.read(deadline: min(end, now + 2_000_000)) }
        }
        return completeness.confirmed(cleared: cleared)
    }
}

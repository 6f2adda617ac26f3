#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The owner of a Wayland selection (one data-control source), as a pure state machine: it takes the
/// compositor's events, the results of the writes and the time, and returns the actions a driver
/// performs (`WaylandSelectionOwner`). It never waits and touches no descriptor; descriptors are only
/// numbers it names in its actions.
///
/// - Each `send` starts a transfer into the reader's descriptor, written as the reader takes it (several
///   at once: a stalled reader never holds up another); a type never offered is refused.
/// - A reader that takes nothing for ``Configuration/stalledReaderLimit`` is dropped.
/// - With paste-once, the first transfer written in full ends the serving, but only once its reader has
///   emptied its pipe (or gone, or ``Configuration/pasteReadLimit`` passed): wl-paste 2.1 makes a round
///   trip after asking, and a cleared selection arriving in it makes it say "No selection" instead of
///   reading what it was sent. wl-copy waits the same way, for its `cat` to end. Then the reader's pipe
///   is closed (its end of data), and the selection kept, every other paste refused, for
///   ``Configuration/pasteLinger`` before it is cleared: a reader of this transient offer (which a
///   second request cannot confirm) watches the selection a moment after the end of data for an owner
///   gone mid-write (`TransferCompleteness`), and a selection cleared at that very moment would read as
///   such an owner.
/// - At the end of its lifetime (`--clear-after`) the owner clears the selection.
/// - Whatever ends the serving (`cancelled`, the one paste, the lifetime, the seat or the compositor
///   gone), the transfers under way are finished first, each dropped when its reader takes nothing for
///   ``Configuration/finishingStallLimit``: a paste that began in time gets all of it.
public struct WaylandOwnerStateMachine: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var pasteOnce: Bool
        /// Nanoseconds the selection is served before it is cleared; nil: until another client takes it.
        public var lifetime: UInt64?
        /// Nanoseconds a reader may take nothing while the selection is served.
        public var stalledReaderLimit: UInt64
        /// Nanoseconds a reader may take nothing once serving is over (transfers being finished).
        public var finishingStallLimit: UInt64
        /// Nanoseconds the reader of the one paste may take to empty its pipe.
        public var pasteReadLimit: UInt64
        /// Nanoseconds the selection is kept (refusing other pastes) after the one paste's end of data,
        /// before it is cleared.
        public var pasteLinger: UInt64

        public init(
            pasteOnce: Bool = false, lifetime: UInt64? = nil, stalledReaderLimit: UInt64 = 60_000_000_000,
            finishingStallLimit: UInt64 = 5_000_000_000, pasteReadLimit: UInt64 = 2_000_000_000, pasteLinger: UInt64 = 250_000_000
        ) {
            self.pasteOnce = pasteOnce
            self.lifetime = lifetime
            self.stalledReaderLimit = stalledReaderLimit
            self.finishingStallLimit = finishingStallLimit
            self.pasteReadLimit = pasteReadLimit
            self.pasteLinger = pasteLinger
        }
    }

    /// What answers a `send`: a representation of the item, or bytes of its own (the password hint's).
    public enum Content: Sendable, Equatable {
        case representation(Int)
        case bytes(Data)
    }

    /// Why the serving ended.
    public enum Stop: Sendable, Equatable {
        /// Another client took the selection.
        case cancelled
        case pastedOnce
        case lifetimeOver
        /// The data device is no longer valid (the seat went away).
        case seatGone
        /// The compositor reported an error or went away: the driver reports it once the transfers are done.
        case failed(String)
    }

    public enum Action: Sendable, Equatable {
        /// Close the descriptor: a refusal, a transfer done or dropped, a reader gone.
        case close(Int32)
        /// Make a new reader's descriptor non-blocking (before its first write).
        case makeNonBlocking(Int32)
        /// Write what the descriptor takes now of ``pendingWrite(_:)``, then report with
        /// ``wrote(_:count:readerGone:now:)``.
        case write(Int32)
        /// Clear the selection (`set_selection` with no source), without waiting for an answer.
        case clearSelection
        case log(String)
        /// Serving and transfers are over.
        case stopped(Stop)
    }

    public enum Phase: Sendable, Equatable {
        /// Before ``claimed(source:now:)``.
        case unclaimed
        case serving
        /// Paste-once: the one paste is written, its reader not done with it.
        case awaitingPasteRead(reader: Int32, until: UInt64)
        /// Paste-once: the one paste is over (its pipe closed); the selection is cleared at `until`.
        case pastedOnce(until: UInt64)
        /// Serving is over; the transfers under way are finished.
        case finishing(Stop)
        case stopped(Stop)
    }

    private struct Transfer: Sendable {
        var fd: Int32
        var data: Data
        var offset: Int
        var lastProgress: UInt64
    }

    public let configuration: Configuration
    /// Each offered MIME type and the representation it serves, in offer order.
    public let offers: [(mime: String, representation: Int)]
    /// Whether the content is secret: the password hint is offered with it.
    public let sensitive: Bool
    /// The markers offered beside the content (``ClipboardMarkers``): the hint for a secret, Transient
    /// for content meant to vanish, so clipboard managers neither keep nor record it.
    public let markers: [(name: String, value: Data)]
    public private(set) var phase = Phase.unclaimed
    /// The source serving the selection (0 before ``claimed(source:now:)``).
    public private(set) var source: UInt32 = 0
    private var end: UInt64?
    private var transfers: [Transfer] = []

    /// An owner of content whose representations have `types`, each offered under the MIME types
    /// `mimeTypes` gives (a type without any is offered under its own name when that is a MIME type).
    public init(
        types: [TypeIdentifier], sensitive: Bool, transient: Bool = false, mimeTypes: (TypeIdentifier) -> [String], configuration: Configuration
    ) {
        var offers: [(String, Int)] = []
        for (index, type) in types.enumerated() {
            var names = mimeTypes(type)
            if names.isEmpty, type.rawValue.contains("/") { names = [type.rawValue] }
            for mime in names where !offers.contains(where: { $0.0 == mime }) { offers.append((mime, index)) }
        }
        self.offers = offers
        self.sensitive = sensitive
        markers = ClipboardMarkers.offered(for: [sensitive ? .sensitive : [], transient ? .transient : []])
        self.configuration = configuration
    }

    /// The MIME types the source offers: the content's, then the password hint for a secret.
    public var offeredMIMETypes: [String] { offers.map(\.mime) + markers.map(\.name) }

    /// What answers a request for `mime`; nil when it was never offered.
    public func content(for mime: String) -> Content? {
        if let marker = markers.first(where: { $0.name == mime }) { return .bytes(marker.value) }
        return offers.first(where: { $0.mime == mime }).map { .representation($0.representation) }
    }

    // MARK: State for the driver

    /// Whether the selection is served: the compositor's events matter (once serving is over, only the
    /// transfers under way do).
    public var isServing: Bool {
        switch phase {
        case .serving, .awaitingPasteRead, .pastedOnce: true
        default: false
        }
    }

    public var isStopped: Bool {
        if case .stopped = phase { return true }
        return false
    }

    /// The descriptors of the transfers still writing, to wait on until they are writable.
    public var transferDescriptors: [Int32] { transfers.map(\.fd) }

    /// With paste-once, the reader of the one paste while it is not done with it: the driver reports what
    /// its pipe holds with ``pasteReader(unread:gone:now:)``.
    public var pasteReader: Int32? {
        if case .awaitingPasteRead(let reader, _) = phase { return reader }
        return nil
    }

    /// What is left to write to `fd`: the data and how much of it is written.
    public func pendingWrite(_ fd: Int32) -> (data: Data, offset: Int)? {
        transfers.first(where: { $0.fd == fd }).map { ($0.data, $0.offset) }
    }

    /// When ``tick(now:)`` has something to do at the latest (the lifetime's end, a reader's stall limit,
    /// the paste-once wait); nil: nothing pending but events.
    public var nextDeadline: UInt64? {
        var deadlines: [UInt64] = []
        switch phase {
        case .serving:
            if let end { deadlines.append(end) }
            deadlines += transfers.map { $0.lastProgress &+ configuration.stalledReaderLimit }
        case .awaitingPasteRead(_, let until):
            deadlines.append(until)
            deadlines += transfers.map { $0.lastProgress &+ configuration.stalledReaderLimit }
        case .pastedOnce(let until):
            deadlines.append(until)
            deadlines += transfers.map { $0.lastProgress &+ configuration.stalledReaderLimit }
        case .finishing:
            deadlines += transfers.map { $0.lastProgress &+ configuration.finishingStallLimit }
        case .unclaimed, .stopped:
            break
        }
        return deadlines.min()
    }

    // MARK: Inputs

    /// The source is created and set as the selection: serving begins (and the lifetime with it).
    public mutating func claimed(source: UInt32, now: UInt64) {
        self.source = source
        phase = .serving
        end = configuration.lifetime.map { now &+ $0 }
    }

    /// Applies one event of the compositor. `produce` makes the bytes of a content asked for (nil when
    /// they cannot be had: the request is refused); it is called only for a `send` that is served.
    public mutating func handle(_ event: DataControlClient.Event, now: UInt64, produce: (Content) -> Data?) -> [Action] {
        switch event {
        case .send(let from, let mime, let fd):
            guard from == source else { return [.close(fd)] }  // a source no longer ours
            guard phase == .serving else { return [.close(fd), .log("owner: refused \(mime): no longer serving")] }
            guard let content = content(for: mime), let data = produce(content) else {
                // A type we did not offer, or one that cannot be produced: the reader gets nothing.
                return [.close(fd), .log("owner: refused \(mime)")]
            }
            transfers.append(Transfer(fd: fd, data: data, offset: 0, lastProgress: now))
            // Written at once as far as the pipe takes it: a small paste is done without a trip through poll.
            return [.log("owner: sending \(mime) (\(data.count) bytes)"), .makeNonBlocking(fd), .write(fd)]
        case .cancelled(let from) where from == source && isServing:
            var actions: [Action] = [.log("owner: another client took the selection")]
            if let reader = pasteReader { actions.append(.close(reader)) }  // the selection is not ours to clear now
            return actions + finish(.cancelled)
        case .finished where isServing:
            var actions: [Action] = []
            if let reader = pasteReader { actions.append(.close(reader)) }
            return actions + finish(.seatGone)
        case .fatal(let message):
            return stop(.failed(message))
        default:
            return []
        }
    }

    /// What a ``Action/write(_:)`` did: `count` bytes taken, and whether the reader is gone (EPIPE).
    public mutating func wrote(_ fd: Int32, count: Int, readerGone: Bool, now: UInt64) -> [Action] {
        guard let index = transfers.firstIndex(where: { $0.fd == fd }) else { return [] }
        transfers[index].offset += count
        if count > 0 { transfers[index].lastProgress = now }
        if readerGone {
            transfers.remove(at: index)  // the reader went away (EPIPE): nothing to finish
            return [.close(fd)] + stopIfDone()
        }
        guard transfers[index].offset >= transfers[index].data.count else { return [] }
        transfers.remove(at: index)
        if configuration.pasteOnce, phase == .serving {
            // The descriptor stays open (the reader sees its end only when we are done watching it).
            phase = .awaitingPasteRead(reader: fd, until: now &+ configuration.pasteReadLimit)
            return []
        }
        return [.close(fd)] + stopIfDone()
    }

    /// With paste-once, what the pipe of the one paste holds: `unread` bytes (nil: no pipe, all read), or
    /// its reader `gone`. Once it is emptied (or the wait is over) the selection is cleared.
    public mutating func pasteReader(unread: Int?, gone: Bool, now: UInt64) -> [Action] {
        guard case .awaitingPasteRead(let reader, let until) = phase else { return [] }
        guard gone || (unread ?? 0) == 0 || now >= until else { return [] }
        guard configuration.pasteLinger > 0 else {
            return [.close(reader), .clearSelection, .log("owner: pasted once, selection cleared")] + finish(.pastedOnce)
        }
        phase = .pastedOnce(until: now &+ configuration.pasteLinger)
        return [.close(reader)]
    }

    /// The time passed: the lifetime's end, readers stalled, the paste-once wait over.
    public mutating func tick(now: UInt64) -> [Action] {
        var actions: [Action] = []
        switch phase {
        case .serving:
            if let end, now >= end {
                return [.clearSelection, .log("owner: lifetime over, selection cleared")] + finish(.lifetimeOver)
            }
            actions += dropStalled(limit: configuration.stalledReaderLimit, now: now)
        case .awaitingPasteRead(_, let until):
            if now >= until { return pasteReader(unread: nil, gone: false, now: now) }
            actions += dropStalled(limit: configuration.stalledReaderLimit, now: now)
        case .pastedOnce(let until):
            if now >= until { return [.clearSelection, .log("owner: pasted once, selection cleared")] + finish(.pastedOnce) }
            actions += dropStalled(limit: configuration.stalledReaderLimit, now: now)
        case .finishing:
            actions += dropStalled(limit: configuration.finishingStallLimit, now: now)
            actions += stopIfDone()
        case .unclaimed, .stopped:
            break
        }
        return actions
    }

    /// Ends the serving from outside (the connection failed): the transfers under way are finished.
    public mutating func stop(_ reason: Stop) -> [Action] {
        switch phase {
        case .finishing, .stopped: return []
        case .awaitingPasteRead(let reader, _): return [.close(reader)] + finish(reason)
        case .unclaimed, .serving, .pastedOnce: return finish(reason)
        }
    }

    // MARK: Steps

    private mutating func finish(_ reason: Stop) -> [Action] {
        phase = .finishing(reason)
        return stopIfDone()
    }

    private mutating func stopIfDone() -> [Action] {
        guard case .finishing(let reason) = phase, transfers.isEmpty else { return [] }
        phase = .stopped(reason)
        return [.stopped(reason)]
    }

    private mutating func dropStalled(limit: UInt64, now: UInt64) -> [Action] {
        var actions: [Action] = []
        transfers.removeAll { transfer in
            guard now > transfer.lastProgress, now - transfer.lastProgress > limit else { return false }
            actions.append(.close(transfer.fd))
            actions.append(.log("owner: a reader took nothing for \((limit + 999_999_999) / 1_000_000_000) s: dropped"))
            return true
        }
        return actions
    }
}

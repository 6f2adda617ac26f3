#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The daemon fetching every type of a new selection, as a pure state machine: which types, under which
/// MIME type each is asked for, in what order, what is kept and what is left out. The driver
/// (`WaylandClipboardManager`) performs each receive into a ``CappedSink`` and reports how it went.
///
/// - One representation per type (the markers are no content), at most ``Configuration/maxTypes``.
/// - Each asked for under the MIME type pbctl prefers for it among those offered, else the first offered.
/// - The whole fetch has a deadline: a type not begun by then is left out. A type over
///   ``Configuration/maxRepresentationBytes`` is read to its end without being kept (the owner then
///   writes all of it rather than being cut off, and its size is known) until that same deadline, and is
///   reported as skipped, with its size when the end was reached.
public struct WaylandFetchStateMachine: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var maxRepresentationBytes: Int
        public var maxTypes: Int
        /// Nanoseconds the whole fetch may take.
        public var fetchDeadline: UInt64

        public init(maxRepresentationBytes: Int = 64 << 20, maxTypes: Int = 64, fetchDeadline: UInt64 = 8_000_000_000) {
            self.maxRepresentationBytes = maxRepresentationBytes
            self.maxTypes = maxTypes
            self.fetchDeadline = fetchDeadline
        }
    }

    /// What the fetch keeps: the representations, and each one's MIME names as its owner offered them
    /// (offered again under the same names).
    public struct Fetched: Sendable {
        public var representations: [Representation]
        public var names: [TypeIdentifier: [String]]
        /// The types left out for being over the cap, with their size when known.
        public var skipped: [TypeSummary]
    }

    public enum Action: Sendable {
        /// Receive `mime` into a ``CappedSink`` of ``Configuration/maxRepresentationBytes`` draining until
        /// ``deadline``, then report with ``received(_:now:)``.
        case receive(mime: String)
        /// Ask the offer for `mime` once more and report with ``probed(alive:now:)`` whether its owner
        /// wrote a byte: after the last transfer, when an end of data was not confirmed as the owner's own.
        case probe(mime: String)
        case log(String)
        case finished(Fetched)
    }

    /// How one receive went.
    public enum Received: Sendable, Equatable {
        /// The owner wrote it all, within the cap.
        case complete(Data)
        /// The pipe ended within the cap, but nothing told yet whether the owner ended it or died
        /// (``TransferCompleteness``): kept if the owner answers the probe after the last transfer.
        case unconfirmed(Data)
        /// The owner wrote it all, `size` bytes, over the cap (nothing kept).
        case overLimit(size: Int)
        /// It failed (the owner stalled or refused, the drain met the deadline); `overLimit` when it had
        /// gone over the cap by then.
        case failed(String, overLimit: Bool)
        /// The owner went away before it sent all of it (``TransferCompleteness``): what arrived is not
        /// kept, and the types after it are not asked for.
        case cutShort(String)
    }

    public let configuration: Configuration
    /// When the fetch is over: no type begins after it, and no transfer over the cap is drained past it.
    public let deadline: UInt64
    /// The types to fetch, in the offer's order, each with its MIME names as offered and the one asked.
    public let plan: [(type: TypeIdentifier, offered: [String], mime: String)]
    private var index = 0
    private var result = Fetched(representations: [], names: [:], skipped: [])
    private var finished = false
    /// The types received ``Received/unconfirmed(_:)``, and the MIME type the probe asks for (the last
    /// such one that brought bytes: an owner alive writes it again).
    private var unconfirmed: [TypeIdentifier] = []
    private var probeMIME: String?
    private var probing = false

    /// A fetch of an offer of `mimes`. `type` maps a MIME type to pbctl's type, `mimeTypes` gives a type's
    /// MIME types, preferred first.
    public init(
        mimes: [String], configuration: Configuration, now: UInt64, type: (String) -> TypeIdentifier,
        mimeTypes: (TypeIdentifier) -> [String]
    ) {
        var byType: [(TypeIdentifier, [String])] = []
        for mime in mimes where !ClipboardMarkers.isMarker(mime) {
            let type = type(mime)
            if let index = byType.firstIndex(where: { $0.0 == type }) {
                byType[index].1.append(mime)
            } else if byType.count < configuration.maxTypes {
                byType.append((type, [mime]))
            }
        }
        plan = byType.map { type, offered in (type, offered, (mimeTypes(type).filter(offered.contains) + offered)[0]) }
        self.configuration = configuration
        deadline = now &+ configuration.fetchDeadline
    }

    /// The first action: the first type's receive, or the end.
    public mutating func start(now: UInt64) -> [Action] { advance(now: now) }

    /// The current type's receive went as `received`: what is kept of it, then the next type's receive.
    public mutating func received(_ received: Received, now: UInt64) -> [Action] {
        guard !finished, index < plan.count else { return [] }
        let (type, offered, mime) = plan[index]
        index += 1
        var actions: [Action] = []
        switch received {
        case .complete(let data):
            result.representations.append(Representation(type: type, data: data))
            result.names[type] = offered
        case .unconfirmed(let data):
            result.representations.append(Representation(type: type, data: data))
            result.names[type] = offered
            unconfirmed.append(type)
            if !data.isEmpty { probeMIME = mime }
        case .overLimit(let size):
            result.skipped.append(TypeSummary(type: type, size: size))
            actions.append(.log("\(mime) not kept: \(size) bytes, over \(configuration.maxRepresentationBytes)"))
        case .failed(let message, let overLimit):
            if overLimit { result.skipped.append(TypeSummary(type: type)) }
            actions.append(.log("\(mime) not kept: \(message)"))
        case .cutShort(let message):
            // Nothing half-fetched is kept; the owner is gone, so nothing after it can be had either.
            result.skipped.append(TypeSummary(type: type, cutShort: true))
            actions.append(.log("\(mime) not kept: \(message)"))
            for (rest, _, restMime) in plan[index...] {
                result.skipped.append(TypeSummary(type: rest, cutShort: true))
                actions.append(.log("\(restMime) not asked for: the owner went away"))
            }
            index = plan.count
        }
        return actions + advance(now: now)
    }

    /// The probe after the last transfer: `alive` when the owner wrote a byte, false when its pipe ended
    /// unwritten (the owner is dead, so an end of data before it may have been its death), nil when it
    /// could not be asked or did not answer (`reason`). Unless alive, what was received unconfirmed is
    /// not kept: it is reported cut short.
    public mutating func probed(alive: Bool?, reason: String? = nil, now: UInt64) -> [Action] {
        guard probing, !finished else { return [] }
        probing = false
        probeMIME = nil
        finished = true
        guard alive != true else { return [.finished(result)] }
        let gone = Set(unconfirmed)
        result.representations.removeAll { gone.contains($0.type) }
        for type in unconfirmed {
            result.names[type] = nil
            result.skipped.append(TypeSummary(type: type, cutShort: true))
        }
        let why = alive == false ? "its owner did not answer again: it went away, maybe before sending all of it" : reason ?? "its owner could not be asked again"
        return [.log("\(unconfirmed.map(\.rawValue).joined(separator: ", ")) not kept: \(why)"), .finished(result)]
    }

    private mutating func advance(now: UInt64) -> [Action] {
        var actions: [Action] = []
        while index < plan.count {
            guard now < deadline else {
                actions.append(.log("fetch deadline passed: \(plan[index].type) left out"))
                index += 1
                continue
            }
            return actions + [.receive(mime: plan[index].mime)]
        }
        if let probeMIME, !probing, !result.skipped.contains(where: { $0.cutShort == true }) {
            probing = true
            return actions + [.probe(mime: probeMIME)]
        }
        finished = true
        return actions + [.finished(result)]
    }
}

/// Collects a representation up to `limit` bytes; past it, drops what it holds and only counts the rest,
/// so the owner writes to the end (its size then known) rather than being cut off, until `drainUntil`
/// (on the clock `now` reads): then the read stops and the pipe is closed, which ends the owner's write.
public final class CappedSink: RepresentationSink {
    public let limit: Int
    public let drainUntil: UInt64
    private let now: () -> UInt64
    public private(set) var data = Data()
    public private(set) var size = 0
    public var isOverLimit: Bool { size > limit }

    public init(limit: Int, drainUntil: UInt64, now: @escaping () -> UInt64) {
        self.limit = limit
        self.drainUntil = drainUntil
        self.now = now
    }

    public func write(_ chunk: Data) throws {
        size += chunk.count
        guard isOverLimit else {
            data.append(chunk)
            return
        }
        data = Data()
        if now() >= drainUntil {
            throw PasteboardError(.timedOut, "more than \(limit) bytes, still sending at the fetch deadline")
        }
    }

    /// How the receive into this sink went, given the error it ended with (nil: it ended well).
    /// `confirmed`: the end of data is known to be the owner's own (else ``WaylandFetchStateMachine/Received/unconfirmed(_:)``).
    public func outcome(error: (any Error)?, confirmed: Bool = true) -> WaylandFetchStateMachine.Received {
        if let error {
            let message = (error as? PasteboardError)?.message ?? "\(error)"
            // The owner went away mid-write (WaylandConnection.receive's verdict).
            if (error as? PasteboardError)?.code == .unavailable, !isOverLimit { return .cutShort(message) }
            return .failed(message, overLimit: isOverLimit)
        }
        return isOverLimit ? .overLimit(size: size) : confirmed ? .complete(data) : .unconfirmed(data)
    }
}

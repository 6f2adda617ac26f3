#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a conversion (a paste) failed.
public enum ConversionFailure: Error, Sendable, Equatable {
    /// SelectionNotify with property None: no owner, or the owner refused the target.
    case refused
    /// The owner did not take the next step before the deadline.
    case timedOut(phase: String)
    /// More data than the cap.
    case tooLarge(limit: Int)
    /// The reply property vanished or was malformed.
    case malformed(String)
}

/// The requestor side of ICCCM §2.4 and §2.7.2 for one conversion, as a pure state machine.
///
/// It starts with ``start(now:time:)``, consumes events and property values, and returns actions; the
/// driver performs them. Every step waiting on the owner has a deadline (``nextDeadline``).
public struct ConversionStateMachine {
    public enum Phase: Sendable, Equatable {
        case idle, awaitingNotify, readingProperty, awaitingChunk, readingChunk, finished, failed
    }

    public enum Action: Sendable, Equatable {
        case deleteProperty(window: XWindow, property: XAtom)
        case convertSelection(selection: XAtom, target: XAtom, property: XAtom, requestor: XWindow, time: XTimestamp)
        /// GetProperty from `offset` (in 32-bit units) with `delete`; feed the reply to ``propertyValue(_:now:)``.
        case getProperty(window: XWindow, property: XAtom, offset: UInt32, delete: Bool)
        /// Bytes of the reply, in order.
        case deliver(Data)
        /// All bytes delivered; `type` and `format` are those of the reply (the first chunk for INCR).
        case finished(type: XAtom, format: UInt8)
        case failed(ConversionFailure)
    }

    public let window: XWindow
    public let selection: XAtom
    public let target: XAtom
    public let property: XAtom
    public let incrAtom: XAtom
    public let stepTimeout: UInt64
    public let maxBytes: Int
    /// What an INCR transfer over `maxBytes` does: read to its end (each chunk's property deleted, so
    /// the owner, which waits for each deletion, finishes), delivering nothing more, then fail
    /// `.tooLarge` with ``replySize`` known; without it, it fails at once and the owner is left waiting.
    public let drainsOverLimit: Bool

    public private(set) var phase: Phase = .idle
    public private(set) var nextDeadline: UInt64?
    public private(set) var receivedBytes = 0
    public private(set) var usedIncr = false
    /// The type of the reply (of the first chunk for INCR), known once data arrives.
    public private(set) var replyType: XAtom = PredefinedAtom.none
    public private(set) var replyFormat: UInt8 = 0
    /// The reply's whole size in bytes, once known: from the first read of a plain reply, at the end
    /// of an INCR transfer.
    public private(set) var replySize: Int?
    /// The rest of the transfer is read and deleted but not delivered (``discardRest()``, or over
    /// `maxBytes` with `drainsOverLimit`).
    public private(set) var isDiscarding = false
    private var readOffset: UInt32 = 0

    public init(
        window: XWindow, selection: XAtom, target: XAtom, property: XAtom, incrAtom: XAtom,
        stepTimeout: UInt64 = 5_000_000_000, maxBytes: Int = 1 << 34, drainsOverLimit: Bool = false
    ) {
        self.window = window
        self.selection = selection
        self.target = target
        self.property = property
        self.incrAtom = incrAtom
        self.stepTimeout = stepTimeout
        self.maxBytes = maxBytes
        self.drainsOverLimit = drainsOverLimit
    }

    public var isDone: Bool { phase == .finished || phase == .failed }

    /// Deletes the property (ICCCM 2.0) and asks the owner to convert.
    public mutating func start(now: UInt64, time: XTimestamp) -> [Action] {
        guard phase == .idle else { return [] }
        phase = .awaitingNotify
        nextDeadline = now &+ stepTimeout
        return [
            .deleteProperty(window: window, property: property),
            .convertSelection(selection: selection, target: target, property: property, requestor: window, time: time),
        ]
    }

    /// Handles a `SelectionNotify`; notifications for other conversions are ignored.
    public mutating func selectionNotify(_ notify: SelectionNotify, now: UInt64) -> [Action] {
        guard phase == .awaitingNotify, notify.requestor == window, notify.selection == selection,
            notify.target == target
        else { return [] }
        if notify.property == PredefinedAtom.none { return fail(.refused) }
        // Some owners answer into another property than asked; only ours is read.
        guard notify.property == property else { return fail(.malformed("reply in an unexpected property")) }
        phase = .readingProperty
        nextDeadline = nil
        readOffset = 0
        return [.getProperty(window: window, property: property, offset: 0, delete: true)]
    }

    /// Handles the reply to the last ``Action/getProperty(window:property:offset:delete:)``.
    public mutating func propertyValue(_ value: PropertyValue, now: UInt64) -> [Action] {
        switch phase {
        case .readingProperty:
            guard value.exists else { return fail(.malformed("the reply property does not exist")) }
            if readOffset == 0 && value.type == incrAtom {
                // Reading with delete=True removed the INCR property: that starts the transfer.
                usedIncr = true
                if value.bytesAfter > 0 { return [.deleteProperty(window: window, property: property)] + awaitChunk(now) }
                return awaitChunk(now)
            }
            if readOffset == 0 {
                replyType = value.type
                replyFormat = value.format
                replySize = value.bytes.count + Int(value.bytesAfter)
                // Over the limit as a whole: nothing to read further (the owner waits for nothing).
                if drainsOverLimit, value.bytes.count + Int(value.bytesAfter) > maxBytes {
                    return fail(.tooLarge(limit: maxBytes))
                }
            }
            var actions = accept(value.bytes)
            if phase == .failed { return actions }
            if value.bytesAfter > 0 {
                readOffset &+= UInt32(value.bytes.count / 4)
                actions.append(.getProperty(window: window, property: property, offset: readOffset, delete: true))
                return actions
            }
            phase = .finished
            nextDeadline = nil
            actions.append(.finished(type: replyType, format: replyFormat))
            return actions
        case .readingChunk:
            guard value.exists else {
                // Already gone (deleted by someone): wait for the next value.
                return awaitChunk(now)
            }
            if receivedBytes == 0 && replyType == PredefinedAtom.none {
                replyType = value.type
                replyFormat = value.format
            }
            if value.bytes.isEmpty && value.bytesAfter == 0 {
                replySize = receivedBytes
                nextDeadline = nil
                if isDiscarding {
                    // Drained to its end: the owner is done, and its property already deleted.
                    phase = .failed
                    return [.failed(.tooLarge(limit: maxBytes))]
                }
                phase = .finished
                return [.finished(type: replyType, format: replyFormat)]
            }
            var actions = accept(value.bytes)
            if phase == .failed { return actions }
            if value.bytesAfter > 0 {
                readOffset &+= UInt32(value.bytes.count / 4)
                actions.append(.getProperty(window: window, property: property, offset: readOffset, delete: true))
                return actions
            }
            return actions + awaitChunk(now)
        default:
            return []
        }
    }

    /// Handles `PropertyNotify` on our window: a new value is the next INCR chunk.
    public mutating func propertyNotify(window: XWindow, atom: XAtom, deleted: Bool, now: UInt64) -> [Action] {
        guard phase == .awaitingChunk, window == self.window, atom == property, !deleted else { return [] }
        phase = .readingChunk
        readOffset = 0
        nextDeadline = nil
        return [.getProperty(window: window, property: property, offset: 0, delete: true)]
    }

    /// Fails the conversion when its deadline has passed.
    public mutating func tick(now: UInt64) -> [Action] {
        guard let deadline = nextDeadline, deadline <= now, !isDone else { return [] }
        switch phase {
        case .awaitingNotify: return fail(.timedOut(phase: "waiting for the owner to answer"))
        default: return fail(.timedOut(phase: "waiting for the next INCR chunk"))
        }
    }

    /// Reads the rest of an INCR transfer under way without delivering it, deleting each chunk's
    /// property so the owner goes on to the end (it ends `.tooLarge`, with ``replySize``). False, and
    /// nothing changes, when no INCR transfer is under way (a plain reply leaves no owner waiting).
    public mutating func discardRest() -> Bool {
        guard usedIncr, phase == .awaitingChunk || phase == .readingChunk else { return false }
        isDiscarding = true
        return true
    }

    private mutating func awaitChunk(_ now: UInt64) -> [Action] {
        phase = .awaitingChunk
        nextDeadline = now &+ stepTimeout
        return []
    }

    private mutating func accept(_ bytes: Data) -> [Action] {
        receivedBytes += bytes.count
        if isDiscarding { return [] }
        if receivedBytes > maxBytes {
            if drainsOverLimit, usedIncr {
                isDiscarding = true
                return []
            }
            return fail(.tooLarge(limit: maxBytes))
        }
        return bytes.isEmpty ? [] : [.deliver(bytes)]
    }

    private mutating func fail(_ failure: ConversionFailure) -> [Action] {
        phase = .failed
        nextDeadline = nil
        var actions: [Action] = [.failed(failure)]
        if usedIncr || failure != .refused {
            actions.insert(.deleteProperty(window: window, property: property), at: 0)
        }
        return actions
    }
}

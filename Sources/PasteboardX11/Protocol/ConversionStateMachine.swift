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

extension ConversionFailure {
    /// What ``malformed(_:)`` says when the owner's reply names a property it never set: the careless
    /// refusal some owners make (ICCCM asks for a None property). xclip and xsel read it as nothing.
    public static let missingProperty = "the reply property does not exist"

    /// Whether the owner answered by naming a property it never set (``missingProperty``).
    public var isMissingProperty: Bool {
        if case .malformed(let what) = self { return what == Self.missingProperty }
        return false
    }
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

    /// What one step asks of the driver, in order: never more than two actions, held inline. (An array
    /// of ``Action`` would cost a static binary a run-time type lookup, and its page faults, on the first
    /// conversion of every paste.) A ``Action/getProperty(window:property:offset:delete:)`` is always
    /// the last of its list, so a driver can replace the list with the answer to it.
    public struct Actions: RandomAccessCollection, Equatable, Sendable, ExpressibleByArrayLiteral {
        // Two plain fields and a count: an optional Action would cost its own run-time metadata lookup.
        private var firstAction: Action
        private var secondAction: Action
        public private(set) var endIndex: Int

        public init() {
            firstAction = .finished(type: 0, format: 0)
            secondAction = firstAction
            endIndex = 0
        }
        public init(_ action: Action) {
            firstAction = action
            secondAction = action
            endIndex = 1
        }
        public init(_ action: Action, _ next: Action) {
            firstAction = action
            secondAction = next
            endIndex = 2
        }
        /// For tests: at most two elements.
        public init(arrayLiteral elements: Action...) {
            self.init()
            for element in elements { append(element) }
        }

        public var startIndex: Int { 0 }
        public subscript(position: Int) -> Action {
            precondition(position >= 0 && position < endIndex, "no action at \(position)")
            return position == 0 ? firstAction : secondAction
        }

        public mutating func append(_ action: Action) {
            precondition(endIndex < 2, "a conversion step asks for at most two actions")
            if endIndex == 0 { firstAction = action } else { secondAction = action }
            endIndex += 1
        }

        public static func == (lhs: Actions, rhs: Actions) -> Bool {
            lhs.endIndex == rhs.endIndex && (lhs.endIndex < 1 || lhs.firstAction == rhs.firstAction)
                && (lhs.endIndex < 2 || lhs.secondAction == rhs.secondAction)
        }
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
    /// What a reply over `maxBytes` does instead: its first `maxBytes` are delivered, the rest read to
    /// its end without being delivered (an INCR owner finishes), and the conversion finishes with
    /// ``isTruncated`` set (a TARGETS list longer than anyone offers: the head of it is used).
    public let truncatesOverLimit: Bool

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
    /// Over `maxBytes` with `truncatesOverLimit`: only the first `maxBytes` were delivered.
    public private(set) var isTruncated = false
    private var readOffset: UInt32 = 0

    public init(
        window: XWindow, selection: XAtom, target: XAtom, property: XAtom, incrAtom: XAtom,
        stepTimeout: UInt64 = 5_000_000_000, maxBytes: Int = 1 << 34, drainsOverLimit: Bool = false,
        truncatesOverLimit: Bool = false
    ) {
        self.window = window
        self.selection = selection
        self.target = target
        self.property = property
        self.incrAtom = incrAtom
        self.stepTimeout = stepTimeout
        self.maxBytes = maxBytes
        self.drainsOverLimit = drainsOverLimit
        self.truncatesOverLimit = truncatesOverLimit
    }

    public var isDone: Bool { phase == .finished || phase == .failed }

    /// Deletes the property (ICCCM 2.0) and asks the owner to convert.
    public mutating func start(now: UInt64, time: XTimestamp) -> Actions {
        guard phase == .idle else { return Actions() }
        phase = .awaitingNotify
        nextDeadline = now &+ stepTimeout
        return Actions(
            .deleteProperty(window: window, property: property),
            .convertSelection(selection: selection, target: target, property: property, requestor: window, time: time))
    }

    /// Handles a `SelectionNotify`; notifications for other conversions are ignored.
    public mutating func selectionNotify(_ notify: SelectionNotify, now: UInt64) -> Actions {
        guard phase == .awaitingNotify, notify.requestor == window, notify.selection == selection,
            notify.target == target
        else { return Actions() }
        if notify.property == PredefinedAtom.none { return fail(.refused) }
        // Some owners answer into another property than asked; only ours is read.
        guard notify.property == property else { return fail(.malformed("reply in an unexpected property")) }
        phase = .readingProperty
        nextDeadline = nil
        readOffset = 0
        return Actions(.getProperty(window: window, property: property, offset: 0, delete: true))
    }

    /// Handles the reply to the last ``Action/getProperty(window:property:offset:delete:)``.
    public mutating func propertyValue(_ value: PropertyValue, now: UInt64) -> Actions {
        switch phase {
        case .readingProperty:
            guard value.exists else { return fail(.malformed(ConversionFailure.missingProperty)) }
            if readOffset == 0 && value.type == incrAtom {
                // Reading with delete=True removed the INCR property: that starts the transfer.
                usedIncr = true
                awaitChunk(now)
                if value.bytesAfter > 0 { return Actions(.deleteProperty(window: window, property: property)) }
                return Actions()
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
                awaitChunk(now)
                return Actions()
            }
            if receivedBytes == 0 && replyType == PredefinedAtom.none {
                replyType = value.type
                replyFormat = value.format
            }
            if value.bytes.isEmpty && value.bytesAfter == 0 {
                replySize = receivedBytes
                nextDeadline = nil
                if isDiscarding, !isTruncated {
                    // Drained to its end: the owner is done, and its property already deleted.
                    phase = .failed
                    return Actions(.failed(.tooLarge(limit: maxBytes)))
                }
                phase = .finished
                return Actions(.finished(type: replyType, format: replyFormat))
            }
            var actions = accept(value.bytes)
            if phase == .failed { return actions }
            if value.bytesAfter > 0 {
                readOffset &+= UInt32(value.bytes.count / 4)
                actions.append(.getProperty(window: window, property: property, offset: readOffset, delete: true))
                return actions
            }
            awaitChunk(now)
            return actions
        default:
            return Actions()
        }
    }

    /// Handles `PropertyNotify` on our window: a new value is the next INCR chunk.
    public mutating func propertyNotify(window: XWindow, atom: XAtom, deleted: Bool, now: UInt64) -> Actions {
        guard phase == .awaitingChunk, window == self.window, atom == property, !deleted else { return Actions() }
        phase = .readingChunk
        readOffset = 0
        nextDeadline = nil
        return Actions(.getProperty(window: window, property: property, offset: 0, delete: true))
    }

    /// Fails the conversion when its deadline has passed.
    public mutating func tick(now: UInt64) -> Actions {
        guard let deadline = nextDeadline, deadline <= now, !isDone else { return Actions() }
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

    private mutating func awaitChunk(_ now: UInt64) {
        phase = .awaitingChunk
        nextDeadline = now &+ stepTimeout
    }

    private mutating func accept(_ bytes: Data) -> Actions {
        receivedBytes += bytes.count
        if isDiscarding { return Actions() }
        if receivedBytes > maxBytes {
            if truncatesOverLimit {
                // The head is kept; the rest (of a plain reply, or an INCR transfer) is read and dropped.
                isTruncated = true
                isDiscarding = true
                let fits = bytes.count - (receivedBytes - maxBytes)
                return fits > 0 ? Actions(.deliver(bytes.prefix(fits))) : Actions()
            }
            if drainsOverLimit, usedIncr {
                isDiscarding = true
                return Actions()
            }
            return fail(.tooLarge(limit: maxBytes))
        }
        return bytes.isEmpty ? Actions() : Actions(.deliver(bytes))
    }

    private mutating func fail(_ failure: ConversionFailure) -> Actions {
        phase = .failed
        nextDeadline = nil
        if usedIncr || failure != .refused {
            return Actions(.deleteProperty(window: window, property: property), .failed(failure))
        }
        return Actions(.failed(failure))
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

/// Reads a selection from whichever client owns it: the driver of ``ConversionStateMachine``.
public final class X11SelectionReader {
    public let connection: XConnection
    public let selection: XAtom
    /// Seconds allowed for each step the owner must take (answering, each INCR chunk).
    public var stepTimeout: Double
    /// The most bytes accepted for one conversion.
    public var maxBytes: Int
    private var time: XTimestamp?
    private var watching = false
    private var conversionCount = 0

    public init(connection: XConnection, selection: X11Selection, stepTimeout: Double = 5, maxBytes: Int = 1 << 34) {
        self.connection = connection
        self.selection = connection.atoms[selection.knownAtom]
        self.stepTimeout = stepTimeout
        self.maxBytes = maxBytes
        XConnection.keepFreedMemoryForReuse()
    }

    /// The known atoms ``readDecoded(target:sameType:into:)`` of UTF8_STRING uses, and so all a
    /// connection made for one such read needs to intern (``XConnection/init(display:interning:)``).
    public static func atomsForReading(_ selection: X11Selection) -> KnownAtomSet {
        KnownAtomSet().adding(selection.knownAtom).adding(.utf8String).adding(.pbctlData).adding(.incr)
    }

    /// The current owner window, 0 when nobody owns the selection.
    /// Also starts a fresh server timestamp for the next conversion (its probe rides along with this
    /// round trip), so a reader kept across owners never asks with a time older than the owner's.
    public func owner() throws -> XWindow {
        connection.sendTimeProbe()
        time = nil
        return try connection.selectionOwner(selection)
    }

    /// The owner's targets by name, in its order (TARGETS typed ATOM, or TARGETS as some owners send).
    /// - Throws: ``PasteboardError`` `.empty` when nobody owns the selection or it refuses TARGETS.
    public func targets() throws -> [String] {
        var bytes = Data()
        var format: UInt8 = 0
        do {
            (_, format) = try convert(target: connection.atoms[.targets], property: connection.atoms[.pbctlTargets]) {
                bytes.append($0)
            }
        } catch let failure as ConversionFailure where failure == .refused {
            throw PasteboardError.empty()
        }
        let value = PropertyValue(type: PredefinedAtom.atom, format: format == 32 ? 32 : 32, bytes: bytes)
        let atoms = (value.items32 ?? []).filter { $0 != 0 }
        return try connection.names(of: atoms).compactMap { $0 }.filter { !$0.isEmpty }
    }

    /// Converts the selection to `target` and streams the reply's bytes to `sink`.
    /// - Returns: the reply's type name (nil when the server does not know it) and format.
    /// - Throws: ``ConversionFailure`` (`.refused` when the target is not served, `.timedOut` when the
    ///   owner stalls or dies), ``PasteboardError`` `.unavailable` when the connection is lost.
    @discardableResult
    public func read(target: String, into sink: (Data) throws -> Void) throws -> (type: String?, format: UInt8) {
        let atom = try connection.intern(target)
        let (type, format) = try convert(target: atom, property: connection.atoms[.pbctlData], into: sink)
        let typeName = type == PredefinedAtom.none ? nil : try connection.name(of: type)
        return (typeName, format)
    }

    /// Reads `target` whole and decodes text targets to UTF-8 (STRING as Latin-1, HTML sniffed for a
    /// UTF-16 byte-order mark).
    /// - Parameter sameType: when set, a reply whose type is not `target` itself counts as a refusal
    ///   (thrown before any byte reaches `sink`): for a caller that asked without reading TARGETS first
    ///   and would rather negotiate than trust an owner that answers every target with its one type
    ///   (xclip -t STRING sends its Latin-1 bytes, typed STRING, for UTF8_STRING too).
    public func readDecoded(target: String, sameType: Bool = false, into sink: (Data) throws -> Void) throws {
        var transcoder: TextTranscoder?
        let atom = try connection.intern(target)
        var typeResolved = false
        var typeName: String?
        let (type, _) = try convert(target: atom, property: connection.atoms[.pbctlData]) { chunk in
            if !typeResolved {
                if sameType, lastReplyType != atom { throw ConversionFailure.refused }
                typeResolved = true
                typeName = (try? connection.name(of: lastReplyType)) ?? nil
                transcoder = TextTranscoder(mode: TextTranscoder.mode(target: target, replyType: typeName))
            }
            let out = transcoder!.feed(chunk)
            if !out.isEmpty { try sink(out) }
        }
        _ = type
        if var transcoder {
            let rest = transcoder.finish()
            if !rest.isEmpty { try sink(rest) }
        }
    }

    private var lastReplyType: XAtom = 0

    /// Runs one conversion to completion.
    private func convert(target: XAtom, property: XAtom, into sink: (Data) throws -> Void) throws -> (XAtom, UInt8) {
        let startTime: XTimestamp
        if let time { startTime = time } else {
            startTime = try connection.serverTime()
            time = startTime
        }
        conversionCount += 1
        var machine = ConversionStateMachine(
            window: connection.utilityWindow, selection: selection, target: target, property: property,
            incrAtom: connection.atoms[.incr], stepTimeout: UInt64(max(0.05, stepTimeout) * 1e9), maxBytes: maxBytes)
        let conversionStart = MonotonicClock.nanoseconds()
        var actions = machine.start(now: conversionStart, time: startTime)
        var result: (XAtom, UInt8)?
        var ownerGone = false
        // Events this conversion does not consume go back to the queue for the caller (a watcher).
        var deferred: [X11Event] = []
        defer { connection.pushBack(deferred) }
        while true {
            var index = 0
            while index < actions.count {
                let action = actions[index]
                index += 1
                switch action {
                case .deleteProperty(let window, let property):
                    connection.deleteProperty(window: window, property: property)
                case .convertSelection(let selection, let target, let property, let requestor, let time):
                    connection.convertSelection(selection: selection, target: target, property: property,
                                                requestor: requestor, time: time)
                case .getProperty(let window, let property, let offset, let delete):
                    let value = try connection.getProperty(window: window, property: property, offset: offset,
                                                           delete: delete)
                    lastReplyType = value.type
                    // A GetProperty is the last of its list: the answer's actions come next.
                    precondition(index == actions.count, "GetProperty is the last action of a step")
                    actions = machine.propertyValue(value, now: MonotonicClock.nanoseconds())
                    index = 0
                case .deliver(let bytes):
                    lastReplyType = machine.replyType
                    try sink(bytes)
                case .finished(let type, let format):
                    result = (type, format)
                case .failed(let failure):
                    try connection.flush()
                    if ownerGone, case .timedOut = failure {
                        throw PasteboardError(.timedOut, "the selection owner exited before the transfer completed")
                    }
                    throw failure
                }
            }
            if let result { try connection.flush(); return result }
            // Learn at once when the owner exits mid-transfer rather than waiting for the deadline: asked
            // for once the transfer takes longer than an answer does (an INCR transfer, an owner that has
            // not answered within 20 ms), so a quick paste spends no round trip on it. An owner that is
            // already gone by then has left the selection without an owner: asked for too.
            if !watching, machine.usedIncr || MonotonicClock.nanoseconds() >= conversionStart + 20_000_000 {
                watching = true
                if connection.xfixesFirstEvent != nil {
                    try? connection.watchSelection(selection, window: connection.utilityWindow)
                }
                if machine.phase == .awaitingNotify, (try? connection.selectionOwner(selection)) == 0 {
                    ownerGone = true
                }
            }
            try connection.flush()
            var deadline = ownerGone ? MonotonicClock.nanoseconds() : machine.nextDeadline
            if !watching, let limit = deadline { deadline = min(limit, conversionStart + 20_000_000) }
            let event = try connection.nextEvent(deadline: deadline)
            let now = MonotonicClock.nanoseconds()
            switch event {
            case .selectionNotify(let notify, _)?:
                actions = machine.selectionNotify(notify, now: now)
            // A requestor window's property events (an INCR transfer this process serves meanwhile, as the
            // clipboard manager does) go back to the queue with the other events it does not consume.
            case .propertyNotify(let window, let atom, _, let deleted)? where window == connection.utilityWindow:
                actions = machine.propertyNotify(window: window, atom: atom, deleted: deleted, now: now)
            case .selectionChanged(let kind, let changed, _, _, _)?:
                if changed == selection, kind != .setOwner, machine.phase != .readingProperty {
                    ownerGone = true
                }
                deferred.append(event!)
                actions = ConversionStateMachine.Actions()
            case nil:
                actions = machine.tick(now: ownerGone ? UInt64.max : now)
            case .some(let other):
                deferred.append(other)
                actions = ConversionStateMachine.Actions()
            }
        }
    }
}

extension ConversionFailure: CustomStringConvertible {
    public var description: String {
        switch self {
        case .refused: return "the selection owner refused the conversion"
        case .timedOut(let phase): return "the selection owner stopped answering (\(phase))"
        case .tooLarge(let limit): return "the selection is larger than \(limit) bytes"
        case .malformed(let what): return "the selection owner sent a malformed reply: \(what)"
        }
    }
}

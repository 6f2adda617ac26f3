#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Produces what an owner serves, target by target.
///
/// Conversions may be slow; implementations produce each target on first request and cache it.
public protocol SelectionContentSource: AnyObject {
    /// The content targets for which conversion may succeed, preferred first (protocol targets such as
    /// TARGETS are added by the state machine).
    var targets: [XAtom] { get }
    /// The reply for `target`, or nil when it cannot be served (the request is then refused).
    func content(for target: XAtom) -> ServedContent?
}

/// One `ChangeProperty` the driver performs.
public struct PropertyWrite: Sendable, Equatable {
    public var window: XWindow
    public var property: XAtom
    public var type: XAtom
    public var format: UInt8
    public var bytes: Data

    public init(window: XWindow, property: XAtom, type: XAtom, format: UInt8, bytes: Data) {
        self.window = window
        self.property = property
        self.type = type
        self.format = format
        self.bytes = bytes
    }
}

/// Identifies one transfer: a requestor window and the property it named (ICCCM allows one window to
/// run several conversions at once into different properties).
public struct TransferKey: Hashable, Sendable, CustomStringConvertible {
    public var window: XWindow
    public var property: XAtom
    public init(window: XWindow, property: XAtom) {
        self.window = window
        self.property = property
    }
    public var description: String { "window 0x\(String(window, radix: 16)) property \(property)" }
}

/// The owner side of ICCCM §2.2 (TARGETS, TIMESTAMP, MULTIPLE, side effects) and §2.7.2 (INCR), as a
/// pure state machine: it consumes events and returns the actions a driver performs with libxcb.
///
/// Each INCR transfer is keyed by (requestor window, property) and has its own deadline, so a
/// requestor that stalls, dies or misbehaves never delays the others.
public struct SelectionOwnerStateMachine {
    public struct Configuration: Sendable {
        /// Replies larger than this go out with INCR.
        public var incrThreshold: Int
        /// Bytes per INCR chunk.
        public var chunkSize: Int
        /// How long a requestor may take for each INCR step, in nanoseconds.
        public var stepTimeout: UInt64
        /// Concurrent INCR transfers, in all and per requestor window.
        public var maxTransfers: Int
        public var maxTransfersPerWindow: Int

        public init(
            incrThreshold: Int = 2 << 20, chunkSize: Int = 2 << 20, stepTimeout: UInt64 = 5_000_000_000,
            maxTransfers: Int = 64, maxTransfersPerWindow: Int = 8
        ) {
            self.incrThreshold = max(1, incrThreshold)
            self.chunkSize = max(1, chunkSize)
            self.stepTimeout = stepTimeout
            self.maxTransfers = maxTransfers
            self.maxTransfersPerWindow = maxTransfersPerWindow
        }

        /// Sizes derived from the server's maximum request length (in bytes): one ChangeProperty carries
        /// at most `maxRequestBytes - 24` bytes of data. Chunks are capped at 2 MiB: large enough for
        /// throughput, and below the 4,000,000 bytes xsel reads with one GetProperty (it ignores
        /// bytes-after, so a larger property stalls its INCR loop).
        public static func forServer(maxRequestBytes: Int) -> Configuration {
            let perRequest = max(4096, maxRequestBytes - 24)
            let size = min(perRequest, 2 << 20)
            return Configuration(incrThreshold: size, chunkSize: size)
        }
    }

    public enum AbortReason: Sendable, Equatable {
        case timedOut, windowDestroyed, writeFailed, replaced, tooManyTransfers
    }

    public enum Action: Sendable, Equatable {
        /// Perform `writes` (checking each), then send `notify`; if a write fails, send the notify with
        /// property None instead and call ``SelectionOwnerStateMachine/writeFailed(window:)``.
        case reply(writes: [PropertyWrite], notify: SelectionNotify)
        /// Send a refusal or a confirmation that needs no property writes.
        case sendNotify(SelectionNotify)
        /// Write one INCR chunk (or the zero-length end marker) without notifying.
        case writeChunk(PropertyWrite)
        /// Read the MULTIPLE parameter property, then call ``handleMultiple(_:parameters:now:)``.
        case fetchMultipleParameters(SelectionRequest)
        /// Select PropertyChange and StructureNotify on a requestor window (first transfer to it).
        case watchWindow(XWindow)
        /// Stop watching a requestor window (its last transfer ended).
        case unwatchWindow(XWindow)
        /// A content transfer (not a protocol target) was handed over completely.
        case transferCompleted(TransferKey, target: XAtom)
        case transferAborted(TransferKey, AbortReason)
    }

    private struct Offer {
        var window: XWindow
        var acquired: XTimestamp
        var source: SelectionContentSource
    }

    private struct Transfer {
        var target: XAtom
        var content: ServedContent
        /// Bytes already written; equals the count once the last chunk is out.
        var offset: Int
        var deadline: UInt64
    }

    public let atoms: KnownAtoms
    public var configuration: Configuration
    private var offers: [XAtom: Offer] = [:]
    private var transfers: [TransferKey: Transfer] = [:]
    private var watchCount: [XWindow: Int] = [:]

    public init(atoms: KnownAtoms, configuration: Configuration = Configuration()) {
        self.atoms = atoms
        self.configuration = configuration
    }

    // MARK: Ownership

    /// Records that we own `selection` through `window` since `time`.
    public mutating func claimed(_ selection: XAtom, window: XWindow, time: XTimestamp, source: SelectionContentSource) {
        offers[selection] = Offer(window: window, acquired: time, source: source)
    }

    /// Forgets `selection` (SelectionClear, or giving it up). Transfers in flight continue (ICCCM §2.2).
    public mutating func released(_ selection: XAtom) { offers[selection] = nil }

    public func owns(_ selection: XAtom) -> Bool { offers[selection] != nil }
    public func acquisitionTime(of selection: XAtom) -> XTimestamp? { offers[selection]?.acquired }
    public var ownedSelections: [XAtom] { Array(offers.keys) }
    public var activeTransfers: Int { transfers.count }
    public var hasTransfers: Bool { !transfers.isEmpty }

    /// Whether a `SelectionClear` is stale: it predates our acquisition (GTK4 and Qt filter these).
    public func isStaleClear(selection: XAtom, time: XTimestamp) -> Bool {
        guard let offer = offers[selection] else { return true }
        return time != 0 && time.isEarlier(than: offer.acquired)
    }

    /// The earliest transfer deadline, for the driver's poll timeout.
    public var nextDeadline: UInt64? { transfers.values.map(\.deadline).min() }

    // MARK: Requests

    /// Handles one `SelectionRequest`.
    public mutating func handle(_ request: SelectionRequest, now: UInt64) -> [Action] {
        var request = request
        guard let offer = offers[request.selection] else { return [refuse(request)] }
        if request.time != 0 && request.time.isEarlier(than: offer.acquired) { return [refuse(request)] }
        if request.property == PredefinedAtom.none {
            // Obsolete requestor: the target names the property (ICCCM §2.2); MULTIPLE needs a real one.
            if request.target == atoms[.multiple] { return [refuse(request)] }
            request.property = request.target
        }
        if request.target == atoms[.multiple] { return [.fetchMultipleParameters(request)] }

        var actions: [Action] = []
        guard let write = convert(request.target, for: request.requestor, into: request.property, offer: offer,
                                  now: now, actions: &actions)
        else { return actions + [refuse(request)] }
        actions.append(.reply(writes: [write], notify: notify(request, property: request.property)))
        if !isProtocolTarget(request.target), transfers[TransferKey(window: request.requestor, property: request.property)] == nil {
            actions.append(.transferCompleted(TransferKey(window: request.requestor, property: request.property), target: request.target))
        }
        return actions
    }

    /// Finishes a MULTIPLE request once its parameter property has been read (nil: it does not exist).
    public mutating func handleMultiple(_ request: SelectionRequest, parameters: PropertyValue?, now: UInt64) -> [Action] {
        guard let offer = offers[request.selection],
            let parameters, parameters.exists,
            parameters.type == atoms[.atomPair] || parameters.type == PredefinedAtom.atom,
            var pairs = parameters.items32, pairs.count >= 2
        else { return [refuse(request)] }
        if pairs.count % 2 == 1 { pairs.removeLast() }

        var actions: [Action] = []
        var writes: [PropertyWrite] = []
        var completed: [Action] = []
        for index in stride(from: 0, to: pairs.count, by: 2) {
            let target = pairs[index]
            let property = pairs[index + 1]
            // Nested MULTIPLE would recurse (GTK4 and Chromium refuse it); None is not a valid property.
            guard target != atoms[.multiple], target != PredefinedAtom.none, property != PredefinedAtom.none,
                property != request.property,
                let write = convert(target, for: request.requestor, into: property, offer: offer, now: now,
                                    actions: &actions)
            else {
                pairs[index + 1] = PredefinedAtom.none
                continue
            }
            writes.append(write)
            let key = TransferKey(window: request.requestor, property: property)
            if !isProtocolTarget(target), transfers[key] == nil {
                completed.append(.transferCompleted(key, target: target))
            }
        }
        writes.append(PropertyWrite(window: request.requestor, property: request.property, type: atoms[.atomPair],
                                    format: 32, bytes: PropertyValue.bytes(of: pairs)))
        return actions + [.reply(writes: writes, notify: notify(request, property: request.property))] + completed
    }

    /// Handles `PropertyNotify`: a deletion on a requestor window advances that window's INCR transfer.
    public mutating func propertyNotify(window: XWindow, atom: XAtom, deleted: Bool, now: UInt64) -> [Action] {
        let key = TransferKey(window: window, property: atom)
        guard deleted, var transfer = transfers[key] else { return [] }
        let total = transfer.content.bytes.count
        if transfer.offset >= total {
            // The last chunk was consumed: write the zero-length end marker and finish.
            transfers[key] = nil
            var actions: [Action] = [
                .writeChunk(PropertyWrite(window: window, property: atom, type: transfer.content.type,
                                          format: transfer.content.format, bytes: Data()))
            ]
            actions += unwatch(window)
            actions.append(.transferCompleted(key, target: transfer.target))
            return actions
        }
        let end = min(total, transfer.offset + configuration.chunkSize)
        let bytes = transfer.content.bytes
        let start = bytes.startIndex + transfer.offset
        let chunk = bytes[start..<(bytes.startIndex + end)]
        transfer.offset = end
        transfer.deadline = now &+ configuration.stepTimeout
        transfers[key] = transfer
        return [.writeChunk(PropertyWrite(window: window, property: atom, type: transfer.content.type,
                                          format: transfer.content.format, bytes: chunk))]
    }

    /// Handles `DestroyNotify` of a requestor window (or a BadWindow error for it).
    public mutating func windowDestroyed(_ window: XWindow) -> [Action] {
        let keys = transfers.keys.filter { $0.window == window }
        for key in keys { transfers[key] = nil }
        watchCount[window] = nil
        return keys.map { .transferAborted($0, .windowDestroyed) }
    }

    /// A checked write to `window` failed (BadWindow, BadAlloc): drop its transfers.
    public mutating func writeFailed(window: XWindow) -> [Action] {
        let keys = transfers.keys.filter { $0.window == window }
        var actions: [Action] = []
        for key in keys {
            transfers[key] = nil
            actions += unwatch(window)
            actions.append(.transferAborted(key, .writeFailed))
        }
        return actions
    }

    /// Drops transfers whose requestor did not take the next step in time.
    public mutating func tick(now: UInt64) -> [Action] {
        let expired = transfers.filter { $0.value.deadline <= now }.map(\.key)
        var actions: [Action] = []
        for key in expired {
            transfers[key] = nil
            actions += unwatch(key.window)
            actions.append(.transferAborted(key, .timedOut))
        }
        return actions
    }

    // MARK: Conversion

    private func isProtocolTarget(_ target: XAtom) -> Bool {
        target == atoms[.targets] || target == atoms[.timestamp] || target == atoms[.multiple]
            || target == atoms[.saveTargets]
    }

    /// The targets listed in the TARGETS reply: the protocol targets, then the content targets.
    public func advertisedTargets(for selection: XAtom) -> [XAtom] {
        guard let offer = offers[selection] else { return [] }
        return advertisedTargets(offer)
    }

    private func advertisedTargets(_ offer: Offer) -> [XAtom] {
        var seen = Set<XAtom>()
        return ([atoms[.targets], atoms[.timestamp], atoms[.multiple], atoms[.saveTargets]] + offer.source.targets)
            .filter { seen.insert($0).inserted }
    }

    /// Converts `target` and returns the write that answers it; starts an INCR transfer when the content is
    /// large. Nil when the target cannot be served.
    private mutating func convert(
        _ target: XAtom, for requestor: XWindow, into property: XAtom, offer: Offer, now: UInt64,
        actions: inout [Action]
    ) -> PropertyWrite? {
        let content: ServedContent
        if target == atoms[.targets] {
            let list = advertisedTargets(offer)
            content = ServedContent(type: PredefinedAtom.atom, format: 32, bytes: PropertyValue.bytes(of: list))
        } else if target == atoms[.timestamp] {
            content = ServedContent(type: PredefinedAtom.integer, format: 32, bytes: PropertyValue.bytes(of: [offer.acquired]))
        } else if target == atoms[.saveTargets] {
            // A side-effect target with nothing to do for an owner: acknowledge with type NULL (ICCCM §2.6.3).
            content = ServedContent(type: atoms[.null], format: 32, bytes: Data())
        } else if offer.source.targets.contains(target), let served = offer.source.content(for: target) {
            content = served
        } else {
            return nil
        }
        guard [8, 16, 32].contains(content.format), content.bytes.count % Int(content.format / 8) == 0 else { return nil }

        let key = TransferKey(window: requestor, property: property)
        if transfers[key] != nil {
            // The requestor reuses the property: it gave up on the old transfer.
            transfers[key] = nil
            actions += unwatch(requestor)
            actions.append(.transferAborted(key, .replaced))
        }
        guard content.bytes.count > configuration.incrThreshold else {
            return PropertyWrite(window: requestor, property: property, type: content.type, format: content.format,
                                 bytes: content.bytes)
        }
        guard content.format == 8, transfers.count < configuration.maxTransfers,
            transfers.keys.filter({ $0.window == requestor }).count < configuration.maxTransfersPerWindow
        else {
            if content.format == 8 { actions.append(.transferAborted(key, .tooManyTransfers)) }
            return nil
        }
        transfers[key] = Transfer(target: target, content: content, offset: 0, deadline: now &+ configuration.stepTimeout)
        watchCount[requestor, default: 0] += 1
        if watchCount[requestor] == 1 { actions.append(.watchWindow(requestor)) }
        // The INCR value is a lower bound on the size (ICCCM §2.7.2); readers must not trust it anyway.
        let lowerBound = UInt32(clamping: content.bytes.count)
        return PropertyWrite(window: requestor, property: property, type: atoms[.incr], format: 32,
                             bytes: PropertyValue.bytes(of: [lowerBound]))
    }

    private mutating func unwatch(_ window: XWindow) -> [Action] {
        guard let count = watchCount[window] else { return [] }
        if count <= 1 {
            watchCount[window] = nil
            return [.unwatchWindow(window)]
        }
        watchCount[window] = count - 1
        return []
    }

    private func notify(_ request: SelectionRequest, property: XAtom) -> SelectionNotify {
        SelectionNotify(requestor: request.requestor, selection: request.selection, target: request.target,
                        property: property, time: request.time)
    }

    private func refuse(_ request: SelectionRequest) -> Action {
        .sendNotify(notify(request, property: PredefinedAtom.none))
    }
}

import Foundation
import Pasteboard
import PasteboardX11

/// Reads fuzz input as a stream of small numbers; past the end every read is zero, so a decoder
/// built on it always ends.
struct FuzzByteStream {
    let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint32() -> UInt32 {
        UInt32(byte()) | UInt32(byte()) << 8 | UInt32(byte()) << 16 | UInt32(byte()) << 24
    }

    /// Up to `limit` bytes of data (the count comes from the stream).
    mutating func data(limit: Int) -> Data {
        let count = min(Int(byte()) % (limit + 1), bytes.count - min(position, bytes.count))
        defer { position += count }
        return Data(bytes[position..<(position + count)])
    }

    /// One of a few interesting values, or any 32-bit value.
    mutating func pick(_ choices: [UInt32]) -> UInt32 {
        let b = byte()
        if Int(b) < choices.count * 32 { return choices[Int(b) % choices.count] }
        return uint32()
    }
}

/// Drives the requestor (``ConversionStateMachine``), owner (``SelectionOwnerStateMachine``) and
/// daemon fetch (``SelectionFetchStateMachine``) and manager (``ClipboardManagerStateMachine``) state
/// machines with an event sequence decoded from the input. Every step consumes input and the
/// sequence is capped, so a run always ends; the machines must never trap whatever arrives.
enum X11ProtocolFuzzer {
    static let atoms = KnownAtoms.forTesting
    static let window: XWindow = 0x100
    static let requestor: XWindow = 0x200
    static let property: XAtom = 6000
    static let html: XAtom = 5000
    static let maxSteps = 512

    final class Source: SelectionContentSource {
        var table: [XAtom: ServedContent]
        init(_ table: [XAtom: ServedContent]) { self.table = table }
        var targets: [XAtom] { table.keys.sorted() }
        func content(for target: XAtom) -> ServedContent? { table[target] }
    }

    static func run(_ input: [UInt8]) {
        var stream = FuzzByteStream(input)
        switch stream.byte() % 4 {
        case 0: requestor(&stream)
        case 1: owner(&stream)
        case 2: fetch(&stream)
        default: manager(&stream)
        }
    }

    static func interestingAtoms() -> [UInt32] {
        [0, property, html, atoms[.clipboard], atoms[.primary], atoms[.targets], atoms[.incr], atoms[.multiple],
         atoms[.timestamp], atoms[.utf8String], atoms[.saveTargets], PredefinedAtom.atom, PredefinedAtom.string, 1]
    }

    static func propertyValue(_ stream: inout FuzzByteStream) -> PropertyValue {
        let type = stream.pick(interestingAtoms())
        let format = UInt8(truncatingIfNeeded: stream.pick([0, 8, 16, 32]))
        let bytes = stream.data(limit: 96)
        let after = stream.pick([0, 1, 3, 4, 64, UInt32.max, UInt32.max / 2])
        return PropertyValue(type: type, format: format, bytes: bytes, bytesAfter: after)
    }

    static func requestor(_ stream: inout FuzzByteStream) {
        var machine = ConversionStateMachine(
            window: window, selection: atoms[.clipboard], target: html, property: property, incrAtom: atoms[.incr],
            stepTimeout: 1000, maxBytes: Int(stream.pick([16, 1024, 1 << 20])))
        var now: UInt64 = 0
        _ = machine.start(now: now, time: 0)
        var steps = 0
        while !stream.isAtEnd && steps < maxSteps && !machine.isDone {
            steps += 1
            now &+= UInt64(stream.byte())
            switch stream.byte() % 4 {
            case 0:
                let notify = SelectionNotify(
                    requestor: stream.pick([window, requestor]), selection: stream.pick(interestingAtoms()),
                    target: stream.pick(interestingAtoms()), property: stream.pick(interestingAtoms()), time: stream.uint32())
                _ = machine.selectionNotify(notify, now: now)
            case 1:
                _ = machine.propertyValue(propertyValue(&stream), now: now)
            case 2:
                _ = machine.propertyNotify(
                    window: stream.pick([window, requestor]), atom: stream.pick(interestingAtoms()),
                    deleted: stream.byte() & 1 == 1, now: now)
            default:
                now &+= UInt64(stream.uint32())
                _ = machine.tick(now: now)
            }
        }
    }

    static func owner(_ stream: inout FuzzByteStream) {
        var machine = SelectionOwnerStateMachine(
            atoms: atoms,
            configuration: .init(incrThreshold: Int(stream.byte()) + 1, chunkSize: Int(stream.byte()) + 1, stepTimeout: 1000,
                                 maxTransfers: 4, maxTransfersPerWindow: 2))
        let source = Source([html: ServedContent(type: html, bytes: stream.data(limit: 255)),
                             atoms[.utf8String]: ServedContent(type: atoms[.utf8String], bytes: Data("text".utf8))])
        machine.claimed(atoms[.clipboard], window: window, time: 500, source: source)
        var now: UInt64 = 0
        var steps = 0
        while !stream.isAtEnd && steps < maxSteps {
            steps += 1
            now &+= UInt64(stream.byte())
            let request = SelectionRequest(
                owner: stream.pick([window, requestor]), requestor: stream.pick([requestor, window, 0x300, 0]),
                selection: stream.pick(interestingAtoms()), target: stream.pick(interestingAtoms()),
                property: stream.pick(interestingAtoms()), time: stream.uint32())
            switch stream.byte() % 7 {
            case 0:
                _ = machine.handle(request, now: now)
            case 1:
                let parameters: PropertyValue? = stream.byte() & 1 == 0 ? nil : propertyValue(&stream)
                _ = machine.handleMultiple(request, parameters: parameters, now: now)
            case 2:
                _ = machine.propertyNotify(
                    window: request.requestor, atom: request.property, deleted: stream.byte() & 1 == 1, now: now)
            case 3:
                _ = machine.windowDestroyed(request.requestor)
            case 4:
                _ = machine.writeFailed(window: request.requestor)
            case 5:
                now &+= UInt64(stream.uint32())
                _ = machine.tick(now: now)
            default:
                if stream.byte() & 1 == 0 {
                    machine.released(atoms[.clipboard])
                } else {
                    machine.claimed(atoms[.clipboard], window: window, time: request.time, source: source)
                }
            }
        }
    }

    static func fetch(_ stream: inout FuzzByteStream) {
        let choices: [SelectionFetchStateMachine.Choice] = [.save, .snapshot, .text]
        let choice = choices[Int(stream.byte()) % choices.count]
        let configuration = SelectionFetchStateMachine.Configuration(
            choice: choice, listed: stream.byte() & 1 == 0 ? nil : ["text/html", "UTF8_STRING"],
            limits: ClipboardManagerStateMachine.Limits(maxTargetBytes: 256, maxTotalBytes: 1024, maxTargets: 8),
            stepTimeout: 1000, fetchTimeout: 10_000)
        var machine = SelectionFetchStateMachine(atoms: atoms, selection: atoms[.clipboard], window: window, configuration: configuration)
        var now: UInt64 = 0
        _ = machine.start(now: now, time: 0)
        var steps = 0
        while !stream.isAtEnd && steps < maxSteps {
            steps += 1
            now &+= UInt64(stream.byte())
            switch stream.byte() % 9 {
            case 0:
                let notify = SelectionNotify(
                    requestor: stream.pick([window, requestor]), selection: stream.pick(interestingAtoms()),
                    target: stream.pick(interestingAtoms()), property: stream.pick(interestingAtoms()), time: stream.uint32())
                _ = machine.selectionNotify(notify, now: now)
            case 1:
                _ = machine.propertyValue(propertyValue(&stream), now: now)
            case 2:
                _ = machine.propertyNotify(
                    window: stream.pick([window, requestor]), atom: stream.pick(interestingAtoms()),
                    deleted: stream.byte() & 1 == 1, now: now)
            case 3:
                _ = machine.propertyUnreadable(now: now)
            case 4:
                let count = Int(stream.byte() % 16)
                let names: [String?] = (0..<count).map { _ in
                    let b = stream.byte()
                    return b == 0 ? nil : ["text/html", "UTF8_STRING", "TARGETS", "x-kde-passwordManagerHint", "image/png",
                                           String(decoding: stream.data(limit: 12), as: UTF8.self)][Int(b) % 6]
                }
                _ = machine.namesResolved(names, now: now)
            case 5:
                let count = Int(stream.byte() % 16)
                _ = machine.interned((0..<count).map { _ in stream.pick(interestingAtoms()) }, now: now)
            case 6:
                _ = machine.windowReplaced(stream.pick([window, requestor, 0x300]), now: now)
            case 7:
                _ = machine.ownerVanished(now: now)
            default:
                now &+= UInt64(stream.uint32())
                _ = machine.tick(now: now)
            }
        }
    }

    static func manager(_ stream: inout FuzzByteStream) {
        var machine = ClipboardManagerStateMachine(atoms: atoms)
        let kinds: [SelectionChangeKind] = [.setOwner, .windowDestroyed, .clientClosed]
        var steps = 0
        while !stream.isAtEnd && steps < maxSteps {
            steps += 1
            let selection = stream.pick([atoms[.clipboard], atoms[.primary]])
            let owner = stream.pick([0, window, requestor, 0x300])
            switch stream.byte() % 4 {
            case 0:
                _ = machine.selectionChanged(
                    selection: selection, kind: kinds[Int(stream.byte()) % kinds.count], owner: owner, ours: [window])
            case 1:
                _ = machine.snapshotFinished(selection: selection, owner: owner, kept: stream.byte() & 1 == 1)
            case 2:
                machine.claimed(selection)
            default:
                let request = SelectionRequest(
                    owner: window, requestor: owner, selection: stream.pick(interestingAtoms()),
                    target: stream.pick(interestingAtoms()), property: stream.pick(interestingAtoms()), time: stream.uint32())
                _ = machine.managerRequest(request, acquired: stream.uint32())
            }
            _ = ClipboardManagerStateMachine.targetsToSave(["TARGETS", "text/html", String(decoding: stream.data(limit: 8), as: UTF8.self)])
        }
    }
}

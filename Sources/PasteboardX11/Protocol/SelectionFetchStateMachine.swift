#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The clipboard manager fetching one selection's content from its owner, as a pure state machine:
/// TARGETS, the sensitivity check (nspasteboard.org markers, the KDE hint's value), then each chosen
/// target in turn through a ``ConversionStateMachine``. Every step waiting on the owner has a deadline,
/// and so has the whole fetch.
///
/// It never waits itself: the driver performs the actions, feeds back the owner's events and the
/// server's answers (property values, atom names, interned atoms), and handles other clients' requests
/// between any two steps, so a slow or stalled owner never delays what the manager serves.
public struct SelectionFetchStateMachine {
    /// Which of the offered targets are fetched.
    public enum Choice: Sendable, Equatable {
        /// SAVE_TARGETS: everything worth saving (``ClipboardManagerStateMachine/targetsToSave(_:limits:)``).
        case save
        /// The copy kept of every CLIPBOARD owner (``ClipboardManagerStateMachine/targetsToSnapshot(_:limits:)``).
        case snapshot
        /// Plain text only (``ClipboardManagerStateMachine/textTargetsToSnapshot(_:limits:)``), for PRIMARY.
        case text
    }

    public struct Configuration: Sendable {
        public var choice: Choice
        /// The targets the owner asked to save (SAVE_TARGETS with a list); nil: choose from TARGETS.
        public var listed: [String]?
        public var limits: ClipboardManagerStateMachine.Limits
        /// Nanoseconds allowed for each step the owner takes (answering, each INCR chunk).
        public var stepTimeout: UInt64
        /// Nanoseconds allowed for the whole fetch; targets not fetched by then are skipped.
        public var fetchTimeout: UInt64
        /// Nanoseconds allowed for reading to its end, without keeping it, an INCR transfer that went
        /// over a limit (the owner waits for each chunk to be taken), even past `fetchTimeout`.
        public var drainTimeout: UInt64

        public init(choice: Choice, listed: [String]? = nil, limits: ClipboardManagerStateMachine.Limits,
                    stepTimeout: UInt64 = 2_000_000_000, fetchTimeout: UInt64 = 8_000_000_000,
                    drainTimeout: UInt64 = 60_000_000_000) {
            self.choice = choice
            self.listed = listed
            self.limits = limits
            self.stepTimeout = stepTimeout
            self.fetchTimeout = fetchTimeout
            self.drainTimeout = drainTimeout
        }
    }

    /// One fetched target: served back under `target` with the owner's reply type and format.
    public struct Entry: Sendable, Equatable {
        public var target: XAtom
        public var name: String
        public var type: XAtom
        public var format: UInt8
        public var bytes: Data
    }

    /// A target left out for its size (over `maxTargetBytes`, or past `maxTotalBytes`): `size` is the
    /// whole reply's when known (nil when the owner stopped before the end); or, `cutShort`, because
    /// its owner went away before sending all of it (the target it was sending, and those after it).
    public struct Skipped: Sendable, Equatable {
        public var target: XAtom
        public var name: String
        public var size: Int?
        public var cutShort = false

        public init(target: XAtom, name: String, size: Int?, cutShort: Bool = false) {
            self.target = target
            self.name = name
            self.size = size
            self.cutShort = cutShort
        }
    }

    public enum Outcome: Sendable, Equatable {
        /// What the owner handed over (possibly nothing).
        case kept([Entry])
        /// The content is marked sensitive: nothing was kept.
        case sensitive(reason: String)
        /// The owner answered no TARGETS (and there was no list to try), or exited before answering.
        case failed(reason: String)
    }

    public enum Action: Sendable, Equatable {
        case deleteProperty(window: XWindow, property: XAtom)
        case convertSelection(selection: XAtom, target: XAtom, property: XAtom, requestor: XWindow, time: XTimestamp)
        /// GetProperty; feed the reply to ``propertyValue(_:now:)`` (or ``propertyUnreadable(now:)``).
        case getProperty(window: XWindow, property: XAtom, offset: UInt32, delete: Bool)
        /// Feed the atoms' names to ``namesResolved(_:now:)``.
        case lookUpNames([XAtom])
        /// Feed the atoms to ``interned(_:now:)``.
        case intern([String])
        /// The owner may still write into the current window (an abandoned INCR transfer): destroy it and
        /// feed a fresh one to ``windowReplaced(_:now:)``.
        case replaceWindow(XWindow)
        case log(String)
        /// The fetch is over; its window may be destroyed.
        case finished(Outcome)
    }

    private enum Phase: Equatable { case idle, targets, findingPreferred, resolvingNames, hint, interning, content, replacingWindow, done }

    public let atoms: KnownAtoms
    public let selection: XAtom
    public let configuration: Configuration
    /// The requestor window the conversions name (ours, used by nothing else).
    public private(set) var window: XWindow
    public private(set) var ownerGone = false
    /// The targets left out for their size, in the order asked.
    public private(set) var skipped: [Skipped] = []

    private var phase = Phase.idle
    private var time: XTimestamp = 0
    private var deadline: UInt64 = 0
    /// While an over-limit INCR transfer is drained: when it is given up (the fetch's own deadline does
    /// not cut it, or its owner would wait for us forever).
    private var drainDeadline: UInt64?
    private var conversion: ConversionStateMachine?
    private var buffer = Data()
    private var offered: [String] = []
    /// The atoms TARGETS listed, while the preferred names' atoms are interned (a list too long to look
    /// every name up).
    private var listedAtoms: [XAtom] = []
    private var names: [String] = []
    private var targets: [XAtom] = []
    private var index = 0
    private var entries: [Entry] = []
    private var total = 0

    /// The most bytes of TARGETS read (262,144 atoms): a longer list is cut there, its head used.
    static let maxTargetsBytes = 1 << 20
    /// The most names looked up (one GetAtomName each) besides those known without asking the server
    /// (pbctl's own atoms, and ``ClipboardManagerStateMachine/preferredNames``, found by atom in a longer
    /// list): the first ones offered.
    static let maxLookedUpNames = 4096
    /// The most bytes of the KDE hint read ("secret" or "public").
    static let maxHintBytes = 4096

    public init(atoms: KnownAtoms, selection: XAtom, window: XWindow, configuration: Configuration) {
        self.atoms = atoms
        self.selection = selection
        self.window = window
        self.configuration = configuration
    }

    public var isDone: Bool { phase == .done }

    /// When ``tick(now:)`` must run next (nil when done).
    public var nextDeadline: UInt64? {
        guard phase != .idle, !isDone else { return nil }
        return min(conversion?.nextDeadline ?? currentDeadline, currentDeadline)
    }

    /// The fetch's deadline, or a drain's when later.
    private var currentDeadline: UInt64 { max(deadline, drainDeadline ?? 0) }

    /// Asks the owner for TARGETS, with `time` (a server timestamp) on every conversion.
    public mutating func start(now: UInt64, time: XTimestamp) -> [Action] {
        guard phase == .idle else { return [] }
        self.time = time
        deadline = now &+ configuration.fetchTimeout
        phase = .targets
        return begin(target: atoms[.targets], property: atoms[.pbctlTargets], maxBytes: Self.maxTargetsBytes, now: now,
                     truncates: true)
    }

    // MARK: Events and answers

    /// A `SelectionNotify`; those for other windows or conversions are ignored.
    public mutating func selectionNotify(_ notify: SelectionNotify, now: UInt64) -> [Action] {
        guard notify.requestor == window, var machine = conversion else { return [] }
        let actions = machine.selectionNotify(notify, now: now)
        conversion = machine
        return translate(actions, now: now)
    }

    /// A `PropertyNotify` on our window (the next INCR chunk).
    public mutating func propertyNotify(window: XWindow, atom: XAtom, deleted: Bool, now: UInt64) -> [Action] {
        guard window == self.window, var machine = conversion else { return [] }
        let actions = machine.propertyNotify(window: window, atom: atom, deleted: deleted, now: now)
        conversion = machine
        return translate(actions, now: now)
    }

    /// The reply to the last ``Action/getProperty(window:property:offset:delete:)``.
    public mutating func propertyValue(_ value: PropertyValue, now: UInt64) -> [Action] {
        guard var machine = conversion else { return [] }
        let actions = machine.propertyValue(value, now: now)
        conversion = machine
        return translate(actions, now: now)
    }

    /// The last GetProperty failed (an error reply): the conversion's reply is lost.
    public mutating func propertyUnreadable(now: UInt64) -> [Action] {
        guard conversion != nil else { return [] }
        return conversionFailed(.malformed("the reply property could not be read"), now: now)
    }

    /// The names of the atoms TARGETS listed (nil for an atom the server does not know).
    public mutating func namesResolved(_ resolved: [String?], now: UInt64) -> [Action] {
        guard phase == .resolvingNames else { return [] }
        offered = resolved.compactMap { $0 }.filter { !$0.isEmpty }
        return decide(now: now)
    }

    /// The atoms of the names asked by ``Action/intern(_:)``: the target names to fetch, in the order
    /// asked, or ``ClipboardManagerStateMachine/preferredNames`` for a long TARGETS list.
    public mutating func interned(_ atoms: [XAtom], now: UInt64) -> [Action] {
        if phase == .findingPreferred, atoms.count == ClipboardManagerStateMachine.preferredNames.count {
            phase = .resolvingNames
            let chosen = Self.atomsToLookUp(listedAtoms, known: self.atoms, preferred: Set(atoms))
            listedAtoms = []
            return [.log("TARGETS lists \(chosen.listed) targets: the names of \(chosen.atoms.count) are looked up"),
                    .lookUpNames(chosen.atoms)]
        }
        guard phase == .interning, atoms.count == names.count else { return [] }
        targets = atoms
        index = 0
        phase = .content
        return nextContent(now: now)
    }

    /// The fresh window asked for by ``Action/replaceWindow(_:)``.
    public mutating func windowReplaced(_ window: XWindow, now: UInt64) -> [Action] {
        guard phase == .replacingWindow else { return [] }
        self.window = window
        phase = .content
        return nextContent(now: now)
    }

    /// The owner vanished (client closed or window destroyed): what it has not handed over is lost, so
    /// the fetch ends at once. Before its content was asked for, it ends as it would have; once asked
    /// for, the content was cut short: the target under way and those not asked yet are listed as
    /// ``Skipped/cutShort`` (what was fetched is kept by no keeper: ``FetchVerdict``).
    public mutating func ownerVanished(now: UInt64) -> [Action] {
        guard !isDone else { return [] }
        ownerGone = true
        switch phase {
        case .content, .replacingWindow:
            conversion = nil
            drainDeadline = nil
            buffer = Data()
            for position in index..<targets.count {
                skipped.append(Skipped(target: targets[position], name: names[position], size: nil, cutShort: true))
            }
            let under = index < names.count ? names[index] : "the content"
            return [.log("\(under): \(FetchVerdict.cutShortReason)")] + finish(.kept(entries))
        case .interning:
            skipped += names.map { Skipped(target: 0, name: $0, size: nil, cutShort: true) }
            return [.log("\(FetchVerdict.cutShortReason)")] + finish(.kept(entries))
        default:
            guard conversion != nil else { return finishWithEntries() }
            return conversionFailed(.timedOut(phase: "the owner exited"), now: now)
        }
    }

    /// Which of the atoms TARGETS listed to look up the names of (each once, in the order listed):
    /// pbctl's own, the preferred ones (`preferred`, interned), and the first
    /// ``maxLookedUpNames`` others. `listed`: how many distinct atoms the list held.
    static func atomsToLookUp(_ atoms: [XAtom], known: KnownAtoms, preferred: Set<XAtom>) -> (atoms: [XAtom], listed: Int) {
        var seen = Set<XAtom>()
        var chosen: [XAtom] = []
        var others = 0
        for atom in atoms where atom != 0 && seen.insert(atom).inserted {
            if known.name(of: atom) != nil || preferred.contains(atom) {
                chosen.append(atom)
            } else if others < maxLookedUpNames {
                others += 1
                chosen.append(atom)
            }
        }
        return (chosen, seen.count)
    }

    /// Ends the current step when its deadline, or the whole fetch's, has passed.
    public mutating func tick(now: UInt64) -> [Action] {
        guard phase != .idle, !isDone else { return [] }
        if now >= currentDeadline {
            if drainDeadline != nil, conversion != nil {
                // An owner that never ends a transfer over the limit: given up, as a stalled one is.
                return conversionFailed(.timedOut(phase: "still sending past the limit"), now: now)
            }
            conversion = nil
            return [.log("deadline reached, skipped the remaining targets")] + finishWithEntries()
        }
        guard var machine = conversion else { return [] }
        let actions = machine.tick(now: now)
        conversion = machine
        return translate(actions, now: now)
    }

    // MARK: Steps

    private mutating func begin(target: XAtom, property: XAtom, maxBytes: Int, now: UInt64, truncates: Bool = false) -> [Action] {
        // Over a limit, an INCR transfer is read to its end without being kept: the owner waits for
        // each chunk to be taken, and would wait forever for one nobody takes.
        var machine = ConversionStateMachine(
            window: window, selection: selection, target: target, property: property, incrAtom: atoms[.incr],
            stepTimeout: configuration.stepTimeout, maxBytes: maxBytes, drainsOverLimit: !truncates,
            truncatesOverLimit: truncates)
        buffer = Data()
        drainDeadline = nil
        let actions = machine.start(now: now, time: time)
        conversion = machine
        return translate(actions, now: now)
    }

    private mutating func translate(_ actions: ConversionStateMachine.Actions, now: UInt64) -> [Action] {
        var out: [Action] = []
        if drainDeadline == nil, conversion?.isDiscarding == true {
            // Over the limit: what was kept of it goes (a TARGETS list keeps its head), the rest is drained.
            if conversion?.isTruncated != true { buffer = Data() }
            drainDeadline = now &+ configuration.drainTimeout
        }
        for action in actions {
            switch action {
            case .deleteProperty(let window, let property):
                out.append(.deleteProperty(window: window, property: property))
            case .convertSelection(let selection, let target, let property, let requestor, let time):
                out.append(.convertSelection(selection: selection, target: target, property: property,
                                             requestor: requestor, time: time))
            case .getProperty(let window, let property, let offset, let delete):
                out.append(.getProperty(window: window, property: property, offset: offset, delete: delete))
            case .deliver(let bytes):
                buffer.append(bytes)
                if phase == .content, total + buffer.count > configuration.limits.maxTotalBytes {
                    out.append(.log("\(names[index]) skipped: more than \(configuration.limits.maxTotalBytes) bytes in all"))
                    buffer = Data()
                    if conversion?.discardRest() == true {
                        // Read to its end without being kept; its size is then known.
                        drainDeadline = now &+ configuration.drainTimeout
                        continue
                    }
                    // The rest of this transfer may still arrive in the window's property: a fresh one.
                    skipped.append(Skipped(target: targets[index], name: names[index], size: conversion?.replySize))
                    conversion = nil
                    return out + skipAndReplaceWindow(now: now)
                }
            case .finished(let type, let format):
                return out + conversionFinished(type: type, format: format, now: now)
            case .failed(let failure):
                return out + conversionFailed(failure, now: now)
            }
        }
        return out
    }

    private mutating func conversionFinished(type: XAtom, format: UInt8, now: UInt64) -> [Action] {
        let truncated = conversion?.isTruncated == true
        conversion = nil
        drainDeadline = nil
        switch phase {
        case .targets:
            let value = PropertyValue(type: PredefinedAtom.atom, format: 32, bytes: buffer)
            let listed = (value.items32 ?? []).filter { $0 != 0 }
            let cut: [Action] = truncated ? [.log("TARGETS longer than \(Self.maxTargetsBytes) bytes: its first \(listed.count) targets are used")] : []
            phase = .resolvingNames
            if listed.isEmpty { return cut + namesResolved([], now: now) }
            if listed.count > Self.maxLookedUpNames {
                // Too many names to look up: the preferred ones are found by atom wherever they are.
                phase = .findingPreferred
                listedAtoms = listed
                return cut + [.intern(ClipboardManagerStateMachine.preferredNames)]
            }
            return cut + [.lookUpNames(listed)]
        case .hint:
            if ClipboardManagerStateMachine.isSecret(hintValue: buffer) {
                return finish(.sensitive(reason: "content marked secret (x-kde-passwordManagerHint)"))
            }
            return chooseTargets()
        case .content:
            let target = targets[index]
            let format = [8, 16, 32].contains(format) ? format : 8
            if buffer.count % Int(format / 8) == 0 {
                total += buffer.count
                entries.append(Entry(target: target, name: names[index],
                                     type: type == PredefinedAtom.none ? target : type, format: format, bytes: buffer))
            }
            buffer = Data()
            index += 1
            return nextContent(now: now)
        default:
            return []
        }
    }

    private mutating func conversionFailed(_ failure: ConversionFailure, now: UInt64) -> [Action] {
        let usedIncr = conversion?.usedIncr ?? false
        let discarding = conversion?.isDiscarding == true
        let size = conversion?.replySize
        // A drained INCR transfer's size is known once it reached its end.
        let drainedToEnd = discarding && size != nil
        conversion = nil
        drainDeadline = nil
        buffer = Data()
        switch phase {
        case .targets:
            if !ownerGone, let listed = configuration.listed {
                // No TARGETS: only the list the application gave can be tried.
                offered = listed
                return decide(now: now)
            }
            return finish(.failed(reason: "the owner answered no TARGETS (\(failure))"))
        case .hint:
            // A hint that cannot be read counts as secret.
            return finish(.sensitive(reason: "content marked secret (x-kde-passwordManagerHint)"))
        case .content:
            if case .tooLarge = failure {
                skipped.append(Skipped(target: targets[index], name: names[index], size: size))
            } else if discarding {
                skipped.append(Skipped(target: targets[index], name: names[index], size: nil))
            }
            switch failure {
            case .timedOut:
                // The owner stalled or exited: what it did not hand over is lost.
                return [.log("\(names[index]): \(failure)")] + finishWithEntries()
            case .refused, .tooLarge, .malformed:
                var log = Action.log("\(names[index]) skipped: \(failure)")
                if case .tooLarge = failure, let size { log = .log("\(names[index]) skipped: \(size) bytes, over the limit") }
                // Drained to its end (or refused at once): the owner is done with this window.
                if drainedToEnd || !usedIncr && failure == .refused {
                    index += 1
                    return [log] + nextContent(now: now)
                }
                return [log] + skipAndReplaceWindow(now: now)
            }
        default:
            return []
        }
    }

    private mutating func skipAndReplaceWindow(now: UInt64) -> [Action] {
        buffer = Data()
        index += 1
        guard index < targets.count, !ownerGone, now < deadline else { return finishWithEntries() }
        phase = .replacingWindow
        return [.replaceWindow(window)]
    }

    /// The sensitivity check on what the owner offers and what it asked to save.
    private mutating func decide(now: UInt64) -> [Action] {
        switch ClipboardManagerStateMachine.sensitivity(of: offered + (configuration.listed ?? [])) {
        case .sensitive:
            return finish(.sensitive(reason: "content marked concealed or transient"))
        case .askHint:
            phase = .hint
            return begin(target: atoms[.passwordManagerHint], property: atoms[.pbctlData], maxBytes: Self.maxHintBytes,
                         now: now)
        case .none:
            return chooseTargets()
        }
    }

    private mutating func chooseTargets() -> [Action] {
        let limits = configuration.limits
        let chosen: [String]
        if let listed = configuration.listed, !listed.isEmpty {
            chosen = ClipboardManagerStateMachine.targetsToSave(listed, limits: limits)
        } else {
            switch configuration.choice {
            case .save: chosen = ClipboardManagerStateMachine.targetsToSave(offered, limits: limits)
            case .snapshot: chosen = ClipboardManagerStateMachine.targetsToSnapshot(offered, limits: limits)
            case .text: chosen = ClipboardManagerStateMachine.textTargetsToSnapshot(offered, limits: limits)
            }
        }
        names = chosen.filter { $0 != KnownAtom.passwordManagerHint.rawValue }
        guard !names.isEmpty else { return finish(.kept([])) }
        phase = .interning
        return [.intern(names)]
    }

    private mutating func nextContent(now: UInt64) -> [Action] {
        guard index < targets.count else { return finishWithEntries() }
        guard !ownerGone else { return finishWithEntries() }
        guard now < deadline else {
            return [.log("deadline reached, skipped the remaining targets")] + finishWithEntries()
        }
        return begin(target: targets[index], property: atoms[.pbctlData], maxBytes: configuration.limits.maxTargetBytes,
                     now: now)
    }

    private mutating func finishWithEntries() -> [Action] {
        if phase == .content || phase == .replacingWindow || phase == .interning { return finish(.kept(entries)) }
        return finish(.failed(reason: "the owner exited before answering"))
    }

    private mutating func finish(_ outcome: Outcome) -> [Action] {
        phase = .done
        conversion = nil
        buffer = Data()
        return [.finished(outcome)]
    }
}

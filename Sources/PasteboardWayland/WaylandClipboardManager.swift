#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// `pbctl daemon` on Wayland: keeps the clipboard when its owner exits, as wl-clip-persist does, and
/// hands each new content to the history.
///
/// Wayland has no clipboard-manager handover (X11's SAVE_TARGETS): when an owner exits, the compositor
/// clears the selection. So the manager fetches every type of each new selection as it appears (one
/// representation per type, each within ``Options/maxRepresentationBytes`` and the backend's step
/// timeout), and when the selection is cleared it offers the last content again from this process,
/// serving it (``WaylandSelectionOwner``) until another client takes the selection. Content marked
/// sensitive or transient is neither kept nor recorded, and clears what was kept before it: a password
/// manager's clearing is not undone.
///
/// One event loop on one connection; fetching happens only while another client owns the selection, so
/// it never delays a paste the manager serves.
public final class WaylandClipboardManager {
    public struct Options: Sendable {
        /// A representation larger than this is not kept (nor recorded).
        public var maxRepresentationBytes = 64 << 20
        /// At most this many types are kept of one content.
        public var maxTypes = 64
        /// Seconds a whole fetch may take; types not fetched by then are left out.
        public var fetchDeadline: Double = 8
        /// Also keep the primary selection and offer it again when its owner exits (`--primary`).
        public var primary = false
        /// Called with one line for each notable event.
        public var log: (@Sendable (String) -> Void)?
        /// Called with each new content kept and whether it is the primary selection's: what the history
        /// records (the clipboard's; the primary selection's too with ``recordPrimary``). `skipped`: the
        /// types left out for being over ``maxRepresentationBytes``, with their size when known (the item
        /// may then hold nothing).
        public var record: (@Sendable (Item, _ primary: Bool, _ skipped: [TypeSummary]) -> Void)?
        /// Watch the primary selection to record it, even without ``primary``.
        public var recordPrimary = false
        public init() {}
    }

    public let backend: WaylandBackend
    public let options: Options

    /// What the manager holds of one selection: the last content, the owner serving it again, and the
    /// offer the compositor made of that owner's own source (never fetched back).
    private final class Slot {
        let primary: Bool
        var kept: Item?
        /// Each kept type's MIME names as its owner offered them (offered again under the same names).
        var keptMIMEs: [TypeIdentifier: [String]] = [:]
        var owner: WaylandSelectionOwner?
        var ownOffer: UInt32?
        /// A selection event not handled yet (.some(nil): cleared).
        var next: UInt32?? = nil
        /// When the selection was offered again lately (a program clearing it at once, again and again,
        /// must not make a busy loop).
        var serves: [UInt64] = []
        init(primary: Bool) { self.primary = primary }
        var name: String { primary ? "primary selection" : "clipboard" }
    }
    private var slots: [Slot] = []

    /// The clipboard's content offered again when it is cleared.
    public var kept: Item? { slots.first?.kept }

    public init(backend: WaylandBackend, options: Options) {
        self.backend = backend
        self.options = options
    }

    /// Runs until the compositor goes away (`.unavailable`); `restore` is served first when the
    /// clipboard is empty at start (the history's newest entry).
    public func run(restore: Item?) throws {
        let connection = backend.connection
        try connection.roundTrip(deadline: backend.deadline())
        let clipboard = Slot(primary: false)
        clipboard.next = .some(connection.client.selection)
        slots = [clipboard]
        if options.primary || options.recordPrimary {
            if connection.client.supportsPrimary {
                let primary = Slot(primary: true)
                primary.next = .some(connection.client.primarySelection)
                slots.append(primary)
            } else {
                options.log?("the compositor offers no primary selection to clipboard managers: keeping the clipboard only")
            }
        }
        if connection.client.selection == nil, let restore, !restore.representations.isEmpty {
            clipboard.kept = restore
            options.log?("the clipboard is empty: serving the newest history entry")
        }
        while true {
            for slot in slots {
                guard let selection = slot.next else { continue }
                slot.next = nil
                try look(at: selection, in: slot)
            }
            if slots.contains(where: { $0.next != nil }) { continue }
            if try connection.hasBufferedEvents() {
                try dispatch(try connection.nextEvent(deadline: waylandNow()))
                continue
            }
            // The socket and every transfer still writing, in one poll.
            var pollers = [pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)]
            var owners: [(WaylandSelectionOwner, Int)] = []
            for slot in slots {
                guard let owner = slot.owner else { continue }
                let descriptors = owner.transferDescriptors
                owners.append((owner, descriptors.count))
                for fd in descriptors { pollers.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)) }
            }
            let ready = poll(&pollers, nfds_t(pollers.count), pollers.count > 1 ? 1000 : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                throw PasteboardError(.io, "poll: \(String(cString: strerror(errno)))")
            }
            var index = 1
            for (owner, count) in owners {
                owner.serviceTransfers(pollers[index..<(index + count)].map(\.revents))
                index += count
            }
            if pollers[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                try dispatch(try connection.nextEvent(deadline: waylandNow() + 1_000_000))
            }
        }
    }

    /// A new selection (or its clearing) of one slot.
    private func look(at selection: UInt32?, in slot: Slot) throws {
        if let offer = selection {
            guard offer != slot.ownOffer else { return }  // the manager's own offer
            keep(offer, in: slot)
        } else if slot.kept != nil, slot.owner == nil, !slot.primary || options.primary {
            let now = waylandNow()
            slot.serves = slot.serves.filter { now - $0 < 1_000_000_000 } + [now]
            if slot.serves.count > 5 { usleep(200_000) }
            try serve(slot)
        }
    }

    /// One event: a selection change goes to its slot, a `send` or `cancelled` to the owner of its source.
    private func dispatch(_ event: DataControlClient.Event?) throws {
        guard let event else { return }
        let client = backend.connection.client
        switch event {
        case .fatal(let message):
            throw PasteboardError(.unavailable, message)
        case .finished:
            throw PasteboardError(.unavailable, "the Wayland seat went away")
        case .send(let source, _, let fd):
            guard let slot = slots.first(where: { $0.owner?.offeredSource == source }), let owner = slot.owner else {
                close(fd)  // for a source no longer served
                return
            }
            _ = try owner.handle(event)
        case .cancelled(let source):
            guard let slot = slots.first(where: { $0.owner?.offeredSource == source }), let owner = slot.owner else { return }
            if try owner.handle(event) {  // the transfers under way are finished first
                slot.owner = nil
                slot.ownOffer = nil
            }
        case .selection(let primary, let offer):
            guard let slot = slots.first(where: { $0.primary == primary }) else { return }
            // A later selection event is queued when this one is stale.
            if offer == (primary ? client.primarySelection : client.selection) { slot.next = .some(offer) }
        default:
            return
        }
    }

    /// Offers the slot's kept content again, from this process, until another client takes it.
    private func serve(_ slot: Slot) throws {
        guard let item = slot.kept else { return }
        let names = slot.keptMIMEs
        let owner = WaylandSelectionOwner(
            connection: backend.connection, item: item, primary: slot.primary,
            mimeTypes: { type in
                var mimes = self.backend.mimeTypes(for: type)
                for mime in names[type] ?? [] where !mimes.contains(mime) { mimes.append(mime) }
                return mimes
            },
            pasteOnce: false, lifetime: nil, log: options.log)
        try owner.claim(deadline: backend.deadline())
        slot.owner = owner
        slot.ownOffer = slot.primary ? backend.connection.client.primarySelection : backend.connection.client.selection
        options.log?("the \(slot.name) was cleared: serving the kept content again")
    }

    /// Fetches every type of `offer` and keeps them (and records them), unless marked sensitive.
    private func keep(_ offer: UInt32, in slot: Slot) {
        guard let mimes = backend.connection.client.offers[offer], !mimes.isEmpty else { return }
        let metadata = backend.metadata(forMIMEs: mimes)
        if metadata.flags.contains(.sensitive) || metadata.flags.contains(.transient) {
            slot.kept = nil
            slot.keptMIMEs = [:]
            options.log?("new \(slot.name) content marked sensitive or transient: not kept")
            return
        }
        var byType: [(TypeIdentifier, [String])] = []
        for mime in mimes where !WaylandBackend.markers.contains(mime) {
            let type = backend.type(forMIME: mime)
            if let index = byType.firstIndex(where: { $0.0 == type }) {
                byType[index].1.append(mime)
            } else if byType.count < options.maxTypes {
                byType.append((type, [mime]))
            }
        }
        let end = waylandNow() + UInt64(options.fetchDeadline * 1e9)
        var representations: [Representation] = []
        var names: [TypeIdentifier: [String]] = [:]
        var skipped: [TypeSummary] = []
        for (type, offered) in byType {
            guard waylandNow() < end else {
                options.log?("fetch deadline passed: \(type) left out")
                continue
            }
            let preferred = backend.mimeTypes(for: type).filter(offered.contains) + offered
            let sink = CappedSink(limit: options.maxRepresentationBytes, drainUntil: end, now: waylandNow)
            do {
                try backend.receive(offer: offer, mime: preferred[0], into: sink)
            } catch let error as PasteboardError {
                if sink.isOverLimit { skipped.append(TypeSummary(type: type)) }
                options.log?("\(preferred[0]) not kept: \(error.message)")
                continue
            } catch {
                continue
            }
            if sink.isOverLimit {
                skipped.append(TypeSummary(type: type, size: sink.size))
                options.log?("\(preferred[0]) not kept: \(sink.size) bytes, over \(options.maxRepresentationBytes)")
                continue
            }
            representations.append(Representation(type: type, data: sink.data))
            names[type] = offered
        }
        guard !representations.isEmpty else {
            options.log?("new \(slot.name) content: nothing could be fetched")
            // Listed all the same when it was too large to keep.
            if !skipped.isEmpty, !slot.primary || options.recordPrimary {
                options.record?(Item(representations: [], metadata: metadata), slot.primary, skipped)
            }
            return
        }
        let item = Item(representations: representations, metadata: metadata)
        slot.kept = item
        slot.keptMIMEs = names
        options.log?("kept \(representations.count) types of the \(slot.name): \(representations.map(\.type.rawValue).joined(separator: ", "))")
        if !slot.primary || options.recordPrimary { options.record?(item, slot.primary, skipped) }
    }
}

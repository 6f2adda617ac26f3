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
        /// Called with one line for each notable event.
        public var log: (@Sendable (String) -> Void)?
        /// Called with each new content kept: what the history records.
        public var record: (@Sendable (Item) -> Void)?
        public init() {}
    }

    public let backend: WaylandBackend
    public let options: Options
    /// The content offered again when the selection is cleared.
    public private(set) var kept: Item?
    /// Each kept type's MIME names as its owner offered them (offered again under the same names).
    private var keptMIMEs: [TypeIdentifier: [String]] = [:]

    public init(backend: WaylandBackend, options: Options) {
        self.backend = backend
        self.options = options
    }

    /// Runs until the compositor goes away (`.unavailable`); `restore` is served first when the
    /// clipboard is empty at start (the history's newest entry).
    public func run(restore: Item?) throws {
        let connection = backend.connection
        try connection.roundTrip(deadline: backend.deadline())
        // What to look at next: a selection the manager has not handled yet (.some(nil): cleared).
        var next: UInt32?? = .some(connection.client.selection)
        if connection.client.selection == nil, let restore, !restore.representations.isEmpty {
            kept = restore
            keptMIMEs = [:]
            options.log?("the clipboard is empty: serving the newest history entry")
        }
        var serves: [UInt64] = []
        while true {
            if let selection = next {
                next = nil
                if let offer = selection {
                    keep(offer)
                } else if kept != nil {
                    // Another program clearing at once, again and again, must not make this a busy loop.
                    let now = waylandNow()
                    serves = serves.filter { now - $0 < 1_000_000_000 } + [now]
                    if serves.count > 5 { usleep(200_000) }
                    next = try serveKept()
                }
                continue
            }
            guard let event = try connection.nextEvent(deadline: nil) else { continue }
            switch event {
            case .fatal(let message):
                throw PasteboardError(.unavailable, message)
            case .finished:
                throw PasteboardError(.unavailable, "the Wayland seat went away")
            case .send(_, _, let fd):
                close(fd)  // for a source no longer served
            case .selection(primary: false, let offer):
                // A later selection event is queued when this one is stale.
                if offer == connection.client.selection { next = .some(offer) }
            default:
                continue
            }
        }
    }

    /// Serves the kept content until another client takes the selection; returns the selection then
    /// (.some(nil): cleared again, the new owner already gone; nil: not known yet, see the events).
    private func serveKept() throws -> UInt32?? {
        guard let item = kept else { return nil }
        let connection = backend.connection
        let names = keptMIMEs
        let owner = WaylandSelectionOwner(
            connection: connection, item: item, primary: false,
            mimeTypes: { type in
                var mimes = self.backend.mimeTypes(for: type)
                for mime in names[type] ?? [] where !mimes.contains(mime) { mimes.append(mime) }
                return mimes
            },
            pasteOnce: false, lifetime: nil, log: options.log)
        try owner.claim(deadline: backend.deadline())
        let own = connection.client.selection
        options.log?("the selection was cleared: serving the kept content again")
        try owner.run()
        // Another client took the selection; its selection event may have been read already.
        let now = connection.client.selection
        if now != own, let now { return .some(now) }
        return try waitForSelection(after: own)
    }

    /// The next selection other than `own` (the manager's own offer), from the queued events.
    private func waitForSelection(after own: UInt32?) throws -> UInt32?? {
        let connection = backend.connection
        while true {
            guard let event = try connection.nextEvent(deadline: backend.deadline()) else { return nil }
            switch event {
            case .fatal(let message): throw PasteboardError(.unavailable, message)
            case .finished: throw PasteboardError(.unavailable, "the Wayland seat went away")
            case .send(_, _, let fd): close(fd)
            case .selection(primary: false, let offer) where offer != own:
                if offer == connection.client.selection { return .some(offer) }
            default: continue
            }
        }
    }

    /// Fetches every type of `offer` and keeps them (and records them), unless marked sensitive.
    private func keep(_ offer: UInt32) {
        guard let mimes = backend.connection.client.offers[offer], !mimes.isEmpty else { return }
        let metadata = backend.metadata(forMIMEs: mimes)
        if metadata.flags.contains(.sensitive) || metadata.flags.contains(.transient) {
            kept = nil
            keptMIMEs = [:]
            options.log?("new clipboard content marked sensitive or transient: not kept")
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
        for (type, offered) in byType {
            guard waylandNow() < end else {
                options.log?("fetch deadline passed: \(type) left out")
                continue
            }
            let preferred = backend.mimeTypes(for: type).filter(offered.contains) + offered
            let sink = DataSink()
            do {
                try backend.receive(offer: offer, mime: preferred[0], into: sink, limit: options.maxRepresentationBytes)
            } catch let error as PasteboardError {
                options.log?("\(preferred[0]) not kept: \(error.message)")
                continue
            } catch {
                continue
            }
            representations.append(Representation(type: type, data: sink.data))
            names[type] = offered
        }
        guard !representations.isEmpty else {
            options.log?("new clipboard content: nothing could be fetched")
            return
        }
        let item = Item(representations: representations, metadata: metadata)
        kept = item
        keptMIMEs = names
        options.log?("kept \(representations.count) types: \(representations.map(\.type.rawValue).joined(separator: ", "))")
        options.record?(item)
    }
}

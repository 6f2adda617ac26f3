#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

// `pbctl daemon` on Wayland: the backend keeps the compositor's clipboard through a
// WaylandClipboardManager on its connection; one keeper per compositor (``WaylandDaemonLock``).

extension WaylandBackend: ClipboardKeeping {
    public var keptPlace: String { "the Wayland compositor \(connection.path)" }

    public var stopDescriptor: Int32 { connection.fd }

    private var lock: WaylandDaemonLock { WaylandDaemonLock(folder: lockFolder, socket: connection.path) }

    public func runningKeeper() throws -> String? {
        lock.runningDaemon().map { "pbctl daemon (pid \($0)) on \(connection.path)" }
    }

    /// Keeps the clipboard until the connection ends: then ``KeepEnd/dropped(reason:kept:)`` (a
    /// compositor drops a client it cannot write to at once while it still answers others), with what
    /// was kept, for a new connection to serve again.
    public func keep(_ options: KeepOptions, ready: () -> Void) throws -> KeepEnd {
        try lock.acquire(replace: options.replace)
        var managerOptions = WaylandClipboardManager.Options()
        managerOptions.log = options.log
        managerOptions.maxRepresentationBytes = options.maximumRecordedSize
        managerOptions.primary = options.primary
        managerOptions.recordPrimary = options.primary || options.recordPrimary
        managerOptions.complete = options.complete
        if let record = options.record {
            managerOptions.record = { item, primary, skipped in
                record(KeptContent(item: item, application: nil, selection: primary ? "primary" : "clipboard", skipped: skipped))
            }
        }
        let manager = WaylandClipboardManager(backend: self, options: managerOptions)
        ready()
        do {
            try manager.run(restore: options.restore)
            return .lost(reason: "the connection ended")
        } catch {
            let reason = (error as? PasteboardError)?.message ?? "\(error)"
            return .dropped(reason: reason, kept: manager.kept ?? options.restore)
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

// `pbctl daemon` on Wayland: the backend keeps the compositor's clipboard through a
// WaylandClipboardManager on its connection; one keeper per compositor (``daemonLock``, a `ProcessLock`
// in `$XDG_RUNTIME_DIR` named after the compositor's socket: Wayland has no CLIPBOARD_MANAGER selection
// to serve as the lock, as X11 has).

extension WaylandBackend: ClipboardKeeping {
    public var keptPlace: String { "the Wayland compositor \(connection.path)" }

    public var stopDescriptor: Int32 { connection.fd }

    var daemonLock: ProcessLock {
        let name = String(connection.path.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        return ProcessLock(path: "\(lockFolder)/pbctl-daemon-\(getuid())-\(name).lock", what: "this compositor")
    }

    public func runningKeeper() throws -> String? {
        daemonLock.holder().map { "pbctl daemon (pid \($0)) on \(connection.path)" }
    }

    /// Keeps the clipboard until the connection ends: then ``KeepEnd/dropped(reason:kept:)`` (a
    /// compositor drops a client it cannot write to at once while it still answers others), with what
    /// was kept, for a new connection to serve again.
    public func keep(_ options: KeepOptions, ready: () -> Void) throws -> KeepEnd {
        try daemonLock.acquire(replace: options.replace)
        let manager = WaylandClipboardManager(backend: self, options: options)
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

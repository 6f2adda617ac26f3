#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

// `pbctl daemon` on X11: the backend keeps the display's clipboard through an X11ClipboardManager on
// its connection. One keeper per display: the CLIPBOARD_MANAGER selection is the lock (ICCCM §2.8).

extension X11Backend: ClipboardKeeping {
    public var keptPlace: String { display ?? "the X display" }

    public var stopDescriptor: Int32 { connection.fileDescriptor }

    public func runningKeeper() throws -> String? {
        guard let running = try X11ClipboardManager.runningManager(on: connection) else { return nil }
        let who = running.pid.map { "pbctl daemon (pid \($0))" } ?? "a clipboard manager (not pbctl)"
        return "\(who) on \(keptPlace), window 0x\(String(running.window, radix: 16))"
    }

    public func keep(_ options: KeepOptions, ready: () -> Void) throws -> KeepEnd {
        var tuning = X11ClipboardManager.Tuning()
        tuning.displayName = keptPlace
        if let configuredStepTimeout { tuning.stepTimeout = configuredStepTimeout }
        let manager = X11ClipboardManager(connection: connection, options: options, tuning: tuning)
        try manager.start()
        // The clipboard survives a restart: with nobody owning it, the newest entry is served again.
        if let restore = options.restore { _ = try manager.serveIfEmpty(restore) }
        ready()
        switch try manager.run() {
        case .replaced: return .replaced
        case .connectionLost: return .lost(reason: "the X server \(keptPlace) closed the connection")
        }
    }
}

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
        var managerOptions = X11ClipboardManager.Options()
        managerOptions.displayName = keptPlace
        managerOptions.replace = options.replace
        managerOptions.primary = options.primary
        managerOptions.recordPrimary = options.recordPrimary || options.primary
        managerOptions.log = options.log
        managerOptions.registry = options.registry
        managerOptions.producer = options.producer
        managerOptions.complete = options.complete
        managerOptions.inbox = options.inbox
        if let configuredStepTimeout { managerOptions.stepTimeout = configuredStepTimeout }
        managerOptions.recordLimits.maxTargetBytes = options.maximumRecordedSize
        if let record = options.record {
            managerOptions.record = { recorded in
                record(
                    KeptContent(
                        item: recorded.item, application: recorded.application, selection: recorded.selection.rawValue, skipped: recorded.skipped,
                        origin: recorded.origin))
            }
        }
        let manager = X11ClipboardManager(connection: connection, options: managerOptions)
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

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

extension X11Backend {
    /// Hands `item` to a running `pbctl daemon`, which then owns CLIPBOARD and serves it, so `pbctl copy`
    /// needs no background process of its own. Returns false (the caller starts its own owner) when no
    /// pbctl daemon runs, the archive is too large for one request, or the daemon refuses or does not
    /// answer within `timeout` seconds.
    ///
    /// Protocol: the ItemArchive goes into `_PBCTL_ARCHIVE` on our window, then CLIPBOARD_MANAGER is
    /// converted to `_PBCTL_SERVE` with that property; the daemon reads (and deletes) it, takes CLIPBOARD,
    /// and answers with a zero-length NULL property (success) or property None.
    public func handToClipboardManager(_ item: Item, timeout: Double = 2) throws -> Bool {
        guard let running = try X11ClipboardManager.runningManager(on: connection), running.pid != nil else {
            return false
        }
        let archive = try ItemArchive.encode([item])
        guard archive.count + 64 <= connection.maximumRequestBytes else { return false }
        let atoms = connection.atoms
        let window = connection.utilityWindow
        let property = atoms[.pbctlArchive]
        let write = PropertyWrite(window: window, property: property, type: property, format: 8, bytes: archive)
        if try connection.changePropertiesChecked([write]) != nil { return false }
        let time = try connection.serverTime()
        connection.convertSelection(selection: atoms[.clipboardManager], target: atoms[.pbctlServe], property: property,
                                    requestor: window, time: time)
        try connection.flush()
        let deadline = MonotonicClock.nanoseconds() &+ UInt64(max(0.1, timeout) * 1e9)
        var accepted = false
        while let event = try connection.nextEvent(deadline: deadline) {
            if case .selectionNotify(let notify, _) = event, notify.selection == atoms[.clipboardManager],
                notify.target == atoms[.pbctlServe]
            {
                accepted = notify.property != PredefinedAtom.none
                break
            }
        }
        connection.deleteProperty(window: window, property: property)
        try connection.flush()
        return accepted
    }
}

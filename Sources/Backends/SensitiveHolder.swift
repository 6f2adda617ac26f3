#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import PasteboardStore

extension BackendChoice {
    /// The holder of sensitive, paste-once or expiring items the store started (`pbctl __hold`): serves
    /// `items` on the socket until the pasteboard changes, the lifetime ends or (paste-once) one paste was
    /// served, then clears the pasteboard if it still holds them; `ready` runs once the socket listens.
    public static func holdSensitive(
        _ items: [Item], socketPath: String, storeRoot: String, pasteboard: PasteboardName, changeCount: Int, terms: HoldTerms,
        ready: () -> Void
    ) throws {
        let store = try FileStore(root: storeRoot)
        try HeldItems.serve(
            items, socketPath: socketPath, expiry: terms.lifetime.flatMap { $0 > 0 ? $0 : nil }, pasteOnce: terms.pasteOnce, ready: ready,
            stillCurrent: { (try? store.changeCount(of: pasteboard)) == changeCount },
            expired: {
                if (try? store.changeCount(of: pasteboard)) == changeCount { try? store.clear(pasteboard) }
            })
    }
}

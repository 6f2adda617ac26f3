// The quick way through `pbctl copy FILE` of a small text file to the store: the item written and
// recorded in the history without the type registry, the environment table or the command table
// (pbctl/FastCopy.swift decides when the full copy would do exactly this).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import History
import PasteboardStore
import HistoryText
import Representations

extension BackendChoice {
    /// Whether a copy made in this environment goes to the store and nowhere else, as `choose` would
    /// decide: `--backend store` (`PBCTL_BACKEND`), or `auto` with no `pbctl ssh` session, no display
    /// and no session whose terminal a copy is mirrored to (SSH, tmux, GNU screen).
    public static func copiesToTheStoreAlone(variable: (String) -> String?) -> Bool {
        switch AutoOrder.requestedKind(variable: variable) {
        case .store?: return true
        case .auto?:
            let order = AutoOrder(variable: variable)
            return order.isStoreOnly && order.terminalSession == nil
        default: return false
        }
    }

    /// Writes `item` to the store's `general` pasteboard and records it in the history at the default
    /// places, as `pbctl copy` does through the store: the stored files linked into the history.
    /// - Returns: what kept the history from recording it (a history that cannot be written never
    ///   fails the copy), or nil.
    /// - Throws: what kept the store from taking it.
    public static func fastStoreCopy(
        _ item: Item, historyLimits: History.Limits, historyRules: History.Rules = History.Rules(), variable: (String) -> String?
    ) throws -> (any Error)? {
        let store = try FileStore(root: FileStore.defaultRoot(variable: variable), producer: Conversion.produceRepresentation)
        try store.write([item], to: .general, options: CopyOptions())
        guard RecordingPolicy.reasonNotToRecord(item) == nil else { return nil }
        do {
            let history = try History(
                root: History.defaultRoot(variable: variable), limits: historyLimits, rules: historyRules, producer: Conversion.produceRepresentation,
                describe: { historyPreview($0, .standard) })
            try history.recordCopy(item, to: store, preview: historyPreview(plainText: item), application: item.metadata.sourceApplication)
            return nil
        } catch {
            return error
        }
    }
}

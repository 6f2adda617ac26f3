// The clipboard history at the CLI's edges: opening it with the configured limits and what `copy`
// records where no daemon does.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import History
import HistoryText
import Representations
import SystemIO
import Synchronization

extension Context {
    /// The history, with the configured bounds and the converters that produce derived types.
    func openHistory(_ limits: History.Limits? = nil) throws -> History {
        let registry = self.registry
        let configuration = Configuration.load(self)
        return try History(
            root: History.defaultRoot(environment: environment), limits: limits ?? configuration.history,
            rules: configuration.historyRules(registry), producer: Conversion.produceRepresentation,
            describe: { historyPreview($0, registry) }, searchable: { historySearchText($0, registry) })
    }

    /// Records what was copied to `backend` (`copy` through a backend nobody watches: the store, the
    /// terminal; ``History/recordCopy(_:to:preview:application:)``), and says why not on standard error
    /// with `verbose`. Never fails the copy. `history`: the one already opened, if any.
    func recordInHistory(
        _ item: Item, copiedTo backend: any PasteboardBackend, options: CopyOptions? = nil, verbose: Bool, history opened: History? = nil
    ) {
        do {
            let history = try opened ?? openHistory()
            let outcome = try history.recordCopy(
                item, to: backend, options: options, preview: historyPreview(item, registry), application: item.metadata.sourceApplication)
            if verbose, case .notRecorded(let why) = outcome { terminal.err("pbctl: not recorded in the history: \(why)") }
        } catch {
            reportNotRecorded(error)
        }
    }

    /// Says on standard error why a copy that went through was not recorded.
    func reportNotRecorded(_ error: any Error) {
        terminal.err("pbctl: warning: copied, but not recorded in the history: \((error as? PasteboardError)?.message ?? "\(error)")")
    }
}


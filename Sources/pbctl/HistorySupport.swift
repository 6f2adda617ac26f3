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
import CopyPaste
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

    /// The commit step of a copy (``CopyCommit``): written, then recorded in this history where no
    /// daemon records it; `verbose` says why an item was left out. `history`: the one already opened.
    func copyCommit(verbose: Bool, history opened: History? = nil) -> CopyCommit {
        let commit = CopyCommit(registry: registry) { try opened ?? openHistory() }
        let terminal = terminal
        if verbose { commit.note = { terminal.err("pbctl: " + $0) } }
        return commit
    }

    /// Says on standard error, once each, why a copy that went through was not recorded.
    func reportNotRecorded(_ problems: [CopyCommit.Problem]) {
        for problem in problems { terminal.err("pbctl: warning: " + problem.message) }
    }
}

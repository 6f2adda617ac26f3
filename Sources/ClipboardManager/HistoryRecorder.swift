#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Pasteboard
import History
import HistoryText
import Representations

/// The daemon's history: each kept content recorded on a queue of its own, so a large entry never
/// delays what the keeper serves; the source is the owning application, or where a handed-in item came
/// from (a device, a remote host).
public final class HistoryRecorder: Sendable {
    let history: History
    let registry: TypeRegistry
    let log: (@Sendable (String) -> Void)?
    /// Hears that an entry was recorded (the upkeep looks at the next expiry again).
    let recorded: (@Sendable () -> Void)?
    /// Says why the history failed (a full disk, a damaged database, a refused folder), once per cause.
    let problems: ProblemReport
    private let queue = DispatchQueue(label: "pbctl.history")

    /// - Parameters:
    ///   - log: hears what each record did (`--verbose`).
    ///   - warn: hears each cause of failure once, whatever the verbosity (the daemon's standard error,
    ///     or its log file when detached).
    public init(
        history: History, registry: TypeRegistry, log: (@Sendable (String) -> Void)?, warn: (@Sendable (String) -> Void)? = nil,
        recorded: (@Sendable () -> Void)? = nil
    ) {
        self.recorded = recorded
        self.history = history
        self.registry = registry
        self.log = log
        problems = ProblemReport(warn ?? log ?? { _ in })
    }

    /// The newest entry that kept something, as an item (what the daemon serves on an empty clipboard);
    /// nil when there is none, or when the history cannot be read (said once per cause: the daemon
    /// starts without restoring).
    public func newestItem() -> Item? {
        do {
            guard let newest = try history.entries(History.Query(limit: 1, keepsContent: true)).entries.first else { return nil }
            return try history.item(newest.id)
        } catch {
            problems.report("history: could not read the newest entry to serve: \((error as? PasteboardError)?.message ?? "\(error)")")
            return nil
        }
    }

    /// Records `kept` (later, on the recorder's queue).
    public func record(_ kept: KeptContent) {
        queue.async { [self] in recordNow(kept) }
    }

    /// Waits until what was handed to ``record(_:)`` is recorded.
    public func flush() { queue.sync {} }

    func recordNow(_ kept: KeptContent) {
        var item = kept.item
        let application = kept.application ?? kept.origin?.label
        if let application { item.metadata.sourceApplication = application }
        let outcome: History.Outcome
        do {
            outcome = try history.record(
                item, preview: historyPreview(item, registry), application: application, selection: kept.selection,
                skipped: kept.skipped.map { History.Entry.Kind(type: $0.type, size: $0.size, cutShort: $0.cutShort ?? false) })
        } catch {
            let message = (error as? PasteboardError)?.message ?? "\(error)"
            log?("history: could not record: \(message)")
            problems.report("history: could not record the clipboard: \(message)")
            return
        }
        if case .notRecorded = outcome {} else { recorded?() }
        switch outcome {
        case .recorded(let id): log?("history: recorded entry \(id)")
        case .moved(let id): log?("history: entry \(id) moved to the top")
        case .notRecorded(let why): log?("history: not recorded: \(why)")
        }
    }
}

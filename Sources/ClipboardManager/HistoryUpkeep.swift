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
import SystemIO

/// The daemon's care of its history between copies, on a thread of its own that sleeps until there is
/// work: the configuration read again when its file changes or SIGHUP arrives (the unit's
/// `ExecReload`), so a rule added while the daemon runs applies to the next copy; and the entries
/// past `history.max-age` removed when they pass it, not at the next copy.
public final class HistoryUpkeep: @unchecked Sendable {
    /// The bounds and rules the configuration gives now (read again), and what to say of it.
    public typealias Reload = @Sendable () -> (limits: History.Limits, rules: History.Rules)

    let history: History
    let reload: Reload
    let log: (@Sendable (String) -> Void)?
    let say: @Sendable (String) -> Void
    let problems: ProblemReport
    let watch: ReloadWatch
    private var thread: pthread_t?

    /// - Parameters:
    ///   - configurationFile: the file whose changes are watched.
    ///   - log: hears what was done (`--verbose`); `warn`: what went wrong, once per cause, and each reload.
    public init(
        history: History, configurationFile: String, reload: @escaping Reload, log: (@Sendable (String) -> Void)?,
        warn: (@Sendable (String) -> Void)?
    ) throws {
        self.history = history
        self.reload = reload
        self.log = log
        say = warn ?? log ?? { _ in }
        problems = ProblemReport(say)
        watch = try ReloadWatch(path: configurationFile)
    }

    /// The least time between two passes when the last one removed nothing (a clock that moved back, a
    /// database that stayed locked): the loop never spins.
    static let idlePass = 1.0

    public func start() {
        let box = Unmanaged.passRetained(self)
        var created = pthread_t()
        let result = pthread_create(&created, nil, { raw in
            let upkeep = Unmanaged<HistoryUpkeep>.fromOpaque(raw!).takeRetainedValue()
            upkeep.run()
            return nil
        }, box.toOpaque())
        if result == 0 { thread = created } else { box.release() }
    }

    /// Says the history changed (an entry recorded): the next expiry is looked up again.
    public func historyChanged() { watch.poke() }

    /// Ends the thread and waits for it.
    public func stop() {
        watch.stop()
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    func run() {
        var wait: Double? = 0
        while true {
            switch watch.wait(seconds: wait) {
            case .stopped:
                return
            case .signalled, .changed:
                let (limits, rules) = reload()
                history.limits = limits
                history.rules = rules
                say("configuration read again: history.max-entries \(limits.maxEntries), history.max-age "
                    + (limits.maxAge.map { "\(Int($0)) s" } ?? "none") + (rules.ignore == nil ? ", no ignore rules" : ", ignore rules set"))
            case .timeout, .poked:
                break
            }
            var removed = false
            do {
                removed = try history.expire()
                if removed { log?("history: entries past the bounds or history.max-age removed") }
            } catch {
                problems.report("history: could not remove expired entries: \((error as? PasteboardError)?.message ?? "\(error)")")
            }
            do {
                let next = try history.nextExpiry()
                wait = next.map { max(removed ? 0 : Self.idlePass, $0.timeIntervalSinceNow + 0.01) }
            } catch {
                // Unknown: looked at again in a minute, so an expiry is never lost to one failed read.
                problems.report("history: could not read when the next entry expires: \((error as? PasteboardError)?.message ?? "\(error)")")
                wait = 60
            }
        }
    }
}

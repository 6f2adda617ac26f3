#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Pasteboard
import SystemIO

/// `pbctl daemon` on any backend that keeps a clipboard (``ClipboardKeeping``): one policy for every
/// backend. SIGTERM and SIGINT stop it (the handler only shuts the keeper's connection down,
/// which wakes its loop; the server then releases what the daemon owned); a connection the display
/// dropped while it still answers is made again, at most 5 times a minute, serving what was kept.
public enum ClipboardKeeperRunner {
    public enum Outcome: Sendable {
        /// A signal stopped it.
        case stopped(signal: Int32)
        /// Another keeper took over.
        case replaced(place: String)
        /// The display went away (or dropped it too often).
        case lost(reason: String)
        /// It could not start (another keeper runs, the display refuses).
        case failed(PasteboardError)
    }

    /// The most connections made again in a minute.
    static let reconnectionsPerMinute = 5

    /// Keeps `keeper`'s clipboard until it ends. `ready` runs once, when the clipboard is first kept;
    /// `reopen` makes a new connection to the same display (nil when it cannot); `say` hears what
    /// happened along the way.
    public static func run(
        _ keeper: any ClipboardKeeping, reopen: () -> (any ClipboardKeeping)?, options: KeepOptions, ready: () -> Void,
        say: (String) -> Void
    ) -> Outcome {
        var keeper = keeper
        var options = options
        StopSignals.install(shuttingDown: keeper.stopDescriptor)
        var reconnections: [UInt64] = []
        var readied = false
        while true {
            let end: KeepEnd
            do {
                end = try keeper.keep(options) {
                    if !readied {
                        readied = true
                        ready()
                    }
                }
            } catch {
                if StopSignals.received != 0 { return .stopped(signal: StopSignals.received) }
                return .failed(error as? PasteboardError ?? PasteboardError(.unavailable, "\(error)"))
            }
            if StopSignals.received != 0 { return .stopped(signal: StopSignals.received) }
            switch end {
            case .replaced:
                return .replaced(place: keeper.keptPlace)
            case .lost(let reason):
                return .lost(reason: reason)
            case .dropped(let reason, let kept):
                let now = MonotonicClock.nanoseconds()
                reconnections = reconnections.filter { now - $0 < 60_000_000_000 }
                usleep(100_000)
                guard reconnections.count < reconnectionsPerMinute, StopSignals.received == 0, let fresh = reopen() else {
                    return .lost(reason: "\(keeper.keptPlace) went away (\(reason))")
                }
                reconnections.append(now)
                say("\(keeper.keptPlace) closed the connection (\(reason)); connected again")
                keeper = fresh
                StopSignals.install(shuttingDown: fresh.stopDescriptor)
                options.restore = kept ?? options.restore
            }
        }
    }
}

/// The signals that stop a daemon, and the one thing their handler does: shut a descriptor down. (SIGHUP
/// reads the configuration again: ``HistoryUpkeep``.)
enum StopSignals {
    nonisolated(unsafe) static var descriptor: Int32 = -1
    nonisolated(unsafe) static var received: Int32 = 0

    static func install(shuttingDown fd: Int32) {
        descriptor = fd
        for sig in [SIGTERM, SIGINT] {
            signal(sig) { received in
                StopSignals.received = received
                if StopSignals.descriptor >= 0 { _ = shutdown(StopSignals.descriptor, Int32(SHUT_RDWR)) }
            }
        }
        POSIX.ignoreBrokenPipes()
    }
}

/// SIGHUP, where nothing is read again, neither stops the daemon nor does anything else.
func ignoreHangUp() { signal(SIGHUP, SIG_IGN) }

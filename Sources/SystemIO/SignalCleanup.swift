#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Files a process is writing and must not leave behind when SIGINT, SIGTERM or SIGHUP ends it (Ctrl-C,
/// `kill`, a closed terminal): the store's spool files, `paste -o`'s temporary file. The handler removes
/// every registered path, then dies of the signal as it would have (the shell sees the same status).
/// Paths are kept as C strings in a fixed table, so the handler calls only `unlink`, `signal` and `raise`,
/// which are async-signal-safe; at most ``capacity`` at once (more are not removed by a signal, only by
/// their owner's own clean-up).
public enum SignalCleanup {
    public static let capacity = 16
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let slots = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
        return slots
    }()
    nonisolated(unsafe) private static var installed = false

    /// Removes `path` if a terminating signal arrives before ``unregister(_:)``.
    public static func register(_ path: String) {
        let table = slots
        if !installed {
            installed = true
            for sig in [SIGINT, SIGTERM, SIGHUP] {
                signal(sig) { received in
                    for slot in 0..<SignalCleanup.capacity {
                        if let path = SignalCleanup.slots[slot] { unlink(path) }
                    }
                    signal(received, SIG_DFL)
                    raise(received)
                }
            }
        }
        for slot in 0..<capacity where table[slot] == nil {
            table[slot] = strdup(path)
            return
        }
    }

    /// `path` is in place or gone: a signal no longer removes it.
    public static func unregister(_ path: String) {
        for slot in 0..<capacity {
            guard let stored = slots[slot], String(cString: stored) == path else { continue }
            slots[slot] = nil
            free(stored)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one clock pbctl measures deadlines with: CLOCK_MONOTONIC, which wall-clock changes never move.
/// The corresponding C function is `clock_gettime`.
public enum MonotonicClock {
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    public static func seconds() -> Double { Double(nanoseconds()) / 1e9 }
}

import SystemIO

/// Monotonic time in nanoseconds, the clock every state-machine deadline is measured on
/// (``MonotonicClock``, the one clock).
public func monotonicNanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }

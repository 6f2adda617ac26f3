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
import SystemIO

/// The saved mode of the terminal in raw mode, for the signal handlers to put back.
nonisolated(unsafe) private var savedMode = termios()
nonisolated(unsafe) private var savedFD: Int32 = -1

private func restoreAndReraise(_ signal: Int32) {
    if savedFD >= 0 { tcsetattr(savedFD, TCSAFLUSH, &savedMode) }
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}

/// The controlling terminal (`/dev/tty`), never standard output: a pipeline's output stays clean.
public final class TerminalDevice {
    public let fd: Int32

    /// Opens the controlling terminal; nil when there is none (cron, CI, `ssh host cmd` without a tty).
    public init?() {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Whether this process has a controlling terminal at all.
    public static var isAvailable: Bool {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// Writes all bytes. - Throws: `.unavailable` when the terminal went away.
    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw PasteboardError(.unavailable, "the terminal: write failed: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// Runs `body` with the terminal in raw mode (no echo, no line editing), putting the mode back on
    /// every path: return, throw, SIGINT, SIGTERM, SIGHUP.
    public func withRawMode<T>(_ body: () throws -> T) throws -> T {
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { return try body() }  // not a terminal we can set: read as is
        var raw = original
        cfmakeraw(&raw)
        raw.c_oflag = original.c_oflag  // keep output processing as it was
        savedMode = original
        savedFD = fd
        let handler: @convention(c) (Int32) -> Void = { restoreAndReraise($0) }
        let previous = [SIGINT, SIGTERM, SIGHUP].map { ($0, signal($0, handler)) }
        tcsetattr(fd, TCSANOW, &raw)
        defer {
            tcsetattr(fd, TCSAFLUSH, &original)
            savedFD = -1
            for (number, old) in previous { signal(number, old) }
        }
        return try body()
    }

    /// Reads what the terminal sends until `done` says enough or the deadline passes.
    /// - Returns: false at the deadline.
    public func read(until deadline: Double, _ done: ([UInt8]) -> Bool) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let remaining = deadline - Self.now()
            guard remaining > 0 else { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining * 1000, 60_000)) + 1)
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            if ready == 0 { continue }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 {
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                return false
            }
            if done(Array(buffer[0..<n])) { return true }
        }
    }

    public static func now() -> Double { MonotonicClock.seconds() }
}

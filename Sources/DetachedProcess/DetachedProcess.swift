#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import Pasteboard
import SystemIO

/// Starts the detached processes that outlive the pbctl that started them: the X selection owner
/// after `pbctl copy` returns (xclip's and wl-copy's fork), `pbctl daemon --detach`, and the store's
/// `__hold` for sensitive content. Either this process forks (``fork(keeping:timeout:_:)``) or a fresh
/// one is spawned (``spawn(executable:arguments:input:timeout:)``).
///
/// The child runs in its own session with its input on stdin, stdout and stderr on /dev/null, every
/// other descriptor closed except the status descriptor, on which it reports "K" once it is ready
/// (it owns the selection, it listens) or "E" and a message. The parent returns on that report, so
/// `out=$(pbctl copy < f)` returns at once and never waits for the child's end.
public enum DetachedProcess {
    /// What a spawned child reads on stdin.
    public enum Input {
        /// Bytes written through a pipe, in order.
        case bytes([Data])
        /// A descriptor (say an in-memory file positioned at 0) that becomes the child's stdin; the
        /// caller still owns and closes it.
        case descriptor(Int32)
    }

    /// The status descriptor the child writes to: 3 in a spawned child; in a forked one, wherever the
    /// pipe landed (set in the child before its body runs).
    nonisolated(unsafe) public private(set) static var statusDescriptor: Int32 = 3

    /// A background selection owner, forked: in the child, `claim` takes the selection (an error goes
    /// to the parent as the report, exit 69); the parent returns once it has, and the child runs
    /// `serve` until the owner's end. False as ``fork(keeping:timeout:_:)`` (several threads).
    public static func forkOwner(keeping: [Int32], claim: () throws -> Void, serve: () throws -> Void) throws -> Bool {
        try fork(keeping: keeping) {
            do {
                try claim()
            } catch {
                report(error)
                return 69
            }
            report(nil)
            do {
                try serve()
                return 0
            } catch {
                return 69
            }
        }
    }

    /// Forks this process into the detached child, as xclip does: the child keeps everything already
    /// in memory (the item with its lazy conversions, the X connection, which `keeping` names), so
    /// there is no archive to write, no second program start-up and no second connection to set up.
    /// The child starts a session, puts /dev/null on stdin, stdout and stderr, closes every other
    /// descriptor but `keeping` and the status pipe, runs `body` (which reports with ``report(_:)``)
    /// and exits with its result. The parent waits up to `timeout` seconds for the report.
    ///
    /// - Returns: false, having done nothing, when this process runs more than one thread: a fork
    ///   would copy locks other threads may hold (the caller then spawns a fresh process instead).
    /// - Throws: ``PasteboardError`` as ``spawn(executable:arguments:input:timeout:)`` does.
    public static func fork(keeping: [Int32], timeout: Double = 10, _ body: () -> Int32) throws -> Bool {
        guard threadCount() == 1 else { return false }
        var statusPipe: [Int32] = [-1, -1]
        guard pipe(&statusPipe) == 0 else { throw posixError("pipe") }
        let pid = Glibc.fork()
        if pid < 0 {
            close(statusPipe[0]); close(statusPipe[1])
            throw posixError("fork")
        }
        if pid == 0 {
            close(statusPipe[0])
            _ = setsid()
            let null = open("/dev/null", O_RDWR)
            for fd: Int32 in 0...2 where null >= 0 && !keeping.contains(fd) && fd != statusPipe[1] { _ = dup2(null, fd) }
            // Descriptors inherited from the caller's parent (a shell's command substitution, a test
            // harness) must not stay open in a daemon, or whoever waits for their EOF hangs.
            for fd in openDescriptors() where fd > 2 && !keeping.contains(fd) && fd != statusPipe[1] { close(fd) }
            statusDescriptor = statusPipe[1]
            var signals = sigset_t()
            sigemptyset(&signals)
            sigprocmask(SIG_SETMASK, &signals, nil)
            signal(SIGHUP, SIG_DFL)
            signal(SIGINT, SIG_DFL)
            _ = chdir("/")
            _exit(body())
        }
        close(statusPipe[1])
        defer { close(statusPipe[0]) }
        try awaitReport(statusPipe[0], pid: pid, timeout: timeout)
        return true
    }

    /// Spawns `executable arguments…` with `input` on its stdin, and waits up to `timeout` seconds for
    /// it to report.
    /// - Throws: ``PasteboardError`` `.unavailable` when the child fails or does not report in time.
    public static func spawn(executable: String, arguments: [String], input: Input, timeout: Double = 10) throws {
        let inputDescriptor: Int32?
        let parts: [Data]
        switch input {
        case .descriptor(let fd): (inputDescriptor, parts) = (fd, [])
        case .bytes(let bytes): (inputDescriptor, parts) = (nil, bytes)
        }
        var dataPipe: [Int32] = [-1, -1]
        var statusPipe: [Int32] = [-1, -1]
        if inputDescriptor == nil {
            guard pipe(&dataPipe) == 0 else { throw posixError("pipe") }
        }
        guard pipe(&statusPipe) == 0 else {
            if inputDescriptor == nil { close(dataPipe[0]); close(dataPipe[1]) }
            throw posixError("pipe")
        }
        for fd in dataPipe + statusPipe where fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputDescriptor ?? dataPipe[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, statusPipe[1], statusDescriptor)
        // Descriptors the caller inherited from its parent (a shell's command substitution, a test
        // harness) must not stay open in a daemon, or whoever waits for their EOF hangs.
        for fd in openDescriptors()
        where fd > statusDescriptor && !dataPipe.contains(fd) && !statusPipe.contains(fd) && fd != inputDescriptor {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGHUP)
        sigaddset(&defaults, SIGINT)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(
            &attributes, Int16(spawnSetSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        if inputDescriptor == nil { close(dataPipe[0]) }
        close(statusPipe[1])
        defer { close(statusPipe[0]) }
        guard status == 0 else {
            if inputDescriptor == nil { close(dataPipe[1]) }
            throw PasteboardError(.unavailable, "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        var written = true
        if inputDescriptor == nil {
            for part in parts where written {
                written = part.withUnsafeBytes { raw -> Bool in
                    var offset = 0
                    while offset < raw.count {
                        let n = write(dataPipe[1], raw.baseAddress! + offset, raw.count - offset)
                        if n < 0 {
                            if errno == EINTR { continue }
                            return false
                        }
                        offset += n
                    }
                    return true
                }
            }
            close(dataPipe[1])
        }
        guard written else {
            throw PasteboardError(.unavailable, "the background process exited before taking its input")
        }
        try awaitReport(statusPipe[0], pid: pid, timeout: timeout)
    }

    /// Waits for the child's "K" (or "E" and a message) on `fd`.
    private static func awaitReport(_ fd: Int32, pid: pid_t, timeout: Double) throws {
        let reply = readStatus(fd, deadline: now() &+ UInt64(timeout * 1e9))
        if reply.first == UInt8(ascii: "K") { return }
        var child: Int32 = 0
        _ = waitpid(pid, &child, WNOHANG)
        if reply.first == UInt8(ascii: "E") {
            let message = String(decoding: reply.dropFirst(), as: UTF8.self)
            let unavailable = message.hasPrefix("!")
            throw PasteboardError(unavailable ? .unavailable : .io, String(message.drop(while: { $0 == "!" })))
        }
        kill(pid, SIGTERM)
        throw PasteboardError(.unavailable, reply.isEmpty ? "the background process exited without reporting"
                              : "the background process did not report in time")
    }

    /// Reports readiness (or a failure) to the launching pbctl, then closes the descriptor.
    public static func report(_ error: (any Error)?) {
        var message: [UInt8]
        if let error {
            let unavailable = (error as? PasteboardError)?.code == .unavailable
            message = Array(("E" + (unavailable ? "!" : "") + "\(error)").utf8)
        } else {
            message = [UInt8(ascii: "K")]
        }
        _ = message.withUnsafeMutableBytes { write(statusDescriptor, $0.baseAddress, $0.count) }
        close(statusDescriptor)
    }

    private static func readStatus(_ fd: Int32, deadline: UInt64) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while result.count < 65536 {
            let now = now()
            guard now < deadline else { break }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(UInt64(Int32.max), (deadline - now) / 1_000_000 + 1)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { break }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            result += buffer[0..<n]
            if result.first == UInt8(ascii: "K") { break }
        }
        return result
    }

    /// glibc's `POSIX_SPAWN_SETSID` (spawn.h, a GNU extension Swift's Glibc module does not export).
    private static let spawnSetSID: Int32 = 0x80

    /// The descriptors open in this process (from /proc/self/fd through ``FileTree``, the one `readdir`
    /// loop; the listing's own descriptor is closed by then and no longer valid).
    private static func openDescriptors() -> [Int32] {
        FileTree.entries(path: "/proc/self/fd").compactMap { Int32($0) }.filter { fcntl($0, F_GETFD) >= 0 }
    }

    /// The threads of this process (/proc/self/stat, field 20); 0 when unknown.
    private static func threadCount() -> Int {
        let fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return 0 }
        // The command name (field 2) is parenthesised and may hold spaces: count from its end.
        guard let end = buffer[0..<n].lastIndex(of: UInt8(ascii: ")")) else { return 0 }
        let fields = buffer[(end + 1)..<n].split(separator: UInt8(ascii: " "))
        // fields[0] is field 3 (state), so field 20 is fields[17].
        guard fields.count > 17 else { return 0 }
        return Int(String(decoding: fields[17], as: UTF8.self)) ?? 0
    }

    private static func posixError(_ what: String) -> PasteboardError {
        PasteboardError(.io, "\(what) failed: \(String(cString: strerror(errno)))")
    }

    private static func now() -> UInt64 { MonotonicClock.nanoseconds() }
}

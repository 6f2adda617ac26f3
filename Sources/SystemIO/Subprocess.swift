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

// Other programs and log files: `runTool` (a program on PATH with input and captured output: tmux's
// buffers, `watch -- COMMAND`) and `LogFile` (where detached owners and the daemon log, whose standard
// error is /dev/null).

/// A log file opened on first use. Used from the owner's one thread only.
public final class LogFile: @unchecked Sendable {
    public let path: String
    private var fd: Int32 = -1
    public init(path: String) { self.path = path }
    public func append(_ line: String) {
        if fd < 0 { fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

/// Runs a tool found on PATH with `input` (or /dev/null) on its stdin, in `environment`; returns its
/// exit status (127 when it cannot start) and, with `captureOutput`, what it printed on stdout.
/// - Parameter keepStandardError: the tool writes to this process's standard error (a launcher's
///   messages) instead of /dev/null.
public func runTool(
    _ command: [String], input: Data?, environment: [String: String], captureOutput: Bool = true, keepStandardError: Bool = false
) -> (status: Int32, output: Data) {
    var inFDs: [Int32] = [-1, -1]
    var outFDs: [Int32] = [-1, -1]
    guard pipe(&inFDs) == 0 else { return (127, Data()) }
    if captureOutput, pipe(&outFDs) != 0 {
        close(inFDs[0])
        close(inFDs[1])
        return (127, Data())
    }
    _ = fcntl(inFDs[1], F_SETFD, FD_CLOEXEC)
    if captureOutput { _ = fcntl(outFDs[0], F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, inFDs[0], 0)
    if captureOutput {
        posix_spawn_file_actions_adddup2(&actions, outFDs[1], 1)
        if !keepStandardError { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
    }
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    let argv = command.map { strdup($0) } + [nil]
    defer { for p in envp + argv { free(p) } }
    var pid: pid_t = 0
    let status = posix_spawnp(&pid, command[0], &actions, nil, argv, envp)
    close(inFDs[0])
    if captureOutput { close(outFDs[1]) }
    guard status == 0 else {
        close(inFDs[1])
        if captureOutput { close(outFDs[0]) }
        return (127, Data())
    }
    if let input { try? POSIX.writeAll(inFDs[1], input, path: "command input") }
    close(inFDs[1])
    let output = captureOutput ? ((try? POSIX.readAll(outFDs[0], path: "command output")) ?? Data()) : Data()
    if captureOutput { close(outFDs[0]) }
    var result: Int32 = 0
    while waitpid(pid, &result, 0) < 0 && errno == EINTR {}
    return ((result & 0x7F) == 0 ? (result >> 8) & 0xFF : 128 + (result & 0x7F), output)
}

/// The first of `names` that is an executable file in a folder of `path` (`PATH`'s form), with that
/// folder; nil when none is.
public func findExecutable(_ names: [String], path: String) -> (name: String, path: String)? {
    let folders = path.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
    for name in names {
        for folder in folders where access(folder + "/" + name, X_OK) == 0 {
            var st = stat()
            if stat(folder + "/" + name, &st) == 0, st.st_mode & S_IFMT == S_IFREG { return (name, folder + "/" + name) }
        }
    }
    return nil
}

/// A child that shares this process's terminal and standard streams (`pbctl ssh` runs `ssh` so).
public enum ForegroundChild {
    /// Starts `command` (found on PATH) with `environment`; returns its pid.
    /// - Throws: ``PasteboardError`` `.unavailable` when it cannot start.
    public static func start(_ command: [String], environment: [String: String]) throws -> pid_t {
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let argv = command.map { strdup($0) } + [nil]
        defer { for p in envp + argv { free(p) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, command[0], nil, nil, argv, envp)
        guard status == 0 else {
            throw PasteboardError(.unavailable, "\(command[0]): \(POSIX.errorString(status))")
        }
        return pid
    }

    /// Waits for `pid` to end, as a shell reports it: its exit status, or 128 + the signal that ended
    /// it. SIGINT and SIGQUIT are ignored here meanwhile (the child gets them), as system(3) does.
    public static func wait(_ pid: pid_t) -> Int32 {
        let interrupt = signal(SIGINT, SIG_IGN)
        let quit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, interrupt)
            signal(SIGQUIT, quit)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return 255 }
        }
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}

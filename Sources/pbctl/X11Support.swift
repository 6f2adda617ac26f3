// What the CLI needs to reach the X display and other programs: `openX11Backend(_:required:)` (a
// backend on the display, or nil when `required` is false and no display answers; when `required` is
// true, `.unavailable`, exit 69), the detached owner's log (`PBCTL_X11_LOG`), and `runTool` (a program
// on PATH with input and captured output: tmux's buffers, `watch -- COMMAND`).
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DetachedProcess
import Pasteboard
import SystemIO
import PasteboardStore
import PasteboardWayland
import PasteboardX11

/// The Wayland clipboard (data-control), configured from the environment.
func openWaylandBackend(_ context: Context) throws -> WaylandBackend {
    try WaylandBackend(environment: context.environment, registry: context.registry)
}

func openX11Backend(_ context: Context, required: Bool) throws -> (any PasteboardBackend)? {
    let display = context.environment["DISPLAY"] ?? ""
    if display.isEmpty {
        if required { throw PasteboardError(.unavailable, "no X display: DISPLAY is not set") }
        return nil
    }
    do {
        let backend = try X11Backend(display: display, registry: context.registry)
        if let timeout = context.environment["PBCTL_X11_TIMEOUT"].flatMap(Double.init), timeout > 0 {
            backend.stepTimeout = timeout
        }
        return backend
    } catch {
        if required { throw error }
        return nil
    }
}

/// Debugging aid: the detached owner's stderr is /dev/null, so with `PBCTL_X11_LOG=FILE` it logs to
/// FILE instead. The file is opened at the first line, in the owner (a forked owner closes the
/// descriptors it inherits).
func ownerLog(_ context: Context) -> (@Sendable (String) -> Void)? {
    guard let path = context.environment["PBCTL_X11_LOG"], !path.isEmpty else { return nil }
    let file = LogFile(path: path)
    return { line in file.append(line) }
}

/// A log file opened on first use. Used from the owner's one thread only.
private final class LogFile: @unchecked Sendable {
    let path: String
    private var fd: Int32 = -1
    init(path: String) { self.path = path }
    func append(_ line: String) {
        if fd < 0 { fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

/// Runs a tool found on PATH with `input` (or /dev/null) on its stdin, in `environment`; returns its
/// exit status (127 when it cannot start) and, with `captureOutput`, what it printed on stdout.
func runTool(_ command: [String], input: Data?, environment: [String: String], captureOutput: Bool = true) -> (status: Int32, output: Data) {
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
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
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

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

extension Context {
    /// How this process's copies are served, before a command's own options: where a detached owner
    /// logs, how one is spawned when this process cannot fork (`PBCTL_SPAWN_OWNER` makes it always).
    func copyOptions() -> CopyOptions {
        var options = CopyOptions()
        options.spawnOwner = environment["PBCTL_SPAWN_OWNER"] != nil || environment["PBCTL_X11_SPAWN_OWNER"] != nil
        options.ownerLog = ownerLog(self)
        options.ownerArguments = ServeArguments.arguments
        return options
    }
}

// What the CLI gives the detached owners and daemons it starts: where they log (`PBCTL_X11_LOG`, the old
// name kept: it serves every backend) and how a spawned owner is started.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

/// Debugging aid: the detached owner's stderr is /dev/null, so with `PBCTL_X11_LOG=FILE` it logs to
/// FILE instead. The file is opened at the first line, in the owner (a forked owner closes the
/// descriptors it inherits).
func ownerLog(_ context: Context) -> (@Sendable (String) -> Void)? {
    guard let path = context.environment["PBCTL_X11_LOG"], !path.isEmpty else { return nil }
    let file = LogFile(path: path)
    return { line in file.append(line) }
}

extension Context {
    /// How this process's X11 and Wayland backends start the owner of a copy: forked, or spawned as
    /// `pbctl __serve-…` when this process has several threads (the `pbctl ssh` server, the daemon)
    /// or `PBCTL_SPAWN_OWNER` asks; where it logs.
    func ownerLaunch() -> OwnerLaunch {
        OwnerLaunch(
            alwaysSpawn: environment["PBCTL_SPAWN_OWNER"] != nil || environment["PBCTL_X11_SPAWN_OWNER"] != nil,
            log: ownerLog(self), arguments: ServeArguments.arguments)
    }
}

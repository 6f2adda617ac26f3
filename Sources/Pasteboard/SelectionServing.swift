#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Serving content from a process of its own (the owner a copy leaves behind, `copy --foreground`),
// and how that process is started: capabilities of the X11 and Wayland backends, which commands ask
// for (``PasteboardBackend/serving``) without naming a backend.

/// Serving content until another owner takes the selection: what `copy --foreground` and a spawned
/// owner (`pbctl __serve`) run.
public protocol SelectionServing: PasteboardBackend {
    /// Serves `item` on `pasteboard` from this process until another client takes the selection (or
    /// the one paste, or the lifetime `options` give, ends); `ready` runs once the selection is ours.
    func serve(_ item: Item, on pasteboard: PasteboardName, options: CopyOptions, ready: () -> Void) throws
}

extension SelectionServing {
    public var serving: (any SelectionServing)? { self }
}

/// How a backend whose content lives in a process (X11, Wayland) starts that process: a fork of this
/// one where it has a single thread, else a fresh pbctl running the hidden serve command with the item
/// handed over. A setting of the backend, made once where the backend is made (the composition root),
/// so every writer gets a working owner, whatever its threads: `copy`, the `pbctl ssh` server (the
/// daemon serves what a KDE Connect device sent from its own connection, and starts no owner).
public struct OwnerLaunch: Sendable {
    /// Always start a new process instead of forking this one (tests choose it to exercise that path;
    /// `PBCTL_SPAWN_OWNER`).
    public var alwaysSpawn = false
    /// Where a detached owner logs (its standard error is /dev/null).
    public var log: (@Sendable (String) -> Void)?
    /// The command line of a spawned owner serving a request (the CLI's own spelling of its hidden
    /// command); nil: the owner can only fork, and a process with several threads cannot copy.
    public var arguments: (@Sendable (ServeRequest) -> [String])?
    /// The pbctl executable a spawned owner runs.
    public var executable = "/proc/self/exe"

    public init(alwaysSpawn: Bool = false, log: (@Sendable (String) -> Void)? = nil, arguments: (@Sendable (ServeRequest) -> [String])? = nil) {
        self.alwaysSpawn = alwaysSpawn
        self.log = log
        self.arguments = arguments
    }
}

/// What a spawned owner (`pbctl __serve-x11`, `__serve-wayland`) serves: the backend, the display,
/// the pasteboard, one paste, a lifetime. A backend hands it to ``OwnerLaunch/arguments``, which
/// the command line builds from the same option specs the hidden command parses it with, so no flag is
/// spelled twice.
public struct ServeRequest: Sendable, Equatable {
    /// The backend, by its name (``BackendInfo/name``: `x11`, `wayland`).
    public var backend: String
    /// The display the parent wrote to, when it named one (X11).
    public var display: String?
    public var pasteboard: PasteboardName
    public var pasteOnce: Bool
    public var clearAfter: Double?

    public init(backend: String, display: String?, pasteboard: PasteboardName, pasteOnce: Bool, clearAfter: Double?) {
        self.backend = backend
        self.display = display
        self.pasteboard = pasteboard
        self.pasteOnce = pasteOnce
        self.clearAfter = clearAfter
    }

    /// The options the owner serves with.
    public var options: CopyOptions {
        var options = CopyOptions()
        options.pasteOnce = pasteOnce
        options.clearAfter = clearAfter
        return options
    }
}

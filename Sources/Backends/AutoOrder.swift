import Pasteboard

/// What `auto` tries, in order, as the environment alone says (no connection made): the one place the
/// order is written, which ``BackendChoice/choose(_:_:_:)``, the quick copy and the quick paste all read.
public struct AutoOrder: Sendable, Equatable {
    /// `PBCTL_REMOTE`: the `pbctl ssh` session's socket, tried first.
    public var remote: String?
    /// `WAYLAND_DISPLAY`: the compositor, tried next (data-control may be missing).
    public var wayland: String?
    /// `DISPLAY`: the X display, then.
    public var x11: String?
    /// Else the store, and beside it the terminal's clipboard in a session a copy is mirrored to (an SSH
    /// session, inside tmux or GNU screen): why, or nil.
    public var terminalSession: String?

    public init(variable: (String) -> String?) {
        func set(_ name: String) -> String? { variable(name).flatMap { $0.isEmpty ? nil : $0 } }
        remote = set("PBCTL_REMOTE")
        wayland = set("WAYLAND_DISPLAY")
        x11 = set("DISPLAY")
        terminalSession = variable("SSH_CONNECTION") != nil || variable("SSH_TTY") != nil ? "an SSH session"
            : variable("TMUX") != nil ? "inside tmux" : variable("STY") != nil ? "inside GNU screen" : nil
    }

    /// No session, no display: `auto` is the store, whatever else happens.
    public var isStoreOnly: Bool { remote == nil && wayland == nil && x11 == nil }

    /// The kind `PBCTL_BACKEND` names (`auto` when unset or empty); nil for a name that is none.
    public static func requestedKind(variable: (String) -> String?) -> BackendKind? {
        let name = variable("PBCTL_BACKEND")?.lowercased() ?? ""
        return name.isEmpty ? .auto : BackendKind(rawValue: name)
    }
}

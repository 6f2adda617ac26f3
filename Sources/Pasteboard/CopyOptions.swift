#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How one copy is served, for backends whose content lives in a process (X11, Wayland) or a holder
/// (the store's sensitive items). Backends ignore what does not apply to them. How the process that
/// serves it starts is the backend's own setting (``OwnerLaunch``), the same for every copy.
public struct CopyOptions: Sendable {
    /// Serve from this process until another client takes the selection, instead of a detached owner.
    public var foreground = false
    /// Serve one paste, then give the content up.
    public var pasteOnce = false
    /// Give the content up and wipe it after this many seconds (`--clear-after`).
    public var clearAfter: Double?
    /// How long sensitive content lives when `clearAfter` is not given.
    public var sensitiveLifetime: Double = 45
    /// Heard in the serving process after each paste of content (protocol targets such as TARGETS do not
    /// count) with the number served so far; false gives the content up, as ``pasteOnce`` does after the
    /// first (`xclip -loops N`, and its `-quiet` progress lines). X11 owners started by this process (in
    /// the foreground or forked) call it; a spawned owner, and the other backends, do not.
    public var afterPaste: (@Sendable (Int) -> Bool)?
    public init() {}

    /// The lifetime of content with these flags: `clearAfter`, else ``sensitiveLifetime`` for
    /// sensitive content, else none.
    public func lifetime(sensitive: Bool) -> Double? { clearAfter ?? (sensitive ? sensitiveLifetime : nil) }
}

/// How long a process holding copied content in memory keeps it (the store's holder): `lifetime` seconds (nil: until the pasteboard changes), and
/// whether it gives them up after one paste (`--paste-once`).
public struct HoldTerms: Sendable, Equatable {
    public var lifetime: Double?
    public var pasteOnce: Bool
    public init(lifetime: Double?, pasteOnce: Bool = false) {
        self.lifetime = lifetime
        self.pasteOnce = pasteOnce
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The clipboard `pbctl daemon` keeps, chosen: the keeper, which backend it is (what a detached daemon
/// is told to use), and how to connect to the same place again.
public struct ChosenKeeper {
    public var keeper: any ClipboardKeeping
    public var kind: BackendKind
    /// A new connection to the same display or compositor, nil when there is none (the daemon's
    /// connection was dropped while the display still answers).
    public var reopen: () -> (any ClipboardKeeping)?
}

extension BackendChoice {
    /// The clipboard the daemon keeps: X11 on `display` when given (even in a Wayland session); else
    /// the one `kind` names, or with `auto` Wayland when its compositor offers data-control, else X11,
    /// else the store (kept only to sync it with peers).
    /// - Throws: ``PasteboardError`` `.unavailable` (exit 69) when that backend is not there or keeps no
    ///   clipboard.
    public static func keeper(_ kind: BackendKind, display: String?, _ setting: BackendSetting) throws -> ChosenKeeper {
        var setting = setting
        var kind = kind
        if let display {
            setting.environment["DISPLAY"] = display
            kind = .x11
        }
        let chosen = try choose(kind, BackendNeeds(), setting)
        guard let keeper = chosen.backend.keeping else {
            throw PasteboardError(
                .unavailable, "no display to keep the clipboard of (\(chosen.reason)): pbctl daemon needs Wayland or X11")
        }
        let kept = BackendKind(rawValue: chosen.backend.info.name) ?? kind
        return ChosenKeeper(keeper: keeper, kind: kept, reopen: { [setting] in try? choose(kept, BackendNeeds(), setting).backend.keeping })
    }
}

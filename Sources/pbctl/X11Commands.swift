// The seam between the CLI and the X11 bridge (owned by the X11 bridge work; replace the bodies).
//
// The lead's CLI calls exactly two things from here:
// - `openX11Backend(_:required:)`: a backend on the X display, or nil when `required` is false and no
//   display answers; when `required` is true and no display answers, throw
//   `PasteboardError(.unavailable, "...")` (exit 69).
// - `x11Commands`: extra subcommands (`watch`, `daemon`, hidden `__serve-x11`), as `Command` values
//   (see main.swift). A hidden command can set `raw:` to parse its own arguments.
import Pasteboard

func openX11Backend(_ context: Context, required: Bool) throws -> (any PasteboardBackend)? {
    if required {
        throw PasteboardError(.unavailable, "the X11 backend is not available in this build yet")
    }
    return nil
}

let x11Commands: [Command] = []

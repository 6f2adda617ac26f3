#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO
import PasteboardStore
import PasteboardTerminal
import Representations

/// An error with its own exit code, for failures that are not the model's.
struct CLIError: Error {
    let code: Int32
    let message: String
    init(_ code: Int32, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// What every command needs: the streams, the environment, the type registry, and the backend the
/// user chose.
struct Context: Sendable {
    var terminal: Terminal
    var registry: TypeRegistry = .standard

    /// The built-in types plus those declared in `$XDG_CONFIG_HOME/pbctl/types` and
    /// `/usr/share/pbctl/types` (see `DeclaredTypes.swift`); bad declarations are reported and skipped.
    init(terminal: Terminal, registry: TypeRegistry? = nil) {
        self.terminal = terminal
        self.registry = registry ?? DeclaredTypes.registry(reportingTo: terminal)
    }

    var environment: [String: String] { terminal.environment }

    /// This context with another environment (a spawned owner serving the display its parent named).
    func with(environment: [String: String]) -> Context {
        var copy = self
        copy.terminal.environment = environment
        return copy
    }

    enum BackendKind: String, CaseIterable, Sendable { case auto, store, wayland, x11, osc52 }

    /// What a command needs from its backend beyond the kind: whether the copy is sensitive (never to
    /// the terminal's clipboard), and how long to wait for a terminal's answer.
    struct BackendNeeds {
        var sensitive = false
        var terminalTimeout: Double? = nil
        /// Say on standard error how the terminal is reached when something is not as it seems (`-v`).
        var verbose = false
    }

    /// A backend and why it was chosen (`pbctl info`).
    struct ChosenBackend {
        var backend: any PasteboardBackend
        var reason: String
    }

    /// The store, with the converters that produce derived representations on demand, and a holder
    /// process for sensitive content.
    func openStore() throws -> FileStore {
        let root = FileStore.defaultRoot(environment: environment)
        return try FileStore(root: root, producer: Conversion.produceRepresentation) { items, socketPath, pasteboard, count, lifetime in
            try launchHolder(
                items, socketPath: socketPath, pasteboard: pasteboard, changeCount: count, storeRoot: root, lifetime: lifetime)
        }
    }

    func backend(_ global: GlobalOptions, _ needs: BackendNeeds = BackendNeeds()) throws -> any PasteboardBackend {
        try chooseBackend(global.backend, needs).backend
    }

    /// The backend for this invocation: the one asked for, or with `auto` X11 when a display answers,
    /// else the store (with the terminal's clipboard beside it in a remote or multiplexed session).
    func chooseBackend(_ kind: BackendKind, _ needs: BackendNeeds = BackendNeeds()) throws -> ChosenBackend {
        let explicit = "--backend or PBCTL_BACKEND"
        switch kind {
        case .store:
            return ChosenBackend(backend: try openStore(), reason: "asked for (\(explicit))")
        case .x11:
            return ChosenBackend(backend: try openX11Backend(self, required: true)!, reason: "asked for (\(explicit))")
        case .wayland:
            return ChosenBackend(backend: try openWaylandBackend(self), reason: "asked for (\(explicit))")
        case .osc52:
            // The store keeps every representation; the terminal gets the text (and reads come from it).
            let mirrored = MirroredPasteboard(
                primary: try openStore(), mirror: try terminalBackend(timeout: needs.terminalTimeout, verbose: needs.verbose), readsFromMirror: true)
            return ChosenBackend(backend: mirrored, reason: "asked for (\(explicit))")
        case .auto:
            // Wayland first (its data-control needs no window), then X11 (GNOME: through Xwayland), then the store.
            var waylandNote = ""
            if let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty {
                do {
                    return ChosenBackend(
                        backend: try openWaylandBackend(self), reason: "auto: the Wayland compositor (\(wayland)) offers data-control")
                } catch let error as PasteboardError {
                    waylandNote = "; Wayland skipped: " + error.message
                }
            }
            let display = environment["DISPLAY"] ?? ""
            if let x11 = try openX11Backend(self, required: false) {
                return ChosenBackend(backend: x11, reason: "auto: the X display \(display) answers" + waylandNote)
            }
            let store = try openStore()
            let why = (display.isEmpty ? "auto: no display (DISPLAY is not set)" : "auto: the X display \(display) does not answer")
                + waylandNote
            if let terminal = autoTerminalBackend(needs), let remote = remoteTerminalReason {
                return ChosenBackend(
                    backend: MirroredPasteboard(primary: store, mirror: terminal, readsFromMirror: false),
                    reason: why + "; copies also go to the terminal (\(remote))")
            }
            return ChosenBackend(backend: store, reason: why)
        }
    }

    /// Why `auto` also sends copies to the terminal: a remote or multiplexed session with a controlling
    /// terminal. Nil: store only (cron, CI, `ssh host cmd` with no tty, a local console).
    var remoteTerminalReason: String? {
        let reason = environment["SSH_CONNECTION"] != nil || environment["SSH_TTY"] != nil ? "an SSH session"
            : environment["TMUX"] != nil ? "inside tmux" : environment["STY"] != nil ? "inside GNU screen" : nil
        // (A stale TMUX still counts: the terminal is then sent OSC 52 directly.)
        guard let reason, TerminalDevice.isAvailable else { return nil }
        return reason
    }

    func autoTerminalBackend(_ needs: BackendNeeds) -> TerminalClipboardBackend? {
        guard remoteTerminalReason != nil, !needs.sensitive else { return nil }
        guard let terminal = try? terminalBackend(timeout: needs.terminalTimeout, skipWithoutText: true, verbose: needs.verbose) else { return nil }
        return terminal
    }

    /// The terminal's clipboard, configured from the environment: tmux's own buffer tool inside tmux,
    /// screen's passthrough inside screen, kitty's OSC 5522 where the terminal is kitty.
    func terminalBackend(timeout: Double?, skipWithoutText: Bool = false, verbose: Bool = false) throws -> TerminalClipboardBackend {
        var configuration = TerminalClipboardBackend.Configuration()
        configuration.skipWithoutText = skipWithoutText
        // The text a plain-text consumer gets: the first representation that is text, UTF-8 or ASCII.
        let textRegistry = registry
        configuration.plainText = { item in
            try item.representations.first { $0.type == .utf8PlainText || textRegistry.conforms($0.type, to: .plainText) }?.data()
        }
        if let text = environment["PBCTL_OSC52_MAX"], !text.isEmpty {
            configuration.maximumText = try parseSize(text, option: "PBCTL_OSC52_MAX")
        }
        if let timeout { configuration.timeout = max(0.05, timeout) }
        if let tmux = environment["TMUX"], !Multiplexer.tmuxServerAnswers(tmux) {
            // A stale TMUX (inherited into su, a container, an SSH hop): the terminal itself is spoken to.
            if verbose {
                terminal.err(
                    "pbctl: TMUX names a tmux server that does not answer (\(Multiplexer.tmuxSocket(tmux) ?? tmux)); "
                        + "OSC 52 goes to the terminal directly")
            }
        } else if environment["TMUX"] != nil {
            configuration.wrapping = .tmux
            let environment = self.environment
            configuration.multiplexerCopy = { text in runTool(["tmux", "load-buffer", "-w", "-"], input: text, environment: environment).status == 0 }
            configuration.multiplexerPaste = {
                let result = runTool(["tmux", "save-buffer", "-"], input: nil, environment: environment)
                return result.status == 0 ? result.output : nil
            }
        } else if environment["STY"] != nil {
            configuration.wrapping = .screen
        }
        switch environment["PBCTL_OSC5522"] {
        case "1": configuration.kitty = true
        case "0": configuration.kitty = false
        default: configuration.kitty = environment["TERM"] == "xterm-kitty" && environment["TMUX"] == nil && environment["STY"] == nil
        }
        let registry = self.registry
        configuration.mimeType = { registry.preferredMIMEType(of: $0) }
        return try TerminalClipboardBackend(configuration: configuration)
    }
}

/// The longest duration an option takes (`--clear-after`): a year. Anything longer is a typo, and
/// would overflow the clocks it is added to.
let maximumSeconds: Double = 365 * 24 * 3600

/// A duration option's value in seconds: a finite number from 0 to ``maximumSeconds``.
func parseSeconds(_ text: String, option: String) throws -> Double {
    guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= maximumSeconds else {
        throw UsageError(message: "--\(option) takes a number of seconds from 0 to \(Int(maximumSeconds)) (one year)", command: nil)
    }
    return seconds
}

/// The largest input `pbctl copy` takes by default: 1 GiB.
let defaultMaximumInputSize = 1 << 30

/// `512`, `64K`, `300M`, `2G` (powers of 1024; a trailing `B` or `iB` is accepted).
func parseSize(_ text: String, option: String) throws -> Int {
    var digits = text.uppercased()
    for suffix in ["IB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count { digits.removeLast(suffix.count) }
    var shift = 0
    if let last = digits.last, let index = ["K", "M", "G", "T"].firstIndex(of: String(last)) {
        shift = 10 * (index + 1)
        digits.removeLast()
    }
    guard let value = Int(digits), value > 0, value <= Int.max >> (shift + 1) else {
        throw UsageError(message: "\(option) takes a size such as 512K, 64M or 2G", command: nil)
    }
    return value << shift
}

extension Context {
    /// `--max-size`, else `PBCTL_MAX_SIZE`, else ``defaultMaximumInputSize``.
    func maximumInputSize(_ option: String?) throws -> Int {
        if let text = option { return try parseSize(text, option: "--max-size") }
        if let text = environment["PBCTL_MAX_SIZE"], !text.isEmpty { return try parseSize(text, option: "PBCTL_MAX_SIZE") }
        return defaultMaximumInputSize
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import PasteboardStore
import PasteboardTerminal

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

    enum BackendKind: String { case auto, store, x11, osc52 }

    func pasteboardName(_ arguments: ParsedArguments) throws -> PasteboardName {
        if arguments.has("primary") {
            if let explicit = arguments.value("pasteboard"), explicit != "primary" {
                throw UsageError(message: "--primary and --pasteboard \(explicit) contradict each other", command: nil)
            }
            return .primary
        }
        guard let text = arguments.value("pasteboard") else { return .general }
        guard let name = PasteboardName(text) else {
            throw UsageError(
                message: "invalid pasteboard name '\(text)' (use 1 to 64 of A-Z a-z 0-9 . _ -)", command: nil)
        }
        return name
    }

    /// `--clear-after` for sensitive content, else the default lifetime.
    func sensitiveLifetime(_ arguments: ParsedArguments) throws -> Double {
        guard let text = arguments.value("clear-after") else { return defaultSensitiveLifetime }
        return try parseSeconds(text, option: "clear-after")
    }

    func backendKind(_ arguments: ParsedArguments) throws -> BackendKind {
        let text = arguments.value("backend") ?? environment["PBCTL_BACKEND"] ?? "auto"
        guard let kind = BackendKind(rawValue: text.lowercased()) else {
            throw UsageError(message: "unknown backend '\(text)' (use auto, store, x11 or osc52)", command: nil)
        }
        return kind
    }

    /// The store, with the converters that produce derived representations on demand, and a holder
    /// process for sensitive content (which lives `sensitiveLifetime` seconds at most).
    func openStore(sensitiveLifetime: Double = defaultSensitiveLifetime) throws -> FileStore {
        let root = FileStore.defaultRoot(environment: environment)
        return try FileStore(root: root, producer: produceRepresentation) { items, socketPath, pasteboard, count in
            try launchHolder(
                items, socketPath: socketPath, pasteboard: pasteboard, changeCount: count, storeRoot: root,
                lifetime: sensitiveLifetime)
        }
    }

    /// The backend for this invocation: the store, or X11 when asked for (or, with `auto`, when a
    /// display answers).
    func backend(_ arguments: ParsedArguments) throws -> any PasteboardBackend {
        switch try backendKind(arguments) {
        case .store:
            return try openStore(sensitiveLifetime: try sensitiveLifetime(arguments))
        case .x11:
            return try openX11Backend(self, required: true)!
        case .osc52:
            // The store keeps every representation; the terminal gets the text (and reads come from it).
            let store = try openStore(sensitiveLifetime: try sensitiveLifetime(arguments))
            return MirroredPasteboard(primary: store, mirror: try terminalBackend(arguments), readsFromMirror: true)
        case .auto:
            if let x11 = try openX11Backend(self, required: false) { return x11 }
            let store = try openStore(sensitiveLifetime: try sensitiveLifetime(arguments))
            if let terminal = autoTerminalBackend(arguments) {
                return MirroredPasteboard(primary: store, mirror: terminal, readsFromMirror: false)
            }
            return store
        }
    }

    /// Why `auto` also sends copies to the terminal: a remote or multiplexed session with a controlling
    /// terminal. Nil: store only (cron, CI, `ssh host cmd` with no tty, a local console).
    var remoteTerminalReason: String? {
        let reason = environment["SSH_CONNECTION"] != nil || environment["SSH_TTY"] != nil ? "an SSH session"
            : environment["TMUX"] != nil ? "inside tmux" : environment["STY"] != nil ? "inside GNU screen" : nil
        guard let reason, TerminalDevice.isAvailable else { return nil }
        return reason
    }

    func autoTerminalBackend(_ arguments: ParsedArguments) -> TerminalClipboardBackend? {
        guard remoteTerminalReason != nil, !arguments.has("sensitive") else { return nil }
        guard let terminal = try? terminalBackend(arguments, skipWithoutText: true) else { return nil }
        return terminal
    }

    /// The terminal's clipboard, configured from the environment: tmux's own buffer tool inside tmux,
    /// screen's passthrough inside screen, kitty's OSC 5522 where the terminal is kitty.
    func terminalBackend(_ arguments: ParsedArguments, skipWithoutText: Bool = false) throws -> TerminalClipboardBackend {
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
        if let text = arguments.value("timeout") {
            configuration.timeout = max(0.05, try parseSeconds(text, option: "timeout"))
        }
        if environment["TMUX"] != nil {
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
    func maximumInputSize(_ arguments: ParsedArguments) throws -> Int {
        if let text = arguments.value("max-size") { return try parseSize(text, option: "--max-size") }
        if let text = environment["PBCTL_MAX_SIZE"], !text.isEmpty { return try parseSize(text, option: "PBCTL_MAX_SIZE") }
        return defaultMaximumInputSize
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import PasteboardRemote
import PasteboardStore
import PasteboardTerminal
import PasteboardWayland
import PasteboardX11
import Representations
import SystemIO

/// Which backend an invocation uses, and why: the one place that names the concrete backends (the
/// composition root). Commands get a ``ChosenBackend`` and reach what it can do through
/// ``PasteboardBackend`` and its capabilities.
public enum BackendKind: String, CaseIterable, Sendable { case auto, remote, store, wayland, x11, osc52 }

/// What a command needs from its backend beyond the kind.
public struct BackendNeeds: Sendable {
    /// A sensitive copy: never to the terminal's clipboard.
    public var sensitive = false
    /// How long to wait for a terminal's answer.
    public var terminalTimeout: Double? = nil
    /// Say on standard error how the terminal is reached when something is not as it seems (`-v`).
    public var verbose = false

    public init(sensitive: Bool = false, terminalTimeout: Double? = nil, verbose: Bool = false) {
        self.sensitive = sensitive
        self.terminalTimeout = terminalTimeout
        self.verbose = verbose
    }
}

/// A backend and why it was chosen (`pbctl info`).
public struct ChosenBackend {
    public var backend: any PasteboardBackend
    public var reason: String
}

/// What the choice depends on: the environment, the type registry, how the store starts a holder of
/// sensitive content, and where notes go.
public struct BackendSetting {
    public var environment: [String: String]
    public var registry: TypeRegistry
    /// Starts the holder of sensitive items (the `__hold` command) for the store at `storeRoot`.
    public typealias HolderStarter = (
        _ items: [Item], _ socketPath: String, _ pasteboard: PasteboardName, _ changeCount: Int, _ storeRoot: String, _ terms: HoldTerms
    ) throws -> Void
    public var holderLauncher: HolderStarter?
    /// How the X11 and Wayland backends start the process that serves a copy (any writer's, whatever
    /// its threads).
    public var ownerLaunch: OwnerLaunch
    /// Hears a note for standard error (`-v`).
    public var note: @Sendable (String) -> Void

    public init(
        environment: [String: String], registry: TypeRegistry, holderLauncher: HolderStarter?, ownerLaunch: OwnerLaunch = OwnerLaunch(),
        note: @escaping @Sendable (String) -> Void
    ) {
        self.environment = environment
        self.registry = registry
        self.holderLauncher = holderLauncher
        self.ownerLaunch = ownerLaunch
        self.note = note
    }
}

public enum BackendChoice {
    /// The backend for `kind`: the one asked for, or with `auto` the Wayland compositor when it offers
    /// data-control, else the X display when one answers, else the store (with the terminal's clipboard
    /// beside it in a remote or multiplexed session).
    /// - Throws: ``PasteboardError`` `.unavailable` (exit 69) when the backend asked for is not there.
    public static func choose(_ kind: BackendKind, _ needs: BackendNeeds = BackendNeeds(), _ setting: BackendSetting) throws -> ChosenBackend {
        let environment = setting.environment
        let explicit = "--backend or PBCTL_BACKEND"
        switch kind {
        case .store:
            return ChosenBackend(backend: try store(setting), reason: "asked for (\(explicit))")
        case .x11:
            return ChosenBackend(backend: try x11(setting, required: true)!, reason: "asked for (\(explicit))")
        case .wayland:
            return ChosenBackend(backend: try wayland(setting), reason: "asked for (\(explicit))")
        case .remote:
            return ChosenBackend(backend: try remote(setting), reason: "asked for (\(explicit))")
        case .osc52:
            // The store keeps every representation; the terminal gets the text (and reads come from it).
            let mirrored = MirroredPasteboard(
                primary: try store(setting), mirror: try terminal(setting, timeout: needs.terminalTimeout, verbose: needs.verbose),
                readsFromMirror: true)
            return ChosenBackend(backend: mirrored, reason: "asked for (\(explicit))")
        case .auto:
            // The machine `pbctl ssh` came from first (PBCTL_REMOTE), then Wayland (its data-control needs
            // no window), then X11 (GNOME: through Xwayland), then the store (AutoOrder).
            // A session whose socket does not answer says so wherever the choice is told (-v, `info`).
            let order = AutoOrder { environment[$0] }
            var skipped = ""
            if let path = order.remote {
                do {
                    return ChosenBackend(backend: try remote(setting), reason: "auto: PBCTL_REMOTE (pbctl ssh) answers at \(path)")
                } catch let error as PasteboardError {
                    skipped = "; PBCTL_REMOTE=\(path) does not answer (\(error.message))"
                    if needs.verbose { setting.note("pbctl: PBCTL_REMOTE=\(path) does not answer (\(error.message)); using this machine's clipboard") }
                }
            }
            if let display = order.wayland {
                do {
                    return ChosenBackend(backend: try wayland(setting), reason: "auto: the Wayland compositor (\(display)) offers data-control")
                } catch let error as PasteboardError {
                    skipped += "; Wayland skipped: " + error.message
                }
            }
            let display = environment["DISPLAY"] ?? ""
            if let x11 = try x11(setting, required: false) {
                return ChosenBackend(backend: x11, reason: "auto: the X display \(display) answers" + skipped)
            }
            let store = try store(setting)
            let why = (display.isEmpty ? "auto: no display (DISPLAY is not set)" : "auto: the X display \(display) does not answer")
                + skipped
            if let remote = order.terminalSession, TerminalDevice.isAvailable, !needs.sensitive,
                let terminal = try? terminal(setting, timeout: needs.terminalTimeout, skipWithoutText: true, verbose: needs.verbose)
            {
                return ChosenBackend(
                    backend: MirroredPasteboard(primary: store, mirror: terminal, readsFromMirror: false),
                    reason: why + "; copies also go to the terminal (\(remote))")
            }
            return ChosenBackend(backend: store, reason: why)
        }
    }

    /// The store, with the converters that produce derived representations on demand, and a holder
    /// process for sensitive content.
    static func store(_ setting: BackendSetting) throws -> FileStore {
        let root = FileStore.defaultRoot(environment: setting.environment)
        let launch = setting.holderLauncher.map { start -> FileStore.HolderLauncher in
            { items, socketPath, pasteboard, changeCount, terms in try start(items, socketPath, pasteboard, changeCount, root, terms) }
        }
        return try FileStore(root: root, producer: Conversion.produceRepresentation, holderLauncher: launch)
    }

    /// The names of the pasteboards in the store (for completions): empty when there is none.
    public static func storedPasteboardNames(environment: [String: String]) -> [PasteboardName] {
        guard let store = try? FileStore(root: FileStore.defaultRoot(environment: environment)) else { return [] }
        return (try? store.pasteboardNames()) ?? []
    }

    /// The X display's selections; nil when no display answers and it is not `required` (else
    /// `.unavailable`, exit 69).
    static func x11(_ setting: BackendSetting, required: Bool) throws -> X11Backend? {
        let display = setting.environment["DISPLAY"] ?? ""
        if display.isEmpty {
            if required { throw PasteboardError(.unavailable, "no X display: DISPLAY is not set") }
            return nil
        }
        do {
            let backend = try X11Backend(display: display, registry: setting.registry)
            backend.ownerLaunch = setting.ownerLaunch
            if let timeout = setting.environment["PBCTL_X11_TIMEOUT"].flatMap(Double.init), timeout > 0 { backend.stepTimeout = timeout }
            return backend
        } catch {
            if required { throw error }
            return nil
        }
    }

    /// The clipboard of the machine `pbctl ssh` came from, through `PBCTL_REMOTE`'s socket: it must
    /// answer within a second, else `.unavailable`.
    static func remote(_ setting: BackendSetting) throws -> RemotePasteboard {
        guard let path = setting.environment["PBCTL_REMOTE"], !path.isEmpty else {
            throw PasteboardError(.unavailable, "PBCTL_REMOTE is not set: no pbctl ssh session")
        }
        let temporary = setting.environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        let remote = try RemotePasteboard(path: path, timeout: 1, temporaryFolder: temporary)
        // The machine the session came from, as sshd names it (SSH_CONNECTION: its address first).
        if let client = setting.environment["SSH_CONNECTION"]?.split(separator: " ").first, !client.isEmpty {
            let host = client.contains(":") ? "[\(client)]" : String(client)
            remote.origin = ForeignContent.Origin(host: host, label: "pbctl ssh: \(host)")
        }
        return remote
    }

    /// The Wayland clipboard (data-control).
    static func wayland(_ setting: BackendSetting) throws -> WaylandBackend {
        let backend = try WaylandBackend(environment: setting.environment, registry: setting.registry)
        backend.ownerLaunch = setting.ownerLaunch
        return backend
    }

    /// The terminal's clipboard, configured from the environment: tmux's own buffer tool inside tmux,
    /// screen's passthrough inside screen, kitty's OSC 5522 where the terminal is kitty.
    static func terminal(_ setting: BackendSetting, timeout: Double?, skipWithoutText: Bool = false, verbose: Bool = false) throws
        -> TerminalClipboardBackend
    {
        let environment = setting.environment
        var configuration = TerminalClipboardBackend.Configuration()
        configuration.skipWithoutText = skipWithoutText
        // The text a plain-text consumer gets: the first representation that is text, UTF-8 or ASCII.
        let registry = setting.registry
        configuration.plainText = { item in
            try item.representations.first { $0.type == .utf8PlainText || registry.conforms($0.type, to: .plainText) }?.data()
        }
        if let text = environment["PBCTL_OSC52_MAX"], !text.isEmpty {
            guard let size = ByteSize.parse(text) else {
                throw PasteboardError(.invalidData, "PBCTL_OSC52_MAX=\(text) is not a size (such as 1M)")
            }
            configuration.maximumText = size
        }
        if let timeout { configuration.timeout = max(0.05, timeout) }
        if let tmux = environment["TMUX"], !Multiplexer.tmuxServerAnswers(tmux) {
            // A stale TMUX (inherited into su, a container, an SSH hop): the terminal itself is spoken to.
            if verbose {
                setting.note(
                    "pbctl: TMUX names a tmux server that does not answer (\(Multiplexer.tmuxSocket(tmux) ?? tmux)); "
                        + "OSC 52 goes to the terminal directly")
            }
        } else if environment["TMUX"] != nil {
            configuration.wrapping = .tmux
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
        configuration.mimeType = { registry.preferredMIMEType(of: $0) }
        return try TerminalClipboardBackend(configuration: configuration)
    }
}

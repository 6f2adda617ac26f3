// `pbctl daemon`: the clipboard manager of a display, on any backend that keeps a clipboard (X11, Wayland),
// and its hidden detached form `__daemon` (what `--detach` starts, in DetachedDaemonCommand.swift).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Backends
import ClipboardManager
import DetachedProcess
import Pasteboard
import SystemIO

struct DaemonArguments {
    static let display = OptionSpec.value("display", nil, "D", .text, "the X display (default: $DISPLAY)")
    static let primary = OptionSpec.flag("primary", nil, "also keep PRIMARY's text and restore it when its owner goes away")
    static let replace = OptionSpec.flag("replace", nil, "take over from a running clipboard manager")
    static let detach = OptionSpec.flag("detach", nil, "run in the background; return once the daemon manages the clipboard")
    static let verbose = OptionSpec.flag("verbose", "v", "log saves, restores and skipped content to standard error")
    static let status = OptionSpec.flag(
        "status", nil, "report whether a clipboard manager runs on the display (exit 0) or not (exit 1)")
    static let noHistory = OptionSpec.flag("no-history", nil, "do not record the clipboard in the history")
    static let wayland = OptionSpec.flag("wayland", nil, "keep the Wayland compositor's clipboard (as --backend wayland)")
    static let kdeConnect = OptionSpec.flag("kdeconnect", nil, "be a KDE Connect device: sync the clipboard with paired phones, desktops and pbctl daemons")
    static let name = OptionSpec.value("name", nil, "NAME", .text, "with --kdeconnect: the device name others show (default: the host name)")
    static let noDiscovery = OptionSpec.flag(
        "no-discovery", nil, "with --kdeconnect: no UDP broadcast, no UDP port listened on; devices are reached only by address (pbctl devices add), which works with or without discovery on either side")
    static let listen = OptionSpec.value("listen", nil, "ADDRESS", .text, "with --kdeconnect: the IPv4 address to listen on (default: every interface)")
    static let specs = [display, wayland, primary, replace, detach, verbose, status, noHistory, kdeConnect, name, noDiscovery, listen]

    var display: String
    /// `--display` given: the X11 daemon even in a Wayland session.
    var displayGiven: Bool
    var primary: Bool
    var replace: Bool
    var detach: Bool
    var verbose: Bool
    var status: Bool
    var history: Bool
    /// KDE Connect: nil when neither --kdeconnect nor the configuration asks for it.
    var kdeConnect: Bool
    var name: String?
    var discovery: Bool
    var listen: UInt32?

    var global: GlobalOptions

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        global = try GlobalOptions(arguments, environment: context.environment)
        if arguments.has(Self.wayland) { global.backend = .wayland }
        display = arguments.value(Self.display) ?? context.environment["DISPLAY"] ?? ""
        displayGiven = arguments.value(Self.display) != nil
        primary = arguments.has(Self.primary)
        replace = arguments.has(Self.replace)
        detach = arguments.has(Self.detach)
        verbose = arguments.has(Self.verbose)
        status = arguments.has(Self.status)
        history = !arguments.has(Self.noHistory)
        let configuration = Configuration.load(context)
        kdeConnect = arguments.has(Self.kdeConnect) || configuration.kdeConnect
        name = arguments.value(Self.name) ?? configuration.kdeConnectName
        if let name, KDEConnectPeer.filteredName(name).isEmpty {
            throw UsageError(message: "--name: a device name needs letters or digits", command: "daemon")
        }
        discovery = !arguments.has(Self.noDiscovery) && configuration.kdeConnectDiscovery
        listen = try arguments.value(Self.listen).map { text in
            guard let address = KDEConnectPeer.bindAddress(text) else {
                throw UsageError(message: "--listen takes an IPv4 address such as 127.0.0.1", command: "daemon")
            }
            return address
        }
        listenText = arguments.value(Self.listen)
    }

    var listenText: String?

    /// The same options as flags, for the detached daemon (`__daemon` parses them with these specs), on
    /// the backend this one chose.
    func arguments(backend: Context.BackendKind) -> [String] {
        var arguments: [String]
        switch backend {
        case .wayland: arguments = [Self.wayland.flag]
        case .x11 where !display.isEmpty: arguments = [Self.display.flag, display]
        default: arguments = [GlobalOptions.backend.flag, backend.rawValue]
        }
        if primary { arguments.append(Self.primary.flag) }
        if replace { arguments.append(Self.replace.flag) }
        if !history { arguments.append(Self.noHistory.flag) }
        if kdeConnect { arguments.append(Self.kdeConnect.flag) }
        if let name { arguments += [Self.name.flag, name] }
        if !discovery { arguments.append(Self.noDiscovery.flag) }
        if let listenText { arguments += [Self.listen.flag, listenText] }
        return arguments
    }
}

let daemonCommand = Command(
    help: CommandHelp(
        name: "daemon", summary: "run the clipboard manager: keep the clipboard when applications exit, record the history",
        usage: "pbctl daemon [--display D] [--primary] [--replace] [--detach] [--verbose] [--kdeconnect [--name NAME]] | pbctl daemon --status",
        details: """
            On Wayland (WAYLAND_DISPLAY, a compositor with data-control, unless --display is given) it
            fetches every type of each new clipboard content, offers it again when the clipboard is
            cleared because its owner exited, and records it in the history (--primary: the primary
            selection too); one daemon per compositor.
            On X11, one daemon per X display. It owns CLIPBOARD_MANAGER, so exiting GTK, Qt, Chromium and Firefox
            applications hand it their clipboard (SAVE_TARGETS): it fetches every target they offer and
            serves them after they are gone. It also keeps a copy of each clipboard owner's text, rich
            text and PNG, and serves it again when that owner exits without handing it over (xclip killed,
            a crashed application). Content marked sensitive (x-kde-passwordManagerHint, nspasteboard.org
            ConcealedType or TransientType) is never kept. While it runs, `pbctl copy` hands plain
            CLIPBOARD copies to it instead of starting a background owner. With --primary it also keeps
            PRIMARY's text (the mouse selection; sensitive content excepted, as for CLIPBOARD) and serves
            it again when PRIMARY's owner goes away with no new owner, such as a terminal whose window
            closes; without it PRIMARY is left alone. Fetching from a slow owner never delays the pastes
            the daemon serves. Runs in the foreground (stop it with Ctrl-C or
            SIGTERM); --detach starts it in the background and returns once it manages the clipboard.
            It reads the configuration file again when the file changes or on SIGHUP (the unit's
            ExecReload), so history.ignore-*, max-* and max-age apply to the next copy, and it removes
            entries as they pass history.max-age. A history that cannot be opened or record (a full disk, a
            damaged database) is said on standard error with its cause, once per cause; the clipboard is
            kept and the exit status is unchanged.
            A second daemon on the same display is refused (exit 69) unless --replace is given, in which
            case the running manager exits.
            With --kdeconnect (or `kdeconnect = yes` in the configuration) the daemon is also a KDE
            Connect device: it announces itself on the network (UDP 1716), pairs (pbctl devices), and
            syncs the clipboard both ways with paired, reachable devices: the text with KDE Connect,
            GSConnect and the phone apps, every representation with another pbctl. Content marked
            sensitive is never sent. Without a display it syncs the store's clipboard.
            """,
        examples: ["pbctl daemon --detach", "pbctl daemon --detach --primary", "pbctl daemon --verbose",
                   "pbctl daemon --display :1 --replace", "pbctl daemon --detach --kdeconnect --name laptop"]),
    options: DaemonArguments.specs,
    run: { context, arguments in try runDaemon(DaemonArguments(arguments, context), context, detached: false) })

/// `pbctl daemon` and `__daemon`: keeps the clipboard until stopped. A detached daemon reports on fd 3
/// once it keeps the clipboard (or why it cannot) and logs to `PBCTL_X11_LOG`. The daemon itself is
/// `ClipboardDaemon`'s and the keeper `BackendChoice.keeper`'s choice: this maps the options to their
/// values, calls, and prints.
func runDaemon(_ options: DaemonArguments, _ context: Context, detached: Bool) throws -> Int32 {
    let chosen = try BackendChoice.keeper(options.global.backend, display: options.displayGiven ? options.display : nil, context.backendSetting)
    let keeper = chosen.keeper
    if options.status {
        guard let running = try keeper.runningKeeper() else {
            try context.terminal.out("no clipboard manager on \(keeper.keptPlace)\n")
            return ExitCode.notFound
        }
        try context.terminal.out(running + "\n")
        return ExitCode.ok
    }
    if options.detach, !detached {
        return spawnDetachedDaemon(options.arguments(backend: chosen.kind), context)
    }
    let log = daemonLog(options, context, detached: detached)
    let terminal = context.terminal
    func say(_ message: String) {
        if detached { log?(message) } else { terminal.err("pbctl daemon: " + message) }
    }
    let configuration = Configuration.load(context)
    var daemon = ClipboardDaemon.Configuration()
    daemon.keep.primary = options.primary
    daemon.keep.recordPrimary = options.primary || configuration.recordPrimary
    daemon.keep.replace = options.replace
    daemon.keep.maximumRecordedSize = configuration.history.maxRepresentationSize
    daemon.keep.registry = context.registry
    daemon.keep.log = log
    daemon.warn = { [log] message in
        if detached { log?(message) } else { terminal.err("pbctl daemon: " + message) }
    }
    if options.history {
        let path = Configuration.path(context.environment)
        let registry = context.registry
        daemon.configurationFile = path
        daemon.reload = { [terminal] in
            let fresh = Configuration.reread(path: path) { message in
                if detached { log?(message) } else { terminal.err(message) }
            }
            return (fresh.history, fresh.historyRules(registry))
        }
        do {
            daemon.history = try context.openHistory(configuration.history)
        } catch {
            say("warning: the clipboard is kept but not recorded: \((error as? PasteboardError)?.message ?? "\(error)")")
        }
    }
    if options.kdeConnect {
        var choice = KDEConnectPeer.Choice(environment: context.environment)
        choice.name = options.name
        choice.discovery = options.discovery
        choice.bindAddress = options.listen
        daemon.addKDEConnect(choice)
    }
    if detached { POSIX.leaveCurrentDirectory() }
    let outcome = ClipboardDaemon.run(
        keeper, reopen: chosen.reopen, configuration: daemon,
        ready: {
            for peer in daemon.peers { say(peer.summary) }
            if detached {
                DetachedProcess.report(nil)
            } else {
                terminal.err("pbctl daemon: keeping the clipboard of \(keeper.keptPlace) (pid \(getpid()))")
            }
        }, say: say)
    switch outcome {
    case .failed(let error):
        if detached {
            DetachedProcess.report(error)
        } else {
            terminal.err(error.message.hasPrefix("pbctl") ? error.message : "pbctl daemon: \(error.message)")
        }
        return ExitCode.forError(error)
    case .stopped(let signal):
        say("stopped by signal \(signal); the clipboard it kept is released")
    case .replaced(let place):
        say("another clipboard manager took over on \(place); exiting")
    case .lost(let reason):
        // Not a success: the display or compositor went away, and a service manager should start the
        // daemon again once it is back (the user unit's Restart=on-failure).
        say("\(reason); exiting with status \(ExitCode.unavailable)")
        return ExitCode.unavailable
    }
    return ExitCode.ok
}

/// Where the daemon logs: with `--verbose` standard error; detached, `PBCTL_X11_LOG`'s file.
private func daemonLog(_ options: DaemonArguments, _ context: Context, detached: Bool) -> (@Sendable (String) -> Void)? {
    if detached {
        guard let append = ownerLog(context) else { return nil }
        return { line in append("pbctl daemon: " + line) }
    }
    guard options.verbose else { return nil }
    let terminal = context.terminal
    return { line in terminal.err("pbctl daemon: " + line) }
}

/// `daemon --detach`: starts `pbctl __daemon` with the options that carry over, and returns once it
/// keeps the clipboard or has said why it cannot.
private func spawnDetachedDaemon(_ arguments: [String], _ context: Context) -> Int32 {
    do {
        try DetachedProcess.spawn(executable: "/proc/self/exe", arguments: [detachedDaemonName] + arguments, input: .bytes([]))
    } catch let error as PasteboardError {
        // The child's own message ("pbctl daemon already running on :0 (pid N)") as it is.
        context.terminal.err(error.message.hasPrefix("pbctl") ? error.message : "pbctl daemon: \(error.message)")
        return ExitCode.forError(error)
    } catch {
        context.terminal.err("pbctl daemon: \(error)")
        return ExitCode.unavailable
    }
    return ExitCode.ok
}

// `pbctl daemon`: the clipboard manager of a display, on any backend that keeps a clipboard (X11, Wayland),
// and its hidden detached form `__daemon` (what `--detach` starts, in DetachedDaemonCommand.swift).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import DetachedProcess
import KDEConnect
import Pasteboard
import PasteboardStore
import Representations
import SystemIO
import Synchronization

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
        "no-discovery", nil, "with --kdeconnect: no UDP broadcast; devices are reached only by address (pbctl devices add)")
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
        if let name, DeviceIdentity.filteredName(name).isEmpty {
            throw UsageError(message: "--name: a device name needs letters or digits", command: "daemon")
        }
        discovery = !arguments.has(Self.noDiscovery) && configuration.kdeConnectDiscovery
        listen = try arguments.value(Self.listen).map { text in
            guard let address = KDEConnectControl.bindAddress(text) else {
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

/// The backend whose clipboard the daemon keeps: X11 on `--display`'s display; else the one `--backend`
/// or `PBCTL_BACKEND` names, or with `auto` Wayland when its compositor offers data-control, else X11.
func daemonBackend(_ options: DaemonArguments, _ context: Context) throws -> (any ClipboardKeeping, Context.BackendKind, Context) {
    var context = context
    var kind = options.global.backend
    if options.displayGiven {
        var environment = context.environment
        environment["DISPLAY"] = options.display
        context = context.with(environment: environment)
        kind = .x11
    }
    let chosen = try context.chooseBackend(kind)
    guard let keeper = chosen.backend.keeping else {
        throw PasteboardError(
            .unavailable, "no display to keep the clipboard of (\(chosen.reason)): pbctl daemon needs Wayland or X11")
    }
    return (keeper, Context.BackendKind(rawValue: chosen.backend.info.name) ?? kind, context)
}

/// `daemon --kdeconnect` where no display's clipboard can be kept: the backend whose changes are
/// watched instead (the store), nil when there is none.
func syncOnlyBackend(_ options: DaemonArguments, _ context: Context) -> (any PasteboardWatching, Context.BackendKind)? {
    guard options.kdeConnect, !options.displayGiven, let chosen = try? context.chooseBackend(options.global.backend),
        chosen.backend.keeping == nil, let watching = chosen.backend.watching
    else { return nil }
    return (watching, Context.BackendKind(rawValue: chosen.backend.info.name) ?? options.global.backend)
}

/// `pbctl daemon` and `__daemon`: keeps the clipboard until stopped. A detached daemon reports on fd 3
/// once it keeps the clipboard (or why it cannot) and logs to `PBCTL_X11_LOG`.
func runDaemon(_ options: DaemonArguments, _ context: Context, detached: Bool) throws -> Int32 {
    if !options.status, let (watching, kind) = syncOnlyBackend(options, context) {
        return try runSyncOnlyDaemon(options, context, watching: watching, kind: kind, detached: detached)
    }
    let (keeper, kind, context) = try daemonBackend(options, context)
    if options.status {
        guard let running = try keeper.runningKeeper() else {
            try context.terminal.out("no clipboard manager on \(keeper.keptPlace)\n")
            return ExitCode.notFound
        }
        try context.terminal.out(running + "\n")
        return ExitCode.ok
    }
    if options.detach, !detached {
        return spawnDetachedDaemon(options.arguments(backend: kind), context)
    }
    let log = daemonLog(options, context, detached: detached)
    func say(_ message: String) {
        if detached { log?(message) } else { context.terminal.err("pbctl daemon: " + message) }
    }
    let configuration = Configuration.load(context)
    var keep = KeepOptions()
    keep.primary = options.primary
    keep.recordPrimary = options.primary || configuration.recordPrimary
    keep.replace = options.replace
    keep.maximumRecordedSize = configuration.history.maxRepresentationSize
    keep.registry = context.registry
    keep.producer = Conversion.produceRepresentation
    // What is kept is served as a copy of it would be (a JPEG-only owner's picture also as PNG…).
    keep.complete = { Producers.completed($0, convert: Conversion.produceRepresentation) }
    keep.log = log
    // The history: every new content, written on a queue of its own so a large entry never delays the
    // pastes the daemon serves; the newest entry is served again when the clipboard is empty at start.
    if options.history, let history = try? context.openHistory(configuration.history) {
        let queue = DispatchQueue(label: "pbctl.history")
        let registry = context.registry
        keep.record = { kept in
            queue.async { daemonRecord(kept, in: history, registry: registry, log: log) }
        }
        if let newest = try? history.entries(History.Query(limit: 1, keepsContent: true)).entries.first, let item = try? history.item(newest.id) {
            keep.restore = Producers.completed(item, convert: Conversion.produceRepresentation)
        }
    }
    // KDE Connect: each new content goes to the paired devices too, and what they send is written
    // through a second connection to the same clipboard (the keeper's own is its loop's).
    var sync: KDEConnectService?
    if options.kdeConnect {
        let registry = context.registry
        let attribution = ReceivedAttribution()
        let terminal = context.terminal
        let service = try startKDEConnect(options, context, log: log, say: { say($0) }) { received in
            attribution.remember(received, registry: registry)
            guard let backend = try? context.chooseBackend(kind).backend else { return }
            // Devices send originals; what derives from them is offered here, as a local copy's is.
            let item = Producers.completed(received.item, convert: Conversion.produceRepresentation)
            do { try backend.write([item], to: .general, options: CopyOptions()) } catch {
                if let log { log("KDE Connect: cannot set the clipboard from \(received.deviceName): \(error)") } else {
                    terminal.err("pbctl daemon: KDE Connect: cannot set the clipboard from \(received.deviceName): \(error)")
                }
            }
        }
        sync = service
        let record = keep.record
        keep.record = { kept in
            service.localChange(kept.item)
            var kept = kept
            if let device = attribution.device(of: kept.item, registry: registry) { kept.application = device }
            record?(kept)
        }
    }
    defer { sync?.stop() }
    if detached { POSIX.leaveCurrentDirectory() }
    let outcome = ClipboardKeeperRunner.run(
        keeper, reopen: { try? context.chooseBackend(kind).backend.keeping }, options: keep,
        ready: {
            if detached {
                DetachedProcess.report(nil)
            } else {
                context.terminal.err("pbctl daemon: keeping the clipboard of \(keeper.keptPlace) (pid \(getpid()))")
            }
        }, say: say)
    switch outcome {
    case .failed(let error):
        if detached {
            DetachedProcess.report(error)
        } else {
            context.terminal.err(error.message.hasPrefix("pbctl") ? error.message : "pbctl daemon: \(error.message)")
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

/// Records one content the daemon kept in the history, logging the outcome.
private func daemonRecord(_ kept: KeptContent, in history: History, registry: TypeRegistry, log: (@Sendable (String) -> Void)?) {
    var item = kept.item
    if let application = kept.application { item.metadata.sourceApplication = application }
    let outcome = try? history.record(
        item, preview: historyPreview(item, registry), application: kept.application, selection: kept.selection,
        skipped: kept.skipped.map { History.Entry.Kind(type: $0.type, size: $0.size, cutShort: $0.cutShort ?? false) })
    switch outcome {
    case .recorded(let id)?: log?("history: recorded entry \(id)")
    case .moved(let id)?: log?("history: entry \(id) moved to the top")
    case .notRecorded(let why)?: log?("history: not recorded: \(why)")
    case nil: log?("history: could not record")
    }
}

/// Starts the KDE Connect device for the daemon: its name, discovery, where it listens, where it logs;
/// `apply` sets the local clipboard from what a device sent (on a queue of its own).
func startKDEConnect(
    _ options: DaemonArguments, _ context: Context, log: (@Sendable (String) -> Void)?, say: @escaping (String) -> Void,
    apply: @escaping @Sendable (KDEConnectService.ReceivedClipboard) -> Void
) throws -> KDEConnectService {
    var configuration = KDEConnectService.Configuration(name: options.name.map(DeviceIdentity.filteredName) ?? KDEConnectControl.hostName())
    configuration.discovery = options.discovery
    if let address = options.listen { configuration.bindAddress = address }
    configuration.registry = context.registry
    configuration.log = log
    let queue = DispatchQueue(label: "pbctl.kdeconnect.write")
    configuration.receive = { received in queue.async { apply(received) } }
    let service = try KDEConnectService(folder: StateFolder(path: StateFolder.defaultPath(environment: context.environment)), configuration: configuration)
    try service.start()
    say("KDE Connect: device \(configuration.name) (\(service.certificate.id)), TCP port \(service.tcpPort)")
    return service
}

/// Which device a content came from, when it is one a device just sent (the display gives it back to
/// the keeper, which records it): the history names the device as its application.
final class ReceivedAttribution: Sendable {
    private let last = Mutex<(key: UInt64, device: String)?>(nil)

    func remember(_ received: KDEConnectService.ReceivedClipboard, registry: TypeRegistry) {
        guard let key = KDEConnectService.contentKey(received.item, registry: registry) else { return }
        last.withLock { $0 = (key, "KDE Connect: \(received.deviceName)") }
    }

    func device(of item: Item, registry: TypeRegistry) -> String? {
        guard let key = KDEConnectService.contentKey(item, registry: registry) else { return nil }
        return last.withLock { $0?.key == key ? $0?.device : nil }
    }
}

/// `daemon --kdeconnect` without a display: the store's changes are watched and sent; what devices
/// send is written to the store and recorded in the history with the device as its application.
func runSyncOnlyDaemon(
    _ options: DaemonArguments, _ context: Context, watching: any PasteboardWatching, kind: Context.BackendKind, detached: Bool
) throws -> Int32 {
    if options.detach, !detached {
        return spawnDetachedDaemon(options.arguments(backend: kind), context)
    }
    let log = daemonLog(options, context, detached: detached)
    let terminal = context.terminal
    let say: @Sendable (String) -> Void = { message in if detached { log?(message) } else { terminal.err("pbctl daemon: " + message) } }
    let configuration = Configuration.load(context)
    let history = options.history ? try? context.openHistory(configuration.history) : nil
    let registry = context.registry
    let service: KDEConnectService
    do {
        service = try startKDEConnect(options, context, log: log, say: say) { received in
            guard let backend = try? context.chooseBackend(kind).backend else { return }
            do {
                let item = Producers.completed(received.item, convert: Conversion.produceRepresentation)
                try backend.write([item], to: .general, options: CopyOptions())
                if let history {
                    _ = try? history.record(
                        received.item, preview: historyPreview(received.item, registry), application: "KDE Connect: \(received.deviceName)")
                }
            } catch {
                say("KDE Connect: cannot set the clipboard from \(received.deviceName): \(error)")
            }
        }
    } catch let error as PasteboardError {
        if detached { DetachedProcess.report(error) } else { terminal.err("pbctl daemon: \(error.message)") }
        return ExitCode.forError(error)
    }
    if detached { POSIX.leaveCurrentDirectory() }
    let maximum = configuration.history.maxRepresentationSize
    nonisolated(unsafe) let backend = watching
    let outcome = ClipboardKeeperRunner.runUntilStopped(
        ready: {
            if detached { DetachedProcess.report(nil) } else { terminal.err("pbctl daemon: syncing the \(kind.rawValue) clipboard with KDE Connect (pid \(getpid()))") }
        },
        {
            // The content at the start, then each change.
            if let item = KDEConnectService.currentItem(of: backend, maximumSize: maximum) { service.localChange(item) }
            do {
                try backend.watch(.general) { _ in
                    if let item = KDEConnectService.currentItem(of: backend, maximumSize: maximum) { service.localChange(item) }
                    return true
                }
            } catch {
                say("the \(kind.rawValue) watch ended: \(error)")
            }
        })
    service.stop()
    if case .stopped(let signal) = outcome { say("stopped by signal \(signal)") }
    return ExitCode.ok
}

// `pbctl daemon`: the clipboard manager of one X display (X11ClipboardManager), and its hidden
// detached form `__daemon` (what `--detach` starts).
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import DetachedProcess
import Pasteboard
import PasteboardStore
import PasteboardWayland
import PasteboardX11
import Representations


struct DaemonArguments {
    static let display = OptionSpec.value("display", nil, "D", .text, "the X display (default: $DISPLAY)")
    static let primary = OptionSpec.flag("primary", nil, "also keep PRIMARY's text and restore it when its owner goes away")
    static let replace = OptionSpec.flag("replace", nil, "take over from a running clipboard manager")
    static let detach = OptionSpec.flag("detach", nil, "run in the background; return once the daemon manages the clipboard")
    static let verbose = OptionSpec.flag("verbose", "v", "log saves, restores and skipped content to standard error")
    static let status = OptionSpec.flag(
        "status", nil, "report whether a clipboard manager runs on the display (exit 0) or not (exit 1)")
    static let noHistory = OptionSpec.flag("no-history", nil, "do not record the clipboard in the history")
    static let specs = [display, primary, replace, detach, verbose, status, noHistory]

    var display: String
    /// `--display` given: the X11 daemon even in a Wayland session.
    var displayGiven: Bool
    var primary: Bool
    var replace: Bool
    var detach: Bool
    var verbose: Bool
    var status: Bool
    var history: Bool

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        display = arguments.value(Self.display) ?? context.environment["DISPLAY"] ?? ""
        displayGiven = arguments.value(Self.display) != nil
        primary = arguments.has(Self.primary)
        replace = arguments.has(Self.replace)
        detach = arguments.has(Self.detach)
        verbose = arguments.has(Self.verbose)
        status = arguments.has(Self.status)
        history = !arguments.has(Self.noHistory)
    }
}

let daemonCommand = Command(
    help: CommandHelp(
        name: "daemon", summary: "run the clipboard manager: keep the clipboard when applications exit, record the history",
        usage: "pbctl daemon [--display D] [--primary] [--replace] [--detach] [--verbose] | pbctl daemon --status",
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
            """,
        examples: ["pbctl daemon --detach", "pbctl daemon --detach --primary", "pbctl daemon --verbose",
                   "pbctl daemon --display :1 --replace"]),
    options: DaemonArguments.specs,
    run: { context, arguments in
        let options = try DaemonArguments(arguments, context)
        if !options.displayGiven, let wayland = try waylandDaemonBackend(context) {
            return runWaylandDaemonCommand(wayland, options, context)
        }
        let display = options.display
        guard !display.isEmpty else {
            throw PasteboardError(.unavailable, "no X display: DISPLAY is not set (or pass --display)")
        }
        let replace = options.replace
        let primary = options.primary
        if options.status {
            let connection = try XConnection(display: display)
            guard let running = try X11ClipboardManager.runningManager(on: connection) else {
                try context.terminal.out("no clipboard manager on \(display)\n")
                return ExitCode.notFound
            }
            let who = running.pid.map { "pbctl daemon (pid \($0))" } ?? "a clipboard manager (not pbctl)"
            try context.terminal.out("\(who) on \(display), window 0x\(String(running.window, radix: 16))\n")
            return ExitCode.ok
        }
        if options.detach {
            return spawnDetachedDaemon(["--display", display], options, context)
        }
        let log: (@Sendable (String) -> Void)? = options.verbose ? daemonLogger(fd: STDERR_FILENO) : nil
        return runDaemon(display: display, replace: replace, primary: primary, history: options.history, log: log,
                         context: context, detached: false)
    })

/// `pbctl __daemon --display D [--replace] [--primary]`: the daemon started by `--detach`; reports on fd 3
/// once it owns CLIPBOARD_MANAGER (stdio are /dev/null; `PBCTL_X11_LOG=/path` logs to a file).
let detachedDaemonCommand = Command(
    help: CommandHelp(name: "__daemon", summary: "internal: the detached clipboard manager", usage: "", details: "",
                      examples: []),
    options: [], hidden: true,
    raw: { context, arguments in
        var display = context.environment["DISPLAY"] ?? ""
        var replace = false
        var primary = false
        var history = true
        var wayland = false
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--display" where index + 1 < arguments.count:
                display = arguments[index + 1]
                index += 1
            case "--replace":
                replace = true
            case "--primary":
                primary = true
            case "--no-history":
                history = false
            case "--wayland":
                wayland = true
            default:
                DetachedProcess.report(PasteboardError(.invalidData, "unknown argument \(arguments[index])"))
                return ExitCode.usage
            }
            index += 1
        }
        var log: (@Sendable (String) -> Void)?
        if let path = context.environment["PBCTL_X11_LOG"], !path.isEmpty {
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            if fd >= 0 { log = daemonLogger(fd: fd) }
        }
        _ = chdir("/")
        if wayland {
            let backend: WaylandBackend
            do {
                backend = try openWaylandBackend(context)
            } catch {
                DetachedProcess.report(error)
                return ExitCode.unavailable
            }
            return runWaylandDaemon(backend, replace: replace, primary: primary, history: history, log: log, context: context,
                                    detached: true)
        }
        return runDaemon(display: display, replace: replace, primary: primary, history: history, log: log,
                         context: context, detached: true)
    },
    run: { _, _ in ExitCode.usage })

private func daemonLogger(fd: Int32) -> @Sendable (String) -> Void {
    { line in
        let bytes = Array(("pbctl daemon: " + line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

/// `daemon --detach`: starts `pbctl __daemon` (`where` names the display or `--wayland`) with the
/// options that carry over, and returns once it manages the clipboard or has said why it cannot.
private func spawnDetachedDaemon(_ where: [String], _ options: DaemonArguments, _ context: Context) -> Int32 {
    var arguments = ["__daemon"] + `where`
    if options.replace { arguments.append("--replace") }
    if options.primary { arguments.append("--primary") }
    if !options.history { arguments.append("--no-history") }
    do {
        try DetachedProcess.spawn(executable: "/proc/self/exe", arguments: arguments, input: .bytes([]))
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

/// A daemon that cannot start: the error to the parent of a detached daemon (its status pipe), else to
/// standard error; the exit code.
private func daemonFailure(_ error: PasteboardError, _ context: Context, detached: Bool) -> Int32 {
    if detached {
        DetachedProcess.report(error)
    } else {
        context.terminal.err(error.message.hasPrefix("pbctl") ? error.message : "pbctl daemon: \(error.message)")
    }
    return ExitCode.forError(error)
}

/// Records one content the daemon kept in the history, logging the outcome; `skipped`: the owner's types
/// the daemon left out for their size (listed as skipped, with their size).
private func daemonRecord(
    _ item: Item, in history: History, application: String?, selection: String, skipped: [TypeSummary] = [],
    registry: TypeRegistry, log: (@Sendable (String) -> Void)?
) {
    let outcome = try? history.record(
        item, preview: historyPreview(item, registry), application: application, selection: selection,
        skipped: skipped.map { History.Entry.Kind(type: $0.type, size: $0.size) })
    switch outcome {
    case .recorded(let id)?: log?("history: recorded entry \(id)")
    case .moved(let id)?: log?("history: entry \(id) moved to the top")
    case .notRecorded(let why)?: log?("history: not recorded: \(why)")
    case nil: log?("history: could not record")
    }
}

/// The X connection's descriptor and the signal that stopped the daemon, for the signal handler: it
/// shuts the socket down, which wakes the event loop (blocked in poll or waiting for a reply) with a
/// lost connection; the server then releases every selection the daemon owned.
nonisolated(unsafe) private var daemonConnectionFD: Int32 = -1
nonisolated(unsafe) private var daemonStopSignal: Int32 = 0

private func installDaemonSignalHandlers(connectionFD: Int32) {
    daemonConnectionFD = connectionFD
    for sig in [SIGTERM, SIGINT, SIGHUP] {
        signal(sig) { received in
            daemonStopSignal = received
            if daemonConnectionFD >= 0 { _ = shutdown(daemonConnectionFD, Int32(SHUT_RDWR)) }
        }
    }
}

func runDaemon(display: String, replace: Bool, primary: Bool, history recording: Bool, log: (@Sendable (String) -> Void)?,
               context: Context, detached: Bool) -> Int32 {
    func fail(_ error: PasteboardError) -> Int32 { daemonFailure(error, context, detached: detached) }
    var options = X11ClipboardManager.Options()
    options.displayName = display
    options.replace = replace
    options.primary = primary
    options.log = log
    options.registry = context.registry
    options.producer = Conversion.produceRepresentation
    if let timeout = context.environment["PBCTL_X11_TIMEOUT"].flatMap(Double.init), timeout > 0 {
        options.stepTimeout = timeout
    }
    // The history: every new CLIPBOARD content (and PRIMARY's with --primary), written on a queue of
    // its own so a large entry never delays the pastes the daemon serves.
    let configuration = Configuration.load(context)
    let history = recording ? try? context.openHistory(configuration.history) : nil
    if let history {
        let queue = DispatchQueue(label: "pbctl.history")
        let registry = context.registry
        options.recordPrimary = primary || configuration.recordPrimary
        options.recordLimits.maxTargetBytes = configuration.history.maxRepresentationSize
        options.record = { recorded in
            queue.async {
                var item = recorded.item
                if let application = recorded.application { item.metadata.sourceApplication = application }
                daemonRecord(item, in: history, application: recorded.application, selection: recorded.selection.rawValue,
                             skipped: recorded.skipped, registry: registry, log: log)
            }
        }
    }
    let manager: X11ClipboardManager
    do {
        let connection = try XConnection(display: display)
        manager = X11ClipboardManager(connection: connection, options: options)
        installDaemonSignalHandlers(connectionFD: connection.fileDescriptor)
        try manager.start()
        // The clipboard survives a restart: with nobody owning it, the newest entry is served again.
        if let history, let newest = try? history.entries().entries.first, let item = try? history.item(newest.id) {
            try manager.serveIfEmpty(item)
        }
    } catch let error as PasteboardError {
        if daemonStopSignal != 0 { return ExitCode.ok }
        return fail(error)
    } catch {
        return fail(PasteboardError(.unavailable, "\(error)"))
    }
    if detached {
        DetachedProcess.report(nil)
    } else {
        context.terminal.err("pbctl daemon: managing the clipboard on \(display) (pid \(getpid()))")
    }
    let outcome: X11ClipboardManager.Exit
    do {
        outcome = try manager.run()
    } catch let error as PasteboardError {
        if daemonStopSignal != 0 { outcome = .connectionLost } else { return fail(error) }
    } catch {
        if daemonStopSignal != 0 { outcome = .connectionLost } else { return fail(PasteboardError(.unavailable, "\(error)")) }
    }
    let message: String
    switch outcome {
    case .replaced:
        message = "another clipboard manager took over on \(display); exiting"
    case .connectionLost where daemonStopSignal != 0:
        message = "stopped by signal \(daemonStopSignal); the X server released the clipboard"
    case .connectionLost:
        message = "the X server \(display) closed the connection; exiting"
    }
    if detached { log?(message) } else { context.terminal.err("pbctl daemon: " + message) }
    return ExitCode.ok
}

// MARK: Wayland

/// The Wayland compositor the daemon keeps the clipboard of: with PBCTL_BACKEND=wayland, or in a Wayland
/// session (WAYLAND_DISPLAY) whose compositor offers data-control; nil for X11.
private func waylandDaemonBackend(_ context: Context) throws -> WaylandBackend? {
    let kind = context.environment["PBCTL_BACKEND"].flatMap(Context.BackendKind.init(rawValue:)) ?? .auto
    switch kind {
    case .wayland:
        return try openWaylandBackend(context)
    case .auto:
        guard let display = context.environment["WAYLAND_DISPLAY"], !display.isEmpty else { return nil }
        do {
            return try openWaylandBackend(context)
        } catch let error as PasteboardError {
            // GNOME's mutter has no data-control: its X11 applications through Xwayland, then.
            guard let x11 = context.environment["DISPLAY"], !x11.isEmpty else { throw error }
            context.terminal.err("pbctl daemon: \(error.message); managing the X11 clipboard on \(x11) instead")
            return nil
        }
    default:
        return nil
    }
}

private func runWaylandDaemonCommand(_ backend: WaylandBackend, _ options: DaemonArguments, _ context: Context) -> Int32 {
    let lock = WaylandDaemonLock(socket: backend.connection.path, environment: context.environment)
    if options.status {
        if let pid = lock.runningDaemon() {
            try? context.terminal.out("pbctl daemon (pid \(pid)) on \(backend.connection.path)\n")
            return ExitCode.ok
        }
        try? context.terminal.out("no pbctl daemon on \(backend.connection.path)\n")
        return ExitCode.notFound
    }
    if options.detach { return spawnDetachedDaemon(["--wayland"], options, context) }
    let log: (@Sendable (String) -> Void)? = options.verbose ? daemonLogger(fd: STDERR_FILENO) : nil
    return runWaylandDaemon(backend, replace: options.replace, primary: options.primary, history: options.history, log: log,
                            context: context, detached: false)
}

/// One daemon per compositor: a lock file in `$XDG_RUNTIME_DIR` (else the temporary directory) named
/// after the compositor's socket, held with flock while the daemon runs, with its pid inside.
struct WaylandDaemonLock {
    let path: String

    init(socket: String, environment: [String: String]) {
        var directory = environment["XDG_RUNTIME_DIR"] ?? ""
        var info = stat()
        if directory.isEmpty || stat(directory, &info) != 0 || (info.st_mode & S_IFMT) != S_IFDIR {
            directory = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        }
        let name = String(socket.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        path = "\(directory)/pbctl-daemon-\(getuid())-\(name).lock"
    }

    private func open() -> Int32 {
        Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    }

    private func pid(in fd: Int32) -> pid_t? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0, let pid = pid_t(String(decoding: buffer[0..<n], as: UTF8.self).trimmingASCIIWhitespace()),
              pid > 1 else { return nil }
        return pid
    }

    /// The pid of the daemon holding the lock, if one does.
    func runningDaemon() -> pid_t? {
        let fd = open()
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 { return nil }
        return pid(in: fd) ?? 0
    }

    /// Takes the lock for this process (asking a running daemon to stop first with `replace`); the
    /// descriptor stays open, and the lock held, until the process exits.
    func acquire(replace: Bool) throws {
        let fd = open()
        guard fd >= 0 else {
            throw PasteboardError(.io, "\(path): \(String(cString: strerror(errno)))")
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let running = pid(in: fd)
            guard replace else {
                close(fd)
                throw PasteboardError(.unavailable, "pbctl daemon already running on this compositor\(running.map { " (pid \($0))" } ?? "")")
            }
            if let running { kill(running, SIGTERM) }
            let deadline = Date().addingTimeInterval(5)
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                guard Date() < deadline else {
                    close(fd)
                    throw PasteboardError(.unavailable, "the running pbctl daemon did not stop within 5 s")
                }
                usleep(20_000)
            }
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
    }
}

nonisolated(unsafe) private var waylandDaemonFD: Int32 = -1

func runWaylandDaemon(_ backend: WaylandBackend, replace: Bool, primary: Bool, history recording: Bool, log: (@Sendable (String) -> Void)?,
                      context: Context, detached: Bool) -> Int32 {
    func fail(_ error: PasteboardError) -> Int32 { daemonFailure(error, context, detached: detached) }
    let where_ = backend.connection.path
    do {
        try WaylandDaemonLock(socket: where_, environment: context.environment).acquire(replace: replace)
    } catch let error as PasteboardError {
        return fail(error)
    } catch {
        return fail(PasteboardError(.unavailable, "\(error)"))
    }
    var options = WaylandClipboardManager.Options()
    options.log = log
    let configuration = Configuration.load(context)
    options.maxRepresentationBytes = configuration.history.maxRepresentationSize
    options.primary = primary
    options.recordPrimary = primary || configuration.recordPrimary
    let history = recording ? try? context.openHistory(configuration.history) : nil
    if let history {
        let registry = context.registry
        options.record = { item, primary, skipped in
            daemonRecord(item, in: history, application: nil, selection: primary ? "primary" : "clipboard", skipped: skipped,
                         registry: registry, log: log)
        }
    }
    // The newest history entry, served again when the clipboard is empty at start.
    var restore: Item?
    if let history, let newest = try? history.entries().entries.first { restore = try? history.item(newest.id) }
    // A signal shuts the socket down: the event loop ends, and the compositor drops the selection this
    // process served.
    waylandDaemonFD = backend.connection.fd
    daemonStopSignal = 0
    for sig in [SIGTERM, SIGINT, SIGHUP] {
        signal(sig) { received in
            daemonStopSignal = received
            if waylandDaemonFD >= 0 { _ = shutdown(waylandDaemonFD, Int32(SHUT_RDWR)) }
        }
    }
    signal(SIGPIPE, SIG_IGN)
    if detached {
        DetachedProcess.report(nil)
    } else {
        context.terminal.err("pbctl daemon: keeping the Wayland clipboard of \(where_) (pid \(getpid()))")
    }
    func say(_ message: String) {
        if detached { log?(message) } else { context.terminal.err("pbctl daemon: " + message) }
    }
    var backend = backend
    var reconnections: [timespec] = []
    while true {
        let manager = WaylandClipboardManager(backend: backend, options: options)
        do {
            try manager.run(restore: restore)
            return ExitCode.ok
        } catch {
            let reason = (error as? PasteboardError)?.message ?? "\(error)"
            if daemonStopSignal != 0 {
                say("stopped by signal \(daemonStopSignal)")
                return ExitCode.ok
            }
            // A compositor drops a client it cannot write to at once (another client offering thousands
            // of types does that): when it still answers, connect again, at most 5 times a minute.
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            reconnections = reconnections.filter { now.tv_sec - $0.tv_sec < 60 }
            usleep(100_000)
            if reconnections.count < 5, daemonStopSignal == 0, let fresh = try? openWaylandBackend(context) {
                reconnections.append(now)
                say("the Wayland compositor closed the connection (\(reason)); connected again")
                backend = fresh
                waylandDaemonFD = fresh.connection.fd
                restore = manager.kept ?? restore
                continue
            }
            say("the Wayland compositor went away (\(reason)); exiting")
            return ExitCode.ok
        }
    }
}

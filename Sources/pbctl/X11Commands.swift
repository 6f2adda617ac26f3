// The seam between the CLI and the X11 bridge.
//
// The lead's CLI calls:
// - `openX11Backend(_:required:)`: a backend on the X display, or nil when `required` is false and no
//   display answers; when `required` is true and no display answers, throws `.unavailable` (exit 69).
// - `x11Commands`: `watch`, `daemon` and the hidden `__serve-x11` (the spawned owner behind `copy` when it cannot fork).
// - `x11CopyOptionSpecs` + `configureX11Copy(_:_:_:)`: the copy flags `--foreground`, `--paste-once`,
//   `--clear-after SECONDS`, applied to an ``X11Backend`` before `write`.
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DetachedProcess
import Pasteboard
import PasteboardStore
import PasteboardX11

func openX11Backend(_ context: Context, required: Bool) throws -> (any PasteboardBackend)? {
    let display = context.environment["DISPLAY"] ?? ""
    if display.isEmpty {
        if required { throw PasteboardError(.unavailable, "no X display: DISPLAY is not set") }
        return nil
    }
    do {
        let backend = try X11Backend(display: display, registry: context.registry)
        if let timeout = context.environment["PBCTL_X11_TIMEOUT"].flatMap(Double.init), timeout > 0 {
            backend.stepTimeout = timeout
        }
        return backend
    } catch {
        if required { throw error }
        return nil
    }
}

/// Options `copy` accepts for the X11 backend (ignored by the store).
let x11CopyOptionSpecs: [OptionSpec] = [
    .flag("foreground", nil, "X11: serve the selection from this process instead of a background owner"),
    .flag("paste-once", nil, "X11: serve one paste, then give the selection up"),
    .value("clear-after", nil, "SECONDS", "X11: give the selection up and wipe the data after SECONDS"),
]

/// Applies `--foreground`, `--paste-once` and `--clear-after` to an X11 backend before `write`.
/// Debugging aid: the detached owner's stderr is /dev/null, so with `PBCTL_X11_LOG=FILE` it logs to
/// FILE instead. The file is opened at the first line, in the owner (a forked owner closes the
/// descriptors it inherits).
func ownerLog(_ context: Context) -> (@Sendable (String) -> Void)? {
    guard let path = context.environment["PBCTL_X11_LOG"], !path.isEmpty else { return nil }
    let file = LogFile(path: path)
    return { line in file.append(line) }
}

/// A log file opened on first use. Used from the owner's one thread only.
private final class LogFile: @unchecked Sendable {
    let path: String
    private var fd: Int32 = -1
    init(path: String) { self.path = path }
    func append(_ line: String) {
        if fd < 0 { fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

func configureX11Copy(_ backend: any PasteboardBackend, _ arguments: ParsedArguments, _ context: Context) throws {
    guard let x11 = backend as? X11Backend else { return }
    x11.copyOptions.ownerLog = ownerLog(context)
    // The spawned owner is the fallback for processes that cannot fork; tests choose it with this.
    x11.copyOptions.forkOwner = context.environment["PBCTL_X11_SPAWN_OWNER"] == nil
    x11.copyOptions.foreground = arguments.has("foreground")
    x11.copyOptions.pasteOnce = arguments.has("paste-once")
    if let text = arguments.value("clear-after") {
        x11.copyOptions.clearAfter = try parseSeconds(text, option: "clear-after")
    }
}

let x11Commands: [Command] = [watchCommand, serveX11Command]

// MARK: __serve-x11 (the detached owner)

/// `pbctl __serve-x11 [--selection clipboard|primary]... [--display D] [--paste-once] [--clear-after S]`:
/// reads an ``ItemArchive`` on stdin, takes the selections, reports on fd 3, serves until replaced.
let serveX11Command = Command(
    help: CommandHelp(name: "__serve-x11", summary: "internal: the background selection owner", usage: "", details: "",
                      examples: []),
    options: [], hidden: true,
    raw: { context, arguments in runX11Serve(arguments: arguments, context: context) },
    run: { _, _ in ExitCode.usage })

func runX11Serve(arguments: [String], context: Context) -> Int32 {
    var selections: [X11Selection] = []
    var display: String? = context.environment["DISPLAY"]
    var options = X11SelectionOwner.Options()
    options.registry = context.registry
    var index = 0
    func fail(_ error: any Error, _ code: Int32) -> Int32 {
        DetachedProcess.report(error)
        return code
    }
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        let value = index < arguments.count ? arguments[index] : nil
        switch argument {
        case "--selection":
            guard let value, let selection = X11Selection(rawValue: value) else {
                return fail(PasteboardError(.invalidData, "bad --selection"), ExitCode.usage)
            }
            selections.append(selection)
            index += 1
        case "--display":
            display = value
            index += 1
        case "--paste-once":
            options.pasteOnce = true
        case "--clear-after":
            guard let value, let seconds = Double(value) else {
                return fail(PasteboardError(.invalidData, "bad --clear-after"), ExitCode.usage)
            }
            options.clearAfter = seconds
            index += 1
        default:
            return fail(PasteboardError(.invalidData, "unknown argument \(argument)"), ExitCode.usage)
        }
    }
    if selections.isEmpty { selections = [.clipboard] }
    options.log = ownerLog(context)
    _ = chdir("/")
    do {
        // `copy` hands the archive over as an in-memory file: map it rather than copy megabytes.
        let archive = try MemoryFile.map(STDIN_FILENO) ?? POSIX.readAll(STDIN_FILENO, path: "standard input")
        let items = try ItemArchive.decode(archive, producer: produceRepresentation)
        guard var item = items.first else { throw PasteboardError(.invalidData, "no item to serve") }
        // Content meant to vanish is not for clipboard managers to record (nor to consume the one paste).
        if options.pasteOnce || options.clearAfter != nil { item.metadata.flags.insert(.transient) }
        let connection = try XConnection(display: display)
        let owner = X11SelectionOwner(connection: connection, options: options)
        try owner.claim(item, selections: selections)
        DetachedProcess.report(nil)
        try owner.run()
        return ExitCode.ok
    } catch let error as PasteboardError {
        return fail(error, ExitCode.forError(error))
    } catch {
        return fail(error, ExitCode.unavailable)
    }
}

// MARK: watch

struct WatchEvent: Codable {
    var changeCount: Int
    var selection: String
    var owner: String?
    var types: [String]
    var state: String
}

let watchCommand = Command(
    help: CommandHelp(
        name: "watch", summary: "report every change of the X11 clipboard (or run a command with it)",
        usage: "pbctl watch [--json] [--primary] [--allow-sensitive] [-- COMMAND ARGS...]",
        details: """
            Waits for XFixes selection events (no polling). Without COMMAND, prints one line per change:
            change count, owner window and the offered types. With COMMAND, runs it for each change with
            the content (the default paste type) on standard input and PBCTL_TYPES (comma-separated type
            identifiers) and PBCTL_STATE (data, nil when cleared, sensitive) in its environment, like
            `wl-paste --watch`. Content marked secret (x-kde-passwordManagerHint) is not passed on unless
            --allow-sensitive is given.
            """,
        examples: ["pbctl watch --json", "pbctl watch -- sh -c 'wc -c'"]),
    options: [
        .flag("json", nil, "one JSON object per line"),
        .flag("allow-sensitive", nil, "pass content marked secret to COMMAND"),
        .value("count", nil, "N", "exit after N changes"),
    ],
    run: { context, arguments in
        let selection: X11Selection = arguments.has("primary") ? .primary : .clipboard
        guard let backend = try openX11Backend(context, required: true) as? X11Backend else {
            throw PasteboardError(.unavailable, "no X display")
        }
        let limit = arguments.value("count").flatMap(Int.init)
        let watcher = try X11SelectionWatcher(connection: backend.connection, selections: [selection],
                                              registry: context.registry)
        watcher.stepTimeout = backend.stepTimeout
        var seen = 0
        while let change = try watcher.next() {
            seen += 1
            let state = change.owner == 0 || change.types.isEmpty ? "nil" : change.sensitive ? "sensitive" : "data"
            if let command = arguments.afterDashDash, !command.isEmpty {
                var content = Data()
                if state == "data" || (state == "sensitive" && arguments.has("allow-sensitive")) {
                    let type = defaultPasteType(change.types, context.registry)
                    let pasteboard: PasteboardName = selection == .primary ? .primary : .general
                    content = (try? backend.read(type, item: 0, from: pasteboard)) ?? Data()
                }
                let environment = [
                    "PBCTL_TYPES": change.types.map(\.rawValue).joined(separator: ","), "PBCTL_STATE": state,
                ]
                let status = runWatchCommand(command, input: content, environment: environment)
                if status == 127 { throw CLIError(ExitCode.usage, "cannot run \(command[0])") }
            } else if arguments.has("json") {
                let event = WatchEvent(
                    changeCount: change.changeCount, selection: selection.rawValue,
                    owner: change.owner == 0 ? nil : "0x" + String(change.owner, radix: 16),
                    types: change.types.map(\.rawValue), state: state)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                var line = try encoder.encode(event)
                line.append(0x0A)
                try context.terminal.out(line)
            } else {
                let owner = change.owner == 0 ? "-" : "0x" + String(change.owner, radix: 16)
                let types = change.types.isEmpty ? "-" : change.types.map(\.rawValue).joined(separator: ",")
                try context.terminal.out("\(change.changeCount)\t\(owner)\t\(state)\t\(types)\n")
            }
            if let limit, seen >= limit { break }
        }
        return ExitCode.ok
    })

/// Runs COMMAND with `input` on its stdin and extra environment variables; returns its exit status.
func runWatchCommand(_ command: [String], input: Data, environment: [String: String]) -> Int32 {
    var env = Terminal.currentEnvironment()
    for (key, value) in environment { env[key] = value }
    return runTool(command, input: input, environment: env, captureOutput: false).status
}

/// Runs a tool found on PATH with `input` (or /dev/null) on its stdin, in `environment`; returns its
/// exit status (127 when it cannot start) and, with `captureOutput`, what it printed on stdout.
func runTool(_ command: [String], input: Data?, environment: [String: String], captureOutput: Bool = true) -> (status: Int32, output: Data) {
    var inFDs: [Int32] = [-1, -1]
    var outFDs: [Int32] = [-1, -1]
    guard pipe(&inFDs) == 0 else { return (127, Data()) }
    if captureOutput, pipe(&outFDs) != 0 {
        close(inFDs[0])
        close(inFDs[1])
        return (127, Data())
    }
    _ = fcntl(inFDs[1], F_SETFD, FD_CLOEXEC)
    if captureOutput { _ = fcntl(outFDs[0], F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, inFDs[0], 0)
    if captureOutput {
        posix_spawn_file_actions_adddup2(&actions, outFDs[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    let argv = command.map { strdup($0) } + [nil]
    defer { for p in envp + argv { free(p) } }
    var pid: pid_t = 0
    let status = posix_spawnp(&pid, command[0], &actions, nil, argv, envp)
    close(inFDs[0])
    if captureOutput { close(outFDs[1]) }
    guard status == 0 else {
        close(inFDs[1])
        if captureOutput { close(outFDs[0]) }
        return (127, Data())
    }
    if let input { try? POSIX.writeAll(inFDs[1], input, path: "command input") }
    close(inFDs[1])
    let output = captureOutput ? ((try? POSIX.readAll(outFDs[0], path: "command output")) ?? Data()) : Data()
    if captureOutput { close(outFDs[0]) }
    var result: Int32 = 0
    while waitpid(pid, &result, 0) < 0 && errno == EINTR {}
    return ((result & 0x7F) == 0 ? (result >> 8) & 0xFF : 128 + (result & 0x7F), output)
}

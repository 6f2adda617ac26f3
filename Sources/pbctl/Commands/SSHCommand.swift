#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RemoteSharing
import Pasteboard
import SystemIO

/// `pbctl ssh`'s own options; everything after them is ssh's.
struct SSHArguments {
    static let allowSensitive = OptionSpec.flag("allow-sensitive", nil, "serve content marked sensitive to the remote host too")
    static let readOnly = OptionSpec.flag("read-only", nil, "the remote host may read this clipboard, not change it")
    static let writeOnly = OptionSpec.flag("write-only", nil, "the remote host may change this clipboard, not read it")
    static let verbose = OptionSpec.flag("verbose", nil, "log what the remote host asks for to standard error")
    static let specs = [allowSensitive, readOnly, writeOnly, verbose]

    var global: GlobalOptions
    var policy = RemoteSessions.Policy()
    var verbose: Bool
    var ssh: RemoteSessions.Arguments

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        global = try GlobalOptions(arguments, environment: context.environment)
        guard !(arguments.has(Self.readOnly) && arguments.has(Self.writeOnly)) else {
            throw UsageError(message: "--read-only and --write-only cannot be combined", command: "ssh")
        }
        policy.allowSensitive = arguments.has(Self.allowSensitive)
        policy.canWrite = !arguments.has(Self.readOnly)
        policy.canRead = !arguments.has(Self.writeOnly)
        verbose = arguments.has(Self.verbose)
        do {
            ssh = try RemoteSessions.split(arguments.passedThrough)
        } catch let error as PasteboardError {
            throw UsageError(message: error.message, command: "ssh")
        }
    }
}

let sshCommand = Command(
    help: CommandHelp(
        name: "ssh", summary: "ssh to a host whose pbctl then uses this machine's clipboard, every representation both ways",
        usage: "pbctl ssh [--read-only|--write-only] [--allow-sensitive] [ssh options…] DESTINATION [COMMAND…]",
        details: """
            Runs the system ssh with your options and configuration, forwarding a private Unix socket for
            this session to this pbctl, and starts the remote session (or COMMAND) with PBCTL_REMOTE naming
            it. There, pbctl copy, paste (--type, --as, --plain, -o), types, info, clear, watch and the file
            lists of copy --files and paste --files act on this machine's clipboard, every representation
            both ways: Markdown copied there is offered here as Markdown, HTML, RTF and text; an image here
            pastes there as any image type. When the socket does not answer, the remote pbctl falls back to
            OSC 52 and its own store. The session is served by this process while it lasts: no daemon is
            needed. Exit status, streams, terminal size and ssh's own options are ssh's. Content marked
            sensitive here is not served unless --allow-sensitive.
            """,
        examples: [
            "pbctl ssh build-host                    # a login shell there; pbctl paste there pastes from here",
            "pbctl ssh -p 2222 me@host make report   # a command, with ssh's own options",
            "pbctl ssh --read-only host              # the remote may read this clipboard, not change it",
        ]),
    options: SSHArguments.specs, operands: .text, passThrough: true,
    run: { context, arguments in try runSSH(SSHArguments(arguments, context), context) })

func runSSH(_ options: SSHArguments, _ context: Context) throws -> Int32 {
    let environment = context.environment
    let kind = options.global.backend
    var settings = RemoteSessions.Settings()
    settings.policy = options.policy
    if options.verbose {
        let terminal = context.terminal
        settings.log = { terminal.err("pbctl ssh: " + $0) }
    }
    let terminal = context.terminal
    settings.warn = { terminal.err("pbctl ssh: " + $0) }
    // What this machine's clipboard is, for the remote's pbctl info.
    settings.place = (try? context.chooseBackend(kind)).map { "\($0.backend.info.name) (\($0.reason))" } ?? "this machine"
    // What the remote host may copy here: as much as a local copy (PBCTL_MAX_SIZE, else 1 GiB).
    settings.maximumSize = try context.maximumInputSize(nil)
    settings.temporaryFolder = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
    settings.registry = context.registry
    return try RemoteSessions.run(
        options.ssh, settings: settings, environment: environment, interactive: POSIX.standardInputIsTerminal,
        open: { try context.chooseBackend(kind).backend }, history: { try context.openHistory() })
}

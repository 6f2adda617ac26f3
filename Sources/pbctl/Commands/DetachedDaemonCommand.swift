/// The hidden command `daemon --detach` starts.
let detachedDaemonName = "__daemon"

/// `pbctl __daemon [daemon's options] --backend B`: the daemon `--detach` started, parsed with `daemon`'s
/// own specs; it reports on fd 3 once it keeps the clipboard (stdio are /dev/null; `PBCTL_X11_LOG=FILE`
/// logs to a file).
let detachedDaemonCommand = Command(
    help: CommandHelp(name: detachedDaemonName, summary: "internal: the detached clipboard manager", usage: "", details: "", examples: []),
    options: DaemonArguments.specs, hidden: true,
    run: { context, arguments in try runDaemon(DaemonArguments(arguments, context), context, detached: true) })

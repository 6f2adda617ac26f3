/// Every command, in the order help lists them. Each lives in `Commands/`.
let commands: [Command] = [
    copyCommand, pasteCommand, typesCommand, infoCommand, clearCommand, convertCommand, helpCommand, holdCommand,
    saveCommand, loadCommand, completionsCommand, completeCommand, watchCommand, serveX11Command, serveWaylandCommand, daemonCommand,
    detachedDaemonCommand, historyCommand, sshCommand, devicesCommand, compatCommand,
]

func findCommand(_ name: String) -> Command? { commands.first { $0.help.name == name } }


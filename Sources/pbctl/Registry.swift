/// Options every command accepts.
let globalOptionSpecs: [OptionSpec] = [
    .value("pasteboard", "p", "NAME", "pasteboard to use (default: general)"),
    .flag("primary", nil, "use the primary selection (-p primary)"),
    .value("backend", nil, "B", "auto, store, x11 or osc52 (default: $PBCTL_BACKEND or auto)"),
    .flag("help", "h", "show this help"),
]

let commands: [Command] = [
    copyCommand, pasteCommand, typesCommand, infoCommand, clearCommand, convertCommand, helpCommand, holdCommand,
    saveCommand, loadCommand, completionsCommand, completeCommand,
] + x11Commands + daemonCommands

func findCommand(_ name: String) -> Command? { commands.first { $0.help.name == name } }


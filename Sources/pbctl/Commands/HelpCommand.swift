#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

enum HelpArguments {
    static let man = OptionSpec.flag("man", nil, "print the manual page pbctl(1), in roff")
}


let helpCommand = Command(
    help: CommandHelp(
        name: "help", summary: "show help for pbctl or one command", usage: "pbctl help [--man] [COMMAND]", details: "",
        examples: ["pbctl help paste", "pbctl help --man | man -l -    # the manual page"]),
    options: [HelpArguments.man], operands: .command,
    run: { context, arguments in
        if arguments.has(HelpArguments.man) {
            try context.terminal.out(manPage(commands))
            return ExitCode.ok
        }
        guard let name = arguments.positionals.first else {
            try context.terminal.out(mainHelp(commands))
            return ExitCode.ok
        }
        guard let command = findCommand(name) else {
            throw UsageError(message: "no command '\(name)'", command: "help")
        }
        try context.terminal.out(commandHelp(command))
        return ExitCode.ok
    })

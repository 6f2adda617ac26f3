#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

struct ClearArguments {
    static let specs: [OptionSpec] = []
    var global: GlobalOptions
    init(_ arguments: ParsedArguments, _ context: Context) throws {
        global = try GlobalOptions(arguments, environment: context.environment)
    }
}

let clearCommand = Command(
    help: CommandHelp(
        name: "clear", summary: "empty a pasteboard", usage: "pbctl clear [OPTIONS]", details: "",
        examples: ["pbctl clear", "pbctl clear --primary"]),
    options: ClearArguments.specs,
    run: { context, arguments in
        let options = try ClearArguments(arguments, context)
        try context.backend(options.global).clear(options.global.pasteboard)
        return ExitCode.ok
    })

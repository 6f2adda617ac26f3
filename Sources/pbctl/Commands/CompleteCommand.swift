#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// `pbctl __complete KIND`: one candidate per line, for the completion scripts.
let completeCommand = Command(
    help: CommandHelp(name: "__complete", summary: "", usage: "", details: "", examples: []), options: [],
    operands: .words(["commands", "formats", "backends", "pasteboards", "types"]), hidden: true,
    run: { context, arguments in
        for candidate in completionCandidates(arguments.positionals.first ?? "", context) { try? context.terminal.out(candidate + "\n") }
        return ExitCode.ok
    })

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import Documents

// MARK: load

let loadCommand = Command(
    help: CommandHelp(
        name: "load", summary: "put an item saved with 'pbctl save' back on a pasteboard",
        usage: "pbctl load [OPTIONS] FILE.pasteboard",
        details: "Every saved representation comes back with its type, its provenance and its metadata.",
        examples: ["pbctl load draft.pasteboard", "pbctl load -p scratch draft.pasteboard"]),
    options: [], operands: .file,
    run: { context, arguments in
        let global = try GlobalOptions(arguments, environment: context.environment)
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw UsageError(message: "load takes one FILE.pasteboard", command: "load")
        }
        let item = try SavedPasteboard.load(from: path)
        try context.backend(global, .init(sensitive: item.metadata.flags.contains(.sensitive))).write([item], to: global.pasteboard, options: CopyOptions())
        return ExitCode.ok
    })

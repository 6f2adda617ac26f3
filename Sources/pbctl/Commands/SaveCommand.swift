#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import Documents

// MARK: save

struct SaveArguments {
    static let item = OptionSpec.value("item", nil, "N", .text, "save item N (default 0)")
    static let includeSensitive = OptionSpec.flag("include-sensitive", nil, "save an item marked sensitive (a password) anyway")
    static let force = OptionSpec.flag("force", "f", "replace an existing saved pasteboard")
    static let verbose = OptionSpec.flag("verbose", "v", "say which representations were saved")
    static let specs = [item, includeSensitive, force, verbose]

    var global: GlobalOptions
    var path: String
    var item: Int
    var includeSensitive: Bool
    var force: Bool
    var verbose: Bool

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        global = try GlobalOptions(arguments, environment: context.environment)
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw UsageError(message: "save takes one FILE.pasteboard", command: "save")
        }
        self.path = path
        item = try parseItemIndex(arguments.value(Self.item), command: "save") ?? 0
        includeSensitive = arguments.has(Self.includeSensitive)
        force = arguments.has(Self.force)
        verbose = arguments.has(Self.verbose)
    }
}

let saveCommand = Command(
    help: CommandHelp(
        name: "save", summary: "save the current item as a document package (FILE.pasteboard)",
        usage: "pbctl save [OPTIONS] FILE.pasteboard",
        details: """
            Writes a folder holding Info.plist (the item's metadata and its representations) and one file
            per representation, derived ones included, so 'pbctl load' puts back every type exactly. A
            sensitive item is refused unless --include-sensitive; its files are then readable by you only.
            """,
        examples: [
            "pbctl save draft.pasteboard",
            "pbctl save --item 1 second.pasteboard",
            "pbctl load draft.pasteboard",
        ]),
    options: SaveArguments.specs, operands: .file,
    run: { context, arguments in
        let options = try SaveArguments(arguments, context)
        let path = options.path
        let pasteboard = options.global.pasteboard
        let backend = try context.backend(options.global)
        let summaries = try backend.items(in: pasteboard)
        let index = options.item
        guard summaries.indices.contains(index) else {
            throw PasteboardError.empty(summaries.isEmpty ? "nothing to save on '\(pasteboard)'" : "there is no item \(index)")
        }
        let summary = summaries[index]
        // Decided before any byte is read: sensitive content must not even be produced for a save.
        if summary.metadata.flags.contains(.sensitive), !options.includeSensitive {
            throw PasteboardError(
                .refused, "the item is marked sensitive and is not saved to disk; add --include-sensitive to save it anyway")
        }
        var item = Item(metadata: summary.metadata)
        for type in summary.types {
            do {
                let data = try backend.read(type.type, item: index, from: pasteboard)
                item.set(Representation(type: type.type, data: data, derivedFrom: type.derivedFrom))
                if options.verbose { context.terminal.err("pbctl: saved \(type.type) (\(data.count) bytes)") }
            } catch let error as PasteboardError where type.derivedFrom != nil {
                // A derived form that cannot be produced is not content: say so and go on.
                context.terminal.err("pbctl: warning: \(type.type) not saved: \(error.message)")
            }
        }
        try SavedPasteboard.save(
            item, to: path, includeSensitive: options.includeSensitive, replace: options.force,
            fileExtension: { context.registry.preferredFilenameExtension(of: $0) })
        return ExitCode.ok
    })


#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import PasteboardStore

// MARK: save

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
    options: [
        .value("item", nil, "N", "save item N (default 0)"),
        .flag("include-sensitive", nil, "save an item marked sensitive (a password) anyway"),
        .flag("force", "f", "replace an existing saved pasteboard"),
        .flag("verbose", "v", "say which representations were saved"),
    ],
    run: { context, arguments in
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw UsageError(message: "save takes one FILE.pasteboard", command: "save")
        }
        let pasteboard = try context.pasteboardName(arguments)
        let backend = try context.backend(arguments)
        let summaries = try backend.items(in: pasteboard)
        let index = try arguments.value("item").map { text -> Int in
            guard let n = Int(text), n >= 0 else { throw UsageError(message: "--item takes a number from 0", command: "save") }
            return n
        } ?? 0
        guard summaries.indices.contains(index) else {
            throw PasteboardError.empty(summaries.isEmpty ? "nothing to save on '\(pasteboard)'" : "there is no item \(index)")
        }
        let summary = summaries[index]
        // Decided before any byte is read: sensitive content must not even be produced for a save.
        if summary.metadata.flags.contains(.sensitive), !arguments.has("include-sensitive") {
            throw PasteboardError(
                .refused, "the item is marked sensitive and is not saved to disk; add --include-sensitive to save it anyway")
        }
        var item = Item(metadata: summary.metadata)
        for type in summary.types {
            do {
                let data = try backend.read(type.type, item: index, from: pasteboard)
                item.set(Representation(type: type.type, data: data, derivedFrom: type.derivedFrom))
                if arguments.has("verbose") { context.terminal.err("pbctl: saved \(type.type) (\(data.count) bytes)") }
            } catch let error as PasteboardError where type.derivedFrom != nil {
                // A derived form that cannot be produced is not content: say so and go on.
                context.terminal.err("pbctl: warning: \(type.type) not saved: \(error.message)")
            }
        }
        try SavedPasteboard.save(
            item, to: path, includeSensitive: arguments.has("include-sensitive"), replace: arguments.has("force"),
            fileExtension: { context.registry.preferredFilenameExtension(of: $0) })
        return ExitCode.ok
    })

// MARK: load

let loadCommand = Command(
    help: CommandHelp(
        name: "load", summary: "put an item saved with 'pbctl save' back on a pasteboard",
        usage: "pbctl load [OPTIONS] FILE.pasteboard",
        details: "Every saved representation comes back with its type, its provenance and its metadata.",
        examples: ["pbctl load draft.pasteboard", "pbctl load -p scratch draft.pasteboard"]),
    options: [],
    run: { context, arguments in
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw UsageError(message: "load takes one FILE.pasteboard", command: "load")
        }
        let pasteboard = try context.pasteboardName(arguments)
        let item = try SavedPasteboard.load(from: path)
        try context.backend(arguments).write([item], to: pasteboard)
        return ExitCode.ok
    })

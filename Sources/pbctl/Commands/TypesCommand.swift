#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

struct TypesArguments {
    static let json = OptionSpec.flag("json", nil, "print JSON for scripts")
    static let item = OptionSpec.value("item", nil, "N", .text, "list item N (default 0)")
    static let registry = OptionSpec.flag("registry", nil, "list the type registry (built-in and declared types) instead")
    static let specs = [json, item, registry]

    var global: GlobalOptions
    var json: Bool
    var item: Int
    var registry: Bool

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        global = try GlobalOptions(arguments, environment: context.environment)
        json = arguments.has(Self.json)
        item = try parseItemIndex(arguments.value(Self.item), command: "types") ?? 0
        registry = arguments.has(Self.registry)
    }
}

struct TypeListing: Codable {
    var type: String
    var mimeType: String?
    var size: Int?
    var derivedFrom: String?

    init(_ summary: TypeSummary, _ registry: TypeRegistry) {
        type = summary.type.rawValue
        mimeType = registry.preferredMIMEType(of: summary.type)
        size = summary.size
        derivedFrom = summary.derivedFrom?.rawValue
    }
}

let typesCommand = Command(
    help: CommandHelp(
        name: "types", summary: "list the types the current item offers",
        usage: "pbctl types [OPTIONS]",
        details: "One line per type: identifier, preferred MIME type, size in bytes (or - when produced on demand).",
        examples: ["pbctl types", "pbctl types --json | jq -r '.[].type'"]),
    options: TypesArguments.specs,
    run: { context, arguments in try runTypes(TypesArguments(arguments, context), context) })

func runTypes(_ options: TypesArguments, _ context: Context) throws -> Int32 {
    if options.registry {
        try context.terminal.out(try registryListing(context, json: options.json))
        return ExitCode.ok
    }
    let pasteboard = options.global.pasteboard
    let items = try context.backend(options.global).items(in: pasteboard)
    guard items.indices.contains(options.item) else {
        if options.json { try context.terminal.out("[]\n") }
        throw PasteboardError.empty(items.isEmpty ? "nothing on '\(pasteboard)'" : "there is no item \(options.item)")
    }
    let listing = items[options.item].types.map { TypeListing($0, context.registry) }
    if options.json {
        try context.terminal.out(try jsonString(listing))
    } else {
        // Names come from whoever owns the clipboard: a control character is shown, never sent to the terminal.
        var text = ""
        let shown = listing.map { (type: $0.type.visibleControlCharacters, mime: ($0.mimeType ?? "-").visibleControlCharacters, size: $0.size) }
        let width = shown.map(\.type.count).max() ?? 0
        for entry in shown {
            text += entry.type.padding(width + 1) + entry.mime.padding(26) + (entry.size.map(String.init) ?? "-") + "\n"
        }
        try context.terminal.out(text)
    }
    return ExitCode.ok
}

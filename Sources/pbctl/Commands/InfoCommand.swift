#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

struct InfoArguments {
    static let json = OptionSpec.flag("json", nil, "print JSON for scripts")
    static let specs = [json]

    var global: GlobalOptions
    var json: Bool

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        global = try GlobalOptions(arguments, environment: context.environment)
        json = arguments.has(Self.json)
    }
}

struct InfoListing: Codable {
    struct ItemInfo: Codable {
        var types: [TypeListing]
        var sourceApplication: String?
        var sourcePath: String?
        var created: Date
        var sensitive: Bool
        var transient: Bool
        /// Other provenance (`x-document-source.identifier`, …).
        var extra: [String: String]? = nil
    }
    var pasteboard: String
    /// The backend in use (store, x11, osc52…), what it says of itself, and why it was chosen.
    var backend: String
    var backendDetail: String?
    var reason: String
    /// How copies reach the terminal's clipboard (OSC 52 over SSH), when they do.
    var terminal: String?
    var changeCount: Int
    var items: [ItemInfo]
    /// The KDE Connect sync of a running `pbctl daemon --kdeconnect`.
    var kdeconnect: [String: String]? = nil
}

let infoCommand = Command(
    help: CommandHelp(
        name: "info", summary: "show the backend in use and why, and a pasteboard's change count, items and metadata",
        usage: "pbctl info [OPTIONS]", details: "",
        examples: ["pbctl info", "pbctl info --json"]),
    options: InfoArguments.specs,
    run: { context, arguments in try runInfo(InfoArguments(arguments, context), context) })

func runInfo(_ options: InfoArguments, _ context: Context) throws -> Int32 {
    let pasteboard = options.global.pasteboard
    let chosen = try context.chooseBackend(options.global.backend)
    let backend = chosen.backend
    let items = try backend.items(in: pasteboard)
    let info = backend.info
    var listing = InfoListing(
        pasteboard: pasteboard.rawValue, backend: info.name, backendDetail: info.detail, reason: chosen.reason,
        terminal: info.mirror, changeCount: try backend.changeCount(of: pasteboard),
        items: items.map { item in
            InfoListing.ItemInfo(
                types: item.types.map { TypeListing($0, context.registry) },
                sourceApplication: item.metadata.sourceApplication, sourcePath: item.metadata.sourcePath,
                created: item.metadata.created, sensitive: item.metadata.flags.contains(.sensitive),
                transient: item.metadata.flags.contains(.transient),
                extra: item.metadata.extra.isEmpty ? nil : item.metadata.extra)
        })
    let sync = kdeConnectStatus(context)

    listing.kdeconnect = sync?.json
    if options.json {
        try context.terminal.out(try jsonString(listing))
        return ExitCode.ok
    }
    var text = "pasteboard:   \(listing.pasteboard) (\(listing.backend))\n"
    text += "backend:      \(listing.backend)" + (listing.backendDetail.map { " (\($0.visibleControlCharacters))" } ?? "") + "\n"
    text += "why:          \(listing.reason.visibleControlCharacters)\n"
    if let terminal = listing.terminal { text += "terminal:     \(terminal.visibleControlCharacters)\n" }
    text += "change count: \(listing.changeCount)\n"
    if let sync { text += "kdeconnect:   \(sync.line)\n" }
    text += "items:        \(listing.items.count)\n"
    for (index, item) in listing.items.enumerated() {
        text += "item \(index):\n"
        // Names and provenance come from outside (an owner, another machine): control characters shown, never obeyed.
        if let source = item.sourcePath ?? item.sourceApplication { text += "  source:  \(source.visibleControlCharacters)\n" }
        for (key, value) in (item.extra ?? [:]).sorted(by: { $0.key < $1.key }) {
            text += "  \(key.visibleControlCharacters): \(value.visibleControlCharacters)\n"
        }
        text += "  created: \(item.created.formatted(.iso8601))\n"
        let flags = [item.sensitive ? "sensitive" : nil, item.transient ? "transient" : nil].compactMap { $0 }
        if !flags.isEmpty { text += "  flags:   " + flags.joined(separator: ", ") + "\n" }
        for type in item.types {
            text += "  type:    \(type.type.visibleControlCharacters)" + (type.size.map { " (\($0) bytes)" } ?? "")
                + (type.derivedFrom.map { " from \($0.visibleControlCharacters)" } ?? "") + "\n"
        }
    }
    try context.terminal.out(text)
    return ExitCode.ok
}

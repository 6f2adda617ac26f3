#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CopyPaste
import Pasteboard
import History
import HistoryText
import Representations
import SystemIO

/// `pbctl history [SUBCOMMAND]`'s arguments. The paste options are `pbctl paste`'s own.
struct HistoryArguments {
    static let json = OptionSpec.flag("json", nil, "list, search: JSON for scripts (id, time, application, types with sizes, preview, pinned)")
    static let limit = OptionSpec.value("limit", nil, "N", .text, "list, search, pick: at most N entries (pick: 1000 unless given)")
    static let regex = OptionSpec.flag("regex", nil, "search: TEXT is a regular expression")
    static let duration = OptionSpec.value("for", nil, "DURATION", .text, "pause: for DURATION (90, 90s, 5m, 2h) instead of until resume")
    static let type = OptionSpec.value(
        "type", "t", "TYPE", .type,
        "list, search, pick, export: only entries that keep TYPE or a type conforming to it (image: every image, files: file lists); "
            + "paste: exactly this type")
    static let source = OptionSpec.value("source", nil, "NAME", .text, "list, search, pick, export: only entries copied from application NAME")
    static let since = OptionSpec.value(
        "since", nil, "DATE", .text, "list, search, pick, export: only entries from DATE on (2026-01-31, an RFC 3339 time, or a time ago: 2h, 7d)")
    static let pinned = OptionSpec.flag("pinned", nil, "list, search, pick: only pinned entries")
    static let all = OptionSpec.flag("all", nil, "clear: pinned entries too")
    static let menu = OptionSpec.value(
        "menu", nil, "COMMAND", .text,
        "pick: the launcher to run, speaking dmenu's protocol ('rofi -dmenu', 'fuzzel --dmenu', 'fzf'…); default: found for the session")
    static let print = OptionSpec.flag("print", nil, "pick: paste the chosen entry to standard output instead of making it the clipboard")
    static let from = OptionSpec.value("from", nil, "cliphist", .words(["cliphist"]), "import: read cliphist's history (cliphist list and decode) instead of FILE")
    static let specs = [json, limit, regex, duration, type, source, since, pinned, all, menu, print, from] + [
        PasteArguments.output, PasteArguments.noNewline, PasteArguments.accept, PasteArguments.as, PasteArguments.plain,
        PasteArguments.keepHTML, PasteArguments.verbose,
    ]

    enum Subcommand: String, CaseIterable {
        case list, paste, copy, show, pick, search, delete, clear, pin, unpin, pause, resume, export, `import`, repair
    }

    var global: GlobalOptions
    var subcommand: Subcommand
    var operands: [String]
    var json: Bool
    var limit: Int?
    var regex: Bool
    var pauseFor: Double?
    var types: [String]
    var source: String?
    var since: Date?
    var pinnedOnly: Bool
    var all: Bool
    var menu: String?
    var print: Bool
    var fromCliphist: Bool
    var output: String?
    /// `history paste`: parsed as `pbctl paste` parses them.
    var paste: PasteArguments

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        global = try GlobalOptions(arguments, environment: context.environment)
        var positionals = arguments.positionals
        if let first = positionals.first {
            guard let parsed = Subcommand(rawValue: first) else {
                throw UsageError(
                    message: "unknown history command '\(first)' (" + Subcommand.allCases.map(\.rawValue).joined(separator: ", ") + ")",
                    command: "history")
            }
            subcommand = parsed
            positionals.removeFirst()
        } else {
            subcommand = .list
        }
        operands = positionals
        json = arguments.has(Self.json)
        limit = try arguments.value(Self.limit).map { text in
            guard let n = Int(text), n > 0 else { throw UsageError(message: "--limit takes a number from 1", command: "history") }
            return n
        }
        regex = arguments.has(Self.regex)
        pauseFor = try arguments.value(Self.duration).map { try parseDuration($0) }
        types = subcommand == .paste ? [] : arguments.values(Self.type.long)
        source = arguments.value(Self.source)
        since = try arguments.value(Self.since).map { try parseSince($0) }
        pinnedOnly = arguments.has(Self.pinned)
        all = arguments.has(Self.all)
        menu = arguments.value(Self.menu)
        print = arguments.has(Self.print)
        fromCliphist = arguments.value(Self.from) != nil
        if let from = arguments.value(Self.from), from != "cliphist" {
            throw UsageError(message: "--from takes cliphist (the one other history pbctl imports)", command: "history")
        }
        output = arguments.value(PasteArguments.output)
        // `--type` means "exactly this type" to paste alone; elsewhere it filters.
        var pasteArguments = arguments
        if subcommand != .paste { pasteArguments.options[PasteArguments.type.long] = nil }
        paste = try PasteArguments(pasteArguments, context)
        switch subcommand {
        case .paste, .copy, .show:
            guard operands.count <= 1 else { throw UsageError(message: "history \(subcommand.rawValue) takes one ID", command: "history") }
            if subcommand != .copy, operands.isEmpty { throw UsageError(message: "history \(subcommand.rawValue) needs an ID", command: "history") }
        case .delete, .pin, .unpin:
            guard !operands.isEmpty else { throw UsageError(message: "history \(subcommand.rawValue) needs at least one ID", command: "history") }
        case .search:
            guard operands.count == 1 else { throw UsageError(message: "history search takes one TEXT", command: "history") }
            if regex { _ = try compiledPattern(operands[0]) }
        case .import:
            if fromCliphist {
                guard operands.isEmpty else { throw UsageError(message: "history import --from cliphist takes no FILE", command: "history") }
            } else {
                guard operands.count == 1 else { throw UsageError(message: "history import takes one FILE (- for standard input)", command: "history") }
            }
        case .list, .clear, .pause, .resume, .export, .pick, .repair:
            guard operands.isEmpty else {
                throw UsageError(message: "history \(subcommand.rawValue) takes no operand", command: "history")
            }
        }
        if types.count > 0 || source != nil || since != nil || pinnedOnly {
            guard [.list, .search, .pick, .export].contains(subcommand) else {
                throw UsageError(message: "--type, --source, --since and --pinned filter list, search, pick and export", command: "history")
            }
        }
    }

    /// A POSIX extended regular expression, matched line by line in linear time (``LineRegex``): the
    /// history holds what others copied, so no entry may stall a search.
    func compiledPattern(_ text: String) throws -> LineRegex {
        do { return try LineRegex(text) } catch { throw UsageError(message: "--regex: \(error)", command: "history") }
    }

    /// The filters as the history takes them (`--type`: the types and what conforms to them).
    func query(_ context: Context, limit: Int? = nil) throws -> History.Query {
        var query = History.Query(
            limit: limit ?? self.limit, application: source, since: since, pinnedOnly: pinnedOnly)
        if !types.isEmpty {
            let wanted = try types.flatMap { text in try text.split(separator: ",").map { try Self.filterType(String($0), context.registry) } }
            query.conforming = History.TypeFilter(wanted, registry: context.registry)
        }
        return query
    }

    /// The shorthands the filters take besides what `copy --type` takes: `image` (every image, by
    /// conformance to public.image) and `files` (every list of files); `text`, `html`, `rtf` and
    /// `markdown` are `copy --type`'s own.
    static let filterShorthands: [String: TypeIdentifier] = ["image": .image, "images": .image, "files": .fileURL, "file": .fileURL]

    static func filterType(_ text: String, _ registry: TypeRegistry) throws -> TypeIdentifier {
        if let type = filterShorthands[text.lowercased()] { return type }
        return try resolveType(text, registry)
    }
}

/// An entry's id from `ID` or a whole line of `pbctl history` (`ID<TAB>preview`).
func parseHistoryID(_ text: String) throws -> Int {
    let head = text.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    let digits = head.drop(while: \.isWhitespace).prefix(while: \.isNumber)
    guard let id = Int(digits), id > 0, head.drop(while: \.isWhitespace).dropFirst(digits.count).allSatisfy(\.isWhitespace) else {
        throw UsageError(message: "'\(text.prefix(40))' is not a history ID (a number, or a line of pbctl history)", command: "history")
    }
    return id
}

/// `90`, `90s`, `5m`, `2h`, `1d` → seconds (at most a year).
func parseDuration(_ text: String) throws -> Double {
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
    var number = Substring(text)
    var scale = 1.0
    if let last = number.last, let unit = units[last] {
        scale = unit
        number = number.dropLast()
    }
    guard let value = Double(number), value.isFinite, value > 0, value * scale <= maximumSeconds else {
        throw UsageError(message: "--for takes a duration such as 90s, 5m or 2h", command: "history")
    }
    return value * scale
}

/// `--since`: `2026-01-31` (midnight UTC), an RFC 3339 time, or a time ago (`90m`, `2h`, `7d`, `2w`).
func parseSince(_ text: String, now: Date = Date()) throws -> Date {
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400]
    if let last = text.last, let unit = units[last], let value = Double(text.dropLast()), value.isFinite, value >= 0, value * unit <= 200 * 365 * 86400 {
        return now.addingTimeInterval(-value * unit)
    }
    let bytes = Array(text.utf8)
    if bytes.count == 10, let date = ISO8601Seconds.date(text + "T00:00:00Z") { return date }
    if let date = ISO8601Seconds.date(text) { return date }
    throw UsageError(message: "--since takes a date (2026-01-31), an RFC 3339 time (2026-01-31T08:00:00Z) or a time ago (2h, 7d)", command: "history")
}

let historyCommand = Command(
    help: CommandHelp(
        name: "history",
        summary: "the clipboard history: list, search, pick, paste, copy again, pin, delete, export, import, pause, repair",
        usage: "pbctl history [list|paste ID|copy [ID]|show ID|pick|search TEXT|delete ID...|clear|pin ID...|unpin ID...|"
            + "pause [--for D]|resume|export|import FILE|repair] [OPTIONS]",
        details: """
            Each entry keeps every representation of what was copied (text, HTML, RTF, Markdown, images,
            files, application types), newest first. `pbctl daemon` records the clipboard; `pbctl copy`
            records what it copies when no daemon can watch (the store, SSH). Content marked sensitive or
            transient (a password manager's x-kde-passwordManagerHint, nspasteboard.org markers, however
            a remote spells them; --paste-once and --clear-after copies) is never recorded, nor what
            history.ignore-types and history.ignore-regex name, nor anything while recording is paused:
            every way in (copy, the daemon, import, pbctl ssh, KDE Connect) applies the same rules.
            Entries past history.max-age are never listed, searched or pasted. A copy identical to an entry moves that entry to the
            top. Bounds (oldest dropped first) come from the configuration file: history.max-entries
            (1000), history.max-bytes (512M), history.max-entry-size (64M), history.max-age; pinned
            entries (`pin`) are kept whatever they say, and by `clear` unless --all.
            The list prints `ID<TAB>preview`; `copy` also takes such a line on standard input, so
            `pbctl history | fzf | pbctl history copy` works; `pick` runs a launcher (rofi, fuzzel, wofi,
            bemenu, dmenu, or fzf in a terminal) with a thumbnail of each image where it shows icons.
            `search` finds text in every text representation, case-insensitively (--regex: a POSIX
            extended regular expression, case-sensitive). `export` writes JSON Lines, oldest first (one
            object a line: time, source, pinned, and representations mapping each type to its bytes in
            base64), which `import` reads back (entries already there are not added again). `repair` is the
            way out of a damaged history.db: it is moved aside (history.db.damaged-TIME, its path said), a
            fresh history started, and every entry that can still be read copied into it; `clear --all`
            of a damaged history removes it whole. Files nothing names (a recorder killed mid-record) are
            removed by `clear`, `repair` and the next open. The history lives in
            $PBCTL_HISTORY, else $XDG_STATE_HOME/pbctl/history (~/.local/state/pbctl/history).
            """,
        examples: [
            "pbctl history --limit 20",
            "pbctl history pick",
            "pbctl history | fzf | pbctl history copy",
            "pbctl history paste 42 --as markdown",
            "pbctl history search --regex 'TICKET-[0-9]+'",
            "pbctl history --type image --since 7d",
            "pbctl history pin 42",
            "pbctl history export > history.jsonl ; pbctl history import history.jsonl",
            "pbctl history import --from cliphist",
            "pbctl history pause --for 5m",
            "pbctl history repair",
        ]),
    options: HistoryArguments.specs, operands: .words(HistoryArguments.Subcommand.allCases.map(\.rawValue)),
    run: { context, arguments in try runHistory(HistoryArguments(arguments, context), context) })

func runHistory(_ options: HistoryArguments, _ context: Context) throws -> Int32 {
    let history = try context.openHistory()
    switch options.subcommand {
    case .list:
        if let until = try history.pausedUntil() {
            let end = until == .distantFuture ? "until 'pbctl history resume'" : "until \(until.formatted(.iso8601))"
            context.terminal.err("pbctl history: recording is paused \(end)")
        }
        let output = HistoryOutput(json: options.json, context)
        let problems = try history.forEachEntry(try options.query(context)) { try output.add($0) }
        try output.finish()
        for problem in problems { context.terminal.err("pbctl history: \(problem)") }
    case .search:
        let needle = options.operands[0]
        let matcher: History.Matcher
        if options.regex {
            matcher = .regex(try options.compiledPattern(needle))
        } else {
            matcher = .substring(needle)
        }
        let (found, problems) = try history.search(matcher, try options.query(context))
        let output = HistoryOutput(json: options.json, context)
        for entry in found { try output.add(entry) }
        try output.finish()
        for problem in problems { context.terminal.err("pbctl history: \(problem)") }
        if found.isEmpty { return ExitCode.notFound }
    case .paste:
        let id = try parseHistoryID(options.operands[0])
        _ = try history.pasteableEntry(id)
        return try runPaste(options.paste, context, from: (history.backend, History.pasteboard(for: id)))
    case .copy:
        let line: String
        if let operand = options.operands.first {
            line = operand
        } else {
            let input = try context.terminal.readStandardInput(limit: 1 << 20)
            guard let first = String(decoding: input, as: UTF8.self).split(separator: "\n").first else {
                throw UsageError(message: "history copy needs an ID (or a line of pbctl history on standard input)", command: "history")
            }
            line = String(first)
        }
        try copyHistoryEntry(try parseHistoryID(line), history, options, context)
    case .show:
        try showHistoryEntry(try parseHistoryID(options.operands[0]), history, context)
    case .pick:
        return try pickHistoryEntry(history, options, context)
    case .delete:
        let ids = try options.operands.map(parseHistoryID)
        let missing = try history.delete(ids)
        if !missing.isEmpty {
            throw PasteboardError.empty("no history entry " + missing.map(String.init).joined(separator: ", "))
        }
    case .clear:
        if let damage = try history.clear(includingPinned: options.all) {
            context.terminal.err("pbctl history: the history was damaged (\(damage)); removed whole, as --all asks")
        }
    case .repair:
        let repair = try history.repair()
        guard repair.damage != nil else {
            context.terminal.err(
                "pbctl history repair: the history is sound" + (repair.sweptFiles > 0 ? " (\(repair.sweptFiles) files nothing named removed)" : ""))
            return ExitCode.ok
        }
        var report = "pbctl history repair: the history was damaged (\(repair.damage ?? ""))\n"
        if let moved = repair.movedTo {
            report += "pbctl history repair: the damaged database is now \(moved.shownPath) (remove it when you no longer need it)\n"
        }
        report += "pbctl history repair: a fresh history holds the \(repair.copied) entries that could be read"
            + (repair.lost > 0 ? "; \(repair.lost) could not be" : "") + "\n"
        context.terminal.err(report)
    case .pin, .unpin:
        let ids = try options.operands.map(parseHistoryID)
        let missing = try history.pin(ids, options.subcommand == .pin)
        if !missing.isEmpty {
            throw PasteboardError.empty("no history entry " + missing.map(String.init).joined(separator: ", "))
        }
    case .pause:
        try history.pause(until: options.pauseFor.map { Date().addingTimeInterval($0) })
    case .resume:
        try history.resume()
    case .export:
        return try exportHistory(history, options, context)
    case .import:
        return try importHistory(history, options, context)
    }
    return ExitCode.ok
}

/// Makes entry `id` the clipboard again, every representation with it (offered as a copy of it would
/// be: what derives from them too), and moves it to the top.
func copyHistoryEntry(_ id: Int, _ history: History, _ options: HistoryArguments, _ context: Context) throws {
    _ = try history.pasteableEntry(id)
    var item = Producers.completed(try history.item(id), convert: Conversion.produceRepresentation)
    item.metadata.created = Date()
    let backend = try context.backend(options.global)
    // Recorded again where no daemon records it: to the top.
    context.reportNotRecorded(
        try context.copyCommit(verbose: false, history: history).commit([item], to: backend, pasteboard: options.global.pasteboard, options: CopyOptions()))
}

/// `history show ID`: the entry's record, then its text (or what its preview says of it): what fzf's
/// preview shows.
func showHistoryEntry(_ id: Int, _ history: History, _ context: Context) throws {
    let entry = try history.entry(id)
    var text = "entry \(entry.id)" + (entry.pinned ? " (pinned)" : "") + "\n"
    text += "time: \(entry.time.formatted(.iso8601))\n"
    if let application = entry.application { text += "source: \(application.visibleControlCharacters)\n" }
    for kind in entry.types {
        text += "  \(context.registry.preferredMIMEType(of: kind.type) ?? kind.type.rawValue)"
            + (kind.size.map { " " + humanSize($0) } ?? " (produced on paste)") + "\n"
    }
    for kind in entry.skipped {
        text += "  not kept: \(context.registry.preferredMIMEType(of: kind.type) ?? kind.type.rawValue)" + (kind.size.map { " " + humanSize($0) } ?? "") + "\n"
    }
    text += "\n"
    let item = try history.item(id)
    if let body = historySearchText(item, context.registry) {
        // What a terminal would obey is shown, never obeyed; lines stay lines.
        text += body.split(separator: "\n", omittingEmptySubsequences: false).prefix(500).map { String($0).visibleControlCharacters }.joined(separator: "\n") + "\n"
    } else {
        text += entry.preview.visibleControlCharacters + "\n"
    }
    try context.terminal.out(text)
}

/// What list and search print, written as it comes: `ID<TAB>preview` lines, or a JSON array.
final class HistoryOutput {
    let json: Bool
    let context: Context
    private var buffer: [UInt8] = []
    private var count = 0

    init(json: Bool, _ context: Context) {
        self.json = json
        self.context = context
    }

    struct Listing: Codable {
        struct Kind: Codable {
            var type: String
            var mimeType: String?
            var size: Int?
            /// Skipped because its owner went away before sending all of it.
            var cutShort: Bool? = nil
        }
        var id: Int
        var time: Date
        var application: String?
        var types: [Kind]
        var skipped: [Kind]?
        var preview: String
        var pinned: Bool?
        /// The selection it was copied from, when not the clipboard (`primary`).
        var selection: String?
    }

    func add(_ entry: History.Entry) throws {
        if json {
            let listing = Listing(
                id: entry.id, time: entry.time, application: entry.application,
                types: entry.types.map { .init(type: $0.type.rawValue, mimeType: context.registry.preferredMIMEType(of: $0.type), size: $0.size) },
                skipped: entry.skipped.isEmpty
                    ? nil
                    : entry.skipped.map {
                        .init(
                            type: $0.type.rawValue, mimeType: context.registry.preferredMIMEType(of: $0.type), size: $0.size,
                            cutShort: $0.cutShort ? true : nil)
                    },
                preview: entry.preview, pinned: entry.pinned ? true : nil, selection: entry.selection == "clipboard" ? nil : entry.selection)
            // One element of a pretty-printed array, as the encoder writes a whole one.
            let element = try jsonString(listing).dropLast()
            buffer += Array((count == 0 ? "[\n" : ",\n").utf8)
            buffer += Array(element.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n").utf8)
        } else {
            buffer += Array(historyLine(entry, context).utf8)
        }
        count += 1
        if buffer.count >= 64 << 10 { try flush() }
    }

    func finish() throws {
        if json { buffer += Array((count == 0 ? "[\n\n]\n" : "\n]\n").utf8) }
        try flush()
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try context.terminal.out($0) }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// One line of `pbctl history`: `ID<TAB>preview`; an entry that keeps nothing is marked so.
func historyLine(_ entry: History.Entry, _ context: Context) -> String {
    // An entry whose every representation was over history.max-entry-size is listed, marked so.
    if !entry.keepsContent, let kind = entry.skipped.first {
        let mark = "[not kept: " + (context.registry.preferredMIMEType(of: kind.type) ?? kind.type.rawValue)
            + (kind.cutShort ? ", its owner went away before sending all of it]"
                : (kind.size.map { " " + humanSize($0) } ?? "") + " over history.max-entry-size]")
        // A bracketed summary ([image/png …]) says nothing the mark does not; a text preview stays.
        return "\(entry.id)\t\(mark.visibleControlCharacters)" + (entry.preview.hasPrefix("[") ? "" : " " + entry.preview.visibleControlCharacters) + "\n"
    }
    // The preview and the names in it come from outside: a control character is shown, never obeyed.
    return "\(entry.id)\t\(entry.preview.visibleControlCharacters)\n"
}

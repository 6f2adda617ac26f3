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
import Pasteboard
import PasteboardStore
import Representations
import SystemIO

/// `pbctl history [SUBCOMMAND]`'s arguments. The paste options are `pbctl paste`'s own.
struct HistoryArguments {
    static let json = OptionSpec.flag("json", nil, "list: JSON for scripts (id, time, application, types with sizes, preview)")
    static let limit = OptionSpec.value("limit", nil, "N", .text, "list, search: at most N entries")
    static let regex = OptionSpec.flag("regex", nil, "search: TEXT is a regular expression")
    static let duration = OptionSpec.value("for", nil, "DURATION", .text, "pause: for DURATION (90, 90s, 5m, 2h) instead of until resume")
    static let specs = [json, limit, regex, duration] + [
        PasteArguments.type, PasteArguments.output, PasteArguments.noNewline, PasteArguments.accept, PasteArguments.as,
        PasteArguments.plain, PasteArguments.keepHTML, PasteArguments.verbose,
    ]

    enum Subcommand: String, CaseIterable { case list, paste, copy, delete, clear, search, pause, resume }

    var global: GlobalOptions
    var subcommand: Subcommand
    var operands: [String]
    var json: Bool
    var limit: Int?
    var regex: Bool
    var pauseFor: Double?
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
        paste = try PasteArguments(arguments, context)
        switch subcommand {
        case .paste, .copy:
            guard operands.count <= 1 else { throw UsageError(message: "history \(subcommand.rawValue) takes one ID", command: "history") }
            if subcommand == .paste, operands.isEmpty { throw UsageError(message: "history paste needs an ID", command: "history") }
        case .delete:
            guard !operands.isEmpty else { throw UsageError(message: "history delete needs at least one ID", command: "history") }
        case .search:
            guard operands.count == 1 else { throw UsageError(message: "history search takes one TEXT", command: "history") }
            if regex { _ = try compiledPattern(operands[0]) }
        case .list, .clear, .pause, .resume:
            guard operands.isEmpty else {
                throw UsageError(message: "history \(subcommand.rawValue) takes no operand", command: "history")
            }
        }
    }

    /// A POSIX extended regular expression, matched line by line in linear time (``LineRegex``): the
    /// history holds what others copied, so no entry may stall a search.
    func compiledPattern(_ text: String) throws -> LineRegex {
        do { return try LineRegex(text) } catch { throw UsageError(message: "--regex: \(error)", command: "history") }
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

let historyCommand = Command(
    help: CommandHelp(
        name: "history", summary: "the clipboard history: list, paste, copy again, search, delete, pause",
        usage: "pbctl history [list|paste ID|copy [ID]|delete ID...|clear|search TEXT|pause [--for D]|resume] [OPTIONS]",
        details: """
            Each entry keeps every representation of what was copied (text, HTML, RTF, Markdown, images,
            files, application types), newest first. `pbctl daemon` records the clipboard; `pbctl copy`
            records what it copies when no daemon can watch (the store, SSH). Content marked sensitive or
            transient is never recorded, nor anything while recording is paused. A copy identical to an
            entry moves that entry to the top. Bounds (oldest dropped first) come from the configuration
            file: history.max-entries (1000), history.max-bytes (512M), history.max-entry-size (64M).
            The list prints `ID<TAB>preview`; `copy` also takes such a line on standard input, so
            `pbctl history | fzf | pbctl history copy` works. The history lives in $PBCTL_HISTORY, else
            $XDG_STATE_HOME/pbctl/history (~/.local/state/pbctl/history).
            """,
        examples: [
            "pbctl history --limit 20",
            "pbctl history | fzf | pbctl history copy",
            "pbctl history paste 42 --as markdown",
            "pbctl history search --regex 'TICKET-[0-9]+'",
            "pbctl history pause --for 5m",
        ]),
    options: HistoryArguments.specs, operands: .words(HistoryArguments.Subcommand.allCases.map(\.rawValue)),
    run: { context, arguments in try runHistory(HistoryArguments(arguments, context), context) })

func runHistory(_ options: HistoryArguments, _ context: Context) throws -> Int32 {
    let history = try context.openHistory()
    switch options.subcommand {
    case .list:
        let (entries, problems) = try history.entries()
        for problem in problems { context.terminal.err("pbctl history: \(problem)") }
        if let until = try? history.pausedUntil() {
            let end = until == .distantFuture ? "until 'pbctl history resume'" : "until \(until.formatted(.iso8601))"
            context.terminal.err("pbctl history: recording is paused \(end)")
        }
        try printHistory(Array(entries.prefix(options.limit ?? Int.max)), json: options.json, context)
    case .search:
        let needle = options.operands[0]
        let matches: (String) -> Bool
        if options.regex {
            let pattern = try options.compiledPattern(needle)
            matches = { pattern.matches($0) }
        } else {
            let lowered = needle.lowercased()
            matches = { $0.lowercased().contains(lowered) }
        }
        let found = try history.search(limit: options.limit, text: searchableText, matches)
        try printHistory(found, json: options.json, context)
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
        let id = try parseHistoryID(line)
        _ = try history.pasteableEntry(id)
        // Offered as a copy of it would be: the kept representations, and what derives from them.
        var item = Producers.completed(try history.item(id), convert: Conversion.produceRepresentation)
        item.metadata.created = Date()
        let backend = try context.backend(options.global)
        try backend.write([item], to: options.global.pasteboard, options: CopyOptions())
        if !backend.changesReachDaemons, options.global.pasteboard == .general {
            context.recordInHistory(item, copiedTo: backend, verbose: false)  // to the top
        }
    case .delete:
        let ids = try options.operands.map(parseHistoryID)
        let missing = try history.delete(ids)
        if !missing.isEmpty {
            throw PasteboardError.empty("no history entry " + missing.map(String.init).joined(separator: ", "))
        }
    case .clear:
        try history.clear()
    case .pause:
        try history.pause(until: options.pauseFor.map { Date().addingTimeInterval($0) })
    case .resume:
        try history.resume()
    }
    return ExitCode.ok
}

struct HistoryListing: Codable {
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
}

func printHistory(_ entries: [History.Entry], json: Bool, _ context: Context) throws {
    if json {
        let listing = entries.map { entry in
            HistoryListing(
                id: entry.id, time: entry.time, application: entry.application,
                types: entry.types.map { .init(type: $0.type.rawValue, mimeType: context.registry.preferredMIMEType(of: $0.type), size: $0.size) },
                skipped: entry.skipped.isEmpty
                    ? nil
                    : entry.skipped.map {
                        .init(
                            type: $0.type.rawValue, mimeType: context.registry.preferredMIMEType(of: $0.type), size: $0.size,
                            cutShort: $0.cutShort ? true : nil)
                    },
                preview: entry.preview)
        }
        try context.terminal.out(try jsonString(listing))
        return
    }
    var text = ""
    for entry in entries {
        // An entry whose every representation was over history.max-entry-size is listed, marked so.
        if !entry.keepsContent, let kind = entry.skipped.first {
            let mark = "[not kept: " + (context.registry.preferredMIMEType(of: kind.type) ?? kind.type.rawValue)
                + (kind.cutShort ? ", its owner went away before sending all of it]"
                    : (kind.size.map { " " + humanSize($0) } ?? "") + " over history.max-entry-size]")
            // A bracketed summary ([image/png …]) says nothing the mark does not; a text preview stays.
            text += "\(entry.id)\t\(mark.visibleControlCharacters)" + (entry.preview.hasPrefix("[") ? "" : " " + entry.preview.visibleControlCharacters) + "\n"
        } else {
            // The preview and the names in it come from outside: a control character is shown, never obeyed.
            text += "\(entry.id)\t\(entry.preview.visibleControlCharacters)\n"
        }
    }
    try context.terminal.out(text)
}

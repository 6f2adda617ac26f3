#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

// MARK: watch

struct WatchEvent: Codable {
    var changeCount: Int
    var selection: String
    var owner: String?
    var types: [String]
    var state: String
}

struct WatchArguments {
    static let json = OptionSpec.flag("json", nil, "one JSON object per line")
    static let allowSensitive = OptionSpec.flag("allow-sensitive", nil, "pass content marked secret to COMMAND")
    static let count = OptionSpec.value("count", nil, "N", .text, "exit after N changes")
    static let specs = [json, allowSensitive, count]

    var global: GlobalOptions
    var json: Bool
    var allowSensitive: Bool
    var count: Int?
    /// `-- COMMAND ARGS...`: run for each change.
    var command: [String]?

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        global = try GlobalOptions(arguments, environment: context.environment)
        guard global.pasteboard == .general || global.pasteboard == .primary else {
            throw UsageError(message: "watch follows the clipboard or --primary only", command: "watch")
        }
        json = arguments.has(Self.json)
        allowSensitive = arguments.has(Self.allowSensitive)
        count = try arguments.value(Self.count).map { text in
            guard let n = Int(text), n > 0 else { throw UsageError(message: "--count takes a number from 1", command: "watch") }
            return n
        }
        command = arguments.afterDashDash.flatMap { $0.isEmpty ? nil : $0 }
    }
}

let watchCommand = Command(
    help: CommandHelp(
        name: "watch", summary: "report every change of the clipboard (or run a command with it)",
        usage: "pbctl watch [--json] [--primary] [--allow-sensitive] [-- COMMAND ARGS...]",
        details: """
            Waits for XFixes selection events (no polling). Without COMMAND, prints one line per change:
            change count, owner window and the offered types. With COMMAND, runs it for each change with
            the content (the default paste type) on standard input and PBCTL_TYPES (comma-separated type
            identifiers) and PBCTL_STATE (data, nil when cleared, sensitive) in its environment, like
            `wl-paste --watch`. Content marked secret (x-kde-passwordManagerHint) is not passed on unless
            --allow-sensitive is given.
            """,
        examples: ["pbctl watch --json", "pbctl watch -- sh -c 'wc -c'"]),
    options: WatchArguments.specs, operands: .file,
    run: { context, arguments in
        let options = try WatchArguments(arguments, context)
        let pasteboard = options.global.pasteboard
        let backend = try context.backend(options.global)
        guard let watching = backend.watching else {
            let display = context.environment["DISPLAY"] ?? ""
            throw PasteboardError(
                .unavailable,
                (display.isEmpty ? "no X display: DISPLAY is not set" : "the \(backend.info.name) backend")
                    + "; watch follows a display's clipboard (X11)")
        }
        var seen = 0
        try watching.watch(pasteboard) { change in
            seen += 1
            let state = change.owner == nil || change.types.isEmpty ? "nil" : change.sensitive ? "sensitive" : "data"
            if let command = options.command {
                var content = Data()
                if state == "data" || (state == "sensitive" && options.allowSensitive) {
                    let type = PasteRequest.defaultType(change.types, registry: context.registry)
                    content = (try? backend.read(type, item: 0, from: pasteboard)) ?? Data()
                }
                let environment = [
                    "PBCTL_TYPES": change.types.map(\.rawValue).joined(separator: ","), "PBCTL_STATE": state,
                ]
                let status = runWatchCommand(command, input: content, environment: environment)
                if status == 127 { throw CLIError(ExitCode.usage, "cannot run \(command[0])") }
            } else if options.json {
                let event = WatchEvent(
                    changeCount: change.changeCount, selection: pasteboard == .primary ? "primary" : "clipboard",
                    owner: change.owner, types: change.types.map(\.rawValue), state: state)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                var line = try encoder.encode(event)
                line.append(0x0A)
                try context.terminal.out(line)
            } else {
                let types = change.types.isEmpty ? "-" : change.types.map(\.rawValue).joined(separator: ",")
                try context.terminal.out(
                    "\(change.changeCount)\t\((change.owner ?? "-").visibleControlCharacters)\t\(state)\t\(types.visibleControlCharacters)\n")
            }
            return options.count.map { seen < $0 } ?? true
        }
        return ExitCode.ok
    })

/// Runs COMMAND with `input` on its stdin and extra environment variables; returns its exit status.
func runWatchCommand(_ command: [String], input: Data, environment: [String: String]) -> Int32 {
    var env = Terminal.currentEnvironment()
    for (key, value) in environment { env[key] = value }
    return runTool(command, input: input, environment: env, captureOutput: false).status
}


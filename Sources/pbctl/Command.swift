import Pasteboard

/// One pbctl subcommand: its options, help, and body. The body returns the exit code.
///
/// Each command parses its arguments once, into a typed value (`CopyOptions`-like structs in
/// `Commands/`), before any I/O; the same ``OptionSpec`` values drive the parser, `--help`, the manual
/// page and the shell completions.
struct Command: Sendable {
    let help: CommandHelp
    let options: [OptionSpec]
    /// What the command's operands are, for the completions (`copy FILE…`, `help COMMAND`).
    var operands: OptionSpec.Values = .none
    var hidden = false
    /// Everything after the command's own long options is another program's (`pbctl ssh`).
    var passThrough = false
    let run: @Sendable (Context, ParsedArguments) throws -> Int32
}

extension ParsedArguments {
    func has(_ option: OptionSpec) -> Bool { has(option.long) }
    func value(_ option: OptionSpec) -> String? { value(option.long) }
}

/// The options every command accepts, parsed once.
struct GlobalOptions: Sendable {
    static let pasteboard = OptionSpec.value(
        "pasteboard", "p", "NAME", .pasteboard, "pasteboard to use: general (default), primary, find, or a name of [A-Za-z0-9._-]")
    static let primary = OptionSpec.flag("primary", nil, "use the primary selection (-p primary)")
    static let backend = OptionSpec.value(
        "backend", nil, "B", .backend, Context.BackendKind.allCases.map(\.rawValue).joined(separator: ", ")
            + " (default: $PBCTL_BACKEND, else auto: Wayland, then X11, then the store, with the terminal over SSH)")
    static let help = OptionSpec.flag("help", "h", "show this help; pbctl help COMMAND for a command's options and examples")
    static let specs = [pasteboard, primary, backend, help]

    var pasteboard: PasteboardName
    /// `--backend`, else `PBCTL_BACKEND`, else auto.
    var backend: Context.BackendKind

    init(_ arguments: ParsedArguments, environment: [String: String]) throws {
        if arguments.has(Self.primary) {
            if let explicit = arguments.value(Self.pasteboard), explicit != "primary" {
                throw UsageError(message: "--primary and --pasteboard \(explicit) contradict each other", command: nil)
            }
            pasteboard = .primary
        } else if let text = arguments.value(Self.pasteboard) {
            guard let name = PasteboardName(text) else {
                throw UsageError(message: "invalid pasteboard name '\(text)' (use 1 to 64 of A-Z a-z 0-9 . _ -)", command: nil)
            }
            pasteboard = name
        } else {
            pasteboard = .general
        }
        let text = arguments.value(Self.backend) ?? environment["PBCTL_BACKEND"] ?? "auto"
        guard let kind = Context.BackendKind(rawValue: text.lowercased()) else {
            throw UsageError(
                message: "unknown backend '\(text)' (use " + Context.BackendKind.allCases.map(\.rawValue).joined(separator: ", ") + ")",
                command: nil)
        }
        backend = kind
    }
}

/// `--item N`: a number from 0.
func parseItemIndex(_ text: String?, command: String) throws -> Int? {
    guard let text else { return nil }
    guard let index = Int(text), index >= 0 else { throw UsageError(message: "--item takes a number from 0", command: command) }
    return index
}

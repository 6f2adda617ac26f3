/// wl-clipboard 2.1.0's `wl-copy` and `wl-paste` command lines (GNU `getopt_long`, ``GetoptLong``), their
/// help, version and usage errors, and the rules wl-paste chooses a type and ends its output by.
public struct WlCopyInvocation: Equatable, Sendable {
    public var primary = false
    public var trimNewline = false
    public var pasteOnce = false
    public var foreground = false
    public var clear = false
    /// `--type`: the MIME type the content is offered as (else inferred from it).
    public var type: String?
    public var seat: String?
    /// The operands, copied joined by spaces instead of standard input; nil when there are none.
    public var words: [String]?

    public init() {}

    /// The text the operands make: joined by single spaces, no line break added.
    public var text: String? { words.map { $0.joined(separator: " ") } }
}

public struct WlPasteInvocation: Equatable, Sendable {
    public var noNewline = false
    public var listTypes = false
    public var primary = false
    /// `--watch COMMAND…`: the command and its arguments, run with each new selection on its input.
    public var watch: [String]?
    /// `--type`.
    public var type: String?
    public var seat: String?

    public init() {}
}

public enum WlClipboard {
    static let copyOptions = [
        GetoptLong.LongOption(name: "version", takesValue: false, short: "v"),
        GetoptLong.LongOption(name: "help", takesValue: false, short: "h"),
        GetoptLong.LongOption(name: "primary", takesValue: false, short: "p"),
        GetoptLong.LongOption(name: "trim-newline", takesValue: false, short: "n"),
        GetoptLong.LongOption(name: "paste-once", takesValue: false, short: "o"),
        GetoptLong.LongOption(name: "foreground", takesValue: false, short: "f"),
        GetoptLong.LongOption(name: "clear", takesValue: false, short: "c"),
        GetoptLong.LongOption(name: "type", takesValue: true, short: "t"),
        GetoptLong.LongOption(name: "seat", takesValue: true, short: "s"),
    ]
    static let pasteOptions = [
        GetoptLong.LongOption(name: "version", takesValue: false, short: "v"),
        GetoptLong.LongOption(name: "help", takesValue: false, short: "h"),
        GetoptLong.LongOption(name: "primary", takesValue: false, short: "p"),
        GetoptLong.LongOption(name: "no-newline", takesValue: false, short: "n"),
        GetoptLong.LongOption(name: "list-types", takesValue: false, short: "l"),
        GetoptLong.LongOption(name: "watch", takesValue: true, short: "w"),
        GetoptLong.LongOption(name: "type", takesValue: true, short: "t"),
        GetoptLong.LongOption(name: "seat", takesValue: true, short: "s"),
    ]

    /// Reads wl-copy's `arguments` (without argv[0]); `program` is argv[0] as given.
    /// - Parameter posixlyCorrect: `POSIXLY_CORRECT` is set: the first operand ends the options.
    public static func parseCopy(_ arguments: [String], program: String, posixlyCorrect: Bool = false) -> ParseOutcome<WlCopyInvocation> {
        var parser = GetoptLong(arguments, program: program, short: "vhpnofct:s:", long: copyOptions, stopAtOperand: posixlyCorrect)
        var invocation = WlCopyInvocation()
        while let event = parser.next() {
            switch event {
            case .error(let message):
                return .reply(ToolReply(status: 1, standardError: message + copyUsage(program: program)))
            case .option(let letter, let value, _, _):
                switch letter {
                case "v": return .reply(ToolReply(status: 0, standardOutput: version))
                case "h": return .reply(ToolReply(status: 0, standardOutput: copyUsage(program: program)))
                case "p": invocation.primary = true
                case "n": invocation.trimNewline = true
                case "o": invocation.pasteOnce = true
                case "f": invocation.foreground = true
                case "c": invocation.clear = true
                case "t": invocation.type = value
                default: invocation.seat = value
                }
            }
        }
        if !parser.operands.isEmpty { invocation.words = parser.operands }
        return .run(invocation)
    }

    /// Reads wl-paste's `arguments` (without argv[0]); `program` is argv[0] as given.
    public static func parsePaste(_ arguments: [String], program: String, posixlyCorrect: Bool = false) -> ParseOutcome<WlPasteInvocation> {
        var parser = GetoptLong(arguments, program: program, short: "vhpnlw:t:s:", long: pasteOptions, stopAtOperand: posixlyCorrect)
        var invocation = WlPasteInvocation()
        while let event = parser.next() {
            switch event {
            case .error(let message):
                return .reply(ToolReply(status: 1, standardError: message + pasteUsage(program: program)))
            case .option(let letter, let value, let valueIndex, let attached):
                switch letter {
                case "v": return .reply(ToolReply(status: 0, standardOutput: version))
                case "h": return .reply(ToolReply(status: 0, standardOutput: pasteUsage(program: program)))
                case "p": invocation.primary = true
                case "n": invocation.noNewline = true
                case "l": invocation.listTypes = true
                case "t": invocation.type = value
                case "s": invocation.seat = value
                default:
                    // The command is the option's own argument and everything after it, as given: with the value
                    // attached (`-wCMD`, `--watch=CMD`) that argument is the option itself, which is refused.
                    let command = parser.arguments(from: valueIndex ?? parser.index)
                    if attached || (value ?? "").hasPrefix("-") {
                        return .reply(ToolReply(
                            status: 1, standardError: "Expected a subcommand instead of an argument after --watch\n" + pasteUsage(program: program)))
                    }
                    invocation.watch = command
                    return .run(invocation)
                }
            }
        }
        if let first = parser.operands.first {
            return .reply(ToolReply(status: 1, standardError: "Unexpected argument: \(first)\n" + pasteUsage(program: program)))
        }
        return .run(invocation)
    }

    public static func copyUsage(program: String) -> String {
        """
        Usage:
        \t\(program) [options] text to copy
        \t\(program) [options] < file-to-copy

        Copy content to the Wayland clipboard.

        Options:
        \t-o, --paste-once\tOnly serve one paste request and then exit.
        \t-f, --foreground\tStay in the foreground instead of forking.
        \t-c, --clear\t\tInstead of copying anything, clear the clipboard.
        \t-p, --primary\t\tUse the "primary" clipboard.
        \t-n, --trim-newline\tDo not copy the trailing newline character.
        \t-t, --type mime/type\tOverride the inferred MIME type for the content.
        \t-s, --seat seat-name\tPick the seat to work with.
        \t-v, --version\t\tDisplay version info.
        \t-h, --help\t\tDisplay this message.
        Mandatory arguments to long options are mandatory for short options too.

        See wl-clipboard(1) for more details.

        """
    }

    public static func pasteUsage(program: String) -> String {
        """
        Usage:
        \t\(program) [options]
        Paste content from the Wayland clipboard.

        Options:
        \t-n, --no-newline\tDo not append a newline character.
        \t-l, --list-types\tInstead of pasting, list the offered types.
        \t-p, --primary\t\tUse the "primary" clipboard.
        \t-w, --watch command\tRun a command each time the selection changes.
        \t-t, --type mime/type\tOverride the inferred MIME type for the content.
        \t-s, --seat seat-name\tPick the seat to work with.
        \t-v, --version\t\tDisplay version info.
        \t-h, --help\t\tDisplay this message.
        Mandatory arguments to long options are mandatory for short options too.

        See wl-clipboard(1) for more details.

        """
    }

    /// `--version` of either tool, on standard output.
    public static let version = """
        wl-clipboard 2.1.0
        Copyright (C) 2019 Sergey Bugaev
        License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.
        This is free software: you are free to change and redistribute it.
        There is NO WARRANTY, to the extent permitted by law.

        """

    /// The messages wl-paste ends with (exit 1).
    public static let noSelection = "No selection\n"
    public static let noSuitableType = "No suitable type of content copied\n"

    /// The generic text types wl-copy offers beside a text type, in its order.
    public static let genericTextTypes = ["text/plain", "text/plain;charset=utf-8", "TEXT", "STRING", "UTF8_STRING"]

    /// wl-clipboard's `mime_type_is_text`: what it treats as text (and so ends with a line break on paste).
    public static func isText(_ mime: String) -> Bool {
        mime.hasPrefix("text/") || mime == "TEXT" || mime == "STRING" || mime == "UTF8_STRING"
            || mime.contains("json") || mime.hasSuffix("script") || mime.hasSuffix("xml") || mime.hasSuffix("yaml")
            || mime.contains("application/vnd.ms-publisher") || mime.hasSuffix("pgp-keys")
    }

    /// wl-paste's choice among the `offered` MIME types (`mime_type_to_request`), in order:
    /// - `--type text`: text/plain;charset=utf-8, text/plain, the first text type;
    /// - `--type` with a slash or a capital first letter: that type exactly;
    /// - any other `--type`: that type, else the first offered type it prefixes (`-t image`);
    /// - no `--type`, with a type inferred from where standard output goes (`> shot.png`): that type, and
    ///   when it is text the text ladder after it;
    /// - else the text ladder, then the first type offered.
    /// nil: "No suitable type of content copied".
    public static func chooseType(offered: [String], explicit: String?, inferred: String?) -> String? {
        let textLadder: [String?] = [
            offered.first { $0 == "text/plain;charset=utf-8" }, offered.first { $0 == "text/plain" }, offered.first(where: isText),
        ]
        func first(_ candidates: [String?]) -> String? { candidates.compactMap { $0 }.first }
        if let explicit {
            let exact = offered.contains(explicit) ? explicit : nil
            if explicit == "text" { return first(textLadder) }
            if explicit.contains("/") || explicit.first?.isUppercase == true && explicit.first?.isASCII == true { return exact }
            return first([exact, offered.first { $0.hasPrefix(explicit) }])
        }
        guard let inferred else { return first(textLadder + [offered.first]) }
        let match = offered.contains(inferred) ? inferred : nil
        return isText(inferred) ? first([match] + textLadder) : match
    }
}

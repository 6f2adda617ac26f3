/// xclip 0.13's command line, read as Xlib's `XrmParseCommand` reads it against xclip's option table.
///
/// - Every option is one dash and a word; any unambiguous prefix of it is that option (`-sel`, `-o`,
///   `-selec`), an exact name winning over a longer option it prefixes. A prefix of several (`-s` is
///   `-selection` and `-silent`, `-v` is `-version` and `-verbose`, `-` all of them) is no option.
/// - An option that takes a value takes the next argument whatever it looks like (`-sel -o` selects
///   "-o"); at the end of the line it has none and stays behind as an operand.
/// - What is no option is a file to read (`--help` is a file named so), even between options.
/// - A later option overrides an earlier one of the same setting (`-i -o` pastes, `-h -version`
///   prints the version).
public struct XclipInvocation: Equatable, Sendable {
    public enum Direction: Equatable, Sendable { case input, output }
    /// `-silent` (the default: fork and report errors only), `-quiet` (stay in the foreground),
    /// `-verbose` (stay, with a running commentary).
    public enum Verbosity: Int, Equatable, Sendable, Comparable {
        case silent, quiet, verbose
        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }
    /// The selection `-selection` names, by its first letter as xclip reads it (any other value, or
    /// none, is PRIMARY).
    public enum Selection: Equatable, Sendable { case primary, secondary, clipboard, cutBuffer }

    public var direction = Direction.input
    public var verbosity = Verbosity.silent
    /// `-filter`: the input is also written to standard output (only where `-silent` holds).
    public var filter = false
    public var removeLastNewline = false
    public var display: String?
    /// `-loops N` as `atoi` reads it: below 1, serve until the selection is taken away.
    public var loops = 0
    /// `-selection`'s value as given.
    public var selectionName: String?
    public var noUTF8 = false
    /// `-target`'s value as given (ignored with `-noutf8`, as xclip does).
    public var target: String?
    /// The operands: files whose concatenation is copied (standard input when there are none).
    public var files: [String] = []

    public init() {}

    public var selection: Selection {
        switch selectionName?.utf8.first.map({ $0 | 0x20 }) {
        case UInt8(ascii: "s"): return .secondary
        case UInt8(ascii: "c"): return .clipboard
        case UInt8(ascii: "b"): return .cutBuffer
        default: return .primary
        }
    }

    /// The target a paste asks for and a copy is offered as: STRING with `-noutf8`, else `-target`,
    /// else UTF8_STRING.
    public var effectiveTarget: String { noUTF8 ? "STRING" : target ?? "UTF8_STRING" }
    /// Whether the target was named (`-target`, `-noutf8`) rather than xclip's default.
    public var targetIsExplicit: Bool { noUTF8 || target != nil }

    /// What `-verbose` says of the selection (xclip's atom names for them).
    public var verboseSelectionName: String {
        switch selection {
        case .primary: return "XA_PRIMARY"
        case .secondary: return "XA_SECONDARY"
        case .clipboard: return "XA_CLIPBOARD"
        case .cutBuffer: return "XA_STRING"
        }
    }
}

public enum Xclip {
    /// xclip's option table, in its order (the order matters for nothing but reading the source beside it).
    enum Option: String, CaseIterable {
        case loops = "-loops", display = "-display", selection = "-selection", filter = "-filter", `in` = "-in", out = "-out"
        case version = "-version", help = "-help", silent = "-silent", quiet = "-quiet", verbose = "-verbose", noutf8 = "-noutf8"
        case target = "-target", rmlastnl = "-rmlastnl"

        var takesValue: Bool { self == .loops || self == .display || self == .selection || self == .target }
    }

    /// The option `argument` names: its exact name, else the one option it is a prefix of.
    static func option(_ argument: String) -> Option? {
        if let exact = Option(rawValue: argument) { return exact }
        let prefixed = Option.allCases.filter { $0.rawValue.hasPrefix(argument) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// Reads `arguments` (without argv[0]); `program` is argv[0] as given, which the help names.
    public static func parse(_ arguments: [String], program: String) -> ParseOutcome<XclipInvocation> {
        var invocation = XclipInvocation()
        var settings: [Option: String] = [:]
        var olevel: Option?
        var direction: Option?
        var print: Option?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard let option = option(argument) else {
                invocation.files.append(argument)
                continue
            }
            if option.takesValue {
                guard index < arguments.count else {
                    invocation.files.append(argument)  // XrmoptionSepArg with nothing after it: left as an operand
                    continue
                }
                settings[option] = arguments[index]
                index += 1
                continue
            }
            switch option {
            case .silent, .quiet, .verbose: olevel = option
            case .in, .out: direction = option
            case .version, .help: print = option
            default: settings[option] = ""
            }
        }
        switch olevel {
        case .quiet?: invocation.verbosity = .quiet
        case .verbose?: invocation.verbosity = .verbose
        default: invocation.verbosity = .silent
        }
        invocation.direction = direction == .out ? .output : .input
        invocation.filter = settings[.filter] != nil && invocation.verbosity == .silent
        invocation.removeLastNewline = settings[.rmlastnl] != nil
        if print == .help { return .reply(ToolReply(status: 0, standardError: help(program: program))) }
        if print == .version { return .reply(ToolReply(status: 0, standardError: version)) }
        invocation.display = settings[.display]
        if let loops = settings[.loops] { invocation.loops = Int(Int32(truncatingIfNeeded: cInteger(loops))) }
        invocation.selectionName = settings[.selection]
        invocation.noUTF8 = settings[.noutf8] != nil
        invocation.target = settings[.target]
        return .run(invocation)
    }

    /// `xclip -help`, on standard error (exit 0), as Debian 12's xclip 0.13 words it.
    public static func help(program: String) -> String {
        """
        Usage: \(program) [OPTION] [FILE]...
        Access an X server selection for reading or writing.

          -i, -in          read text into X selection from standard input or files
                           (default)
          -o, -out         prints the selection to standard out (generally for
                           piping to a file or program)
          -l, -loops       number of selection requests to wait for before exiting
          -d, -display     X display to connect to (eg localhost:0")
          -h, -help        usage information
              -selection   selection to access ("primary", "secondary", "clipboard" or "buffer-cut")
              -noutf8      don't treat text as utf-8, use old unicode
              -target      use the given target atom
              -rmlastnl    remove the last newline character if present
              -version     version information
              -silent      errors only, run in background (default)
              -quiet       run in foreground, show what's happening
              -verbose     running commentary

        Report bugs to <astrand@lysator.liu.se>

        """
    }

    /// `xclip -version`, on standard error (exit 0).
    public static let version = """
        xclip version 0.13
        Copyright (C) 2001-2008 Kim Saunders et al.
        Distributed under the terms of the GNU GPL

        """

    /// What xclip says when a paste finds nothing it can take (exit 1): the target it asked for last
    /// (UTF8_STRING falls back to STRING, so a default paste names STRING).
    public static func targetNotAvailable(_ target: String) -> String {
        "Error: target \(target == "UTF8_STRING" ? "STRING" : target) not available\n"
    }

    /// What xclip says when it cannot connect to the display it was given (exit 1).
    public static func cannotOpenDisplay(_ display: String?) -> String { "Error: Can't open display: \(display ?? "(null)")\n" }

    /// `perror` of a file that cannot be read: `PROGRAM: FILE: REASON` (exit 1).
    public static func fileError(program: String, file: String, reason: String) -> String { "\(program): \(file): \(reason)\n" }

    /// What `-quiet` and `-verbose` say once they serve in the foreground: what they wait for, then the
    /// first request awaited.
    public static func waitingMessage(loops: Int) -> String {
        let header: String
        if loops == 1 {
            header = "Waiting for one selection request.\n"
        } else if loops > 1 {
            header = "Waiting for \(loops) selection requests, Control-C to quit\n"
        } else {
            header = "Waiting for selection requests, Control-C to quit\n"
        }
        return header + waitingLine(request: 1, loops: loops)
    }

    /// The line `-quiet` and `-verbose` print before waiting for request number `request`.
    public static func waitingLine(request: Int, loops: Int) -> String {
        if loops == 1 { return "  Waiting for a selection request.\n" }
        if loops > 1 { return "  Waiting for selection request \(request) of \(loops).\n" }
        return "  Waiting for selection request number \(request)\n"
    }
}

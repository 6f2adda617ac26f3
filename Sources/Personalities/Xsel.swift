/// xsel 1.2.0's command line (Debian 12: 1.2.0+git9bfc13d), read as xsel reads it.
///
/// - Every argument longer than two bytes that starts with one dash is first split into one-letter
///   options (`-bo` is `-b -o`; so is a value such as `-l -log`, whatever it was meant to be).
/// - Long options are whole words (`--clipboard`); no abbreviation.
/// - Anything else, an operand included, prints the usage on standard output and exits 0, before any
///   other option takes effect; so does an option that needs a value at the end of the line.
/// - With neither `-i` nor `-o` (nor what implies one), what the streams are decides: both terminals,
///   paste; else paste when standard output is no terminal and copy when standard input is none.
public struct XselInvocation: Equatable, Sendable {
    public enum Selection: Equatable, Sendable { case primary, secondary, clipboard }

    public var selection = Selection.primary
    /// Standard input becomes the selection (asked for, or because standard input is no terminal).
    public var input = false
    /// The selection is written to standard output first.
    public var output = false
    public var append = false
    public var follow = false
    public var zeroFlush = false
    public var clear = false
    public var delete = false
    public var keep = false
    public var exchange = false
    public var display: String?
    /// `-t`: milliseconds (0: none) a paste may take, and an owner lives.
    public var timeoutMilliseconds = 0
    public var noDetach = false
    public var logFile: String?
    public var verbosity = 0

    public init() {}
}

public enum Xsel {
    /// xsel's `expand_argv`: each argument of more than two bytes that starts with `-` but not `--`
    /// becomes one argument per letter.
    public static func expand(_ arguments: [String]) -> [String] {
        arguments.flatMap { argument -> [String] in
            let bytes = Array(argument.utf8)
            guard bytes.count > 2, bytes[0] == 0x2D, bytes[1] != 0x2D else { return [argument] }
            return bytes.dropFirst().map { String(decoding: [0x2D, $0], as: UTF8.self) }
        }
    }

    /// Reads `arguments` (without argv[0]) given what the standard streams are.
    public static func parse(_ arguments: [String], stdinIsTerminal: Bool, stdoutIsTerminal: Bool) -> ParseOutcome<XselInvocation> {
        var invocation = XselInvocation()
        var doInput: Bool
        var doOutput: Bool
        if stdinIsTerminal && stdoutIsTerminal {
            doInput = false
            doOutput = true
        } else {
            doInput = !stdinIsTerminal
            doOutput = !stdoutIsTerminal
        }
        var forceInput = false
        var forceOutput = false
        var wantClipboard = false
        var showHelp = false
        var showVersion = false
        let usageReply = ParseOutcome<XselInvocation>.reply(ToolReply(status: 0, standardOutput: usage))
        let expanded = expand(arguments)
        var index = 0
        while index < expanded.count {
            let argument = expanded[index]
            index += 1
            func value() -> String? {
                guard index < expanded.count else { return nil }
                index += 1
                return expanded[index - 1]
            }
            switch argument {
            case "--help", "-h": showHelp = true
            case "--version": showVersion = true
            case "--verbose", "-v": invocation.verbosity += 1
            case "--append", "-a":
                forceInput = true
                doOutput = false
                invocation.append = true
            case "--input", "-i":
                forceInput = true
                doOutput = false
            case "--clear", "-c":
                doOutput = false
                invocation.clear = true
            case "--output", "-o":
                doInput = false
                forceOutput = true
            case "--follow", "-f":
                forceInput = true
                doOutput = false
                invocation.follow = true
            case "--zeroflush", "-z":
                forceInput = true
                doOutput = false
                invocation.follow = true
                invocation.zeroFlush = true
            case "--primary", "-p": invocation.selection = .primary
            case "--secondary", "-s": invocation.selection = .secondary
            case "--clipboard", "-b": wantClipboard = true
            case "--keep", "-k": invocation.keep = true
            case "--exchange", "-x": invocation.exchange = true
            case "--display":
                guard let display = value() else { return usageReply }
                invocation.display = display
            case "--selectionTimeout", "-t":
                guard let milliseconds = value() else { return usageReply }
                invocation.timeoutMilliseconds = max(0, cInteger(milliseconds))
            case "--nodetach", "-n": invocation.noDetach = true
            case "--delete", "-d":
                doOutput = false
                invocation.delete = true
            case "--logfile", "-l":
                guard let file = value() else { return usageReply }
                invocation.logFile = file
            default:
                return usageReply
            }
        }
        if showVersion || showHelp {
            return .reply(ToolReply(status: 0, standardOutput: (showVersion ? version : "") + (showHelp ? usage : "")))
        }
        if wantClipboard { invocation.selection = .clipboard }
        invocation.input = doInput || forceInput
        invocation.output = doOutput || forceOutput
        return .run(invocation)
    }

    /// `xsel --version`, on standard output.
    public static let version = "xsel version 1.2.0 by Conrad Parker <conrad@vergenet.net>\n"

    /// `xsel --help` and every usage error, on standard output (exit 0).
    public static let usage = """
        Usage: xsel [options]
        Manipulate the X selection.

        By default the current selection is output and not modified if both
        standard input and standard output are terminals (ttys).  Otherwise,
        the current selection is output if standard output is not a terminal
        (tty), and the selection is set from standard input if standard input
        is not a terminal (tty). If any input or output options are given then
        the program behaves only in the requested mode.

        If both input and output is required then the previous selection is
        output before being replaced by the contents of standard input.

        Input options
          -a, --append          Append standard input to the selection
          -f, --follow          Append to selection as standard input grows
          -z, --zeroflush       Overwrites selection when zero ('\\0') is received
          -i, --input           Read standard input into the selection

        Output options
          -o, --output          Write the selection to standard output

        Action options
          -c, --clear           Clear the selection
          -d, --delete          Request that the selection be cleared and that
                                the application owning it delete its contents

        Selection options
          -p, --primary         Operate on the PRIMARY selection (default)
          -s, --secondary       Operate on the SECONDARY selection
          -b, --clipboard       Operate on the CLIPBOARD selection

          -k, --keep            Do not modify the selections, but make the PRIMARY
                                and SECONDARY selections persist even after the
                                programs they were selected in exit.
          -x, --exchange        Exchange the PRIMARY and SECONDARY selections

        X options
          --display displayname
                                Specify the connection to the X server
          -t ms, --selectionTimeout ms
                                Specify the timeout in milliseconds within which the
                                selection must be retrieved. A value of 0 (zero)
                                specifies no timeout (default)

        Miscellaneous options
          -l, --logfile         Specify file to log errors to when detached.
          -n, --nodetach        Do not detach from the controlling terminal. Without
                                this option, xsel will fork to become a background
                                process in input, exchange and keep modes.

          -h, --help            Display this help and exit
          -v, --verbose         Print informative messages
          --version             Output version information and exit

        Please report bugs to <conrad@vergenet.net>.

        """

    /// What xsel says (exit 1) when it cannot connect to the display: its message, then `strerror` of
    /// the errno Xlib left (ENOENT for a socket that is not there).
    public static func cannotOpenDisplay(program: String, display: String?, reason: String) -> String {
        "\(program): Can't open display: \(display ?? "(null)")\n: \(reason)\n"
    }

    /// What `xsel -o` adds on standard error when standard output is a terminal and the text does not end
    /// with a line break.
    public static let noNewlineNote = "\n\\ No newline at end of selection\n"
}

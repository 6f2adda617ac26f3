/// `pbctl help` texts. Each command's usage, options (generated from its option specs) and examples.
struct CommandHelp: Sendable {
    let name: String
    let summary: String
    let usage: String
    let details: String
    let examples: [String]
}


let exitCodeHelp = """
    Exit codes:
      0   success
      1   nothing to paste, or the requested type is not offered
      64  usage error (unknown option, missing value, bad name)
      65  invalid input data (e.g. invalid UTF-8 for a text type, malformed document, an image
          that is damaged or over PBCTL_MAX_PIXELS or PBCTL_MAX_IMAGE_MEMORY)
      66  a file given to copy --files does not exist (nothing is copied)
      69  backend unavailable (e.g. --backend x11 with no display, X server gone, owner stalled;
          pbctl daemon when a clipboard manager already runs on the display; pbctl devices add
          when nothing links at the address)
      74  I/O error (store unreadable or damaged, permissions, symlinks refused, disk full)
      141 standard output's reader went away (pbctl paste | head): pbctl stops silently
    """

func mainHelp(_ commands: [Command]) -> String {
    var text = """
        pbctl: a pasteboard broker for Linux. One copy offers Markdown, HTML, RTF and plain text
        together (an image: PNG, JPEG, BMP, TIFF and WebP); each paste gets the richest form the
        pasting side can use.

        Usage: pbctl COMMAND [OPTIONS] [ARGUMENTS]

        Commands:

        """
    for command in commands where !command.hidden {
        text += "  " + command.help.name.padding(8) + "  " + command.help.summary + "\n"
    }
    text += """

        Global options (any command):

        """
    for option in GlobalOptions.specs { text += optionLine(option) }
    text += "  " + "    --version".padding(26) + "print the version and the commit it was built from\n"
    text += """

        Without a display pbctl keeps pasteboards in a private store: $PBCTL_STORE if set, else
        $XDG_RUNTIME_DIR/pbctl, else $XDG_CACHE_HOME/pbctl or ~/.cache/pbctl (directory 0700, files 0600).
        pbctl help COMMAND shows a command's options and examples; man pbctl has the environment,
        the configuration and the files.


        """
    text += exitCodeHelp + "\n"
    return text
}

func commandHelp(_ command: Command) -> String {
    var text = "Usage: \(command.help.usage)\n\n\(command.help.summary)\n"
    if !command.help.details.isEmpty { text += "\n" + command.help.details + "\n" }
    // A command that gives a global option its own meaning (`daemon --primary`) lists it once, its way.
    let own = Set(command.options.map(\.long))
    let options = command.options + GlobalOptions.specs.filter { !own.contains($0.long) }
    text += "\nOptions:\n"
    for option in options { text += optionLine(option) }
    if !command.help.examples.isEmpty {
        text += "\nExamples:\n"
        for example in command.help.examples { text += "  " + example + "\n" }
    }
    text += "\n" + exitCodeHelp + "\n"
    return text
}

/// One option as help lists it: its flags and value, then what it does.
func optionLine(_ option: OptionSpec) -> String {
    var left = option.short.map { "-\($0), " } ?? "    "
    left += "--" + option.long
    if option.takesValue { left += " " + option.valueName }
    return "  " + left.padding(26) + option.help + "\n"
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

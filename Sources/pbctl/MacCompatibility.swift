/// `pbcopy` and `pbpaste`, as on macOS: when pbctl is started under one of those names (the links
/// `make install` creates), the macOS flags are translated to pbctl's.
///
/// - `pbcopy [-pboard general|ruler|find|font]`: standard input to the pasteboard, as RTF when it
///   starts with the RTF header, else as plain text.
/// - `pbpaste [-pboard NAME] [-Prefer txt|rtf|ps]`: plain text first (or RTF first with `-Prefer rtf`);
///   an empty pasteboard prints nothing and succeeds, as on macOS.
enum MacCompatibility {
    static func translate(invokedAs name: String, _ arguments: [String]) -> [String]? {
        guard name == "pbcopy" || name == "pbpaste" else { return nil }
        var translated = [name == "pbcopy" ? "copy" : "paste"]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "-pboard" where index < arguments.count:
                translated += ["-p", arguments[index]]
                index += 1
            case "-Prefer" where index < arguments.count && name == "pbpaste":
                translated += ["--prefer", arguments[index]]
                index += 1
            case "-help", "--help", "-h":
                translated.append("--help")
            default:
                translated.append(argument)
            }
        }
        translated.append("--mac-compat")
        return translated
    }
}

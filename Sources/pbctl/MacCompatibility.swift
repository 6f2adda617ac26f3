/// `pbcopy` and `pbpaste`, as on macOS: when pbctl is started under one of those names (the links
/// `make install` creates), the macOS flags are translated to pbctl's.
///
/// - `pbcopy [-pboard general|ruler|find|font]`: standard input to the pasteboard, as RTF when it
///   starts with the RTF header, else as plain text.
/// - `pbpaste [-pboard NAME] [-Prefer txt|rtf|ps]`: plain text first (or RTF first with `-Prefer rtf`);
///   an empty pasteboard prints nothing and succeeds, as on macOS.
/// - pbpaste writes text only: a pasteboard without any (an image, a file's bytes) prints nothing and
///   succeeds, as macOS pbpaste does.
enum MacCompatibility {
    /// pbctl's arguments for `pbcopy`/`pbpaste ARGUMENTS`; nil when pbctl runs under its own name.
    /// - Throws: ``UsageError`` for `-pboard` or `-Prefer` without a value.
    static func translate(invokedAs name: String, _ arguments: [String]) throws -> [String]? {
        guard name == "pbcopy" || name == "pbpaste" else { return nil }
        var translated = [name == "pbcopy" ? "copy" : "paste"]
        var index = 0
        func value(_ option: String) throws -> String {
            guard index < arguments.count else {
                throw UsageError(message: "option \(option) needs a value", command: translated[0])
            }
            index += 1
            return arguments[index - 1]
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "-pboard":
                translated += ["-p", try value("-pboard")]
            case "-Prefer" where name == "pbpaste":
                translated += ["--prefer", try value("-Prefer")]
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

/// pbctl's own argument parser: long options (`--name value`, `--name=value`), short options
/// (`-o value`, `-ovalue`, bundled flags `-nv`), `--` to end options, and positional arguments.
/// Unknown options and missing values are usage errors (exit 64) with a hint.
struct OptionSpec: Sendable {
    let long: String
    let short: Character?
    let takesValue: Bool
    let help: String
    /// Shown in help for options that take a value.
    let valueName: String
    /// What its values are, for the completions (declared with the option, never guessed from its name).
    let values: Values

    /// What an option's (or a command's operands') values are.
    enum Values: Sendable, Equatable {
        /// A flag: no value.
        case none
        /// Free text: nothing to complete.
        case text
        case file, directory, pasteboard, backend, format, type, command
        case words([String])
    }

    /// How the option is written on a command line: `--long`.
    var flag: String { "--" + long }

    static func flag(_ long: String, _ short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, takesValue: false, help: help, valueName: "", values: .none)
    }

    static func value(_ long: String, _ short: Character? = nil, _ valueName: String, _ values: Values, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, takesValue: true, help: help, valueName: valueName, values: values)
    }
}

struct UsageError: Error {
    let message: String
    let command: String?
}

struct ParsedArguments: Sendable {
    /// Values by long name; a flag maps to "" and a repeated option keeps every value.
    var options: [String: [String]] = [:]
    var positionals: [String] = []
    /// Arguments after `--`, kept apart (for `watch -- COMMAND`).
    var afterDashDash: [String]? = nil
    /// With `passThrough`: everything from the first argument that is not one of the command's own
    /// long options (`pbctl ssh`'s arguments are ssh's).
    var passedThrough: [String] = []

    func has(_ name: String) -> Bool { options[name] != nil }
    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }
}

func parseArguments(_ arguments: [String], specs: [OptionSpec], command: String, passThrough: Bool = false) throws -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = 0
    if passThrough {
        // The command's own long options first; the rest as it is.
        let own = arguments.prefix { argument in
            argument.hasPrefix("--") && argument != "--" && specs.contains { "--" + $0.long == argument.split(separator: "=", maxSplits: 1).first.map(String.init) }
        }
        parsed = try parseArguments(Array(own), specs: specs, command: command)
        parsed.passedThrough = Array(arguments.dropFirst(own.count))
        return parsed
    }
    func spec(long: String) -> OptionSpec? { specs.first { $0.long == long } }
    func spec(short: Character) -> OptionSpec? { specs.first { $0.short == short } }
    func unknown(_ option: String) -> UsageError {
        let candidates = specs.map { "--" + $0.long }
        let near = candidates.first { $0.hasPrefix(option) || option.hasPrefix($0) }
        let hint = near.map { " (did you mean \($0)?)" } ?? ""
        return UsageError(message: "unknown option '\(option)' for '\(command)'\(hint)", command: command)
    }
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        if argument == "--" {
            parsed.afterDashDash = Array(arguments[index...])
            break
        }
        if argument.hasPrefix("--") {
            var name = String(argument.dropFirst(2))
            var inlineValue: String? = nil
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let option = spec(long: name) else { throw unknown("--" + name) }
            if option.takesValue {
                if let inlineValue {
                    parsed.options[name, default: []].append(inlineValue)
                } else if index < arguments.count {
                    parsed.options[name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw UsageError(message: "option --\(name) needs a value (\(option.valueName))", command: command)
                }
            } else {
                guard inlineValue == nil else {
                    throw UsageError(message: "option --\(name) takes no value", command: command)
                }
                parsed.options[name, default: []].append("")
            }
        } else if argument.hasPrefix("-") && argument.count > 1 {
            var characters = Array(argument.dropFirst())
            while !characters.isEmpty {
                let short = characters.removeFirst()
                guard let option = spec(short: short) else { throw unknown("-" + String(short)) }
                if option.takesValue {
                    if !characters.isEmpty {
                        parsed.options[option.long, default: []].append(String(characters))
                        characters = []
                    } else if index < arguments.count {
                        parsed.options[option.long, default: []].append(arguments[index])
                        index += 1
                    } else {
                        throw UsageError(
                            message: "option -\(short) needs a value (\(option.valueName))", command: command)
                    }
                } else {
                    parsed.options[option.long, default: []].append("")
                }
            }
        } else {
            parsed.positionals.append(argument)
        }
    }
    return parsed
}

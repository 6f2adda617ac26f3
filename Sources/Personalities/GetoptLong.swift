/// GNU `getopt_long` (glibc 2.36) as wl-copy and wl-paste call it: short options with values attached
/// or in the next argument and bundles (`-pn`, `-tTYPE`), long options with `=` or the next argument,
/// any unambiguous prefix of a long option (`--prim`), arguments permuted so options may follow operands,
/// `--` ending the options, and glibc's messages, word for word, for what it refuses.
struct GetoptLong {
    struct LongOption {
        let name: String
        let takesValue: Bool
        let short: Character
    }

    enum Event: Equatable {
        /// An option (by its short letter), its value, and where the value came from: the index of the
        /// argument that held it, and whether it was attached to the option (`-tX`, `--type=X`).
        case option(Character, value: String?, valueIndex: Int?, attached: Bool)
        /// What glibc prints on standard error before the tool adds its usage.
        case error(String)
    }

    let arguments: [String]
    let program: String
    let shortOptions: [Character: Bool]
    let longOptions: [LongOption]
    /// POSIXLY_CORRECT: the first operand ends the options.
    let stopAtOperand: Bool

    private(set) var index = 0
    private var pendingShort: [Character] = []
    private var pendingShortIndex = 0
    /// The operands, in their order, once every option has been read.
    private(set) var operands: [String] = []
    private var ended = false

    /// - Parameter short: getopt's option string, `"vhpnofct:s:"`.
    init(_ arguments: [String], program: String, short: String, long: [LongOption], stopAtOperand: Bool = false) {
        self.arguments = arguments
        self.program = program
        var table: [Character: Bool] = [:]
        var characters = Array(short)
        while !characters.isEmpty {
            let letter = characters.removeFirst()
            let takesValue = characters.first == ":"
            if takesValue { characters.removeFirst() }
            table[letter] = takesValue
        }
        shortOptions = table
        longOptions = long
        self.stopAtOperand = stopAtOperand
    }

    /// The next option, or nil when the options are done (``operands`` then holds the rest).
    mutating func next() -> Event? {
        if !pendingShort.isEmpty { return nextShort() }
        while index < arguments.count, !ended {
            let argument = arguments[index]
            if argument == "--" {
                operands += arguments[(index + 1)...]
                index = arguments.count
                ended = true
                return nil
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                operands.append(argument)
                index += 1
                if stopAtOperand {
                    operands += arguments[index...]
                    index = arguments.count
                    ended = true
                }
                continue
            }
            if argument.hasPrefix("--") { return longOption(String(argument.dropFirst(2))) }
            pendingShort = Array(argument.dropFirst())
            pendingShortIndex = index
            index += 1
            return nextShort()
        }
        return nil
    }

    private mutating func nextShort() -> Event {
        let letter = pendingShort.removeFirst()
        guard let takesValue = shortOptions[letter] else {
            return .error("\(program): invalid option -- '\(letter)'\n")
        }
        guard takesValue else { return .option(letter, value: nil, valueIndex: nil, attached: false) }
        if !pendingShort.isEmpty {
            let value = String(pendingShort)
            pendingShort = []
            return .option(letter, value: value, valueIndex: pendingShortIndex, attached: true)
        }
        guard index < arguments.count else {
            return .error("\(program): option requires an argument -- '\(letter)'\n")
        }
        index += 1
        return .option(letter, value: arguments[index - 1], valueIndex: index - 1, attached: false)
    }

    private mutating func longOption(_ text: String) -> Event {
        let optionIndex = index
        index += 1
        let name: Substring
        let attached: String?
        if let equals = text.firstIndex(of: "=") {
            name = text[..<equals]
            attached = String(text[text.index(after: equals)...])
        } else {
            name = Substring(text)
            attached = nil
        }
        var found = longOptions.first { $0.name == name }
        if found == nil {
            let prefixed = longOptions.filter { $0.name.hasPrefix(name) }
            if prefixed.count > 1 {
                return .error("\(program): option '--\(text)' is ambiguous; possibilities:" + prefixed.map { " '--\($0.name)'" }.joined() + "\n")
            }
            found = prefixed.first
        }
        guard let option = found else { return .error("\(program): unrecognized option '--\(text)'\n") }
        if let attached {
            guard option.takesValue else { return .error("\(program): option '--\(option.name)' doesn't allow an argument\n") }
            return .option(option.short, value: attached, valueIndex: optionIndex, attached: true)
        }
        guard option.takesValue else { return .option(option.short, value: nil, valueIndex: nil, attached: false) }
        guard index < arguments.count else { return .error("\(program): option '--\(option.name)' requires an argument\n") }
        index += 1
        return .option(option.short, value: arguments[index - 1], valueIndex: index - 1, attached: false)
    }

    /// The arguments from `position` on, as the program sees them once an option stops the reading
    /// (`wl-paste --watch COMMAND…`): the tail getopt has not permuted.
    func arguments(from position: Int) -> [String] { Array(arguments[position...]) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Pasteboard
import Representations
import SystemIO
import CStartup
import Personalities

func run(_ arguments: [String], _ context: Context) -> Int32 {
    guard let first = arguments.first else {
        context.terminal.err("pbctl: missing command; try 'pbctl help'")
        return ExitCode.usage
    }
    if first == "--version" || first == "-V" || first == "version" {
        try? context.terminal.out(version + "\n")
        return ExitCode.ok
    }
    if first == "--help" || first == "-h" {
        try? context.terminal.out(mainHelp(commands))
        return ExitCode.ok
    }
    guard let command = findCommand(first) else {
        let near = commands.filter { !$0.hidden }.map(\.help.name).first { $0.hasPrefix(first) || first.hasPrefix($0) }
        context.terminal.err(
            "pbctl: unknown command '\(first)'" + (near.map { " (did you mean '\($0)'?)" } ?? "")
                + "; try 'pbctl help'")
        return ExitCode.usage
    }
    let rest = Array(arguments.dropFirst())
    do {
        let parsed = try parseArguments(rest, specs: command.options + GlobalOptions.specs, command: first, passThrough: command.passThrough)
        if parsed.has("help") {
            try context.terminal.out(commandHelp(command))
            return ExitCode.ok
        }
        return try command.run(context, parsed)
    } catch let error as UsageError {
        context.terminal.err("pbctl: \(error.message)")
        context.terminal.err("Try 'pbctl help \(error.command ?? first)'.")
        return ExitCode.usage
    } catch let error as PasteboardError {
        context.terminal.err("pbctl \(first): \(error.message)")
        return ExitCode.forError(error)
    } catch let error as CLIError {
        context.terminal.err("pbctl \(first): \(error.message)")
        return error.code
    } catch {
        context.terminal.err("pbctl \(first): \(error)")
        return ExitCode.ioError
    }
}

// Writing to a closed pipe (`pbctl paste | head -c1`) must end quietly with an error code, not a signal
// message from the shell; EPIPE is reported by the write.
POSIX.ignoreBrokenPipes()
// `pbctl --version` answers before any table is built, so it measures the binary's own start-up
// (docs/benchmarks.md, Store: start-up beside /bin/true and a static C program).
// (Not as pbcopy or pbpaste, whose arguments are macOS's.)
// The arguments as glibc gave them (CStartup): Swift's CommandLine is not set up on the quick paths. It
// is asked only where the C library passed nothing to constructors.
@inline(never) func argumentsFromCommandLine() -> (Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) {
    (CommandLine.argc, CommandLine.unsafeArgv)
}
let argc: Int32
let argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
if let captured = cstartup_argv() {
    argc = cstartup_argc()
    argv = captured
} else {
    (argc, argv) = argumentsFromCommandLine()
}
if argc == 2, let zero = argv[0], let first = argv[1],
    strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0 || strcmp(first, "version") == 0,
    case let name = strrchr(zero, 0x2F).map({ $0 + 1 }) ?? zero, strcmp(name, "pbcopy") != 0, strcmp(name, "pbpaste") != 0,
    answersAsPbctlItself(name)
{
    var line = version + "\n"
    line.withUTF8 { _ = try? POSIX.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0), path: "standard output") }
    exit(ExitCode.ok)  // as the full command: what --version writes is not checked
}
if let status = fastPaste(argc: argc, argv: argv) { exit(status) }
if let status = fastCopy(argc: argc, argv: argv) { exit(status) }
if let status = fastConvert(argc: argc, argv: argv) { exit(status) }
// Arguments as their bytes: a path that is not UTF-8 (`copy --files $'bad\xff.txt'`) reaches the system
// as it was given (PathBytes), where CommandLine.arguments would have replaced the byte with U+FFFD.
let rawArguments = (0..<Int(argc)).map { index in
    argv[index].map { PathBytes.string(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? ""
}
// The name it was called by (`pbcopy`, `pbpaste`): the last component of argv[0].
let invokedAs = rawArguments.first.map { name in name.lastIndex(of: "/").map { String(name[name.index(after: $0)...]) } ?? name } ?? "pbctl"
let arguments = Array(rawArguments.dropFirst())
let context = Context(terminal: Terminal(environment: Terminal.currentEnvironment()))
// The pixel and memory caps every image decode in this process uses (an owner's conversions included).
if let text = context.environment["PBCTL_MAX_PIXELS"], let pixels = Int(text), pixels > 0 {
    ImageRepresentations.limits.maxPixels = pixels
}
if let text = context.environment["PBCTL_MAX_IMAGE_MEMORY"], let bytes = try? parseSize(text, option: "PBCTL_MAX_IMAGE_MEMORY") {
    ImageRepresentations.limits.maxMemory = bytes
}
// xclip, xsel, wl-copy, wl-paste: their command lines, pbctl's policy (Sources/pbctl/Personalities).
if let personality = Personality(invokedAs: invokedAs) {
    exit(runPersonality(personality, program: rawArguments[0], arguments: arguments, context: context))
}
do {
    exit(run(try MacCompatibility.translate(invokedAs: invokedAs, arguments) ?? arguments, context))
} catch {
    context.terminal.err("\(invokedAs): \((error as? UsageError)?.message ?? "\(error)")")
    exit(ExitCode.usage)
}

// pbctl run as xclip, xsel, wl-copy or wl-paste: argv and the streams handed to the tool's run
// (ToolSessions), and what it throws worded as the tool words it.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import Personalities
import SystemIO
import ToolSessions

/// Runs pbctl as `personality` (argv[0] named it): `program` is argv[0] as given, which the tools' messages
/// name. Returns the exit status the tool would.
func runPersonality(_ personality: Personality, program: String, arguments: [String], context: Context) -> Int32 {
    let terminal = context.terminal
    let host = ToolSession.Host(
        registry: context.registry, environment: context.environment,
        readStandardInput: { try terminal.readStandardInput(limit: $0) }, writeStandardOutput: { try terminal.out($0) },
        standardOutputSink: { DescriptorSink(fd: STDOUT_FILENO, path: "standard output", brokenPipe: { exit(ExitCode.brokenPipe) }) },
        stdinIsTerminal: terminal.stdinIsTerminal, stdoutIsTerminal: terminal.stdoutIsTerminal,
        maximumInputSize: { try context.maximumInputSize(nil) }, htmlImages: context.htmlImages,
        chooseBackend: { kind, environment, needs in try context.with(environment: environment).chooseBackend(kind, needs).backend },
        commit: { context.copyCommit(verbose: false) }, reportNotRecorded: { context.reportNotRecorded($0) })
    let tool = ToolSession(personality: personality, program: program, host: host)
    // What the run throws, as the tool says it: a ``ToolFailure`` as it is worded, anything else of
    // pbctl's as `PROGRAM: MESSAGE` (status 1, as the tools fail).
    do {
        return try runTool(arguments, tool)
    } catch let failure as ToolFailure {
        tool.err(failure.message)
        return failure.status
    } catch let error as PasteboardError {
        tool.err("\(program): \(error.message)\n")
        return 1
    } catch let error as CLIError {
        tool.err("\(program): \(error.message)\n")
        return 1
    } catch let error as UsageError {
        tool.err("\(program): \(error.message)\n")
        return 1
    } catch {
        tool.err("\(program): \(error)\n")
        return 1
    }
}

/// Whether the program name (argv[0]'s last component) is pbctl's own or macOS's (pbcopy, pbpaste), for
/// which the quick paths may answer; false for the names of the tools pbctl answers as. Read from the C
/// string before any Swift array exists (the quick paths' budget).
func answersAsPbctlItself(_ name: UnsafePointer<CChar>) -> Bool {
    strcmp(name, "xclip") != 0 && strcmp(name, "xsel") != 0 && strcmp(name, "wl-copy") != 0 && strcmp(name, "wl-paste") != 0
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DetachedProcess
import Pasteboard
import Representations
import SystemIO

/// The arguments of the spawned owners (`__serve-x11`, `__serve-wayland`): a ``ServeRequest`` as flags,
/// written by ``arguments(_:)`` (what ``OwnerLaunch/arguments`` gives a backend) and read back by
/// the same specs, which are `copy`'s, `daemon`'s and the global ones: no flag is spelled twice.
struct ServeArguments {
    static let specs = [GlobalOptions.pasteboard, CopyArguments.pasteOnce, CopyArguments.clearAfter, DaemonArguments.display]

    /// The hidden command that serves for `backend`.
    static func command(_ backend: String) -> String { "__serve-" + backend }

    /// `__serve-x11 --pasteboard general --paste-once --clear-after 30 --display :0`.
    static func arguments(_ request: ServeRequest) -> [String] {
        var arguments = [command(request.backend), GlobalOptions.pasteboard.flag, request.pasteboard.rawValue]
        if request.pasteOnce { arguments.append(CopyArguments.pasteOnce.flag) }
        if let clearAfter = request.clearAfter { arguments += [CopyArguments.clearAfter.flag, String(clearAfter)] }
        if let display = request.display { arguments += [DaemonArguments.display.flag, display] }
        return arguments
    }

    /// The request `arguments` spelled, for `backend`.
    static func request(_ arguments: ParsedArguments, backend: String) throws -> ServeRequest {
        guard let name = arguments.value(GlobalOptions.pasteboard), let pasteboard = PasteboardName(name) else {
            throw UsageError(message: "--pasteboard names no pasteboard", command: command(backend))
        }
        return ServeRequest(
            backend: backend, display: arguments.value(DaemonArguments.display), pasteboard: pasteboard,
            pasteOnce: arguments.has(CopyArguments.pasteOnce),
            clearAfter: try arguments.value(CopyArguments.clearAfter).map { try parseSeconds($0, option: "clear-after") })
    }
}

/// `__serve-x11` and `__serve-wayland`: read the item handed over on standard input, take the selection
/// the request names, report on fd 3, serve until another owner takes it.
func serveCommand(backend: Context.BackendKind) -> Command {
    Command(
        help: CommandHelp(name: ServeArguments.command(backend.rawValue), summary: "internal: the spawned \(backend.rawValue) selection owner",
                          usage: "", details: "", examples: []),
        options: ServeArguments.specs, hidden: true,
        run: { context, arguments in
            func fail(_ error: any Error, _ code: Int32) -> Int32 {
                DetachedProcess.report(error)
                return code
            }
            POSIX.leaveCurrentDirectory()
            do {
                let request = try ServeArguments.request(arguments, backend: backend.rawValue)
                let item = try DetachedProcess.handedOverItem(producer: Conversion.produceRepresentation)
                var environment = context.environment
                if let display = request.display { environment["DISPLAY"] = display }
                let chosen = try context.with(environment: environment).chooseBackend(backend).backend
                guard let serving = chosen.serving else {
                    return fail(PasteboardError(.unavailable, "the \(backend.rawValue) backend has no selection to serve"), ExitCode.unavailable)
                }
                try serving.serve(item, on: request.pasteboard, options: request.options) { DetachedProcess.report(nil) }
                return ExitCode.ok
            } catch let error as PasteboardError {
                return fail(error, ExitCode.forError(error))
            } catch let error as UsageError {
                return fail(PasteboardError(.invalidData, error.message), ExitCode.usage)
            } catch {
                return fail(error, ExitCode.unavailable)
            }
        })
}

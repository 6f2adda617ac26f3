#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DetachedProcess
import Pasteboard
import Representations
import SystemIO
import PasteboardStore
import PasteboardX11

// MARK: __serve-x11 (the detached owner)

/// `pbctl __serve-x11 [--selection clipboard|primary]... [--display D] [--paste-once] [--clear-after S]`:
/// reads an ``ItemArchive`` on stdin, takes the selections, reports on fd 3, serves until replaced.
let serveX11Command = Command(
    help: CommandHelp(name: "__serve-x11", summary: "internal: the background selection owner", usage: "", details: "",
                      examples: []),
    options: [], hidden: true,
    raw: { context, arguments in runX11Serve(arguments: arguments, context: context) },
    run: { _, _ in ExitCode.usage })

func runX11Serve(arguments: [String], context: Context) -> Int32 {
    var selections: [X11Selection] = []
    var display: String? = context.environment["DISPLAY"]
    var options = X11SelectionOwner.Options()
    options.registry = context.registry
    var index = 0
    func fail(_ error: any Error, _ code: Int32) -> Int32 {
        DetachedProcess.report(error)
        return code
    }
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        let value = index < arguments.count ? arguments[index] : nil
        switch argument {
        case "--selection":
            guard let value, let selection = X11Selection(rawValue: value) else {
                return fail(PasteboardError(.invalidData, "bad --selection"), ExitCode.usage)
            }
            selections.append(selection)
            index += 1
        case "--display":
            display = value
            index += 1
        case "--paste-once":
            options.pasteOnce = true
        case "--clear-after":
            guard let value, let seconds = Double(value) else {
                return fail(PasteboardError(.invalidData, "bad --clear-after"), ExitCode.usage)
            }
            options.clearAfter = seconds
            index += 1
        default:
            return fail(PasteboardError(.invalidData, "unknown argument \(argument)"), ExitCode.usage)
        }
    }
    if selections.isEmpty { selections = [.clipboard] }
    options.log = ownerLog(context)
    _ = chdir("/")
    do {
        // `copy` hands the archive over as an in-memory file: map it rather than copy megabytes.
        let archive = try MemoryFile.map(STDIN_FILENO) ?? POSIX.readAll(STDIN_FILENO, path: "standard input")
        let items = try ItemArchive.decode(archive, producer: Conversion.produceRepresentation)
        guard var item = items.first else { throw PasteboardError(.invalidData, "no item to serve") }
        // Content meant to vanish is not for clipboard managers to record (nor to consume the one paste).
        if options.pasteOnce || options.clearAfter != nil { item.metadata.flags.insert(.transient) }
        let connection = try XConnection(display: display)
        let owner = X11SelectionOwner(connection: connection, options: options)
        try owner.claim(item, selections: selections)
        DetachedProcess.report(nil)
        try owner.run()
        return ExitCode.ok
    } catch let error as PasteboardError {
        return fail(error, ExitCode.forError(error))
    } catch {
        return fail(error, ExitCode.unavailable)
    }
}


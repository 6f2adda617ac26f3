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
import PasteboardWayland

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
    POSIX.leaveCurrentDirectory()
    do {
        var item = try DetachedProcess.handedOverItem(producer: Conversion.produceRepresentation)
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


// MARK: __serve-wayland (the spawned Wayland owner)

/// `pbctl __serve-wayland [--primary] [--paste-once] [--clear-after S]`: reads an ``ItemArchive`` on
/// stdin, takes the Wayland selection, reports on fd 3, serves until replaced. What `copy` spawns when
/// it cannot fork (a process with several threads; `PBCTL_SPAWN_OWNER=1` forces it).
let serveWaylandCommand = Command(
    help: CommandHelp(name: "__serve-wayland", summary: "internal: the spawned Wayland selection owner", usage: "", details: "",
                      examples: []),
    options: [], hidden: true,
    raw: { context, arguments in runWaylandServe(arguments: arguments, context: context) },
    run: { _, _ in ExitCode.usage })

func runWaylandServe(arguments: [String], context: Context) -> Int32 {
    func fail(_ error: any Error, _ code: Int32) -> Int32 {
        DetachedProcess.report(error)
        return code
    }
    var copy = CopyOptions()
    var primary = false
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        switch argument {
        case "--primary":
            primary = true
        case "--paste-once":
            copy.pasteOnce = true
        case "--clear-after":
            guard index < arguments.count, let seconds = Double(arguments[index]), seconds > 0 else {
                return fail(PasteboardError(.invalidData, "bad --clear-after"), ExitCode.usage)
            }
            copy.clearAfter = seconds
            index += 1
        default:
            return fail(PasteboardError(.invalidData, "unknown argument \(argument)"), ExitCode.usage)
        }
    }
    copy.ownerLog = ownerLog(context)
    POSIX.leaveCurrentDirectory()
    do {
        let item = try DetachedProcess.handedOverItem(producer: Conversion.produceRepresentation)
        let backend = try openWaylandBackend(context)
        backend.copyOptions = copy
        try backend.serve(item, primary: primary) { DetachedProcess.report(nil) }
        return ExitCode.ok
    } catch let error as PasteboardError {
        return fail(error, ExitCode.forError(error))
    } catch {
        return fail(error, ExitCode.unavailable)
    }
}

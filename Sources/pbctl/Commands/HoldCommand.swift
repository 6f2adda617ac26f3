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
import Backends
import DetachedProcess
import Pasteboard
import Representations
import SystemIO

/// `pbctl __hold`'s arguments: what the store's holder of sensitive content serves, written by
/// ``launchHolder`` and read back with the same specs.
struct HoldArguments {
    static let socket = OptionSpec.value("socket", nil, "PATH", .file, "the socket to serve on")
    static let store = OptionSpec.value("store", nil, "DIR", .directory, "the store the pasteboard lives in")
    static let pasteboard = OptionSpec.value("pasteboard", nil, "NAME", .pasteboard, "the pasteboard the items are on")
    static let change = OptionSpec.value("change", nil, "N", .text, "the change count the items were written as")
    static let specs = [socket, store, pasteboard, change, CopyArguments.clearAfter, CopyArguments.pasteOnce]

    var socketPath: String
    var storeRoot: String
    var pasteboardName: PasteboardName
    var changeCount: Int
    var terms: HoldTerms

    init(_ arguments: ParsedArguments) throws {
        guard let socketPath = arguments.value(Self.socket), let storeRoot = arguments.value(Self.store),
            let pasteboard = arguments.value(Self.pasteboard).flatMap(PasteboardName.init),
            let change = arguments.value(Self.change).flatMap(Int.init)
        else { throw UsageError(message: "__hold needs --socket, --store, --pasteboard and --change", command: "__hold") }
        self.socketPath = socketPath
        self.storeRoot = storeRoot
        pasteboardName = pasteboard
        changeCount = change
        terms = HoldTerms(
            lifetime: try arguments.value(CopyArguments.clearAfter).map { try parseSeconds($0, option: "clear-after") },
            pasteOnce: arguments.has(CopyArguments.pasteOnce))
    }

    static func arguments(socketPath: String, storeRoot: String, pasteboard: PasteboardName, changeCount: Int, terms: HoldTerms) -> [String] {
        var arguments = [
            "__hold", socket.flag, socketPath, store.flag, storeRoot, Self.pasteboard.flag, pasteboard.rawValue, change.flag, String(changeCount),
        ]
        if let lifetime = terms.lifetime { arguments += [CopyArguments.clearAfter.flag, String(lifetime)] }
        if terms.pasteOnce { arguments.append(CopyArguments.pasteOnce.flag) }
        return arguments
    }
}

/// Starts the holder for `items` and returns once it listens.
@Sendable func launchHolder(
    _ items: [Item], socketPath: String, pasteboard: PasteboardName, changeCount: Int, storeRoot: String,
    terms: HoldTerms
) throws {
    let archive = try ItemArchive.encode(items)
    try DetachedProcess.spawn(
        executable: "/proc/self/exe",
        arguments: HoldArguments.arguments(
            socketPath: socketPath, storeRoot: storeRoot, pasteboard: pasteboard, changeCount: changeCount, terms: terms),
        input: .bytes([archive]), timeout: 10)
}

let holdCommand = Command(
    help: CommandHelp(
        name: "__hold", summary: "internal: holds sensitive content in memory", usage: "", details: "", examples: []),
    options: HoldArguments.specs,
    hidden: true,
    run: { _, arguments in
        do {
            let options = try HoldArguments(arguments)
            POSIX.leaveCurrentDirectory()
            let items = try ItemArchive.decode(
                try POSIX.readAll(STDIN_FILENO, path: "standard input"), producer: Conversion.produceRepresentation)
            try BackendChoice.holdSensitive(
                items, socketPath: options.socketPath, storeRoot: options.storeRoot, pasteboard: options.pasteboardName,
                changeCount: options.changeCount, terms: options.terms, ready: { DetachedProcess.report(nil) })
            return ExitCode.ok
        } catch {
            DetachedProcess.report(error)
            return ExitCode.ioError
        }
    })

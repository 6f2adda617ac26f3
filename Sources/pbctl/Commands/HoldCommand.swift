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
import DetachedProcess
import Pasteboard
import Representations
import SystemIO
import PasteboardStore
import PasteboardX11


/// Starts the holder for `items` and returns once it listens.
func launchHolder(
    _ items: [Item], socketPath: String, pasteboard: PasteboardName, changeCount: Int, storeRoot: String,
    lifetime: Double
) throws {
    let archive = try ItemArchive.encode(items)
    try DetachedProcess.spawn(
        executable: "/proc/self/exe",
        arguments: [
            "__hold", "--socket", socketPath, "--store", storeRoot, "--pasteboard", pasteboard.rawValue,
            "--change", String(changeCount), "--clear-after", String(lifetime),
        ],
        input: .bytes([archive]), timeout: 10)
}

let holdCommand = Command(
    help: CommandHelp(
        name: "__hold", summary: "internal: holds sensitive content in memory", usage: "", details: "", examples: []),
    options: [
        .value("socket", nil, "PATH", .file, ""), .value("store", nil, "DIR", .directory, ""), .value("pasteboard", nil, "NAME", .pasteboard, ""),
        .value("change", nil, "N", .text, ""), .value("clear-after", nil, "SECONDS", .text, ""),
    ],
    hidden: true,
    raw: { context, arguments in
        do {
            let parsed = try parseArguments(arguments, specs: holdCommand.options, command: "__hold")
            guard let socketPath = parsed.value("socket"), let root = parsed.value("store"),
                let pasteboard = parsed.value("pasteboard").flatMap(PasteboardName.init),
                let change = parsed.value("change").flatMap(Int.init)
            else { throw PasteboardError(.invalidData, "__hold: missing arguments") }
            let lifetime = parsed.value("clear-after").flatMap(Double.init) ?? CopyOptions().sensitiveLifetime
            POSIX.leaveCurrentDirectory()
            let items = try ItemArchive.decode(
                try POSIX.readAll(STDIN_FILENO, path: "standard input"), producer: Conversion.produceRepresentation)
            let store = try FileStore(root: root)
            try HeldItems.serve(
                items, socketPath: socketPath, expiry: lifetime > 0 ? lifetime : nil,
                ready: { DetachedProcess.report(nil) },
                stillCurrent: { (try? store.changeCount(of: pasteboard)) == change },
                expired: {
                    if (try? store.changeCount(of: pasteboard)) == change { try? store.clear(pasteboard) }
                })
            return ExitCode.ok
        } catch {
            DetachedProcess.report(error)
            return ExitCode.ioError
        }
    },
    run: { _, _ in ExitCode.usage })

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import PasteboardRemote
import History
import CopyPaste
import Representations

/// `pbctl ssh` composed: the system ssh with a forwarded socket, and this machine's clipboard served on
/// it for the session. The remote pbctl is a peer of this clipboard for the session's length (not of the
/// daemon: no daemon is needed): what it copies is completed here as a local copy of it would be,
/// written to the clipboard `open` gives (whose owner is started as any copy's is, or handed to the
/// display's daemon), attributed to the remote host (``ItemOrigin/Kind/remote(host:)``, its label the
/// source the history shows), and recorded in the history where nobody else records it.
public enum RemoteSessions {
    public typealias Policy = RemoteServer.Policy
    public typealias Arguments = SSHSession.Arguments

    /// Splits what follows `pbctl ssh` and its own options into ssh's options, the destination and the
    /// remote command.
    /// - Throws: ``PasteboardError`` `.invalidData` when no destination is given or an option lacks its value.
    public static func split(_ arguments: [String]) throws -> Arguments { try SSHSession.split(arguments) }

    public struct Settings: Sendable {
        public var policy = Policy()
        /// What this machine's clipboard is, for the remote's `pbctl info`.
        public var place = "this machine"
        /// The largest representation the remote may copy here (`PBCTL_MAX_SIZE`).
        public var maximumSize = 1 << 30
        public var temporaryFolder = "/tmp"
        public var registry: TypeRegistry = .standard
        public var log: (@Sendable (String) -> Void)?
        /// Hears what goes wrong whatever the verbosity (the history failing, once per cause).
        public var warn: (@Sendable (String) -> Void)?
        public init() {}
    }

    /// Runs the session until ssh ends: ssh's exit status.
    /// - Parameters:
    ///   - open: this machine's clipboard, opened for each connection the remote makes.
    ///   - history: where a copy nobody watches is recorded (nil: nowhere).
    public static func run(
        _ arguments: Arguments, settings: Settings, environment: [String: String], interactive: Bool,
        open: @escaping @Sendable () throws -> any PasteboardBackend, history: @escaping @Sendable () throws -> History?
    ) throws -> Int32 {
        let remote = origin(of: arguments)
        let origin = ForeignContent.Origin(host: arguments.host, label: remote.label)
        let registry = settings.registry
        let problems = ProblemReport(settings.warn ?? settings.log ?? { _ in })
        return try SSHSession.run(arguments, environment: environment, interactive: interactive) { socketPath in
            let server = try RemoteServer(
                socketPath: socketPath, policy: settings.policy, origin: origin, place: settings.place,
                temporaryFolder: settings.temporaryFolder, log: settings.log, open: open,
                makeItem: { received, metadata in
                    // What travelled (the originals), completed here as a local copy of it would be.
                    Producers.completed(Item(representations: received, metadata: metadata), convert: Conversion.produceRepresentation)
                },
                afterWrite: { items, pasteboard, backend, options in
                    // A display's clipboard is recorded by its daemon; the store's by whoever copies to it.
                    let commit = CopyCommit(registry: registry, history: history)
                    commit.application = remote.label
                    for problem in commit.record(items, copiedTo: backend, pasteboard: pasteboard, options: options) {
                        problems.report(problem.message)
                    }
                })
            server.maximumSize = settings.maximumSize
            return server
        }
    }

    /// Where what the remote copies comes from: its host, as the history names it (`pbctl ssh: HOST`).
    public static func origin(of arguments: Arguments) -> ItemOrigin {
        ItemOrigin(.remote(host: arguments.host), label: "pbctl ssh: \(arguments.host)")
    }
}

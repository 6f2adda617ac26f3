#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import History
import Representations
import SystemIO

/// `pbctl daemon`, composed: one run path for every backend that keeps a clipboard (X11, Wayland, and
/// the store as the trivial keeper), with the history recorder and the peers (KDE Connect, and later
/// transports) around it.
///
/// - What the keeper keeps goes to every peer it did not come from (``ClipboardPeer/accepts(origin:)``:
///   a device is not sent back what it sent) and, unless it recorded itself, to the history
///   (``HistoryRecorder``, on a queue of its own so recording never delays a paste the keeper serves).
/// - What a peer receives comes back in through the keeper's inbox (``KeepOptions/inbox``): the keeper
///   serves it from its own connection, in this process, completed as a copy of it would be, and hands
///   it over to be recorded with its origin. No display connection is opened for it and no process
///   started, and which device it came from travels in the value.
/// - The keeper serves the history's newest entry when the clipboard is empty at start.
public enum ClipboardDaemon {
    public struct Configuration: Sendable {
        /// How the keeper keeps (primary, replace, sizes, registry, log); its hooks are the daemon's.
        public var keep = KeepOptions()
        /// Where kept content is recorded; nil: nowhere (`--no-history`).
        public var history: History?
        /// Hears what goes wrong along the way whatever the verbosity (the history failing, once per cause).
        public var warn: (@Sendable (String) -> Void)?
        /// The configuration file and how to read the history's bounds and rules from it again (when it
        /// changes, or on SIGHUP): nil keeps those the daemon started with.
        public var configurationFile: String?
        public var reload: HistoryUpkeep.Reload?
        /// The transports the clipboard is synced with.
        public var peers: [any ClipboardPeer] = []
        public init() {}

        /// Adds KDE Connect as a peer, as `choice` asks (the name filtered, the host name by default, the
        /// state folder from its environment), logging to ``keep``'s log with its registry: set those first.
        public mutating func addKDEConnect(_ choice: KDEConnectPeer.Choice) {
            var settings = KDEConnectPeer.Settings(
                name: choice.name.map(KDEConnectPeer.filteredName) ?? KDEConnectPeer.hostName(),
                folder: KDEConnectPeer.defaultFolder(environment: choice.environment))
            settings.discovery = choice.discovery
            if let address = choice.bindAddress { settings.bindAddress = address }
            settings.registry = keep.registry
            settings.log = keep.log
            peers.append(KDEConnectPeer(settings: settings))
        }
    }

    /// Tells each peer of `kept`, but not the peer it came from.
    static func tell(_ peers: [any ClipboardPeer], _ kept: KeptContent) {
        for peer in peers where kept.origin.map({ peer.accepts(origin: $0) }) ?? true { peer.localChange(kept) }
    }

    /// Runs until a signal, another keeper, or the display going away (``ClipboardKeeperRunner``);
    /// `ready` runs once the clipboard is kept and every peer started.
    public static func run(
        _ keeper: any ClipboardKeeping, reopen: () -> (any ClipboardKeeping)?, configuration: Configuration, ready: () -> Void,
        say: (String) -> Void
    ) -> ClipboardKeeperRunner.Outcome {
        if keeper.keepsOnlyForPeers, configuration.peers.isEmpty {
            return .failed(
                PasteboardError(.unavailable, "no display to keep the clipboard of (\(keeper.keptPlace)): pbctl daemon needs Wayland or X11, or --kdeconnect"))
        }
        let inbox: KeeperInbox
        do { inbox = try KeeperInbox() } catch { return .failed(error as? PasteboardError ?? PasteboardError(.io, "\(error)")) }
        var keep = configuration.keep
        let complete: @Sendable (Item) -> Item = { Producers.completed($0, convert: Conversion.produceRepresentation) }
        keep.producer = keep.producer ?? Conversion.produceRepresentation
        keep.complete = complete
        keep.inbox = inbox
        // Expired entries removed when they expire, and the configuration read again when it changes
        // or on SIGHUP; without a history SIGHUP does nothing.
        let upkeep: HistoryUpkeep?
        if let history = configuration.history, let file = configuration.configurationFile, let reload = configuration.reload {
            do {
                upkeep = try HistoryUpkeep(history: history, configurationFile: file, reload: reload, log: keep.log, warn: configuration.warn)
            } catch {
                upkeep = nil
                configuration.warn?("the configuration is not watched: \((error as? PasteboardError)?.message ?? "\(error)")")
            }
        } else {
            upkeep = nil
        }
        let recorder = configuration.history.map {
            HistoryRecorder(history: $0, registry: keep.registry, log: keep.log, warn: configuration.warn, recorded: { upkeep?.historyChanged() })
        }
        if !keeper.keepsOnlyForPeers, let newest = recorder?.newestItem() { keep.restore = complete(newest) }
        let peers = configuration.peers
        keep.record = { kept in
            tell(peers, kept)
            if !kept.recorded { recorder?.record(kept) } else { upkeep?.historyChanged() }
        }
        for peer in peers {
            do {
                try peer.start { offered in inbox.offer(offered) }
            } catch {
                for started in peers { started.stop() }
                return .failed(error as? PasteboardError ?? PasteboardError(.unavailable, "\(error)"))
            }
        }
        defer { for peer in peers { peer.stop() } }
        if upkeep == nil { ignoreHangUp() }
        upkeep?.start()
        defer { upkeep?.stop() }
        return ClipboardKeeperRunner.run(keeper, reopen: reopen, options: keep, ready: ready, say: say)
    }
}

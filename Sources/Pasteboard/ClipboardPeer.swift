#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The keeper's way in and its peers: where an item handed to the daemon came from, the inbox the keeper
// polls, and the transports that sync the clipboard with other devices (`ClipboardManager` composes them).

/// Where an item came from when it did not come from this display's own applications: what the history
/// names as its source and what the peers are told (a device is not sent back what it sent).
public struct ItemOrigin: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A KDE Connect device (its id).
        case device(id: String)
        /// The machine of a `pbctl ssh` session (the host named on its command line).
        case remote(host: String)
    }
    public var kind: Kind
    /// The source the history shows (`KDE Connect: phone`, `pbctl ssh: build-host`).
    public var label: String

    public init(_ kind: Kind, label: String) {
        self.kind = kind
        self.label = label
    }
}

/// One item handed in to be served.
public struct OfferedItem: Sendable {
    public var item: Item
    public var origin: ItemOrigin
    public init(item: Item, origin: ItemOrigin) {
        self.item = item
        self.origin = origin
    }
}

/// A keeper's way in (``KeepOptions/inbox``): items handed over from other threads, and a descriptor
/// that is readable while any wait, which the keeper polls beside its connection. The clipboard holds
/// one content, so the inbox, not each keeper, decides that only the newest counts.
public protocol ClipboardInbox: AnyObject, Sendable {
    var descriptor: Int32 { get }
    /// The newest item handed in since the last call (those before it are dropped), nil when none
    /// waits; the descriptor is drained.
    func takeNewest() -> OfferedItem?
}

/// A transport that syncs the clipboard with other devices or machines (KDE Connect): a peer of the
/// keeper. It hands what it receives to `deliver`, which the keeper serves in its own process (no
/// display connection of the peer's, no process started for it), and hears each new content kept
/// that did not come from it (``accepts(origin:)``): a peer is not told its own arrival.
public protocol ClipboardPeer: AnyObject, Sendable {
    /// Starts the peer; `deliver` takes what it receives, from any thread.
    func start(deliver: @escaping @Sendable (OfferedItem) -> Void) throws
    /// Whether content from `origin` is sent to this peer: false for what the peer itself delivered.
    func accepts(origin: ItemOrigin) -> Bool
    /// A new content kept, from this display or from another peer (never from this one).
    func localChange(_ kept: KeptContent)
    func stop()
    /// What the peer is once started, for the daemon's log ("KDE Connect: device laptop (ID), TCP port 1716").
    var summary: String { get }
}

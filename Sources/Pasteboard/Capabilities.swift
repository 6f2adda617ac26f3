#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The capabilities of a display's clipboard beyond reading and writing it: serving content from a
// process of its own (the owner a copy leaves behind) and keeping the clipboard (`pbctl daemon`). A
// command asks the backend for them (``PasteboardBackend/serving``, ``PasteboardBackend/keeping``) and
// never names a backend: the X11 and Wayland backends have both, the store and the terminal neither.

/// Serving content until another owner takes the selection: what `copy --foreground` and a spawned
/// owner (`pbctl __serve`) run.
public protocol SelectionServing: PasteboardBackend {
    /// Serves `item` on `pasteboard` from this process until another client takes the selection (or
    /// the one paste, or the lifetime `options` give, ends); `ready` runs once the selection is ours.
    func serve(_ item: Item, on pasteboard: PasteboardName, options: CopyOptions, ready: () -> Void) throws
}

extension SelectionServing {
    public var serving: (any SelectionServing)? { self }
}

/// The current owner's offer under the display's own names: X11 targets (TARGETS, TIMESTAMP and the
/// others an owner lists beside its content) or Wayland MIME types (`TEXT`, `UTF8_STRING` among them), in
/// the owner's order, each read by its name as the owner sends it, without pbctl's decoding. What the
/// xclip, xsel and wl-paste personalities list (`-t TARGETS -o`, `--list-types`) and ask for, so that they
/// answer byte for byte as the tools do against any owner.
public protocol NativeOffer: PasteboardBackend {
    /// Whose names these are.
    var nativeVocabulary: NativeVocabulary { get }
    /// The names the owner of `pasteboard` offers, in its order; empty when nobody owns it.
    func offeredNames(in pasteboard: PasteboardName) throws -> [String]
    /// Asks the owner for `name` (listed or not: an X11 owner may answer a target it does not list) and
    /// streams its bytes into `sink`; returns the type the reply came as (X11: the property's type, such as
    /// `ATOM` or `INTEGER`; Wayland: the name itself).
    /// - Throws: ``PasteboardError`` `.empty` when nobody owns the selection, `.typeNotOffered` when the owner
    ///   refuses the name (Wayland: does not offer it).
    @discardableResult
    func read(name: String, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws -> String?
}

/// The vocabulary of a display's names.
public enum NativeVocabulary: Sendable, Equatable {
    case x11Targets, mimeTypes
}

extension NativeOffer {
    public var nativeOffer: (any NativeOffer)? { self }
}

/// How a backend whose content lives in a process (X11, Wayland) starts that process: a fork of this
/// one where it has a single thread, else a fresh pbctl running the hidden serve command with the item
/// handed over. A setting of the backend, made once where the backend is made (the composition root),
/// so every writer gets a working owner, whatever its threads: `copy`, the `pbctl ssh` server, the
/// daemon writing what a KDE Connect device sent.
public struct OwnerLaunch: Sendable {
    /// Always start a new process instead of forking this one (tests choose it to exercise that path;
    /// `PBCTL_SPAWN_OWNER`).
    public var alwaysSpawn = false
    /// Where a detached owner logs (its standard error is /dev/null).
    public var log: (@Sendable (String) -> Void)?
    /// The command line of a spawned owner serving a request (the CLI's own spelling of its hidden
    /// command); nil: the owner can only fork, and a process with several threads cannot copy.
    public var arguments: (@Sendable (ServeRequest) -> [String])?
    /// The pbctl executable a spawned owner runs.
    public var executable = "/proc/self/exe"

    public init(alwaysSpawn: Bool = false, log: (@Sendable (String) -> Void)? = nil, arguments: (@Sendable (ServeRequest) -> [String])? = nil) {
        self.alwaysSpawn = alwaysSpawn
        self.log = log
        self.arguments = arguments
    }
}

/// What a spawned owner (`pbctl __serve-x11`, `__serve-wayland`) serves: the backend, the display,
/// the pasteboard, one paste, a lifetime. A backend hands it to ``OwnerLaunch/arguments``, which
/// the command line builds from the same option specs the hidden command parses it with, so no flag is
/// spelled twice.
public struct ServeRequest: Sendable, Equatable {
    /// The backend, by its name (``BackendInfo/name``: `x11`, `wayland`).
    public var backend: String
    /// The display the parent wrote to, when it named one (X11).
    public var display: String?
    public var pasteboard: PasteboardName
    public var pasteOnce: Bool
    public var clearAfter: Double?

    public init(backend: String, display: String?, pasteboard: PasteboardName, pasteOnce: Bool, clearAfter: Double?) {
        self.backend = backend
        self.display = display
        self.pasteboard = pasteboard
        self.pasteOnce = pasteOnce
        self.clearAfter = clearAfter
    }

    /// The options the owner serves with.
    public var options: CopyOptions {
        var options = CopyOptions()
        options.pasteOnce = pasteOnce
        options.clearAfter = clearAfter
        return options
    }
}

/// Keeping the clipboard: serving it again when its owner goes away, and handing each new content over
/// to be recorded. What `pbctl daemon` runs on any backend that has it.
public protocol ClipboardKeeping: PasteboardBackend {
    /// Who keeps this clipboard now (`daemon --status`), nil when nobody does.
    func runningKeeper() throws -> String?
    /// Becomes this clipboard's keeper, calls `ready` once it keeps it, and keeps it until another
    /// keeper takes over, the connection ends, or ``stopDescriptor`` is shut down.
    /// - Throws: ``PasteboardError`` `.unavailable` when another keeper runs and `options.replace` is
    ///   false, or the keeper cannot start.
    func keep(_ options: KeepOptions, ready: () -> Void) throws -> KeepEnd
    /// The descriptor whose shutdown ends ``keep(_:ready:)`` (all a signal handler may do).
    var stopDescriptor: Int32 { get }
    /// What is kept, for messages: the display or the compositor.
    var keptPlace: String { get }
    /// Keeping this clipboard matters only to sync it with peers (the store: no owner goes away there,
    /// and copies record themselves), so a daemon with no peer has nothing to do.
    var keepsOnlyForPeers: Bool { get }
}

extension ClipboardKeeping {
    public var keeping: (any ClipboardKeeping)? { self }
    public var keepsOnlyForPeers: Bool { false }
}

/// How a keeper keeps the clipboard.
public struct KeepOptions: Sendable {
    /// Also keep the primary selection and serve it again when its owner goes away.
    public var primary = false
    /// Record the primary selection (never served again without ``primary``).
    public var recordPrimary = false
    /// Take over from a keeper that runs.
    public var replace = false
    /// The largest representation fetched for recording; a larger one is drained and listed as skipped.
    public var maximumRecordedSize = 64 << 20
    /// Hears each new content to record; nil: nothing is recorded.
    public var record: (@Sendable (KeptContent) -> Void)?
    /// Served when the clipboard is empty at the start (the newest history entry).
    public var restore: Item?
    /// Produces derived representations of kept content.
    public var producer: RepresentationProducer?
    /// What a kept content is served as: the owner's representations and what a `pbctl copy` of it
    /// would offer besides (an image's other formats, RTF from HTML), produced when asked for.
    public var complete: (@Sendable (Item) -> Item)?
    public var registry: TypeRegistry = .standard
    /// Where the keeper logs.
    public var log: (@Sendable (String) -> Void)?
    /// The way in: items handed to the keeper to serve as the clipboard from its own connection (what a
    /// device sent, what a remote pbctl copied), taken in its loop; nil: nothing comes in.
    public var inbox: (any ClipboardInbox)?

    public init() {}
}

/// Where an item came from when it did not come from this display's own applications: what the history
/// names as its source and what the peers are told (a device is not sent back what it sent).
public struct ItemOrigin: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A KDE Connect device (its id).
        case device(id: String)
        /// The machine of a `pbctl ssh` session.
        case remote
        /// This machine (a local program).
        case local
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
/// that is readable while any wait, which the keeper polls beside its connection.
public protocol ClipboardInbox: AnyObject, Sendable {
    var descriptor: Int32 { get }
    /// The items handed in since the last call, oldest first; the descriptor is drained.
    func take() -> [OfferedItem]
}

/// A transport that syncs the clipboard with other devices or machines (KDE Connect): a peer of the
/// keeper. It hears every new local content and hands what it receives to `deliver`, which the keeper
/// serves in its own process (no display connection of the peer's, no process started for it).
public protocol ClipboardPeer: AnyObject, Sendable {
    /// Starts the peer; `deliver` takes what it receives, from any thread.
    func start(deliver: @escaping @Sendable (OfferedItem) -> Void) throws
    /// A new local content (whatever its origin: a peer ignores its own echo).
    func localChange(_ kept: KeptContent)
    func stop()
}

/// One content a keeper hands over to be recorded.
public struct KeptContent: Sendable {
    public var item: Item
    /// The owning application, where the clipboard names it.
    public var application: String?
    /// `clipboard` or `primary`.
    public var selection: String
    /// What was left out for its size.
    public var skipped: [TypeSummary]
    /// Where it came from when it was handed in (``KeepOptions/inbox``); nil: from this display.
    public var origin: ItemOrigin?
    /// Already in the history (the store's copies record themselves): only the peers are told.
    public var recorded: Bool

    public init(item: Item, application: String?, selection: String, skipped: [TypeSummary], origin: ItemOrigin? = nil, recorded: Bool = false) {
        self.item = item
        self.application = application
        self.selection = selection
        self.skipped = skipped
        self.origin = origin
        self.recorded = recorded
    }
}

/// How keeping ended.
public enum KeepEnd: Sendable {
    /// Another keeper took over.
    case replaced
    /// The connection ended while the display may still answer (a compositor drops a client it cannot
    /// write to): keeping may go on through a new connection, serving `kept` again.
    case dropped(reason: String, kept: Item?)
    /// The display is gone.
    case lost(reason: String)
}

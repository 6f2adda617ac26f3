#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The capabilities of a display's clipboard beyond reading and writing it: serving content from a
// process of its own (the owner a copy leaves behind) and keeping the clipboard (`pbctl daemon`). A
// command asks the backend for them (``PasteboardBackend/serving``, ``PasteboardBackend/keeping``) and
// never names a backend: the X11 and Wayland backends have both, the store and the terminal neither.

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
    /// Whether the primary selection is recorded: kept (``primary``) or only recorded (``recordPrimary``).
    public var recordsPrimary: Bool { primary || recordPrimary }
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

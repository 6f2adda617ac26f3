#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where pasteboards live: in memory (tests), a file-backed store (no display), the Wayland clipboard,
/// X11 selections, the terminal's clipboard. Commands use only this protocol and the capabilities it
/// exposes.
///
/// Every call names its pasteboard. Items are numbered from 0 in the order they were written.
public protocol PasteboardBackend: AnyObject {
    /// Replaces the pasteboard's content with `items`, served as `options` say (backends ignore what
    /// does not apply to them), and returns the new change count. The options are a parameter, never
    /// state kept between calls.
    @discardableResult
    func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int

    /// The items currently held, without their bytes; empty when the pasteboard is clear.
    func items(in pasteboard: PasteboardName) throws -> [ItemSummary]

    /// The bytes of one representation of one item.
    /// - Throws: ``PasteboardError`` `.empty` when there is no such item, `.typeNotOffered` when the
    ///   item does not offer `type`.
    func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data

    /// Empties the pasteboard (the change count still rises).
    func clear(_ pasteboard: PasteboardName) throws

    /// A number that rises on every write or clear and never goes back.
    func changeCount(of pasteboard: PasteboardName) throws -> Int

    /// The backend's name and detail, for `pbctl info`.
    var info: BackendInfo { get }

    /// Streams one representation to `sink` as it arrives or is read, so a large paste is never held
    /// whole. The default reads the whole data and hands it over as one chunk.
    func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws

    // Capabilities, as properties (the way swift-nio's `Channel.syncOptions` is one): nil by default,
    // so a backend opts in, and a backend that wraps another (``MirroredPasteboard``) passes on what the
    // wrapped one has. Commands ask for a capability; they never cast.

    /// Takes input as it streams in (the store).
    var spooling: (any InputSpooling)? { get }
    /// Keeps representations as files another store can link (the store).
    var storedFiles: (any StoredFiles)? { get }
    /// Reports changes as they happen (X11, Wayland).
    var watching: (any PasteboardWatching)? { get }
    /// Serves content from this process (X11, Wayland).
    var serving: (any SelectionServing)? { get }
    /// Keeps the clipboard: `pbctl daemon` (X11, Wayland).
    var keeping: (any ClipboardKeeping)? { get }
    /// The owner's offer under the display's own names (X11 targets, Wayland MIME types), read by name
    /// (X11, Wayland).
    var nativeOffer: (any NativeOffer)? { get }
    /// Whether a clipboard manager can see this backend's changes, and so records them in the history
    /// (a display's clipboard); false where nobody can (the store, the terminal): a copy there records
    /// itself.
    var changesReachDaemons: Bool { get }
}

extension PasteboardBackend {
    /// ``write(_:to:options:)`` with the default options.
    @discardableResult
    public func write(_ items: [Item], to pasteboard: PasteboardName) throws -> Int {
        try write(items, to: pasteboard, options: CopyOptions())
    }

    public var spooling: (any InputSpooling)? { nil }
    public var storedFiles: (any StoredFiles)? { nil }
    public var watching: (any PasteboardWatching)? { nil }
    public var serving: (any SelectionServing)? { nil }
    public var keeping: (any ClipboardKeeping)? { nil }
    public var nativeOffer: (any NativeOffer)? { nil }
    public var changesReachDaemons: Bool { watching != nil }

    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws {
        try sink.write(try read(type, item: index, from: pasteboard))
    }
}

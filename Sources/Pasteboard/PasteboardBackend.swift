#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a backend reports about one offered representation without producing its bytes.
public struct TypeSummary: Sendable, Codable, Equatable {
    public var type: TypeIdentifier
    /// Size in bytes when known.
    public var size: Int?
    /// The type this one is derived from, nil for an original.
    public var derivedFrom: TypeIdentifier?
    /// Of a representation left out: its owner went away before sending all of it (nil: not so).
    public var cutShort: Bool?

    public init(type: TypeIdentifier, size: Int? = nil, derivedFrom: TypeIdentifier? = nil, cutShort: Bool? = nil) {
        self.type = type
        self.size = size
        self.derivedFrom = derivedFrom
        self.cutShort = cutShort
    }
}

/// What a backend reports about one item.
public struct ItemSummary: Sendable, Codable, Equatable {
    public var types: [TypeSummary]
    public var metadata: ItemMetadata

    public init(types: [TypeSummary], metadata: ItemMetadata) {
        self.types = types
        self.metadata = metadata
    }
}

/// What a backend says about itself for `pbctl info`: its name (`store`, `x11`, `osc52`, …) and a
/// detail such as the store's folder or the display.
public struct BackendInfo: Sendable, Equatable, Codable {
    public var name: String
    public var detail: String?
    /// Where copies also go, when a backend mirrors another (the terminal beside the store).
    public var mirror: String?

    public init(name: String, detail: String? = nil, mirror: String? = nil) {
        self.name = name
        self.detail = detail
        self.mirror = mirror
    }
}

/// How one copy is served, for backends whose content lives in a process (X11, Wayland) or a holder
/// (the store's sensitive items). Backends ignore what does not apply to them. How the process that
/// serves it starts is the backend's own setting (``OwnerLaunch``), the same for every copy.
public struct CopyOptions: Sendable {
    /// Serve from this process until another client takes the selection, instead of a detached owner.
    public var foreground = false
    /// Serve one paste, then give the content up.
    public var pasteOnce = false
    /// Give the content up and wipe it after this many seconds (`--clear-after`).
    public var clearAfter: Double?
    /// How long sensitive content lives when `clearAfter` is not given.
    public var sensitiveLifetime: Double = 45
    /// Heard in the serving process after each paste of content (protocol targets such as TARGETS do not
    /// count) with the number served so far; false gives the content up, as ``pasteOnce`` does after the
    /// first (`xclip -loops N`, and its `-quiet` progress lines). X11 owners started by this process (in
    /// the foreground or forked) call it; a spawned owner, and the other backends, do not.
    public var afterPaste: (@Sendable (Int) -> Bool)?
    public init() {}

    /// The lifetime of content with these flags: `clearAfter`, else ``sensitiveLifetime`` for
    /// sensitive content, else none.
    public func lifetime(sensitive: Bool) -> Double? { clearAfter ?? (sensitive ? sensitiveLifetime : nil) }
}

/// Where a streaming read delivers bytes.
public protocol RepresentationSink: AnyObject {
    /// Takes the next chunk.
    func write(_ chunk: Data) throws
    /// Moves `count` bytes of the open regular file `descriptor`, from `offset`, without passing them
    /// through the process where the sink can (`copy_file_range`, `sendfile`). False when it cannot;
    /// the backend then writes chunks.
    func transfer(fromFile descriptor: Int32, offset: Int, count: Int) throws -> Bool
    /// Moves at most `limit` bytes that wait in the pipe `descriptor` without passing them through the
    /// process (`splice`): the number moved (0 at end of file), or nil when the sink cannot; the backend
    /// then reads chunks.
    func transfer(fromPipe descriptor: Int32, limit: Int) throws -> Int?
}

extension RepresentationSink {
    public func transfer(fromFile descriptor: Int32, offset: Int, count: Int) throws -> Bool { false }
    public func transfer(fromPipe descriptor: Int32, limit: Int) throws -> Int? { nil }
}

/// A sink that collects every chunk (what a whole read is).
public final class DataSink: RepresentationSink {
    public private(set) var data = Data()
    public init() {}
    public func write(_ chunk: Data) throws { data.append(chunk) }
}

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

/// One change of a watched pasteboard.
public struct PasteboardChange: Sendable, Equatable, Codable {
    /// Rises with every change the watcher saw.
    public var changeCount: Int
    /// Who holds the content now, in the backend's terms (`0x…` for an X window); nil when cleared.
    public var owner: String?
    /// The types on offer, empty when cleared.
    public var types: [TypeIdentifier]
    /// The owner marks the content secret (`x-kde-passwordManagerHint`, nspasteboard.org Concealed).
    public var sensitive: Bool

    public init(changeCount: Int, owner: String?, types: [TypeIdentifier], sensitive: Bool) {
        self.changeCount = changeCount
        self.owner = owner
        self.types = types
        self.sensitive = sensitive
    }
}

/// A backend that reports changes as they happen (X11 through XFixes; Wayland's selection events):
/// what `pbctl watch` needs, a capability rather than a cast to one backend.
public protocol PasteboardWatching: PasteboardBackend {
    /// Calls `body` for each change of `pasteboard` until it returns false or the connection ends.
    func watch(_ pasteboard: PasteboardName, _ body: (PasteboardChange) throws -> Bool) throws
}

extension PasteboardWatching {
    public var watching: (any PasteboardWatching)? { self }
}

/// Input a backend stored as it arrived instead of holding it: its bytes mapped from the stored
/// file, the first bytes, and what streaming validation found.
public struct SpooledInput {
    /// The whole input, mapped (pages are read from the file as they are touched).
    public var data: Data
    /// The first bytes (up to 4 KiB), for sniffing the type.
    public var head: Data
    /// Whether UTF-8 validation ran while spooling (`inspect`), and where the first invalid byte is.
    public var inspected: Bool
    public var firstInvalidUTF8Offset: Int?

    public init(data: Data, head: Data, inspected: Bool, firstInvalidUTF8Offset: Int?) {
        self.data = data
        self.head = head
        self.inspected = inspected
        self.firstInvalidUTF8Offset = firstInvalidUTF8Offset
    }
}

/// A backend that stores input as it streams in (the file store): a copy then holds no more than a
/// buffer in memory, and ``PasteboardBackend/write(_:to:options:)`` of an item whose bytes are the
/// spooled data keeps the stored file instead of writing it again.
public protocol InputSpooling: PasteboardBackend {
    /// Streams everything `fd` holds (a pipe or a file; `name` is how errors call it) into storage
    /// beside `pasteboard`.
    /// - Parameters:
    ///   - limit: more bytes than this fail with `.invalidData` (exit 65) and leave nothing behind.
    ///   - inspect: validate UTF-8 on the way (else the bytes may move in the kernel, never seen).
    func spool(_ fd: Int32, name: String, for pasteboard: PasteboardName, limit: Int, inspect: Bool) throws -> SpooledInput
}

extension InputSpooling {
    public var spooling: (any InputSpooling)? { self }
}

/// A backend whose representations are files (the store): where one lives, so another store (the
/// history) can take it without copying the bytes through memory.
public protocol StoredFiles: PasteboardBackend {
    func storedFilePath(_ type: TypeIdentifier, item index: Int, in pasteboard: PasteboardName) throws -> String?
    /// The file this backend's own last write stored `data`'s bytes in (the same bytes in memory, not
    /// equal ones), whatever other processes have written since: its name is never given to other
    /// bytes, though another write may have removed it by now.
    func writtenFilePath(holding data: Data) -> String?
}

extension StoredFiles {
    public var storedFiles: (any StoredFiles)? { self }
}

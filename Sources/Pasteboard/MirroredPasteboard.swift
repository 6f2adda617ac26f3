#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One backend that keeps every representation (the store) and a second that carries the content
/// further (the terminal's clipboard over SSH): a write goes to both, the first one first, so what the
/// second cannot take (too large, no terminal answering) is still kept; reads come from `readsFrom`.
public final class MirroredPasteboard: PasteboardBackend {
    public let primary: any PasteboardBackend
    public let mirror: any PasteboardBackend
    public let readsFromMirror: Bool

    public init(primary: any PasteboardBackend, mirror: any PasteboardBackend, readsFromMirror: Bool) {
        self.primary = primary
        self.mirror = mirror
        self.readsFromMirror = readsFromMirror
    }

    var reader: any PasteboardBackend { readsFromMirror ? mirror : primary }

    /// The reading side's name (`osc52` when reads come from the terminal), the store's detail, and
    /// where copies also go.
    public var info: BackendInfo {
        let read = reader.info
        let mirrorInfo = mirror.info
        return BackendInfo(name: read.name, detail: primary.info.detail, mirror: mirrorInfo.detail ?? mirrorInfo.name)
    }

    @discardableResult
    public func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int {
        let count = try primary.write(items, to: pasteboard, options: options)
        do {
            try mirror.write(items, to: pasteboard, options: options)
        } catch let error as PasteboardError {
            throw PasteboardError(error.code, error.message + " (pbctl's store still holds the content: pbctl paste --backend store)")
        }
        return count
    }

    public func items(in pasteboard: PasteboardName) throws -> [ItemSummary] { try reader.items(in: pasteboard) }

    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data {
        try reader.read(type, item: index, from: pasteboard)
    }

    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws {
        try reader.read(type, item: index, from: pasteboard, into: sink)
    }

    public func clear(_ pasteboard: PasteboardName) throws {
        try primary.clear(pasteboard)
        try? mirror.clear(pasteboard)
    }

    public func changeCount(of pasteboard: PasteboardName) throws -> Int { try primary.changeCount(of: pasteboard) }

    // What the keeping side can do, this can: a large copy streams into the store, and the history
    // links the store's files, whatever the terminal takes.
    public var spooling: (any InputSpooling)? { primary.spooling }
    public var storedFiles: (any StoredFiles)? { primary.storedFiles }
    public var changesReachDaemons: Bool { primary.changesReachDaemons }
}

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
import Pasteboard
import SystemIO

// `pbctl daemon` without a display: the store as a keeper, the trivial one. Nobody's content goes away
// with its owner here, and copies record themselves, so keeping means syncing: each change of the
// store's clipboard is handed over (marked already recorded) for the peers (KDE Connect) to send, and
// what a peer delivers through the inbox is written to the store and handed over to be recorded with
// its origin. One keeper per store (a `ProcessLock` in the store's folder).
extension FileStore: ClipboardKeeping {
    public var keptPlace: String { "the store (\(root))" }

    public var keepsOnlyForPeers: Bool { true }

    private var keeperLock: ProcessLock { ProcessLock(path: root + "/daemon.lock", what: "this store") }

    public func runningKeeper() throws -> String? {
        keeperLock.holder().map { "pbctl daemon (pid \($0)) on \(keptPlace)" }
    }

    /// A socket whose shutdown (a signal handler's one call) ends ``keep(_:ready:)``.
    public var stopDescriptor: Int32 { keeperStop.0 }

    public func keep(_ options: KeepOptions, ready: () -> Void) throws -> KeepEnd {
        _ = try rootDirectory(create: true)
        try keeperLock.acquire(replace: options.replace)
        let stop = keeperStop.0
        func handOver() {
            guard let item = currentItemForPeers(maximumSize: options.maximumRecordedSize) else { return }
            options.record?(KeptContent(item: item, application: nil, selection: "clipboard", skipped: [], recorded: true))
        }
        ready()
        handOver()  // the content at the start
        var waits = [stop]
        if let inbox = options.inbox { waits.append(inbox.descriptor) }
        // The change count this keeper's own write of a handed-in item made: that change was handed over
        // with its origin already, and is not handed over again as if a local program had made it.
        var ownWrite: Int?
        try watch(.general, alsoWaitingOn: waits) { change, ready in
            if ready.contains(stop) { return false }
            if let inbox = options.inbox, ready.contains(inbox.descriptor), let offered = inbox.takeNewest() {
                let item = options.complete?(offered.item) ?? offered.item
                do {
                    ownWrite = try write([item], to: .general, options: CopyOptions())
                    options.record?(
                        KeptContent(item: offered.item, application: offered.origin.label, selection: "clipboard", skipped: [], origin: offered.origin))
                } catch {
                    options.log?("cannot write what \(offered.origin.label) sent to \(keptPlace): \(error)")
                }
            }
            if let change, change.changeCount != ownWrite { handOver() }
            return true
        }
        return .lost(reason: "stopped")
    }

    /// The clipboard's first item with the bytes of its originals and of its UTF-8 text (what a peer
    /// sends: derived types are derived again where they arrive), at most `maximumSize` bytes in all; a
    /// sensitive item comes back flagged and without bytes (never sent); nil when it is empty.
    func currentItemForPeers(maximumSize: Int) -> Item? {
        guard let summary = (try? items(in: .general))?.first, !summary.types.isEmpty else { return nil }
        var item = Item(metadata: summary.metadata)
        item.metadata.flags = RecordingPolicy.flags(of: summary)
        if item.metadata.flags.reasonNotToRecord != nil { return item }
        var total = 0
        for type in summary.types where type.derivedFrom == nil || type.type == .utf8PlainText {
            guard let data = try? read(type.type, item: 0, from: .general) else { continue }
            total += data.count
            guard total <= maximumSize else { break }
            item.set(Representation(type: type.type, data: data, derivedFrom: type.derivedFrom))
        }
        return item
    }
}

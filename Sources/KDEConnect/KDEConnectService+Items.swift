import Pasteboard

// What the daemon hands the service and what it keys received items by: helpers over the model, for the
// daemon's side of the way in (a local change) and out (a received item).
extension KDEConnectService {
    /// The first item on `backend`'s clipboard with every representation's bytes (what a watch hands
    /// the service where no keeper fetches it: the store); nil when it is empty. Sensitive items come
    /// back flagged and without bytes: they are never sent.
    public static func currentItem(of backend: any PasteboardBackend, pasteboard: PasteboardName = .general, maximumSize: Int) -> Item? {
        guard let summary = (try? backend.items(in: pasteboard))?.first, !summary.types.isEmpty else { return nil }
        var item = Item(metadata: summary.metadata)
        item.metadata.flags = RecordingPolicy.flags(of: summary)
        if item.metadata.flags.reasonNotToRecord != nil { return item }
        var total = 0
        // The originals, and the plain text a text-only device gets: nothing else is sent, so nothing
        // else is produced.
        for type in summary.types where type.derivedFrom == nil || type.type == .utf8PlainText {
            guard let data = try? backend.read(type.type, item: 0, from: pasteboard) else { continue }
            total += data.count
            guard total <= maximumSize else { break }
            item.set(Representation(type: type.type, data: data, derivedFrom: type.derivedFrom))
        }
        return item
    }

    /// A key of an item's content (its text's, else its first type's bytes): the same for an item and
    /// the same content read back from the display.
    public static func contentKey(_ item: Item, registry: TypeRegistry) -> UInt64? { ClipboardChannel.contentKey(item, registry: registry) }
}

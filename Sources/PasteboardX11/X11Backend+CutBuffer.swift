#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

// Cut buffer 0 (CUT_BUFFER0, a STRING property of the first screen's root window): the pre-ICCCM way of
// sharing text that `xclip -selection buffer-cut` still reads and writes (XStoreBuffer, XFetchBuffer).
// No owner serves it: writing sets the property, reading gets it, clearing deletes it.
extension X11Backend {
    /// The pasteboard that is cut buffer 0.
    public static let cutBufferPasteboard = PasteboardName("cut-buffer")!
    /// CUT_BUFFER0 is predefined (Xatom.h).
    static let cutBuffer0: XAtom = 9

    /// The text of the first item (else its first representation's bytes) stored in the cut buffer.
    func writeCutBuffer(_ items: [Item]) throws -> Int {
        guard let item = items.first else {
            try clearCutBuffer()
            return 0
        }
        let representation = item.representation(for: .utf8PlainText) ?? item.representations.first
        let bytes = try representation?.data() ?? Data()
        let write = PropertyWrite(window: connection.root, property: Self.cutBuffer0, type: PredefinedAtom.string, format: 8, bytes: bytes)
        if let error = try connection.changePropertiesChecked([write]) {
            throw PasteboardError(.refused, "the X server refused the cut buffer: \(error)")
        }
        return 1
    }

    /// The cut buffer's bytes; nil when it holds nothing.
    func readCutBuffer() throws -> Data? {
        let value = try connection.getProperty(window: connection.root, property: Self.cutBuffer0)
        guard value.type != PredefinedAtom.none, !value.bytes.isEmpty else { return nil }
        return value.bytes
    }

    func cutBufferItems() throws -> [ItemSummary] {
        guard let bytes = try readCutBuffer() else { return [] }
        return [ItemSummary(types: [TypeSummary(type: .utf8PlainText, size: bytes.count)], metadata: ItemMetadata(created: Date()))]
    }

    func clearCutBuffer() throws {
        connection.deleteProperty(window: connection.root, property: Self.cutBuffer0)
        try connection.sync()
    }
}

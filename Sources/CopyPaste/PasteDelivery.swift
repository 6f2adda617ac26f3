#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import Representations

/// What a paste delivers of the representation the negotiation chose (``PasteRequest``): streamed as the
/// backend gives it, or read whole and converted (HTML from Markdown, an image in another format), and
/// UTF-16 and Latin-1 text as UTF-8 unless the exact bytes were asked for. The one policy `pbctl paste`, pbpaste and
/// the xclip/xsel/wl-paste personalities share.
public struct PasteDelivery {
    public var registry: TypeRegistry
    /// The exact type was asked for (`--type`): its bytes as they are.
    public var exact = false
    /// `--keep-html`.
    public var keepHTML = false
    /// `--quality` for JPEG and WebP (given: WebP is lossy even from a lossless source); nil: the default.
    public var quality: Int?
    /// Notes for standard error (`-v`), nil: none.
    public var report: ((String) -> Void)?

    public init(registry: TypeRegistry) { self.registry = registry }

    /// Item `index`'s chosen representation into `sink`.
    public func deliver(
        _ choice: PasteRequest.Choice, item index: Int, of item: ItemSummary, from backend: any PasteboardBackend,
        _ pasteboard: PasteboardName, to sink: any RepresentationSink
    ) throws {
        let encoding = registry.textEncoding(of: choice.read)
        let utf16 = !exact && (encoding == .utf16 || encoding == .latin1)
        if choice.convertTo != nil {
            let whole = DataSink()
            try backend.read(choice.read, item: index, from: pasteboard, into: whole)
            let source = utf16 ? Self.textToUTF8(whole.data, encoding) : whole.data
            if let report, ImageRepresentations.isImage(choice.read) {
                // Only with -v: a second decode, to say that an animation converts as its first frame.
                for note in (try? ImageRepresentations.validate(source, as: choice.read, source: "item \(index)")) ?? [] { report(note) }
            }
            try sink.write(
                try Conversion.produce(
                    source, from: utf16 ? .utf8PlainText : choice.read, to: choice,
                    options: ConversionOptions(keepRawHTML: keepHTML, imageQuality: quality)))
        } else if utf16 {
            let whole = DataSink()
            try backend.read(choice.read, item: index, from: pasteboard, into: whole)
            try sink.write(Self.textToUTF8(whole.data, encoding))
        } else {
            try backend.read(choice.read, item: index, from: pasteboard, into: sink)
        }
        report?(Self.report(choice, index, item))
    }

    /// What `paste -v` says of one item: what was read, whether it was converted here, and where the
    /// backend tracks it (the store, pbctl's own owners), whether what was read is the original or derived.
    public static func report(_ choice: PasteRequest.Choice, _ index: Int, _ item: ItemSummary) -> String {
        let derivedFrom = item.types.first { $0.type == choice.read }?.derivedFrom
        // Only a backend that says what derives from what can tell an original from a copy made elsewhere.
        let tracksDerivation = item.types.contains { $0.derivedFrom != nil }
        let origin = derivedFrom.map { " (derived from \($0))" } ?? (tracksDerivation ? " (the original)" : "")
        if let target = choice.convertTo {
            let shown = choice.dialect.map { "\($0) (\(target))" } ?? "\(target)"
            return "item \(index): read \(choice.read)\(origin), converted to \(shown) here"
        }
        return "item \(index): pasted \(choice.read)\(origin)"
    }

    /// UTF-16 or Latin-1 text as UTF-8.
    static func textToUTF8(_ data: Data, _ encoding: TextEncoding?) -> Data {
        guard encoding == .latin1 else { return Data(utf16ToUTF8(data).utf8) }
        return Data(String(decoding: data.map { UInt16($0) }, as: UTF16.self).utf8)
    }

    /// UTF-16 text (a byte-order mark read, little-endian without one) as a string.
    public static func utf16ToUTF8(_ data: Data) -> String {
        let bytes = [UInt8](data)
        var bigEndian = false
        var start = 0
        if bytes.starts(with: [0xFE, 0xFF]) {
            bigEndian = true
            start = 2
        } else if bytes.starts(with: [0xFF, 0xFE]) {
            start = 2
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var i = start
        while i + 1 < bytes.count {
            units.append(bigEndian ? UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]) : UInt16(bytes[i + 1]) << 8 | UInt16(bytes[i]))
            i += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// The file lists items `indices` offer (`x-special/gnome-copied-files`, else `text/uri-list`, with
    /// KDE's cut flag): what `paste --files` reads; empty when none offers one.
    public static func fileLists(_ items: [ItemSummary], _ indices: [Int], from backend: any PasteboardBackend, _ pasteboard: PasteboardName) throws
        -> [FileList]
    {
        var lists: [FileList] = []
        for index in indices {
            let types = items[index].types.map(\.type)
            var list: FileList
            if types.contains(.gnomeCopiedFiles) {
                list = FileList.parseGnomeCopiedFiles(try backend.read(.gnomeCopiedFiles, item: index, from: pasteboard))
            } else if types.contains(.fileURL) {
                list = FileList.parseURIList(try backend.read(.fileURL, item: index, from: pasteboard))
            } else {
                continue
            }
            if types.contains(.kdeCutSelection),
                (try? backend.read(.kdeCutSelection, item: index, from: pasteboard)).map({ $0.first == UInt8(ascii: "1") }) == true
            {
                list.cut = true
            }
            lists.append(list)
        }
        return lists
    }
}

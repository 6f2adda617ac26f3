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
        encoding == .latin1 ? TextDecoding.latin1ToUTF8(data) : TextDecoding.utf16ToUTF8(data)
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

    /// pbpaste's rule (`--mac-compat`): only the items whose choice gives text; none at all when no
    /// item does.
    public static func textOnly(_ choices: [PasteRequest.Choice], items indices: [Int], registry: TypeRegistry)
        -> (indices: [Int], choices: [PasteRequest.Choice])
    {
        let text = choices.indices.filter { registry.conforms(choices[$0].convertTo ?? choices[$0].read, to: .text) }
        return (text.map { indices[$0] }, text.map { choices[$0] })
    }

    /// What `paste --files` prints: each URI of `lists` as a local path, and the URIs that name no
    /// local file (`http://…`, another machine's), which are not paths.
    public static func localPaths(_ lists: [FileList]) -> (paths: [String], notLocal: [String]) {
        var paths: [String] = []
        var notLocal: [String] = []
        for entry in lists.flatMap(\.uris) {
            if let path = FileList.localPath(entry) { paths.append(path) } else { notLocal.append(entry) }
        }
        return (paths, notLocal)
    }

    /// What `paste --files --into` copies (moves, after a cut): every URI of `lists` as a local path.
    /// - Throws: `.invalidData` naming the first URI that is not a local file: nothing is copied then.
    public static func fileSources(_ lists: [FileList]) throws -> [(path: String, cut: Bool)] {
        try lists.flatMap { list in
            try list.uris.map { uri in
                guard let path = FileList.localPath(uri) else {
                    throw PasteboardError(
                        .invalidData, "\(uri.visibleControlCharacters): not a local file (another machine's, or not a file); nothing was copied")
                }
                return (path, list.cut)
            }
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Documents
import Pasteboard
import Representations
import SystemIO

/// What a copy makes of its sources, the one policy every way in shares (`pbctl copy`, `pbcopy`, the
/// xclip/xsel/wl-copy personalities): each source read (streamed into the store where the backend
/// spools, else into memory, within a size limit), its type decided — an image by its content whatever
/// its name says, else the declared type, else the file's extension, else sniffed — text checked to be
/// valid UTF-8 (generic plain text that is valid UTF-8, a `.txt` file, is UTF-8 text whichever way it
/// came, offered under every text name), an image checked to decode within the limits, and the item made with every
/// representation a copy of it offers (``Producers``), a Markdown file's local images as a TextBundle.
public struct CopyAssembly {
    public var registry: TypeRegistry
    /// `--type`/`--from`: what the sources are, whatever they look like (an image is still known by content).
    public var declared: TypeIdentifier?
    /// The plain text a Markdown copy offers.
    public var plainText = Producers.PlainTextChoice.source
    /// pbcopy's rule: what is not RTF is plain text (HTML too).
    public var macCompat = false
    /// The largest source taken (exit 65 past it, nothing copied).
    public var maximumSize = 1 << 30
    /// Where a Markdown copy from standard input finds its images (`--base`).
    public var base: String?
    public var htmlImages = HTMLImages.data
    public var verbose = false
    /// Notes for standard error (`-v`).
    public var report: (String) -> Void = { _ in }
    /// Standard input, refused past a limit.
    public var readStandardInput: (Int) throws -> Data

    public init(registry: TypeRegistry, readStandardInput: @escaping (Int) throws -> Data) {
        self.registry = registry
        self.readStandardInput = readStandardInput
    }

    /// The item a copy of `source` (a path, or `-` for standard input) makes.
    /// - Parameters:
    ///   - spooler: the backend's way of taking input as it streams (the store), nil to read it whole.
    /// - Throws: ``PasteboardError`` `.noInput` (66) for a missing file, `.invalidData` (65) for text that
    ///   is not UTF-8, an image that does not decode, input over the size limit.
    public func item(_ source: String, metadata base: ItemMetadata, spooler: (any InputSpooling)?, pasteboard: PasteboardName) throws -> Item {
        let shown = source == "-" ? "standard input" : source.shownPath
        var metadata = base
        var type = declared
        if source != "-" {
            metadata.sourcePath = POSIX.absolutePath(source)
            metadata.extra.merge(documentSourceMetadata(source, report: report)) { $1 }
            if type == nil, let ext = source.pathExtension {
                type = registry.types(withTag: ext, .filenameExtension).first
            }
        }
        // A .textbundle folder or .textpack archive: its text and every form of it.
        if let bundleItem = try textBundleItem(source, declared: declared, metadata: metadata, registry: registry) {
            return bundleItem
        }
        let data: Data
        var resolved: TypeIdentifier
        if let spooler {
            // UTF-8 is checked on the way in when the type is text or still to be sniffed; anything else
            // moves in the kernel, unseen.
            let inspect = type.map { registry.textEncoding(of: $0) == .utf8 } ?? true
            let spooled = try POSIX.withInput(source) { fd in
                try spooler.spool(fd, name: shown, for: pasteboard, limit: maximumSize, inspect: inspect)
            }
            data = spooled.data
            resolved = Self.type(
                image: Self.imageType(data, declared: declared), given: type, isValidUTF8: spooled.firstInvalidUTF8Offset == nil, typing: typing,
                sniff: { TypeSniffer.sniff(head: spooled.head, isValidUTF8: spooled.firstInvalidUTF8Offset == nil) })
            if let offset = spooled.firstInvalidUTF8Offset, registry.textEncoding(of: resolved) == .utf8 {
                throw Self.invalidUTF8(shown, offset, resolved)
            }
        } else {
            data = source == "-" ? try readStandardInput(maximumSize) : try POSIX.readFile(source, limit: maximumSize)
            resolved = Self.type(
                image: Self.imageType(data, declared: declared), given: type, isValidUTF8: TypeSniffer.isValidUTF8(data), typing: typing,
                sniff: { TypeSniffer.sniff(data) })
            try checkText(data, as: resolved, source: shown)
        }
        return try item(data, type: resolved, metadata: metadata, source: source, shown: shown)
    }

    /// The item a copy of `data`, already read and typed, makes (the image checked, every representation
    /// it offers); `source` is the path its document links are resolved from (`-`: `base`).
    public func item(_ data: Data, type: TypeIdentifier, metadata: ItemMetadata, source: String = "-", shown: String = "standard input") throws -> Item {
        if ImageRepresentations.isImage(type) {
            for note in try ImageRepresentations.validate(data, as: type, source: shown) { report(note) }
        }
        var item = Producers.item(original: data, type: type, metadata: metadata, plainText: plainText, convert: Conversion.produceRepresentation)
        addTextBundleRepresentations(
            &item, source: source, data: data, base: base, registry: registry, htmlImages: htmlImages, verbose: verbose, report: report)
        return item
    }

    /// Text with a fixed encoding must be well formed: a paste must never hand out broken text.
    /// - Throws: `.invalidData` (65) naming where it breaks.
    public func checkText(_ data: Data, as type: TypeIdentifier, source: String) throws {
        guard registry.textEncoding(of: type) == .utf8, !TypeSniffer.isValidUTF8(data) else { return }
        throw Self.invalidUTF8(source, TypeSniffer.firstInvalidUTF8Offset(data) ?? 0, type)
    }

    /// Whose rule decides a copy's type when its sources do not say it.
    public enum Typing: Sendable, Equatable {
        /// `pbctl copy`: what nothing names is sniffed (RTF, HTML, PDF… by their signatures; valid UTF-8
        /// is UTF-8 text; anything else the bytes as they are).
        case pbctl
        /// pbcopy (`--mac-compat`): as `.pbctl`, but what is not RTF is plain text (sniffed HTML too).
        case pbcopy
        /// xclip, xsel, wl-copy: the tool's default text (`named` nil: xclip's UTF8_STRING, xsel's
        /// string) is UTF-8 text as it is, never sniffed as HTML or RTF (which would change what other
        /// programs read); generic text that is not UTF-8 (no name, `STRING`, `TEXT`, `text/plain`) is
        /// kept byte for byte as Latin-1 text, as the tools keep it.
        case tool(named: String?)
    }

    /// The typing rule, the one every way in shares: an image by its content (`image`, from
    /// ``imageType(_:declared:)``), else the type the sources are given (declared, or a file's
    /// extension), else the rule of `typing` (`sniff` asked only by pbctl's); generic plain text that is
    /// valid UTF-8 is UTF-8 text whichever way it came.
    public static func type(
        image: TypeIdentifier?, given: TypeIdentifier?, isValidUTF8: @autoclosure () -> Bool, typing: Typing, sniff: () -> TypeIdentifier
    ) -> TypeIdentifier {
        switch typing {
        case .pbctl, .pbcopy:
            var resolved = image ?? given ?? sniff()
            if resolved == .plainText, isValidUTF8() { resolved = .utf8PlainText }
            // pbcopy keeps anything but RTF as plain text.
            if typing == .pbcopy, image == nil, given == nil, resolved == .html { resolved = .utf8PlainText }
            return resolved
        case .tool(let named):
            let resolved = image ?? given ?? .utf8PlainText
            guard resolved == .plainText || resolved == .utf8PlainText else { return resolved }
            if isValidUTF8() { return .utf8PlainText }
            let generic = named == nil || named == "STRING" || named == "TEXT" || resolved == .plainText
            return generic ? .latin1PlainText : resolved
        }
    }

    /// The typing rule ``item(_:metadata:spooler:pasteboard:)`` follows: pbcopy's with `macCompat`.
    public var typing: Typing { macCompat ? .pbcopy : .pbctl }

    /// An image is known by its content, whatever its file's name says (a declared type decides alone;
    /// an image type named for bytes that are no image is refused later, exit 65): the type to copy it
    /// as, or nil when the bytes are no image and nothing claims they are.
    public static func imageType(_ data: Data, declared: TypeIdentifier?) -> TypeIdentifier? {
        let sniffed = ImageRepresentations.sniff(data)
        if let declared { return ImageRepresentations.isImage(declared) ? sniffed ?? declared : nil }
        return sniffed
    }

    public static func invalidUTF8(_ source: String, _ offset: Int, _ type: TypeIdentifier) -> PasteboardError {
        PasteboardError(
            .invalidData,
            "\(source): not valid UTF-8 near byte \(offset), but \(type) is UTF-8 text; "
                + "copy it with --type public.data to keep the bytes as they are")
    }

    /// The item `copy --files` makes: `text/uri-list` (the original), `x-special/gnome-copied-files`, for
    /// a cut `application/x-kde-cutselection`, and the paths as plain text. Every path must exist (else
    /// `.noInput`, exit 66, naming each missing one, and nothing is copied).
    public static func fileListItem(_ paths: [String], cut: Bool, metadata: ItemMetadata) throws -> Item {
        let missing = POSIX.missingPaths(paths)
        guard missing.isEmpty else {
            throw PasteboardError(.noInput, "no such file: " + missing.map(\.shownPath).joined(separator: ", ") + "; nothing was copied")
        }
        let list = FileList(paths: paths.map { normalizedPath(POSIX.absolutePath($0)) }, cut: cut)
        var item = Item(representations: [Representation(type: .fileURL, data: list.uriList)], metadata: metadata)
        item.set(Representation(type: .gnomeCopiedFiles, data: list.gnomeCopiedFiles, derivedFrom: .fileURL))
        if cut { item.set(Representation(type: .kdeCutSelection, data: list.kdeCutSelection, derivedFrom: .fileURL)) }
        item.set(Representation(type: .utf8PlainText, data: list.plainText, derivedFrom: .fileURL))
        return item
    }

    /// `/a/./b/../c/` → `/a/c` (no link is resolved: the path as the user named it).
    public static func normalizedPath(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }
}

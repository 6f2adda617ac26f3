#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What crosses from another machine (a remote pbctl over `pbctl ssh`, in either direction; a KDE Connect
/// device) is checked here by the rules local input is, in one place for every transport, and stays
/// marked as that machine's:
///
/// - Type names by the one rule for them (``TypeIdentifier/nameProblem(_:)``, what `copy --type` and the
///   history hold names to): not empty, at most ``TypeIdentifier/maximumNameLength`` bytes, letters,
///   digits, `-`, `.`.
///   Names and provenance (the source application, a path, `extra`) have no
///   control character and a bounded length. A listing never shows what a terminal would obey.
/// - The item's time is its arrival here: the history is ordered by when content came, whatever date
///   the other side wrote.
/// - A file list names the other machine (`file://HOST/path`): a local consumer never takes a remote
///   path for one of its own files (`paste --files --into` refuses URIs that are not local).
/// - Counts are bounded: representations, provenance entries.
public enum ForeignContent {
    /// The longest type name a user or a file gives (a MIME type is at most 127 + 1 + 127 characters,
    /// RFC 6838); an identifier may be longer (``TypeIdentifier/maximumNameLength``).
    public static let maximumTypeLength = 255
    /// The longest source application, path or provenance value.
    public static let maximumTextLength = 4096
    /// The most representations one item may bring.
    public static let maximumRepresentations = 256
    /// The most provenance entries (`extra`) one item may bring.
    public static let maximumExtras = 64

    /// Where foreign content comes from: the host its file lists are marked with and the name its
    /// content is attributed to.
    public struct Origin: Sendable, Equatable {
        /// A URI host (``uriHost(_:)``): what `file://HOST/…` carries.
        public var host: String
        /// The source the history shows when the item names none (`pbctl ssh: HOST`, `KDE Connect: NAME`).
        public var label: String

        public init(host: String, label: String) {
            self.host = ForeignContent.uriHost(host)
            self.label = label
        }
    }

    /// Whether `text` holds a control character: C0 (line breaks and tabs included), DEL or C1, which a
    /// terminal may obey (ESC, CSI, OSC) and which break one-line listings.
    public static func hasControlCharacter<S: StringProtocol>(_ text: S) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    /// Checks a type name by the one rule for type names (``TypeIdentifier/nameProblem(_:)``): what
    /// `copy --type` resolves to, what the history records and reads back.
    /// - Throws: ``PasteboardError`` `.invalidData` (exit 65) saying what is wrong.
    public static func checkType(_ name: String) throws {
        if let problem = TypeIdentifier.nameProblem(name) { throw PasteboardError(.invalidData, "\(problem) (\(shown(name)))") }
    }

    /// Checks a type as a user or a file names one before it is resolved (an identifier, a MIME type
    /// such as `text/html`, an extension): not empty, no control character, at most
    /// ``maximumTypeLength`` bytes. The identifier it resolves to is then held to ``checkType(_:)``.
    /// - Throws: ``PasteboardError`` `.invalidData` (exit 65) saying what is wrong.
    public static func checkGivenType(_ name: String) throws {
        guard !name.isEmpty else { throw PasteboardError(.invalidData, "an empty type name") }
        guard !hasControlCharacter(name) else {
            throw PasteboardError(.invalidData, "a type name with a control character (\(shown(name)))")
        }
        guard name.utf8.count <= maximumTypeLength else {
            throw PasteboardError(.invalidData, "a type name longer than \(maximumTypeLength) bytes (\(shown(name)))")
        }
    }

    /// Checks a name or path (`what` says which, for the message).
    /// - Throws: ``PasteboardError`` `.invalidData` (exit 65).
    public static func checkText(_ text: String, _ what: String) throws {
        guard !hasControlCharacter(text) else { throw PasteboardError(.invalidData, "\(what) with a control character (\(shown(text)))") }
        guard text.utf8.count <= maximumTextLength else {
            throw PasteboardError(.invalidData, "\(what) longer than \(maximumTextLength) bytes")
        }
    }

    /// `text` with its control characters as Unicode pictures and cut to 80 characters: safe in a message.
    public static func shown(_ text: String) -> String {
        let visible = text.visibleControlCharacters
        return visible.count > 80 ? String(visible.prefix(79)) + "…" : visible
    }

    /// `item` as it may enter this machine from `origin`, arriving at `arrived`: every type and name
    /// checked, its time the arrival's, its file lists marked with the origin's host.
    /// - Throws: ``PasteboardError`` `.invalidData` naming what is wrong: nothing of it is taken.
    public static func admit(_ item: Item, from origin: Origin, arrived: Date) throws -> Item {
        guard item.representations.count <= maximumRepresentations else {
            throw PasteboardError(.invalidData, "an item with more than \(maximumRepresentations) representations")
        }
        var metadata = try admit(item.metadata, arrived: arrived)
        if metadata.sourceApplication == nil { metadata.sourceApplication = origin.label }
        // A marker among the representations, however the other side spells it, flags the item here as a
        // local copy's markers do: a secret stays in memory and is never recorded.
        metadata.flags = ClipboardMarkers.flags(of: item)
        var admitted = Item(metadata: metadata)
        for representation in item.representations {
            try checkType(representation.type.rawValue)
            if let source = representation.derivedFrom { try checkType(source.rawValue) }
            if isFileList(representation.type) {
                let host = origin.host
                let data = try representation.data()
                admitted.set(Representation(type: representation.type, data: markFileList(data, type: representation.type, host: host),
                                            derivedFrom: representation.derivedFrom))
            } else {
                admitted.set(representation)
            }
        }
        return admitted
    }

    /// Metadata as it may enter: names checked, the time the arrival's.
    public static func admit(_ metadata: ItemMetadata, arrived: Date) throws -> ItemMetadata {
        var metadata = metadata
        if let application = metadata.sourceApplication { try checkText(application, "a source application") }
        if let path = metadata.sourcePath { try checkText(path, "a source path") }
        guard metadata.extra.count <= maximumExtras else {
            throw PasteboardError(.invalidData, "more than \(maximumExtras) provenance entries")
        }
        for (key, value) in metadata.extra {
            try checkText(key, "a provenance key")
            try checkText(value, "a provenance value")
        }
        metadata.created = arrived
        return metadata
    }

    /// A listing of the other machine's clipboard (what a remote pbctl is told), checked as ``admit(_:from:arrived:)``
    /// checks an item: sizes non-negative, every name as local input.
    /// - Throws: ``PasteboardError`` `.invalidData`.
    public static func admit(_ summary: ItemSummary, arrived: Date) throws -> ItemSummary {
        guard summary.types.count <= maximumRepresentations else {
            throw PasteboardError(.invalidData, "an item with more than \(maximumRepresentations) representations")
        }
        for type in summary.types {
            try checkType(type.type.rawValue)
            if let source = type.derivedFrom { try checkType(source.rawValue) }
            if let size = type.size, size < 0 { throw PasteboardError(.invalidData, "a negative size for \(type.type)") }
        }
        var summary = summary
        summary.metadata = try admit(summary.metadata, arrived: arrived)
        return summary
    }

    /// Whether representations of `type` are lists of URIs whose `file:` entries name files
    /// (`text/uri-list`, `x-special/gnome-copied-files`, and the MIME types toolkits use for the same).
    public static func isFileList(_ type: TypeIdentifier) -> Bool {
        type == .fileURL || type == .gnomeCopiedFiles || fileListDynamicTypes.contains(type)
    }

    /// Other names of file lists, as they arrive under a dynamic identifier.
    static let fileListMIMETypes = ["application/x-kde4-urilist", "x-special/kde-copied-files", "text/x-uri-list"]
    static let fileListDynamicTypes = fileListMIMETypes.map { TypeRegistry.dynamicIdentifier(tag: $0, .mimeType) }

    /// A file list's bytes with every `file:` URI that names a local file (no host, or `localhost`)
    /// rewritten to name `host`; the rest as it was.
    public static func markFileList(_ data: Data, type: TypeIdentifier, host: String) -> Data {
        let gnome = type == .gnomeCopiedFiles
        let list = gnome ? FileList.parseGnomeCopiedFiles(data) : FileList.parseURIList(data)
        let marked = FileList(uris: list.uris.map { uri in FileList.localPath(uri).map { FileList.fileURI($0, host: host) } ?? uri }, cut: list.cut)
        return gnome ? marked.gnomeCopiedFiles : marked.uriList
    }

    /// `name` as a URI host (RFC 3986 reg-name, lower case): letters, digits, `-` and `.` kept, an IPv6
    /// address in brackets kept, anything else a `-`; never empty and never `localhost`, which would
    /// name this machine.
    public static func uriHost(_ name: String) -> String {
        if name.hasPrefix("["), name.hasSuffix("]"), name.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }),
            name.count > 2
        {
            return name.lowercased()
        }
        var host = ""
        for scalar in name.lowercased().unicodeScalars {
            switch scalar {
            case "a"..."z", "0"..."9", ".": host.unicodeScalars.append(scalar)
            default: if !host.hasSuffix("-") { host += "-" }
            }
        }
        while host.hasPrefix("-") || host.hasPrefix(".") { host.removeFirst() }
        while host.hasSuffix("-") || host.hasSuffix(".") { host.removeLast() }
        if host.isEmpty || host == "localhost" || host.hasPrefix("localhost.") { return "remote-" + (host.isEmpty ? "host" : host) }
        return host
    }
}

extension StringProtocol {
    /// The string with each control character (C0, DEL, C1) shown as its Unicode picture (`␛`, `␊`, `␡`)
    /// or `�` (C1): what a listing prints of a name that came from outside.
    public var visibleControlCharacters: String {
        guard ForeignContent.hasControlCharacter(self) else { return String(self) }
        var out = ""
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0..<0x20: out.unicodeScalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0x7F: out += "␡"
            case 0x80...0x9F: out += "�"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A uniform type identifier such as `public.utf8-plain-text` or `net.daringfireball.markdown`.
///
/// Identifiers are plain strings; what they mean (conformance, tags, text encoding) lives in a
/// ``TypeRegistry``. Identifiers compare case-insensitively, as on macOS, so they are stored lowercased.
public struct TypeIdentifier: Hashable, Sendable, Codable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue.isPlainLowercaseASCII ? rawValue : rawValue.lowercased() }
    public init(stringLiteral value: String) { self.init(value) }
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
    public static func < (lhs: TypeIdentifier, rhs: TypeIdentifier) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether this identifier was made up for a tag the registry does not know (`dyn.…`).
    public var isDynamic: Bool { rawValue.hasPrefix("dyn.") }

    /// Whether the identifier is well formed: ``nameProblem(_:)`` finds nothing wrong with it.
    public var isWellFormed: Bool { Self.nameProblem(rawValue) == nil }

    /// The longest identifier: room for the dynamic identifier of any tag a user or a transport may
    /// name (at most ``ForeignContent/maximumTypeLength`` bytes, each escaped in at most 3).
    public static let maximumNameLength = 1024

    /// The one rule for a type name, wherever one comes from (`copy --type` once resolved, every
    /// transport's items, an import, what the history records and reads back): not empty, at most
    /// ``maximumNameLength`` bytes, ASCII letters (either case: identifiers compare case-insensitively),
    /// digits, `-` and `.`, or non-ASCII characters other than control characters (U+0080–U+009F).
    /// Every identifier pbctl makes (declared ones and `dyn.…` for any tag) passes. Nil when `name`
    /// passes, else what is wrong, for a message.
    public static func nameProblem<S: StringProtocol>(_ name: S) -> String? {
        if name.isEmpty { return "an empty type name" }
        if name.utf8.count > maximumNameLength { return "a type name longer than \(maximumNameLength) bytes" }
        for scalar in name.unicodeScalars {
            let v = scalar.value
            if v >= 0xA0 { continue }
            if (v >= 0x61 && v <= 0x7A) || (v >= 0x41 && v <= 0x5A) || (v >= 0x30 && v <= 0x39) || v == 0x2D || v == 0x2E { continue }
            if v < 0x20 || (0x7F...0x9F).contains(v) { return "a type name with a control character" }
            return "a type name with '\(Character(scalar))' (type names hold letters, digits, '-' and '.')"
        }
        return nil
    }
}

extension TypeIdentifier {
    public static let item: TypeIdentifier = "public.item"
    public static let content: TypeIdentifier = "public.content"
    public static let data: TypeIdentifier = "public.data"
    public static let text: TypeIdentifier = "public.text"
    public static let plainText: TypeIdentifier = "public.plain-text"
    public static let utf8PlainText: TypeIdentifier = "public.utf8-plain-text"
    public static let utf16PlainText: TypeIdentifier = "public.utf16-plain-text"
    /// Text that is not UTF-8, kept byte for byte as the tools keep it (`xclip`, `xsel`, `wl-copy` of
    /// Latin-1 input): ISO 8859-1, what X11's STRING is.
    public static let latin1PlainText: TypeIdentifier = "org.pbctl.latin1-plain-text"
    public static let rtf: TypeIdentifier = "public.rtf"
    public static let html: TypeIdentifier = "public.html"
    public static let xml: TypeIdentifier = "public.xml"
    public static let json: TypeIdentifier = "public.json"
    public static let markdown: TypeIdentifier = "net.daringfireball.markdown"
    public static let url: TypeIdentifier = "public.url"
    public static let fileURL: TypeIdentifier = "public.file-url"
    /// `x-special/gnome-copied-files`: `copy` or `cut`, then one file URI per line.
    public static let gnomeCopiedFiles: TypeIdentifier = "org.gnome.copied-files"
    /// `application/x-kde-cutselection`: "1" when the files were cut.
    public static let kdeCutSelection: TypeIdentifier = "org.kde.cut-selection"
    public static let image: TypeIdentifier = "public.image"
    public static let png: TypeIdentifier = "public.png"
    public static let jpeg: TypeIdentifier = "public.jpeg"
    public static let gif: TypeIdentifier = "public.gif"
    /// `image/bmp` (also `image/x-bmp`, `image/x-ms-bmp`): what RDP clients and WSLg ask for.
    public static let bmp: TypeIdentifier = "com.microsoft.bmp"
    public static let tiff: TypeIdentifier = "public.tiff"
    public static let webp: TypeIdentifier = "org.webmproject.webp"
    public static let svg: TypeIdentifier = "public.svg-image"
    public static let pdf: TypeIdentifier = "com.adobe.pdf"
    public static let directory: TypeIdentifier = "public.directory"
    public static let package: TypeIdentifier = "com.apple.package"
    public static let zipArchive: TypeIdentifier = "public.zip-archive"
    public static let textBundle: TypeIdentifier = "org.textbundle.package"
    public static let textPack: TypeIdentifier = "org.textbundle.compressed"
    /// nspasteboard.org markers: content that must not be stored or shown.
    public static let concealed: TypeIdentifier = "org.nspasteboard.concealedtype"
    public static let transient: TypeIdentifier = "org.nspasteboard.transienttype"
    public static let autoGenerated: TypeIdentifier = "org.nspasteboard.autogeneratedtype"
    public static let source: TypeIdentifier = "org.nspasteboard.source"
}

/// The kinds of tag a type can carry.
public enum TagClass: String, Sendable, Codable, CaseIterable {
    case filenameExtension = "public.filename-extension"
    case mimeType = "public.mime-type"
    /// An X11 selection target name (`UTF8_STRING`, `text/html`, …).
    case x11Target = "org.x.selection-target"
}

/// How a text type's bytes are encoded.
public enum TextEncoding: String, Sendable, Codable {
    case utf8, utf16, latin1
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A TextBundle (textbundle.org, version 2): `info.json`, one `text.*` file, and `assets/`.
///
/// The model is files in memory: ``init(files:)`` reads a bundle from its files (paths relative to
/// the bundle folder), ``files()`` gives them back. Keys of `info.json` this code does not know
/// (application-specific data, kept under an application's identifier) are preserved as they were
/// read, as the specification's cooperation rule asks.
public struct TextBundle: Sendable, Equatable {
    /// `info.json` as read, every key kept.
    public var info: [String: JSONValue]
    /// The text file's name inside the bundle (`text.md`, `text.markdown`, `text.txt`, …).
    public var textFileName: String
    public var text: Data
    /// Asset files by their path below `assets/` (`a.png`, `img/b.png`), sorted when written.
    public var assets: [String: Data]

    public static let markdownType = "net.daringfireball.markdown"

    public init(
        text: Data, textFileName: String = "text.md", assets: [String: Data] = [:], type: String = markdownType,
        transient: Bool = false, creatorIdentifier: String? = nil, sourceURL: String? = nil
    ) {
        self.text = text
        self.textFileName = textFileName
        self.assets = assets
        var info: [String: JSONValue] = ["version": .number(2), "type": .string(type)]
        if transient { info["transient"] = .bool(true) }
        if let creatorIdentifier { info["creatorIdentifier"] = .string(creatorIdentifier) }
        if let sourceURL { info["sourceURL"] = .string(sourceURL) }
        self.info = info
    }

    public var version: Int? { if case .number(let n) = info["version"], n == n.rounded() { return Int(exactly: n) } else { return nil } }
    /// The text's type identifier (default Markdown, as the specification says).
    public var type: String { if case .string(let s) = info["type"] { return s } else { return Self.markdownType } }
    public var isTransient: Bool { if case .bool(let b) = info["transient"] { return b } else { return false } }
    public var creatorIdentifier: String? { if case .string(let s) = info["creatorIdentifier"] { return s } else { return nil } }
    public var sourceURL: String? { if case .string(let s) = info["sourceURL"] { return s } else { return nil } }

    /// Limits on what a bundle may hold when read.
    public static let maximumAssetCount = 4096

    /// Reads a bundle from its files.
    /// - Parameter files: paths relative to the bundle folder (`info.json`, `text.md`,
    ///   `assets/a.png`); folders may be listed with a trailing `/` and are ignored.
    /// - Throws: ``TextBundleError`` naming what is missing or malformed.
    public init(files: [String: Data]) throws {
        guard let infoData = files["info.json"] else {
            throw TextBundleError("not a TextBundle: there is no info.json")
        }
        let decoded: JSONValue
        do {
            decoded = try JSONDecoder().decode(JSONValue.self, from: infoData)
        } catch {
            throw TextBundleError("info.json is not valid JSON")
        }
        guard case .object(let info) = decoded else { throw TextBundleError("info.json must hold a JSON object") }
        guard case .number(let version) = info["version"] else {
            throw TextBundleError("info.json has no version number")
        }
        guard version == 1 || version == 2 else {
            throw TextBundleError("info.json: TextBundle version \(version) is not supported (1 and 2 are)")
        }
        let texts = files.keys.filter { !$0.contains("/") && $0.hasPrefix("text.") }.sorted()
        guard let textName = texts.first(where: { $0 == "text.md" || $0 == "text.markdown" }) ?? texts.first else {
            throw TextBundleError("not a TextBundle: there is no text.* file")
        }
        var assets: [String: Data] = [:]
        for (path, data) in files where path.hasPrefix("assets/") && !path.hasSuffix("/") {
            assets[String(path.dropFirst("assets/".count))] = data
        }
        guard assets.count <= Self.maximumAssetCount else {
            throw TextBundleError("more than \(Self.maximumAssetCount) assets")
        }
        self.info = info
        self.textFileName = textName
        self.text = files[textName] ?? Data()
        self.assets = assets
    }

    /// The bundle's files: `info.json`, the text, and `assets/…`, in that order (folders listed with a
    /// trailing `/` so archives carry them).
    public func files() throws -> [(path: String, data: Data)] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var result: [(String, Data)] = [("info.json", try encoder.encode(JSONValue.object(info)))]
        result.append((textFileName, text))
        if !assets.isEmpty {
            var folders = Set<String>(["assets/"])
            for name in assets.keys {
                var parts = name.split(separator: "/").dropLast()
                while !parts.isEmpty {
                    folders.insert("assets/" + parts.joined(separator: "/") + "/")
                    parts = parts.dropLast()
                }
            }
            for folder in folders.sorted() { result.append((folder, Data())) }
            for name in assets.keys.sorted() { result.append(("assets/" + name, assets[name]!)) }
        }
        return result
    }

    /// The text with every `assets/…` image replaced by a `data:` URL, for HTML and RTF that must
    /// carry their images with them.
    public func textWithEmbeddedImages() -> [UInt8] {
        let markdown = [UInt8](text)
        let references = MarkdownImageReferences.references(in: markdown)
        var replacements: [String: String] = [:]
        for reference in references {
            guard let path = MarkdownImageReferences.filePath(reference.destination) else { continue }
            let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
            guard relative.hasPrefix("assets/"), let data = assets[String(relative.dropFirst(7))] else { continue }
            replacements[reference.destination] = ImageData.dataURL(data)
        }
        return MarkdownImageReferences.rewrite(markdown, references: references, replacements: replacements)
    }
}

/// A TextBundle that cannot be read, with the reason.
public struct TextBundleError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Builds a transient TextBundle from a Markdown document and the local images it references.
public enum TextBundleBuilder {
    /// What building found: the bundle, the Markdown with its local images as `data:` URLs (for
    /// HTML and RTF), and the images that could not be taken along.
    public struct Result: Sendable {
        public var bundle: TextBundle
        /// The original Markdown with every image that was found embedded as a `data:` URL.
        public var embeddedMarkdown: [UInt8]
        /// Local destinations by the file path they resolved to, for callers that prefer `file:` URLs.
        public var resolvedPaths: [String: String]
        /// Destinations that were local but could not be read or rewritten, with the reason.
        public var skipped: [(destination: String, reason: String)]
    }

    /// Collects the local images of `markdown` into a transient bundle whose text refers to them as
    /// `assets/NAME`.
    /// - Parameters:
    ///   - load: reads a local image, given the path the destination names (relative paths are the
    ///     caller's to resolve); returns the resolved path and bytes, or nil with nothing to take.
    /// - Returns: nil when the document has no local image that could be read.
    public static func build(
        markdown: Data, creatorIdentifier: String, sourceURL: String?,
        load: (String) -> (path: String, data: Data)?
    ) -> Result? {
        let bytes = [UInt8](markdown)
        let references = MarkdownImageReferences.references(in: bytes)
        var assets: [String: Data] = [:]
        var assetForPath: [String: String] = [:]
        var bundleReplacements: [String: String] = [:]
        var embedReplacements: [String: String] = [:]
        var resolvedPaths: [String: String] = [:]
        var skipped: [(destination: String, reason: String)] = []
        var done = Set<String>()
        for reference in references where done.insert(reference.destination).inserted {
            guard let path = MarkdownImageReferences.filePath(reference.destination) else { continue }
            guard reference.sourceRange != nil else {
                skipped.append((reference.destination, "its spelling in the source could not be located"))
                continue
            }
            guard let (resolved, data) = load(path) else {
                skipped.append((reference.destination, "the file could not be read"))
                continue
            }
            let name: String
            if let existing = assetForPath[resolved] {
                name = existing
            } else {
                name = uniqueName(for: resolved, taken: Set(assets.keys))
                assets[name] = data
                assetForPath[resolved] = name
            }
            bundleReplacements[reference.destination] = "assets/" + percentEncodedPathComponent(name)
            embedReplacements[reference.destination] = ImageData.dataURL(data)
            resolvedPaths[reference.destination] = resolved
        }
        guard !assets.isEmpty else { return nil }
        let text = MarkdownImageReferences.rewrite(bytes, references: references, replacements: bundleReplacements)
        let bundle = TextBundle(
            text: Data(text), assets: assets, transient: true, creatorIdentifier: creatorIdentifier, sourceURL: sourceURL)
        let embedded = MarkdownImageReferences.rewrite(bytes, references: references, replacements: embedReplacements)
        return Result(bundle: bundle, embeddedMarkdown: embedded, resolvedPaths: resolvedPaths, skipped: skipped)
    }

    /// The file's last path component, made unique among `taken` (`a.png`, `a-2.png`, …) and safe as
    /// a single file name.
    static func uniqueName(for path: String, taken: Set<String>) -> String {
        var base = String(path.split(separator: "/").last ?? "image")
        base = String(base.map { ($0 == "\\" || $0 == ":" || $0.asciiValue.map { $0 < 0x20 } == true) ? "_" : $0 })
        if base.isEmpty || base == "." || base == ".." || base.hasPrefix(".") { base = "image" + base }
        var stem = base
        var ext = ""
        if let dot = base.lastIndex(of: "."), dot != base.startIndex {
            stem = String(base[..<dot])
            ext = String(base[dot...])
        }
        var candidate = base
        var counter = 2
        while taken.contains(candidate) {
            candidate = "\(stem)-\(counter)\(ext)"
            counter += 1
        }
        return candidate
    }

    /// Escapes what a Markdown destination or URL path cannot hold as is (spaces, parentheses, `%`,
    /// non-ASCII), so `assets/my image.png` is written `assets/my%20image.png`. ASCII letters,
    /// digits and the characters in `allowed` are kept.
    public static func percentEncodedPathComponent(_ name: String, allowed: String = "-._~/") -> String {
        var out = ""
        let hex = Array("0123456789ABCDEF")
        for byte in name.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || allowed.contains(c) {
                out.append(c)
            } else {
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return out
    }
}

/// Recognises image bytes by their signature.
public enum ImageData {
    /// The MIME type of PNG, JPEG, GIF, WebP, BMP, TIFF or SVG bytes; `application/octet-stream` otherwise.
    public static func mimeType(_ data: Data) -> String {
        let head = [UInt8](data.prefix(512))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        if head.starts(with: Array("BM".utf8)) { return "image/bmp" }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return "image/tiff" }
        let text = String(decoding: head, as: UTF8.self)
        if text.contains("<svg") { return "image/svg+xml" }
        return "application/octet-stream"
    }

    /// `data:MIME;base64,…`
    public static func dataURL(_ data: Data) -> String {
        "data:\(mimeType(data));base64," + data.base64EncodedString()
    }
}

/// A JSON value of any kind, so `info.json` keys we do not know survive a read and a write.
public indirect enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            // Whole numbers are written without a fraction (`"version": 2`, not `2.0`).
            if value == value.rounded(), abs(value) < 9.0e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

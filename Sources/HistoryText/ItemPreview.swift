#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Images
import Pasteboard
import Representations

// What a listing shows of an item (`pbctl history`, `pbctl info`) and the text it is searched in:
// pure functions of the item, so the history and the CLI share them and they are tested alone.

/// One line for `pbctl history`: the first non-blank line of the best text representation, at most 80
/// characters, control characters as their Unicode pictures (␉, ␍…); an image as
/// `[image/png 1920×1080 34 KB]`; files as `[3 files: a.pdf, b.png, …]`; anything else as
/// `[TYPE SIZE]`.
public func historyPreview(_ item: Item, _ registry: TypeRegistry) -> String {
    func data(_ type: TypeIdentifier) -> Data? {
        guard let representation = item.representations.first(where: { $0.type == type }) else { return nil }
        return try? representation.data()
    }
    if let list = data(.gnomeCopiedFiles).map(FileList.parseGnomeCopiedFiles) ?? data(.fileURL).map(FileList.parseURIList),
        !list.uris.isEmpty
    {
        // A file name may hold a line break or other control characters: shown as their pictures, so
        // the listing stays one line per entry.
        let names = list.displayed.map { visibleLine(Substring($0.split(separator: "/").last.map(String.init) ?? $0)) }
        let shown = names.prefix(2).joined(separator: ", ") + (names.count > 2 ? ", …" : "")
        return "[\(names.count) file\(names.count == 1 ? "" : "s")\(list.cut ? " cut" : ""): \(shown)]"
    }
    // An image's HTML and RTF are pictures, produced on request: a preview never makes them (a BMP's or
    // TIFF's would encode the whole image as PNG to find no text).
    let isImage = item.representations.contains { $0.derivedFrom == nil && registry.conforms($0.type, to: .image) }
    let text: Data?
    if let plain = item.representations.first(where: {
        $0.type == .utf8PlainText || $0.type == .plainText || ($0.type != .markdown && $0.type != .html && registry.conforms($0.type, to: .plainText))
    })
        .flatMap({ try? $0.data() }) ?? data(.markdown)
    {
        text = plain
    } else if !isImage, let rich = [TypeIdentifier.html, .rtf].first(where: { data($0) != nil }), let bytes = data(rich), bytes.count <= 4 << 20 {
        text = try? Conversion.produce(bytes, from: rich, to: .text)
    } else {
        text = nil
    }
    if let text, let line = previewLine(text) { return line }
    // An image by its registered type (a toolkit may list its private name for the same bytes first).
    let ordered = item.representations.filter { registry.conforms($0.type, to: .image) }
        + item.representations.filter { !registry.conforms($0.type, to: .image) }
    for representation in ordered where representation.derivedFrom == nil || item.representations.count == 1 {
        guard let bytes = try? representation.data() else { continue }
        let mime = registry.preferredMIMEType(of: representation.type) ?? representation.type.rawValue
        let dimensions = ImageDimensions.of(bytes).map { " \($0.width)×\($0.height)" } ?? ""
        return "[\(mime)\(dimensions) \(humanSize(bytes.count))]"
    }
    return "[empty]"
}

/// ``historyPreview(_:_:)`` of an item whose first representation is non-empty plain text (what the
/// fast copy records), without a registry: its first line.
public func historyPreview(plainText item: Item) -> String {
    guard let data = try? item.representations.first?.data(), let line = previewLine(data) else { return "[empty]" }
    return line
}

/// The first non-blank line, at most 80 characters, control characters made visible.
public func previewLine(_ text: Data) -> String? {
    let string = String(decoding: text.prefix(64 << 10), as: UTF8.self)
    // The lines one at a time, up to the first that is not blank (a long text is not split whole).
    var start = string.startIndex
    var blank = true
    var index = string.startIndex
    while index < string.endIndex {
        let character = string[index]
        if character == "\n" || character == "\r\n" {
            if !blank { return visibleLine(string[start..<index]) }
            start = string.index(after: index)
            blank = true
        } else if blank, !character.isWhitespace {
            blank = false
        }
        index = string.index(after: index)
    }
    if !blank { return visibleLine(string[start...]) }
    return string.isEmpty ? nil : "␊"
}

/// `line` without leading blanks, at most 80 characters, control characters as their Unicode pictures.
public func visibleLine(_ line: Substring) -> String {
    var out = ""
    var count = 0
    for scalar in line.drop(while: { $0 == " " || $0 == "\t" }).unicodeScalars {
        if count == 79 {
            out += "…"
            break
        }
        switch scalar.value {
        case 0..<0x20: out.unicodeScalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
        case 0x7F: out += "␡"
        case 0x80..<0xA0: out += "�"
        default: out.unicodeScalars.append(scalar)
        }
        count += 1
    }
    return out
}

/// `34 KB`, `1.2 MB`, `512 B` (powers of 1000, as file managers show them).
public func humanSize(_ bytes: Int) -> String {
    if bytes < 1000 { return "\(bytes) B" }
    for (unit, scale) in [("GB", 1e9), ("MB", 1e6), ("KB", 1e3)] where Double(bytes) >= scale {
        let value = Double(bytes) / scale
        if value < 10 {
            let tenths = Int((value * 10).rounded())
            return "\(tenths / 10).\(tenths % 10) \(unit)"
        }
        return "\(Int(value.rounded())) \(unit)"
    }
    return "\(bytes) B"
}

/// Width and height from an image's header (PNG, JPEG, GIF, BMP, TIFF, WebP; an EXIF orientation
/// that turns it counted): no pixel is decoded.
public enum ImageDimensions {
    public static func of(_ data: Data) -> (width: Int, height: Int)? { ImageCodec.dimensions(data) }
}

/// The text an item is searched in: its plain text, else its Markdown, else its HTML or RTF as text.
public func searchableText(_ item: Item) -> String? {
    for type in [TypeIdentifier.utf8PlainText, .plainText, .markdown] {
        if let data = try? item.representation(for: type)?.data() { return String(decoding: data, as: UTF8.self) }
    }
    for type in [TypeIdentifier.html, .rtf] {
        if let data = try? item.representation(for: type)?.data(), let text = try? Conversion.produce(data, from: type, to: .text) {
            return String(decoding: text, as: UTF8.self)
        }
    }
    return nil
}

/// The text the history indexes and searches an item in: every text representation it holds, each
/// once. Plain text, Markdown and the other text types (a URI list, source code, JSON…) as their UTF-8;
/// HTML and RTF as the text they show. Nil when the item holds no text.
public func historySearchText(_ item: Item, _ registry: TypeRegistry) -> String? {
    var texts: [String] = []
    func add(_ text: String) {
        if !text.isEmpty, !texts.contains(text) { texts.append(text) }
    }
    for representation in item.representations {
        guard case .data(let data) = representation.content else { continue }
        // The common text types first: a conformance look-up walks the type graph.
        let common: [TypeIdentifier] = [.utf8PlainText, .plainText, .markdown, .html, .rtf]
        guard common.contains(representation.type) || registry.conforms(representation.type, to: .text) else { continue }
        if representation.type == .html || representation.type == .rtf {
            // The text a reader sees (markup would match every tag name).
            if data.count <= 16 << 20, let text = try? Conversion.produce(data, from: representation.type, to: .text) {
                add(String(decoding: text, as: UTF8.self))
            }
        } else if !common.contains(representation.type), registry.textEncoding(of: representation.type) == .utf16 {
            continue
        } else if TypeSniffer.isValidUTF8(data) {
            add(String(decoding: data, as: UTF8.self))
        }
    }
    guard var joined = texts.first else { return nil }
    // Not `joined(separator:)`: it runs unspecialised, resolving its generic requirements at run time
    // (180,000 instructions on first use, as much as a small copy's whole record).
    for text in texts.dropFirst() {
        joined += "\n"
        joined += text
    }
    return joined
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Markdown
import Pasteboard

// Conversion's whole API: between the text formats (``Conversion/convert(_:from:to:options:)``), on held
// bytes with the user's wording of errors (``Conversion/produce(_:from:to:options:)``), and what backends
// call to produce a derived representation (``Conversion/produceRepresentation(_:_:_:)``).

extension Conversion {
    /// Whether pbctl converts `source` into `target`: every pair of the text formats it reads and
    /// writes goes through one AST. The same type converts to itself only where a dialect differs, which
    /// a paste request asks for explicitly (``PasteRequest/Mode/format(_:takesOffered:)``).
    @Sendable public static func canConvert(_ source: TypeIdentifier, _ target: TypeIdentifier) -> Bool {
        (TextFormat(type: source) != nil && TextFormat(type: target) != nil) || ImageRepresentations.canConvert(source, target)
    }

    /// A paste's conversion: `data`, held as `source`, into the choice's target (a text format in its
    /// dialect, or an image format at `quality`).
    public static func produce(_ data: Data, from source: TypeIdentifier, to choice: PasteRequest.Choice, options: ConversionOptions = ConversionOptions())
        throws -> Data
    {
        guard let target = choice.convertTo else { return data }
        if ImageRepresentations.isImage(source) {
            return try ImageRepresentations.convert(data, from: source, to: target, quality: options.imageQuality)
        }
        guard let format = TextFormat(choice) else { throw PasteboardError(.typeNotOffered, "cannot convert \(source) to \(target)") }
        return try produce(data, from: source, to: format, options: options)
    }

    /// Converts held bytes of `source` into `target`'s format.
    /// - Throws: ``PasteboardError`` `.typeNotOffered` when either type is not a text format pbctl
    ///   converts, `.invalidData` when nothing usable is in the input.
    public static func produce(
        _ data: Data, from source: TypeIdentifier, to target: TextFormat, options: ConversionOptions = ConversionOptions()
    ) throws -> Data {
        guard let from = TextFormat(type: source) else {
            throw PasteboardError(.typeNotOffered, "cannot produce \(target.type) from \(source)")
        }
        return try convert(data, from: from, to: target, options: options)
    }

    /// `convert` on `Data`, with the error worded for the user (`.invalidData`, exit 65).
    public static func convert(_ data: Data, from: TextFormat, to: TextFormat, options: ConversionOptions = ConversionOptions())
        throws -> Data
    {
        do {
            return Data(try data.withUnsafeBytes { try convert($0.assumingMemoryBound(to: UInt8.self), from: from, to: to, options: options) })
        } catch let error as RepresentationError {
            throw PasteboardError(.invalidData, "nothing usable in the \(from.rawValue) input: \(error)")
        }
    }

    /// `convert` on `Data` with the output handed to `write` as it is made: Markdown to an HTML fragment
    /// goes out in chunks of about 64 KiB, so neither the whole output nor the parsed inlines of the whole
    /// document exist at once; other conversions in one piece. Errors are worded as `convert`'s on `Data`.
    public static func convert(
        _ data: Data, from: TextFormat, to: TextFormat, options: ConversionOptions = ConversionOptions(),
        writingTo write: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard to == .html, from.isMarkdown, !options.standalone else {
            let output = try convert(data, from: from, to: to, options: options)
            try output.withUnsafeBytes { try write($0) }
            return
        }
        var failure: Error?
        data.withUnsafeBytes { raw in
            MarkdownParser.renderHTML(raw.assumingMemoryBound(to: UInt8.self), options: from == .gfm ? .gfm : .commonmark) { chunk in
                guard failure == nil else { return }
                do { try write(UnsafeRawBufferPointer(chunk)) } catch { failure = error }
            }
        }
        if let failure { throw failure }
    }

    /// What backends call to produce a derived representation they hold only as a promise or a
    /// record (the store, an X11 or Wayland owner, the daemon): the target type's format.
    @Sendable public static func produceRepresentation(_ source: TypeIdentifier, _ data: Data, _ target: TypeIdentifier) throws -> Data {
        if ImageRepresentations.isImage(source) { return try ImageRepresentations.convert(data, from: source, to: target) }
        guard let format = TextFormat(type: target) else {
            throw PasteboardError(.typeNotOffered, "cannot produce \(target) from \(source)")
        }
        return try produce(data, from: source, to: format)
    }
}

/// Options for ``Conversion/convert(_:from:to:options:)``.
public struct ConversionOptions: Sendable {
    /// HTML output: a complete document (`<!DOCTYPE html>`, `<meta charset="utf-8">`, `<title>`) instead
    /// of a fragment.
    public var standalone: Bool
    /// Title of a standalone HTML document (default: the first heading's text).
    public var title: String?
    /// RTF output: supplies the bytes of image destinations that are not `data:` URLs (e.g. local files),
    /// so PNG and JPEG images can be embedded.
    public var imageLoader: RTFWriter.ImageLoader?
    /// HTML input: keep what Markdown cannot represent (comments, unknown elements, `div`s, scripts…) as
    /// raw HTML instead of dropping or unwrapping it, like pandoc's `html+raw_html` (`--keep-html`).
    public var keepRawHTML: Bool
    /// JPEG and WebP quality of an image conversion (1–100, `--quality`): nil when none was asked
    /// (JPEG and lossy WebP at 90, a lossless source as lossless WebP); given, JPEG and WebP are encoded
    /// at it, WebP lossy.
    public var imageQuality: Int?

    public init(
        standalone: Bool = false, title: String? = nil, imageLoader: RTFWriter.ImageLoader? = nil, keepRawHTML: Bool = false,
        imageQuality: Int? = nil
    ) {
        self.standalone = standalone
        self.title = title
        self.imageLoader = imageLoader
        self.keepRawHTML = keepRawHTML
        self.imageQuality = imageQuality
    }
}

/// A conversion found nothing usable in its input.
public struct RepresentationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why nothing usable remained, for the user.
    public let reason: String
    /// Byte offset in the input the reason refers to, when there is one.
    public let offset: Int?

    public init(reason: String, offset: Int? = nil) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        if let offset { return "\(reason) (at byte \(offset))" }
        return reason
    }
}

/// The single entry point for text conversions: Markdown, HTML and RTF in; Markdown, HTML, RTF and plain
/// text out, all through the Markdown AST.
public enum Conversion {
    /// Converts `input` from one text format to another.
    ///
    /// Readers never fail on malformed input: they recover what they can. The conversion throws only when
    /// nothing usable remains (input that is not RTF at all, or RTF/HTML with no content).
    /// - Throws: ``RepresentationError`` with the reason.
    public static func convert(_ input: [UInt8], from: TextFormat, to: TextFormat, options: ConversionOptions = ConversionOptions())
        throws -> [UInt8]
    {
        try input.withUnsafeBufferPointer { try convert($0, from: from, to: to, options: options) }
    }

    static func convert(_ input: UnsafeBufferPointer<UInt8>, from: TextFormat, to: TextFormat, options: ConversionOptions) throws -> [UInt8] {
        if to == .html, from.isMarkdown, !options.standalone {
            // Straight to HTML: the same bytes as through the document, without its inline nodes.
            return MarkdownParser.renderHTML(input, options: from == .gfm ? .gfm : .commonmark)
        }
        let document: MarkdownDocument
        switch from {
        case .commonmark: document = MarkdownParser.parse(input, options: .commonmark)
        case .gfm: document = MarkdownParser.parse(input, options: .gfm)
        default: document = try read(Array(input), from: from, keepRawHTML: options.keepRawHTML)
        }
        if to == .html, from.isMarkdown {
            // Markdown keeps its dialect's own rendering: strict CommonMark passes raw HTML through
            // untouched, where GFM filters the tags it disallows.
            let body = HTMLWriter.render(document, options: from == .gfm ? .gfm : .commonmark)
            return options.standalone ? HTMLDocumentWrapper.wrap(body, document: document, title: options.title) : body
        }
        return write(document, to: to, options: options)
    }

    /// Reads `input` into a Markdown document.
    /// - Throws: ``RepresentationError`` when nothing usable remains.
    /// - Parameter keepRawHTML: HTML input keeps what Markdown cannot represent as raw HTML (see
    ///   ``ConversionOptions/keepRawHTML``).
    public static func read(_ input: [UInt8], from format: TextFormat, keepRawHTML: Bool = false) throws -> MarkdownDocument {
        switch format {
        case .commonmark:
            return MarkdownParser.parse(input, options: .commonmark)
        case .gfm:
            return MarkdownParser.parse(input, options: .gfm)
        case .text:
            return plainTextDocument(input)
        case .html:
            let blocks = HTMLReader.read(input, keepRawHTML: keepRawHTML)
            if blocks.isEmpty && input.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0) }) {
                if HTMLReader.decode(input).contains(UInt8(ascii: "<")) {
                    throw RepresentationError(reason: "the HTML has no visible content (only markup, scripts, styles or comments)")
                }
            }
            return RichBlock.makeDocument(blocks)
        case .rtf:
            var start = 0
            while start < input.count, [0x20, 0x09, 0x0A, 0x0D, 0x00, 0xEF, 0xBB, 0xBF].contains(input[start]) { start += 1 }
            guard input.count - start >= 5, input[start..<start + 5].elementsEqual("{\\rtf".utf8) else {
                if input.count == start { throw RepresentationError(reason: "the input is empty, not RTF") }
                throw RepresentationError(reason: "the input is not RTF: it does not start with {\\rtf", offset: start)
            }
            guard let document = RTFReader.document(Array(input[start...])) else {
                throw RepresentationError(reason: "the RTF holds no text (only header tables, or truncated before any content)")
            }
            return document
        }
    }

    /// Writes a document in `format`.
    public static func write(_ document: MarkdownDocument, to format: TextFormat, options: ConversionOptions = ConversionOptions())
        -> [UInt8]
    {
        switch format {
        case .commonmark: return MarkdownWriter.render(document, gfm: false)
        case .gfm: return MarkdownWriter.render(document, gfm: true)
        case .rtf: return RTFWriter.render(document, imageLoader: options.imageLoader)
        case .text: return PlainTextWriter.render(document)
        case .html:
            let body = HTMLWriter.render(document, options: .gfm)
            return options.standalone ? HTMLDocumentWrapper.wrap(body, document: document, title: options.title) : body
        }
    }

    /// Plain text as a document: one paragraph per blank-line-separated block, lines kept as hard breaks.
    static func plainTextDocument(_ input: [UInt8]) -> MarkdownDocument {
        let text = String(decoding: input, as: UTF8.self).replacingNewlines()
        var b = MarkdownDocument.Builder()
        for block in text.split(separator: "\n\n", omittingEmptySubsequences: true) {
            var lines = block.split(separator: "\n", omittingEmptySubsequences: false)
            while let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
            while let first = lines.first, first.allSatisfy(\.isWhitespace) { lines.removeFirst() }
            guard lines.contains(where: { !$0.allSatisfy(\.isWhitespace) }) else { continue }
            b.open(.paragraph)
            for (k, line) in lines.enumerated() {
                if k > 0 { b.appendLineBreak() }
                b.appendText(String(line))
            }
            b.close()
        }
        return b.finish()
    }
}

/// `--standalone` HTML: the fragment inside a minimal, valid HTML5 document.
enum HTMLDocumentWrapper {
    static func wrap(_ body: [UInt8], document: MarkdownDocument, title: String?) -> [UInt8] {
        var t = title
        if t == nil {
            for child in document.children(of: document.root) where document.kind(child) == .heading {
                t = PlainTextRenderer.inlineText(document, child)
                break
            }
        }
        var out = "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>\(HTMLSerializer.escape((t ?? "").trimmingWhitespace(), attribute: false))</title>\n"
        out += "</head>\n<body>\n"
        var bytes = Array(out.utf8)
        bytes += body
        if let last = bytes.last, last != 0x0A { bytes.append(0x0A) }
        bytes += Array("</body>\n</html>\n".utf8)
        return bytes
    }
}

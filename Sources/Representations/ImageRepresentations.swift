#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Images
import Pasteboard

/// Images as representations: what an image copy offers (every raster format, an HTML `<img>` and RTF
/// with the picture, produced on request), how each is made from whatever raster an owner offers, and
/// the one read-through a copy does before it replaces the clipboard.
public enum ImageRepresentations {
    /// The raster types every image copy offers, in this order after its original: PNG first (what
    /// toolkits prefer), then JPEG, BMP (RDP, WSLg), TIFF (macOS-style applications) and WebP.
    public static let rasterTargets: [TypeIdentifier] = [.png, .jpeg, .bmp, .tiff, .webp]

    /// The caps every decode in this process uses (`PBCTL_MAX_PIXELS` sets the pixel cap,
    /// `PBCTL_MAX_IMAGE_MEMORY` the memory cap): set once, at start-up, before any conversion runs.
    nonisolated(unsafe) public static var limits = ImageLimits()
    /// JPEG and lossy WebP quality for conversions nobody asked a quality of (1–100).
    public static let defaultQuality = ImageCodec.defaultQuality

    /// Whether `type` is a raster image pbctl reads (PNG, JPEG, GIF, BMP, TIFF, WebP).
    public static func isImage(_ type: TypeIdentifier) -> Bool { ImageFormat(type: type) != nil }

    /// The type of `data` by its content when it is an image pbctl reads.
    public static func sniff(_ data: Data) -> TypeIdentifier? { ImageFormat.sniff(data)?.type }

    /// The derived types an image of `type` offers: the other raster formats, HTML and RTF.
    static func derivedTypes(for type: TypeIdentifier) -> [TypeIdentifier] {
        rasterTargets.filter { $0 != type } + [.html, .rtf]
    }

    /// Reads the whole image once as a decode would, keeping no pixel (`ImageCodec.validate`: every byte
    /// of the image data decompressed into a few rows), so every type a copy then offers can be
    /// produced: a truncated or damaged file, bytes that are no image, a size over the pixel cap, or an
    /// image whose decode alone is over the memory cap fail here, before the clipboard changes.
    /// - Returns: what `-v` may say (an animated image: its first frame is what converts).
    /// - Throws: ``PasteboardError`` `.invalidData` (exit 65) naming `source`.
    public static func validate(_ data: Data, as type: TypeIdentifier, source: String) throws -> [String] {
        guard let format = ImageFormat(type: type) else { return [] }
        do {
            let frames = try ImageCodec.validate(data, as: format, limits: limits)
            return frames > 1 ? ["\(source): an animated \(format.displayName) of \(frames) frames: its first frame is what converts"] : []
        } catch let error as ImageError {
            throw PasteboardError(.invalidData, "\(source): not a usable \(format.displayName) image: \(error.message); nothing was copied")
        }
    }

    /// Whether an image of `source` converts to `target` (another raster, HTML, RTF).
    static func canConvert(_ source: TypeIdentifier, _ target: TypeIdentifier) -> Bool {
        isImage(source) && (isImage(target) || target == .html || target == .rtf)
    }

    /// `data`, an image of `source`, as `target`: another raster format, an HTML `<img>` with a `data:`
    /// URL, or RTF with the picture embedded. `quality` (`--quality`) re-encodes JPEG and WebP at it,
    /// WebP lossy; without it JPEG and lossy WebP are written at 90 and a lossless source gives a
    /// lossless WebP (`ImageCodec.convert`).
    /// - Throws: ``PasteboardError`` `.invalidData` (exit 65) for an image that cannot be read or whose
    ///   conversion is over the memory cap.
    public static func convert(_ data: Data, from source: TypeIdentifier, to target: TypeIdentifier, quality: Int? = nil) throws -> Data {
        guard let from = ImageFormat(type: source) else {
            throw PasteboardError(.typeNotOffered, "cannot produce \(target) from \(source)")
        }
        do {
            // The bytes are read as what their content is (an owner may name a PNG image/bmp).
            if let to = ImageFormat(type: target) { return try ImageCodec.convert(data, to: to, quality: quality, limits: limits) }
            switch target {
            case .html: return try html(data, from)
            case .rtf: return try rtf(data, from)
            default: throw PasteboardError(.typeNotOffered, "an image converts to no \(target)")
            }
        } catch let error as ImageError {
            let verb = error.kind == .overMemoryCap ? "converted" : "read"
            throw PasteboardError(.invalidData, "the \(from.displayName) image cannot be \(verb): \(error.message)")
        }
    }

    /// An `<img>` whose `data:` URL holds the picture as it is where browsers show that format (PNG,
    /// JPEG, GIF, WebP), else as PNG; its size in CSS pixels.
    static func html(_ data: Data, _ format: ImageFormat) throws -> Data {
        let shown: (Data, ImageFormat) = [.png, .jpeg, .gif, .webp].contains(format) ? (data, format) : (try ImageCodec.convert(data, to: .png, limits: limits), .png)
        guard let size = ImageCodec.dimensions(shown.0) else { throw ImageError(.corrupt, "\(format.displayName): no size") }
        let mime = "image/" + shown.1.rawValue
        return Data("<img src=\"data:\(mime);base64,\(shown.0.base64EncodedString())\" width=\"\(size.width)\" height=\"\(size.height)\" alt=\"\">".utf8)
    }

    /// RTF holding the picture (`\pict\pngblip`, or `\jpegblip` for a JPEG as it is) with its size:
    /// `\picw`/`\pich` in pixels, `\picwgoal`/`\pichgoal` in twips at 96 dpi (15 twips a pixel), what
    /// Word, LibreOffice and TextEdit read.
    static func rtf(_ data: Data, _ format: ImageFormat) throws -> Data {
        let (bytes, blip): (Data, String) = format == .jpeg ? (data, "\\jpegblip") : (try ImageCodec.convert(data, to: .png, limits: limits), "\\pngblip")
        guard let size = ImageCodec.dimensions(bytes) else { throw ImageError(.corrupt, "\(format.displayName): no size") }
        var out = "{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Helvetica;}}\n{\\pict\(blip)\\picw\(size.width)\\pich\(size.height)"
        out += "\\picwgoal\(size.width * 15)\\pichgoal\(size.height * 15)\n"
        var bytesOut = Array(out.utf8)
        let digits = Array("0123456789abcdef".utf8)
        bytesOut.reserveCapacity(bytesOut.count + bytes.count * 2 + bytes.count / 64 + 8)
        var column = 0
        for byte in bytes {
            bytesOut.append(digits[Int(byte >> 4)])
            bytesOut.append(digits[Int(byte & 15)])
            column += 2
            if column == 128 {
                bytesOut.append(0x0A)
                column = 0
            }
        }
        bytesOut += Array("}\n\\par}\n".utf8)
        return Data(bytesOut)
    }

    /// The raster formats `--as` names (`png`, `jpeg`/`jpg`, `gif`, `bmp`, `tiff`/`tif`, `webp`).
    public static func type(named name: String) -> TypeIdentifier? {
        switch name.lowercased() {
        case "png": .png
        case "jpeg", "jpg": .jpeg
        case "gif": .gif
        case "bmp": .bmp
        case "tiff", "tif": .tiff
        case "webp": .webp
        default: nil
        }
    }

    /// The names ``type(named:)`` takes, for help.
    public static let namesDescription = "png, jpeg, gif, bmp, tiff, webp"
}

extension ImageRepresentations {
    /// A PNG of at most `maxSide` pixels a side showing the image `data` (a launcher's icon); nil when the
    /// bytes are no image pbctl reads.
    public static func thumbnail(_ data: Data, maxSide: Int = 128) -> Data? {
        guard let image = try? ImageCodec.decode(data, limits: limits) else { return nil }
        return try? ImageCodec.encode(image.scaledToFit(maxSide: maxSide), as: .png)
    }
}

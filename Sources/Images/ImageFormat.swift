#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The image formats pbctl reads and writes. PNG, JPEG and WebP go through their reference libraries
/// (CImage); BMP, GIF and baseline TIFF are read and written in Swift.
public enum ImageFormat: String, CaseIterable, Sendable {
    case png, jpeg, gif, bmp, tiff, webp

    /// The format of `data` from its content alone (the signature), never from a name: PNG's eight
    /// bytes, JPEG's SOI followed by a marker, `GIF87a`/`GIF89a`, `BM` with a plausible header size,
    /// `II*\0` or `MM\0*`, `RIFF` with `WEBP` at offset 8.
    public static func sniff(_ data: Data) -> ImageFormat? {
        let head = [UInt8](data.prefix(16))
        func starts(_ bytes: [UInt8]) -> Bool { head.starts(with: bytes) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(Array("RIFF".utf8)), head.count >= 12, Array(head[8..<12]) == Array("WEBP".utf8) { return .webp }
        // "BM" alone starts too much text ("BMW …"): the DIB header size at offset 14 must be one of
        // the known ones.
        if starts([0x42, 0x4D]), head.count >= 16 {
            let headerSize = UInt32(head[14]) | UInt32(head[15]) << 8
            if [12, 16, 40, 52, 56, 64, 108, 124].contains(headerSize) { return .bmp }
        }
        return nil
    }

    /// The type identifier of the format (`public.png`, `com.microsoft.bmp`, …).
    public var type: TypeIdentifier {
        switch self {
        case .png: .png
        case .jpeg: .jpeg
        case .gif: .gif
        case .bmp: .bmp
        case .tiff: .tiff
        case .webp: .webp
        }
    }

    /// The format of a type identifier, or nil when it is not one of these images.
    public init?(type: TypeIdentifier) {
        guard let format = Self.allCases.first(where: { $0.type == type }) else { return nil }
        self = format
    }

    /// The name messages use ("PNG", "JPEG", …).
    public var displayName: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .bmp: "BMP"
        case .tiff: "TIFF"
        case .webp: "WebP"
        }
    }

    /// Whether the format keeps every pixel as it was (WebP only when written lossless).
    public var isLossless: Bool { self != .jpeg && self != .webp }
}

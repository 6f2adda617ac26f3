#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decoding, encoding and converting images in memory (no file I/O: bytes in, bytes out).
///
/// Every decoder reads the declared size first and refuses, before it allocates a pixel, an image of
/// more than `ImageLimits.maxPixels`; every length and offset read from a file is range-checked, and
/// every loop over the input consumes bytes or ends. A failure is an `ImageError`, never a trap.
public enum ImageCodec {
    /// Decodes PNG, JPEG, GIF (the first frame), BMP, TIFF (the first image) or WebP (the first frame)
    /// to RGBA, the EXIF orientation applied.
    public static func decode(_ data: Data, limits: ImageLimits = ImageLimits()) throws -> RasterImage {
        try decodeDetailed(data, limits: limits).image
    }

    /// Decodes `data` as `format` whatever its signature says (the type it was offered under, a fuzzer's
    /// input): a file of another format is corrupt.
    public static func decode(_ data: Data, as format: ImageFormat, limits: ImageLimits = ImageLimits()) throws -> RasterImage {
        try decodeDetailed(data, as: format, limits: limits).image
    }

    static func decodeDetailed(_ data: Data, limits: ImageLimits) throws -> DecodedImage {
        guard let format = ImageFormat.sniff(data) else {
            if data.count > limits.maxInputBytes { throw inputTooLarge(data, limits) }
            throw ImageError(.unknownFormat, "not an image pbctl reads (PNG, JPEG, GIF, BMP, TIFF or WebP)")
        }
        return try decodeDetailed(data, as: format, limits: limits)
    }

    static func inputTooLarge(_ data: Data, _ limits: ImageLimits) -> ImageError {
        ImageError(.inputTooLarge, "the image is \(data.count) bytes, over the cap of \(limits.maxInputBytes) bytes")
    }

    static func decodeDetailed(_ data: Data, as format: ImageFormat, limits: ImageLimits) throws -> DecodedImage {
        guard data.count <= limits.maxInputBytes else { throw inputTooLarge(data, limits) }
        var decoded: DecodedImage
        switch format {
        case .png, .jpeg, .webp: decoded = try LibraryCodecs.decode(data, format: format, limits: limits)
        case .bmp: decoded = try data.withUnsafeBytes { try BMPCodec.decode($0, limits: limits) }
        case .gif: decoded = try data.withUnsafeBytes { try GIFCodec.decode($0, limits: limits) }
        case .tiff: decoded = try data.withUnsafeBytes { try TIFFCodec.decode($0, limits: limits) }
        }
        decoded.image = Orientation.apply(decoded.orientation, to: decoded.image)
        decoded.orientation = 1
        return decoded
    }

    /// Encodes `image` as `format`.
    ///
    /// - `quality` (1…100) is JPEG's and lossy WebP's quality.
    /// - `lossless`: WebP is lossy unless it is `true`; JPEG refuses `true`; GIF refuses `true` for an
    ///   image of more than 256 colours (otherwise it quantizes them). PNG, TIFF and BMP are always lossless.
    ///
    /// PNG and TIFF keep 16-bit channels; the other formats get 8 bits (rounded). JPEG has no alpha:
    /// translucent pixels are composited over white. The ICC profile goes into PNG, JPEG, WebP and TIFF.
    public static func encode(_ image: RasterImage, as format: ImageFormat, quality: Int = 90, lossless: Bool? = nil) throws -> Data {
        let quality = min(100, max(1, quality))
        switch format {
        case .png:
            return try LibraryCodecs.encodePNG(image)
        case .tiff:
            return TIFFCodec.encode(image, compression: .lzw)
        case .jpeg:
            if lossless == true { throw ImageError(.encodingFailed, "JPEG cannot be lossless") }
            let eight = image.eightBit()
            let rgbx = eight.hasAlpha ? compositedOverWhite(eight) : eight.pixels
            return try LibraryCodecs.encodeJPEG(rgbx, width: image.width, height: image.height, quality: quality,
                                                iccProfile: image.iccProfile)
        case .webp:
            return try LibraryCodecs.encodeWebP(image.eightBit(), quality: quality, lossless: lossless ?? false)
        case .bmp:
            return BMPCodec.encode(image.eightBit())
        case .gif:
            return try GIFCodec.encode(image.eightBit(), exactColours: lossless == true)
        }
    }

    /// Decodes `data` and encodes it as `format`. Bytes already in `format` come back unchanged (only
    /// their header read: no re-encoding loss, an animated GIF stays animated) unless their EXIF
    /// orientation turns them or their size is over the cap. A lossless source becomes a lossless WebP;
    /// a JPEG or lossy WebP a lossy one at `quality`.
    public static func convert(_ data: Data, to format: ImageFormat, quality: Int = 90, limits: ImageLimits = ImageLimits()) throws -> Data {
        if ImageFormat.sniff(data) == format, data.count <= limits.maxInputBytes,
            let size = header(data), size.orientation == 1, size.width.multipliedReportingOverflow(by: size.height).overflow == false,
            size.width * size.height <= limits.maxPixels
        {
            return data
        }
        let decoded = try decodeDetailed(data, limits: limits)
        return try encode(decoded.image, as: format, quality: quality, lossless: format == .webp ? decoded.lossless : nil)
    }

    /// Width and height as the image shows (an EXIF orientation that turns it by 90° swaps them), from
    /// the header alone: no pixel is decoded. Nil when the bytes are no image this module reads.
    public static func dimensions(_ data: Data) -> (width: Int, height: Int)? {
        guard let size = header(data) else { return nil }
        return size.orientation >= 5 ? (size.height, size.width) : (size.width, size.height)
    }

    static func header(_ data: Data) -> (width: Int, height: Int, orientation: Int)? {
        guard let format = ImageFormat.sniff(data) else { return nil }
        return header(data, as: format)
    }

    static func header(_ data: Data, as format: ImageFormat) -> (width: Int, height: Int, orientation: Int)? {
        switch format {
        case .png, .jpeg, .webp: return LibraryCodecs.header(data, format: format)
        case .bmp: return data.withUnsafeBytes { try? BMPCodec.header($0) }.map { ($0.width, $0.height, 1) }
        case .gif: return data.withUnsafeBytes { try? GIFCodec.header($0) }.map { ($0.width, $0.height, 1) }
        case .tiff: return data.withUnsafeBytes { try? TIFFCodec.header($0) }
        }
    }

    /// 8-bit RGBA with every pixel made opaque over white: c·a + 255·(1 − a), rounded.
    static func compositedOverWhite(_ image: RasterImage) -> Data {
        var out = PixelBuffer.zeroed(image.pixels.count)
        image.pixels.withUnsafeBytes { raw in
            let source = raw.bindMemory(to: UInt8.self)
            out.withUnsafeMutableBytes { target in
                let destination = target.bindMemory(to: UInt8.self)
                var i = 0
                while i < source.count {
                    let alpha = UInt32(source[i + 3])
                    let white = 255 * (255 - alpha) + 127
                    destination[i] = UInt8((UInt32(source[i]) * alpha + white) / 255)
                    destination[i + 1] = UInt8((UInt32(source[i + 1]) * alpha + white) / 255)
                    destination[i + 2] = UInt8((UInt32(source[i + 2]) * alpha + white) / 255)
                    destination[i + 3] = 255
                    i += 4
                }
            }
        }
        return out
    }
}

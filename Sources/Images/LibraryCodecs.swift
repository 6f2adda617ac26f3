import CImage
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a decoder hands `ImageCodec` before the EXIF orientation is applied.
struct DecodedImage {
    var image: RasterImage
    /// EXIF orientation 1…8 (1 when there is none).
    var orientation: Int
    /// Whether the source kept every pixel (PNG, GIF, BMP, TIFF, lossless WebP).
    var lossless: Bool
}

/// What a header says, for the caps: read before any pixel is decoded or allocated.
struct ImageProbe {
    var format: ImageFormat
    /// As stored, before the orientation turns it (a GIF's or WebP's canvas).
    var width: Int
    var height: Int
    /// Bits a channel of the source (8 or 16).
    var bits: Int
    var orientation: Int
    var lossless: Bool
    /// What the decoder allocates besides the pixels it returns (for a decode to 8 bits when the probe
    /// was asked for one).
    var decodeWork: Int
    /// What `ImageCodec.validate` allocates.
    var validateWork: Int
}

/// PNG, JPEG and WebP through CImage (libpng, libjpeg-turbo, libwebp). The C side checks the pixel
/// cap from the header before it allocates, and hands back malloc'd buffers that become `Data`
/// without a copy.
enum LibraryCodecs {
    typealias Decoder = (UnsafePointer<UInt8>?, Int, UInt64, Int32, UnsafeMutablePointer<cimage_decoded>?, UnsafeMutablePointer<cimage_status>?) -> Int32

    static func decoder(_ format: ImageFormat) -> Decoder {
        switch format {
        case .png: cimage_png_decode
        case .jpeg: cimage_jpeg_decode
        default: cimage_webp_decode
        }
    }

    static func error(_ status: cimage_status, _ format: ImageFormat) -> ImageError {
        let message = withUnsafeBytes(of: status.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let kind: ImageError.Kind =
            switch UInt32(status.code) {
            case CIMAGE_TRUNCATED.rawValue: .truncated
            case CIMAGE_TOO_MANY_PIXELS.rawValue: .tooManyPixels
            case CIMAGE_UNSUPPORTED.rawValue: .unsupported
            case CIMAGE_NO_MEMORY.rawValue: .outOfMemory
            case CIMAGE_ENCODE_FAILED.rawValue: .encodingFailed
            default: .corrupt
            }
        return ImageError(kind, message.isEmpty ? "\(format.displayName): decoding failed" : message)
    }

    /// Takes ownership of a malloc'd buffer as `Data` (freed with `free` when the last copy goes).
    static func adopt(_ pointer: UnsafeMutablePointer<UInt8>?, _ count: Int) -> Data? {
        guard let pointer, count > 0 else {
            cimage_free(pointer)
            return nil
        }
        return Data(bytesNoCopy: pointer, count: count, deallocator: .custom { pointer, _ in cimage_free(pointer) })
    }

    /// Decodes `data`: 16-bit samples kept as 16 unless `eightBit`. With `validate` every byte of the
    /// image data is decoded as a full decode would and nothing is kept: the result is nil.
    static func decode(_ data: Data, format: ImageFormat, limits: ImageLimits, eightBit: Bool, validate: Bool = false) throws -> DecodedImage? {
        var decoded = cimage_decoded()
        var status = cimage_status()
        let maxPixels = UInt64(max(0, limits.maxPixels))
        let flags = (eightBit ? Int32(CIMAGE_EIGHT_BIT) : 0) | (validate ? Int32(CIMAGE_VALIDATE) : 0)
        let code = data.withUnsafeBytes { raw in
            decoder(format)(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, maxPixels, flags, &decoded, &status)
        }
        guard code == 0 else { throw error(status, format) }
        if validate {
            cimage_decoded_free(&decoded)
            return nil
        }
        let width = Int(decoded.width), height = Int(decoded.height)
        let depth: RasterImage.Depth = decoded.bits == 16 ? .sixteen : .eight
        let icc = adopt(decoded.icc, decoded.icc_size)
        let exif = adopt(decoded.exif, decoded.exif_size)
        guard let pixels = PixelBuffer.adopt(decoded.pixels, decoded.pixels_size),
            width > 0, height > 0, pixels.count == width * height * (depth == .eight ? 4 : 8)
        else { throw ImageError.corrupt(format, "the decoder returned no pixels") }
        let image = RasterImage(width: width, height: height, depth: depth, pixels: pixels, iccProfile: icc,
                                frameCount: Int(decoded.frame_count))
        return DecodedImage(image: image, orientation: exif.map(Exif.orientation) ?? 1, lossless: decoded.lossless != 0)
    }

    /// Decodes every byte of the image data and keeps no pixel; the frame count.
    static func validate(_ data: Data, format: ImageFormat, limits: ImageLimits) throws -> Int {
        var decoded = cimage_decoded()
        var status = cimage_status()
        let flags = Int32(CIMAGE_EIGHT_BIT) | Int32(CIMAGE_VALIDATE)
        let code = data.withUnsafeBytes { raw in
            decoder(format)(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, UInt64(max(0, limits.maxPixels)), flags, &decoded, &status)
        }
        defer { cimage_decoded_free(&decoded) }
        guard code == 0 else { throw error(status, format) }
        return max(1, Int(decoded.frame_count))
    }

    /// What the header says (no pixel is decoded or allocated); nil when it cannot be read. The work
    /// estimates are for a decode at 8 bits when `eightBit`, else at the source's depth.
    static func probe(_ data: Data, format: ImageFormat, eightBit: Bool = true) -> ImageProbe? {
        var decoded = cimage_decoded()
        var status = cimage_status()
        let flags = Int32(CIMAGE_HEADER_ONLY) | (eightBit ? Int32(CIMAGE_EIGHT_BIT) : 0)
        let code = data.withUnsafeBytes { raw in
            decoder(format)(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, UInt64.max, flags, &decoded, &status)
        }
        defer { cimage_decoded_free(&decoded) }
        guard code == 0, decoded.width > 0, decoded.height > 0 else { return nil }
        var orientation = 1
        if let exif = decoded.exif, decoded.exif_size > 0 {
            orientation = Exif.orientation(Data(bytes: exif, count: decoded.exif_size))
        }
        return ImageProbe(format: format, width: Int(decoded.width), height: Int(decoded.height), bits: Int(decoded.bits),
                          orientation: orientation, lossless: decoded.lossless != 0,
                          decodeWork: Int(clamping: decoded.work_bytes), validateWork: Int(clamping: decoded.validate_work_bytes))
    }

    /// Width, height and orientation from the header alone (no pixel is decoded or allocated).
    static func header(_ data: Data, format: ImageFormat) -> (width: Int, height: Int, orientation: Int)? {
        probe(data, format: format).map { ($0.width, $0.height, $0.orientation) }
    }

    static func encoded(_ code: Int32, _ buffer: cimage_buffer, _ status: cimage_status, _ format: ImageFormat) throws -> Data {
        guard code == 0, let data = adopt(buffer.data, buffer.size) else {
            cimage_free(buffer.data)
            throw error(status, format)
        }
        return data
    }

    static func encodePNG(_ image: RasterImage) throws -> Data {
        var buffer = cimage_buffer()
        var status = cimage_status()
        let code = withICC(image.iccProfile) { icc, iccCount in
            image.pixels.withUnsafeBytes { raw in
                cimage_png_encode(raw.bindMemory(to: UInt8.self).baseAddress, UInt32(image.width), UInt32(image.height),
                                  UInt32(image.depth.rawValue), image.hasAlpha ? 1 : 0, icc, iccCount, &buffer, &status)
            }
        }
        return try encoded(code, buffer, status, .png)
    }

    /// 8-bit RGBA as JPEG; with `composite` each pixel is put over white as its rows are written (else
    /// the fourth byte is ignored).
    static func encodeJPEG(_ image: RasterImage, quality: Int, composite: Bool) throws -> Data {
        precondition(image.depth == .eight)
        var buffer = cimage_buffer()
        var status = cimage_status()
        let code = withICC(image.iccProfile) { icc, iccCount in
            image.pixels.withUnsafeBytes { raw in
                cimage_jpeg_encode(raw.bindMemory(to: UInt8.self).baseAddress, UInt32(image.width), UInt32(image.height), Int32(quality),
                                   composite ? 1 : 0, icc, iccCount, &buffer, &status)
            }
        }
        return try encoded(code, buffer, status, .jpeg)
    }

    /// 8-bit RGBA as WebP.
    static func encodeWebP(_ image: RasterImage, quality: Int, lossless: Bool) throws -> Data {
        precondition(image.depth == .eight)
        return try withICC(image.iccProfile) { icc, iccCount in
            try image.pixels.withUnsafeBytes { raw in
                try webp(UnsafeMutablePointer(mutating: raw.bindMemory(to: UInt8.self).baseAddress), image.width, image.height, quality,
                         lossless, inPlace: false, icc, iccCount)
            }
        }
    }

    /// 8-bit RGBA as WebP from an image the caller gives up (a conversion's own decode, passed with
    /// `consume`): libwebp takes its pixels as its ARGB where they are instead of a copy (4 bytes a
    /// pixel less), which leaves them garbage. Were they shared after all, `Data` copies them first.
    static func encodeWebP(consuming image: consuming RasterImage, quality: Int, lossless: Bool) throws -> Data {
        precondition(image.depth == .eight)
        let width = image.width, height = image.height, iccProfile = image.iccProfile
        var pixels = image.pixels
        _ = consume image
        return try withICC(iccProfile) { icc, iccCount in
            try pixels.withUnsafeMutableBytes { raw in
                try webp(raw.bindMemory(to: UInt8.self).baseAddress, width, height, quality, lossless, inPlace: true, icc, iccCount)
            }
        }
    }

    private static func webp(_ rgba: UnsafeMutablePointer<UInt8>?, _ width: Int, _ height: Int, _ quality: Int, _ lossless: Bool,
                             inPlace: Bool, _ icc: UnsafePointer<UInt8>?, _ iccCount: Int) throws -> Data {
        var buffer = cimage_buffer()
        var status = cimage_status()
        let code = cimage_webp_encode(rgba, UInt32(width), UInt32(height), Int32(quality), lossless ? 1 : 0, inPlace ? 1 : 0,
                                      icc, iccCount, &buffer, &status)
        return try encoded(code, buffer, status, .webp)
    }

    static func withICC<R>(_ icc: Data?, _ body: (UnsafePointer<UInt8>?, Int) throws -> R) rethrows -> R {
        guard let icc, !icc.isEmpty else { return try body(nil, 0) }
        return try icc.withUnsafeBytes { try body($0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
    }

    /// zlib-wrapped deflate read a piece at a time (TIFF strips, a row at a time).
    final class Inflater {
        let handle: OpaquePointer

        /// `source` must outlive the inflater.
        init(_ source: UnsafeRawBufferPointer) throws {
            guard let handle = cimage_inflater_new(source.bindMemory(to: UInt8.self).baseAddress, source.count) else {
                throw ImageError(.outOfMemory, "TIFF: out of memory for deflate")
            }
            self.handle = handle
        }

        deinit { cimage_inflater_free(handle) }

        /// The next `target.count` bytes of output, fewer only where the stream or its input ends.
        func read(into target: UnsafeMutableRawBufferPointer) throws -> Int {
            var produced = 0
            var status = cimage_status()
            let code = cimage_inflater_read(handle, target.bindMemory(to: UInt8.self).baseAddress, target.count, &produced, &status)
            guard code == 0 else { throw LibraryCodecs.error(status, .tiff) }
            return produced
        }
    }
}

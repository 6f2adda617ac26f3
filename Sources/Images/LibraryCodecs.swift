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

    static func decode(_ data: Data, format: ImageFormat, limits: ImageLimits) throws -> DecodedImage {
        var decoded = cimage_decoded()
        var status = cimage_status()
        let maxPixels = UInt64(max(0, limits.maxPixels))
        let code = data.withUnsafeBytes { raw in
            decoder(format)(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, maxPixels, 0, &decoded, &status)
        }
        guard code == 0 else { throw error(status, format) }
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

    /// Width, height and orientation from the header alone (no pixel is decoded or allocated).
    static func header(_ data: Data, format: ImageFormat) -> (width: Int, height: Int, orientation: Int)? {
        var decoded = cimage_decoded()
        var status = cimage_status()
        let code = data.withUnsafeBytes { raw in
            decoder(format)(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, UInt64.max, 1, &decoded, &status)
        }
        defer { cimage_decoded_free(&decoded) }
        guard code == 0, decoded.width > 0, decoded.height > 0 else { return nil }
        var orientation = 1
        if let exif = decoded.exif, decoded.exif_size > 0 {
            orientation = Exif.orientation(Data(bytes: exif, count: decoded.exif_size))
        }
        return (Int(decoded.width), Int(decoded.height), orientation)
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

    /// `rgbx`: 8-bit RGBA whose alpha the caller has composited (the fourth byte is ignored).
    static func encodeJPEG(_ rgbx: Data, width: Int, height: Int, quality: Int, iccProfile: Data?) throws -> Data {
        var buffer = cimage_buffer()
        var status = cimage_status()
        let code = withICC(iccProfile) { icc, iccCount in
            rgbx.withUnsafeBytes { raw in
                cimage_jpeg_encode(raw.bindMemory(to: UInt8.self).baseAddress, UInt32(width), UInt32(height), Int32(quality),
                                   icc, iccCount, &buffer, &status)
            }
        }
        return try encoded(code, buffer, status, .jpeg)
    }

    static func encodeWebP(_ image: RasterImage, quality: Int, lossless: Bool) throws -> Data {
        var buffer = cimage_buffer()
        var status = cimage_status()
        let code = withICC(image.iccProfile) { icc, iccCount in
            image.pixels.withUnsafeBytes { raw in
                cimage_webp_encode(raw.bindMemory(to: UInt8.self).baseAddress, UInt32(image.width), UInt32(image.height),
                                   Int32(quality), lossless ? 1 : 0, icc, iccCount, &buffer, &status)
            }
        }
        return try encoded(code, buffer, status, .webp)
    }

    static func withICC<R>(_ icc: Data?, _ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
        guard let icc, !icc.isEmpty else { return body(nil, 0) }
        return icc.withUnsafeBytes { body($0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
    }

    /// zlib-wrapped deflate into exactly `capacity` bytes at most (TIFF strips).
    static func inflate(_ source: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) throws -> Int {
        var produced = 0
        var status = cimage_status()
        let code = cimage_inflate(
            source.bindMemory(to: UInt8.self).baseAddress, source.count, target.bindMemory(to: UInt8.self).baseAddress,
            target.count, &produced, &status)
        guard code == 0 else { throw error(status, .tiff) }
        return produced
    }
}

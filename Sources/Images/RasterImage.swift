#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A decoded image: RGBA pixels, rows top-down without padding, each channel 8 bits or 16 bits (a
/// `UInt16` in the machine's byte order, only from 16-bit PNG and TIFF). Colour values are not
/// premultiplied by alpha. The EXIF orientation of the source is already applied.
public struct RasterImage: Sendable, Equatable {
    /// Bits a channel.
    public enum Depth: Int, Sendable {
        case eight = 8
        case sixteen = 16
    }

    public let width: Int
    public let height: Int
    public let depth: Depth
    /// `width * height * bytesPerPixel` bytes.
    public let pixels: Data
    /// The source's ICC colour profile, kept as it was and written into every format that holds one
    /// (PNG iCCP, JPEG APP2, WebP ICCP, TIFF tag 34675).
    public var iccProfile: Data?
    /// Frames in the source (animated GIF and WebP); `pixels` is the first, as it shows.
    public var frameCount: Int

    public var isAnimated: Bool { frameCount > 1 }
    public var bytesPerPixel: Int { depth == .eight ? 4 : 8 }
    public var bytesPerRow: Int { width * bytesPerPixel }

    /// `pixels` must hold exactly `width * height` RGBA pixels of `depth`.
    public init(width: Int, height: Int, depth: Depth = .eight, pixels: Data, iccProfile: Data? = nil, frameCount: Int = 1) {
        precondition(width > 0 && height > 0, "an image has at least one pixel")
        precondition(pixels.count == width * height * (depth == .eight ? 4 : 8), "pixels do not match \(width)x\(height)")
        self.width = width
        self.height = height
        self.depth = depth
        // The pixel loops read whole words: a slice starting at an odd address is copied once.
        let aligned = pixels.withUnsafeBytes { Int(bitPattern: $0.baseAddress) % 8 == 0 }
        self.pixels = aligned ? pixels : Data(pixels)
        self.iccProfile = iccProfile
        self.frameCount = max(1, frameCount)
    }

    /// Whether any pixel is less than opaque.
    public var hasAlpha: Bool {
        pixels.withUnsafeBytes { raw in
            switch depth {
            case .eight:
                let words = raw.bindMemory(to: UInt32.self)
                // Alpha is the fourth byte: the top byte of a little-endian word.
                let opaque = UInt32(littleEndian: 0xFF00_0000)
                var all = opaque
                for word in words { all &= word }
                return all & opaque != opaque
            case .sixteen:
                let samples = raw.bindMemory(to: UInt16.self)
                var all: UInt16 = 0xFFFF
                var index = 3
                while index < samples.count {
                    all &= samples[index]
                    index += 4
                }
                return all != 0xFFFF
            }
        }
    }

    /// The image at 8 bits a channel (each 16-bit sample rounded to the nearest 8-bit value).
    public func eightBit() -> RasterImage {
        guard depth == .sixteen else { return self }
        var out = PixelBuffer.zeroed(width * height * 4)
        pixels.withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: UInt16.self)
            out.withUnsafeMutableBytes { target in
                let bytes = target.bindMemory(to: UInt8.self)
                for i in 0..<samples.count {
                    bytes[i] = UInt8((UInt32(samples[i]) * 255 + 32767) / 65535)
                }
            }
        }
        return RasterImage(width: width, height: height, depth: .eight, pixels: out, iccProfile: iccProfile, frameCount: frameCount)
    }
}

/// What a decoder accepts: every cap is checked before the memory it guards is allocated.
public struct ImageLimits: Sendable, Equatable {
    /// At most this many pixels (width × height of the image, or of a GIF's or WebP's canvas),
    /// compared with the size the header declares, before any pixel exists. 100 megapixels is
    /// 400 MB of RGBA: more than any screen, a little over a 100-megapixel camera's frames.
    public var maxPixels: Int
    /// At most this many bytes of encoded input.
    public var maxInputBytes: Int
    /// At most this many bytes of buffers for one decode or conversion: the pixels at the depth the
    /// target needs, what the decoder and the encoder allocate besides (libjpeg's coefficients,
    /// libwebp's ARGB and YUV planes and its lossless encoder's tables, a GIF's palette indices, a BMP
    /// file's bytes, a turned copy for an EXIF orientation), estimated from the header's declared size
    /// before any of it is allocated (`ImageCodec.memoryNeeded`). The encoded output is not counted but
    /// for BMP, whose size the header fixes. 1 GiB: see `defaultMaxMemory`.
    public var maxMemory: Int

    public static let defaultMaxPixels = 100_000_000
    public static let defaultMaxInputBytes = 256 << 20
    /// 1 GiB. Debian's ImageMagick policy (memory 256 MiB, map 512 MiB, area 128 MP, width and height
    /// 16 KP) keeps up to 768 MiB of pixel cache in memory and maps before it spills to a disk cache,
    /// and counts neither its delegate libraries' buffers (libwebp's) nor its output. pbctl has no disk
    /// cache and counts the libraries' buffers too, so its one cap is a little above that: every
    /// conversion of an image at the pixel cap to PNG, JPEG, TIFF, GIF or BMP fits (at most 8 bytes a
    /// pixel, 16-bit PNG and TIFF kept at 16 bits included), lossy WebP up to about 60 MP, lossless
    /// WebP up to about 33 MP (an 8K screenshot just fits), and a tiny file declaring a huge image
    /// cannot make a conversion take gigabytes.
    public static let defaultMaxMemory = 1 << 30

    public init(maxPixels: Int = ImageLimits.defaultMaxPixels, maxInputBytes: Int = ImageLimits.defaultMaxInputBytes,
                maxMemory: Int = ImageLimits.defaultMaxMemory) {
        self.maxPixels = maxPixels
        self.maxInputBytes = maxInputBytes
        self.maxMemory = maxMemory
    }
}

/// Why an image could not be read or written, as one line naming the format.
public struct ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The input ends before the image does.
        case truncated
        /// The bytes are not a valid image of their format.
        case corrupt
        /// The declared size is over `ImageLimits.maxPixels` (refused before allocating).
        case tooManyPixels
        /// What the decode or conversion would allocate, estimated from the declared size, is over
        /// `ImageLimits.maxMemory` (refused before allocating).
        case overMemoryCap
        /// The input is over `ImageLimits.maxInputBytes`.
        case inputTooLarge
        /// A valid image of a variant pbctl does not handle (TIFF tiles, 12-bit JPEG, …).
        case unsupported
        /// The bytes are none of the formats in `ImageFormat`.
        case unknownFormat
        /// The target format cannot hold the image (JPEG over 65,500 pixels a side, …).
        case encodingFailed
        case outOfMemory
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    static func truncated(_ format: ImageFormat, _ detail: String = "the file ends inside the image") -> ImageError {
        ImageError(.truncated, "\(format.displayName): \(detail)")
    }

    static func corrupt(_ format: ImageFormat, _ detail: String) -> ImageError {
        ImageError(.corrupt, "\(format.displayName): \(detail)")
    }

    static func unsupported(_ format: ImageFormat, _ detail: String) -> ImageError {
        ImageError(.unsupported, "\(format.displayName): \(detail)")
    }

    /// The same words the C codecs use, so every format reports a cap the same way.
    static func tooManyPixels(_ format: ImageFormat, width: Int, height: Int, cap: Int) -> ImageError {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        let count = overflow ? "more than \(Int.max)" : "\(product)"
        return ImageError(.tooManyPixels, "\(format.displayName) declares \(width)x\(height) (\(count) pixels), over the cap of \(cap) pixels")
    }

    /// The memory cap's refusal, naming what was asked and how much it needs.
    static func overMemoryCap(_ format: ImageFormat, width: Int, height: Int, needed: Int, cap: Int, doing: String) -> ImageError {
        func mib(_ bytes: Int) -> String { "\((bytes + (1 << 20) - 1) >> 20) MiB" }
        return ImageError(.overMemoryCap, "\(format.displayName) of \(width)x\(height): \(doing) needs about \(mib(needed)), over the image memory cap of \(mib(cap)) (PBCTL_MAX_IMAGE_MEMORY)")
    }

    /// Checks a declared size against the cap: what every Swift decoder calls before it allocates.
    static func checkPixels(_ format: ImageFormat, width: Int, height: Int, limits: ImageLimits) throws {
        guard width > 0, height > 0 else { throw corrupt(format, "declares an empty image (\(width)x\(height))") }
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || product > limits.maxPixels {
            throw tooManyPixels(format, width: width, height: height, cap: limits.maxPixels)
        }
    }
}

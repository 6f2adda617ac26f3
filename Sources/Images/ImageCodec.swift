#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decoding, encoding and converting images in memory (no file I/O: bytes in, bytes out).
///
/// Every decoder reads the declared size first and refuses, before it allocates a pixel, an image of
/// more than `ImageLimits.maxPixels`; every decode and conversion is refused, before it allocates,
/// when what it would allocate (`memoryNeeded`, from the header) is over `ImageLimits.maxMemory`;
/// every length and offset read from a file is range-checked, and every loop over the input consumes
/// bytes or ends. A failure is an `ImageError`, never a trap.
public enum ImageCodec {
    /// JPEG and lossy WebP quality when none is asked.
    public static let defaultQuality = 90

    /// Decodes PNG, JPEG, GIF (the first frame), BMP, TIFF (the first image) or WebP (the first frame)
    /// to RGBA, the EXIF orientation applied; 16-bit PNG and TIFF stay 16-bit.
    public static func decode(_ data: Data, limits: ImageLimits = ImageLimits()) throws -> RasterImage {
        guard let format = ImageFormat.sniff(data) else { throw unknown(data, limits) }
        return try decode(data, as: format, limits: limits)
    }

    /// Decodes `data` as `format` whatever its signature says (the type it was offered under, a fuzzer's
    /// input): a file of another format is corrupt.
    public static func decode(_ data: Data, as format: ImageFormat, limits: ImageLimits = ImageLimits()) throws -> RasterImage {
        try decodeDetailed(data, as: format, limits: limits, eightBit: false).image
    }

    static func unknown(_ data: Data, _ limits: ImageLimits) -> ImageError {
        if data.count > limits.maxInputBytes { return inputTooLarge(data, limits) }
        return ImageError(.unknownFormat, "not an image pbctl reads (PNG, JPEG, GIF, BMP, TIFF or WebP)")
    }

    static func inputTooLarge(_ data: Data, _ limits: ImageLimits) -> ImageError {
        ImageError(.inputTooLarge, "the image is \(data.count) bytes, over the cap of \(limits.maxInputBytes) bytes")
    }

    /// What the header of `data`, read as `format`, says; nil when it cannot be read (a decode then
    /// says why). `eightBit`: the decoder's work is estimated for a decode to 8 bits.
    static func probe(_ data: Data, as format: ImageFormat, eightBit: Bool) -> ImageProbe? {
        switch format {
        case .png, .jpeg, .webp: return LibraryCodecs.probe(data, format: format, eightBit: eightBit)
        case .bmp: return data.withUnsafeBytes { try? BMPCodec.probe($0) }
        case .gif: return data.withUnsafeBytes { try? GIFCodec.probe($0) }
        case .tiff: return data.withUnsafeBytes { try? TIFFCodec.probe($0, eightBit: eightBit) }
        }
    }

    /// Decodes `data` as `format`, to 8 bits a channel when `eightBit` (16-bit samples rounded as
    /// `RasterImage.eightBit()` rounds them, never held at 16), after checking the memory cap.
    static func decodeDetailed(_ data: Data, as format: ImageFormat, limits: ImageLimits, eightBit: Bool) throws -> DecodedImage {
        guard data.count <= limits.maxInputBytes else { throw inputTooLarge(data, limits) }
        if let probe = probe(data, as: format, eightBit: eightBit) {
            try checkMemory(probe, eightBit: eightBit, target: nil, lossless: nil, limits: limits)
        }
        var decoded: DecodedImage
        switch format {
        case .png, .jpeg, .webp:
            guard let image = try LibraryCodecs.decode(data, format: format, limits: limits, eightBit: eightBit) else {
                throw ImageError.corrupt(format, "the decoder returned no pixels")
            }
            decoded = image
        case .bmp: decoded = try data.withUnsafeBytes { try BMPCodec.decode($0, limits: limits) }
        case .gif: decoded = try data.withUnsafeBytes { try GIFCodec.decode($0, limits: limits) }
        case .tiff: decoded = try data.withUnsafeBytes { try TIFFCodec.decode($0, limits: limits, eightBit: eightBit) }
        }
        decoded.image = Orientation.apply(decoded.orientation, to: decoded.image)
        decoded.orientation = 1
        return decoded
    }

    /// Whether `data` decodes as `format`, found as a decode would find it (truncation, corruption, the
    /// pixel cap) without keeping its pixels: every byte of the image data is decompressed and checked,
    /// into a few rows (a PNG row, a JPEG at an eighth of its size, a TIFF row, a GIF's or BMP's codes
    /// counted). Refused too when even a decode to 8 bits, what every conversion needs, is over the
    /// memory cap. What `pbctl copy` runs on an image before it replaces the clipboard.
    /// - Returns: the frames in the file (an animated GIF or WebP: its first frame is what converts).
    public static func validate(_ data: Data, as format: ImageFormat, limits: ImageLimits = ImageLimits()) throws -> Int {
        guard data.count <= limits.maxInputBytes else { throw inputTooLarge(data, limits) }
        if let probe = probe(data, as: format, eightBit: true) {
            try checkMemory(probe, eightBit: true, target: nil, lossless: nil, limits: limits)
            let validating = probe.validateWork
            if probe.width > 0, probe.height > 0, validating > limits.maxMemory {
                throw ImageError.overMemoryCap(format, width: probe.width, height: probe.height, needed: validating, cap: limits.maxMemory,
                                               doing: "reading it")
            }
        }
        switch format {
        case .png, .jpeg, .webp: return try LibraryCodecs.validate(data, format: format, limits: limits)
        case .bmp: return try data.withUnsafeBytes { try BMPCodec.validate($0, limits: limits) }
        case .gif: return try data.withUnsafeBytes { try GIFCodec.validate($0, limits: limits) }
        case .tiff: return try data.withUnsafeBytes { try TIFFCodec.validate($0, limits: limits) }
        }
    }

    /// Encodes `image` as `format`.
    ///
    /// - `quality` (1…100) is JPEG's and lossy WebP's quality.
    /// - `lossless`: WebP is lossy unless it is `true`; JPEG refuses `true`; GIF refuses `true` for an
    ///   image of more than 256 colours (otherwise it quantizes them). PNG, TIFF and BMP are always lossless.
    ///
    /// PNG and TIFF keep 16-bit channels; the other formats get 8 bits (rounded). JPEG has no alpha:
    /// translucent pixels are composited over white. The ICC profile goes into PNG, JPEG, WebP and TIFF.
    public static func encode(_ image: RasterImage, as format: ImageFormat, quality: Int = defaultQuality, lossless: Bool? = nil) throws -> Data {
        let quality = min(100, max(1, quality))
        switch format {
        case .png:
            return try LibraryCodecs.encodePNG(image)
        case .tiff:
            return TIFFCodec.encode(image, compression: .lzw)
        case .jpeg:
            if lossless == true { throw ImageError(.encodingFailed, "JPEG cannot be lossless") }
            let eight = image.eightBit()
            return try LibraryCodecs.encodeJPEG(eight, quality: quality, composite: eight.hasAlpha)
        case .webp:
            return try LibraryCodecs.encodeWebP(image.eightBit(), quality: quality, lossless: lossless ?? false)
        case .bmp:
            return BMPCodec.encode(image.eightBit())
        case .gif:
            return try GIFCodec.encode(image.eightBit(), exactColours: lossless == true)
        }
    }

    /// Decodes `data` and encodes it as `format`.
    ///
    /// Bytes already in `format` come back unchanged (only their header read: no re-encoding loss, an
    /// animated GIF stays animated) unless their EXIF orientation turns them, their size is over the
    /// cap, or `quality` is given for JPEG or WebP (an explicit quality is a request to encode at it).
    /// WebP: lossless from a lossless source (PNG, GIF, BMP, TIFF, lossless WebP) when no `quality` is
    /// given, else lossy at `quality` (default 90), as `cwebp -q` and ImageMagick's `-quality` do.
    /// A target of 8 bits a channel (JPEG, WebP, GIF, BMP) has a 16-bit PNG or TIFF decoded straight to
    /// 8 bits. Refused before anything is allocated when `memoryNeeded` is over `limits.maxMemory`.
    public static func convert(_ data: Data, to format: ImageFormat, quality: Int? = nil, limits: ImageLimits = ImageLimits()) throws -> Data {
        let sniffed = ImageFormat.sniff(data)
        let reencode = quality != nil && (format == .jpeg || format == .webp)
        if sniffed == format, !reencode, data.count <= limits.maxInputBytes,
            let size = header(data), size.orientation == 1, size.width > 0, size.height > 0,
            size.width.multipliedReportingOverflow(by: size.height).overflow == false,
            size.width * size.height <= limits.maxPixels
        {
            return data
        }
        guard let source = sniffed else { throw unknown(data, limits) }
        guard data.count <= limits.maxInputBytes else { throw inputTooLarge(data, limits) }
        let eightBit = format != .png && format != .tiff
        let probe = probe(data, as: source, eightBit: eightBit)
        let lossless: Bool? = format == .webp ? (quality == nil && (probe?.lossless ?? false)) : nil
        if let probe {
            // A size the target cannot hold is refused before the decode, not after it.
            let (width, height) = probe.orientation >= 5 ? (probe.height, probe.width) : (probe.width, probe.height)
            if let side = largestSide(format), width > 0, height > 0, width > side || height > side {
                throw ImageError(.encodingFailed, "\(format.displayName) cannot hold a \(width)x\(height) image (at most \(side) a side)")
            }
            try checkMemory(probe, eightBit: eightBit, target: format, lossless: lossless, limits: limits)
        }
        // The decode is this conversion's own: `image` holds its pixels' only reference, which the WebP
        // encoder takes over (libwebp then uses them in place as its ARGB, no copy).
        let (image, sourceLossless) = try { () throws -> (RasterImage, Bool) in
            let decoded = try decodeDetailed(data, as: source, limits: limits, eightBit: eightBit)
            return (decoded.image, decoded.lossless)
        }()
        let quality = min(100, max(1, quality ?? defaultQuality))
        if format == .webp {
            return try LibraryCodecs.encodeWebP(consuming: consume image, quality: quality, lossless: lossless ?? sourceLossless)
        }
        return try encode(image, as: format, quality: quality, lossless: nil)
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

    /// The most pixels a side `format` holds (JPEG's 65,500, WebP's 16,383, GIF's 65,535), nil when
    /// the pixel cap comes first.
    static func largestSide(_ format: ImageFormat) -> Int? {
        switch format {
        case .jpeg: 65500
        case .webp: 16383
        case .gif: 65535
        case .png, .bmp, .tiff: nil
        }
    }

    /// Refuses what `memoryNeeded` puts over the cap, naming what was asked.
    static func checkMemory(_ probe: ImageProbe, eightBit: Bool, target: ImageFormat?, lossless: Bool?, limits: ImageLimits) throws {
        let (area, overflow) = probe.width.multipliedReportingOverflow(by: probe.height)
        // An empty or negative size (BMP's are signed), or one over the pixel cap: the decoder's own
        // refusal says so.
        guard probe.width > 0, probe.height > 0, !overflow, area <= limits.maxPixels else { return }
        let needed = memoryNeeded(probe, eightBit: eightBit, target: target, lossless: lossless)
        guard needed > limits.maxMemory else { return }
        let doing: String
        switch target {
        case nil: doing = "decoding it"
        case .webp?: doing = "converting it to \(lossless == true ? "lossless" : "lossy") WebP"
        case let format?: doing = "converting it to \(format.displayName)"
        }
        throw ImageError.overMemoryCap(probe.format, width: probe.width, height: probe.height, needed: needed, cap: limits.maxMemory, doing: doing)
    }

    /// The bytes a decode (`target` nil) or a conversion to `target` allocates at its peak, from the
    /// header: the pixels at the depth decoded (4 bytes a pixel, 8 for 16-bit kept), the decoder's own
    /// buffers (`ImageProbe.decodeWork`), a turned copy for an EXIF orientation, and what the encoder
    /// allocates besides its output (`encodeWork`). Measured against the release binary's peak memory
    /// (docs/images.md): an estimate from above for the shapes measured, not an exact count.
    static func memoryNeeded(_ probe: ImageProbe, eightBit: Bool, target: ImageFormat?, lossless: Bool?) -> Int {
        let width = max(0, probe.width), height = max(0, probe.height)
        let area = times(width, height)
        let sixteen = probe.bits == 16 && !eightBit
        let pixels = times(area, sixteen ? 8 : 4)
        var total = plus(pixels, max(0, probe.decodeWork))
        if (2...8).contains(probe.orientation) { total = plus(total, pixels) }
        if let target {
            total = plus(total, encodeWork(target, width: width, height: height, sixteen: sixteen, lossless: lossless ?? false))
        }
        return total
    }

    /// What an encoder allocates for a width × height image besides the pixels it is given and the
    /// compressed bytes it writes: rows for PNG (libpng's filter rows) and JPEG (16 rows put over
    /// white, libjpeg's colour-converted band); the whole file for BMP (its size is fixed); palette
    /// indices and the LZW output's reserved room for GIF; for WebP, libwebp's planes and tables: lossy,
    /// the YUV and alpha planes and the VP8 encoder's tokens and per-macroblock state; lossless, the
    /// VP8L encoder's transformed copy, hash chain and backward references (libwebp 1.2, method 4,
    /// measured: `webpLossyBytesPerPixel`, `webpLosslessBytesPerPixel`). Saturates at `Int.max`.
    static func encodeWork(_ target: ImageFormat, width: Int, height: Int, sixteen: Bool, lossless: Bool) -> Int {
        let area = times(width, height), row = times(width, sixteen ? 8 : 4)
        switch target {
        case .png: return plus(times(row, 8), 1 << 20)
        case .jpeg: return plus(times(width, 16 * 4 + 48 * 3), 1 << 20)
        case .bmp: return plus(times(area, 4), 138)
        case .tiff: return plus(times(row, 4), 1 << 20)
        case .gif: return plus(times(area, 2), 1 << 20)
        case .webp: return plus(times(area, lossless ? webpLosslessBytesPerPixel : webpLossyBytesPerPixel), 4 << 20)
        }
    }

    /// Products and sums of sizes read from a header, saturating instead of trapping.
    static func times(_ a: Int, _ b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? Int.max : product
    }

    static func plus(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : sum
    }

    static let webpLossyBytesPerPixel = 13
    static let webpLosslessBytesPerPixel = 28

    /// 8-bit RGBA with every pixel made opaque over white: c·a + 255·(1 − a), rounded. The JPEG encoder
    /// does the same 16 rows at a time (CImage's jpeg_composite_row); the tests compare with this whole copy.
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

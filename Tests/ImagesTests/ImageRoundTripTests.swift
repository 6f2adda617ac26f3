import Foundation
import XCTest

@testable import Images

/// Every format pair: an image written as A, converted to B, read back and compared with what A held,
/// pixel by pixel where B is lossless, by PSNR where it is not.
final class ImageRoundTripTests: XCTestCase {
    /// Many colours and every alpha value: all but GIF keep it exactly.
    static let photo = Pixels.photo(width: 67, height: 41, alpha: true)
    /// At most 255 colours and alpha that is either 0 or 255: GIF keeps it exactly too.
    static let palette = Pixels.image(width: 53, height: 37) { x, y in
        if x < 6, y < 6 { return (0, 0, 0, 0) }
        return ((x / 4) * 19 % 256, (y / 4) * 23 % 256, (x / 4 + y / 4) % 2 * 100, 255)
    }

    /// What `format` keeps of `image`: everything, 8 bits (BMP, lossless WebP), binary alpha and the
    /// colours when there are few (GIF).
    static func kept(_ image: RasterImage, by format: ImageFormat) -> [UInt8] {
        var samples = Pixels.samples8(image)
        if format == .gif {
            for i in stride(from: 0, to: samples.count, by: 4) {
                samples[i + 3] = samples[i + 3] < 128 ? 0 : 255
            }
        }
        return Pixels.clearingTransparent(samples)
    }

    /// Pixels composited over white, as JPEG shows them.
    static func overWhite(_ image: RasterImage) -> [UInt8] {
        [UInt8](ImageCodec.compositedOverWhite(image.eightBit()))
    }

    func check(_ source: RasterImage, from a: ImageFormat, to b: ImageFormat, lossless: Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let encodedA = try ImageCodec.encode(source, as: a, lossless: a == .webp ? lossless : nil)
        let decodedA = try ImageCodec.decode(encodedA)
        // No --quality: JPEG and lossy WebP at 90, a lossless source as lossless WebP.
        let converted = try ImageCodec.convert(encodedA, to: b)
        XCTAssertEqual(ImageFormat.sniff(converted), b, "\(a) → \(b)", file: file, line: line)
        let decodedB = try ImageCodec.decode(converted)
        XCTAssertEqual(decodedB.width, source.width, file: file, line: line)
        XCTAssertEqual(decodedB.height, source.height, file: file, line: line)
        let label = "\(a) → \(b)"
        // Whether A kept the source's pixels (then GIF can keep a palette image's exactly).
        let exactA = lossless && a != .jpeg
        switch b {
        case .jpeg:
            let psnr = Pixels.psnr(Self.overWhite(decodedB), Self.overWhite(decodedA))
            XCTAssertGreaterThanOrEqual(psnr, 30, "\(label): PSNR \(psnr) dB", file: file, line: line)
        case .webp where a == .jpeg || (a == .webp && !lossless):
            // A lossy source becomes a lossy WebP: 4:2:0 always (JPEG keeps full chroma from quality
            // 90), so these small pictures of saturated colour blocks stay a little under 30 dB.
            let psnr = Pixels.psnr(Pixels.samples8(decodedB), Pixels.samples8(decodedA))
            XCTAssertGreaterThanOrEqual(psnr, 27, "\(label): PSNR \(psnr) dB", file: file, line: line)
        case .gif where !exactA:
            // Quantized: compare the colours of the opaque pixels by PSNR, alpha exactly.
            let ours = Self.kept(decodedB, by: .gif), theirs = Self.kept(decodedA, by: .gif)
            XCTAssertEqual(stride(from: 3, to: ours.count, by: 4).map { ours[$0] }, stride(from: 3, to: theirs.count, by: 4).map { theirs[$0] },
                           label, file: file, line: line)
            let psnr = Pixels.psnr(ours, theirs)
            XCTAssertGreaterThanOrEqual(psnr, 30, "\(label): PSNR \(psnr) dB", file: file, line: line)
        default:
            let ours = Self.kept(decodedB, by: b), theirs = Self.kept(decodedA, by: b)
            if let difference = Pixels.firstDifference(ours, theirs, width: source.width) {
                XCTFail("\(label): \(difference)", file: file, line: line)
            }
        }
    }

    /// 36 pairs, an image of many colours and graded alpha.
    func testEveryPairKeepsThePhoto() throws {
        for a in ImageFormat.allCases {
            for b in ImageFormat.allCases { try check(Self.photo, from: a, to: b, lossless: false) }
        }
    }

    /// 36 pairs, a palette image with binary alpha: every lossless pair is exact, GIF included.
    func testEveryPairKeepsThePaletteImageExactly() throws {
        for a in ImageFormat.allCases {
            for b in ImageFormat.allCases { try check(Self.palette, from: a, to: b, lossless: true) }
        }
    }

    /// The lossless targets keep every pixel and alpha, the colour under transparent pixels too.
    func testLosslessTargetsKeepEveryByte() throws {
        let source = Pixels.image(width: 31, height: 17) { x, y in ((x * 37) % 256, (y * 91) % 256, (x * y) % 256, (x + 3 * y) % 5 == 0 ? 0 : (x * 8) % 256) }
        for (format, lossless) in [(ImageFormat.png, nil), (.tiff, nil), (.bmp, nil), (.webp, true)] as [(ImageFormat, Bool?)] {
            let decoded = try ImageCodec.decode(ImageCodec.encode(source, as: format, lossless: lossless))
            XCTAssertEqual(decoded.pixels, source.pixels, "\(format)")
        }
    }

    func testSixteenBitsSurvivePNGAndTIFF() throws {
        let source = Pixels.image(width: 19, height: 11, depth: .sixteen) { x, y in (x * 3000 + 7, y * 5000 + 1, 65535 - x * y * 97, (x + y) * 2300) }
        for format in [ImageFormat.png, .tiff] {
            let decoded = try ImageCodec.decode(ImageCodec.encode(source, as: format))
            XCTAssertEqual(decoded.depth, .sixteen, "\(format)")
            XCTAssertEqual(decoded.pixels, source.pixels, "\(format)")
        }
        // Uncompressed TIFF too; 8-bit targets round each sample.
        XCTAssertEqual(try ImageCodec.decode(TIFFCodec.encode(source, compression: .none)).pixels, source.pixels)
        let bmp = try ImageCodec.decode(ImageCodec.encode(source, as: .bmp))
        XCTAssertEqual(bmp.pixels, source.eightBit().pixels)
    }

    func testICCProfileSurvivesEveryFormatThatHoldsOne() throws {
        let profile = try Fixtures.data("test.icc")
        var source = Self.photo
        source.iccProfile = profile
        for format in [ImageFormat.png, .jpeg, .webp, .tiff] {
            for lossless in format == .webp ? [false, true] : [false] {
                let decoded = try ImageCodec.decode(ImageCodec.encode(source, as: format, lossless: format == .webp ? lossless : nil))
                XCTAssertEqual(decoded.iccProfile, profile, "\(format) lossless \(lossless)")
            }
        }
    }

    func testUncompressedTIFFRoundTrips() throws {
        for source in [Self.photo, Self.palette, Pixels.photo(width: 5, height: 3, alpha: false)] {
            let decoded = try ImageCodec.decode(TIFFCodec.encode(source, compression: .none))
            XCTAssertEqual(decoded.pixels, source.pixels)
        }
    }

    /// Noise defeats LZW's dictionary: GIF and TIFF tables fill and clear many times, codes reach 12 bits.
    func testLZWTablesFillAndClear() throws {
        var random = SplitMix64(state: 42)
        let noise = Pixels.image(width: 211, height: 97) { _, _ in
            let v = random.next()
            return (Int(v & 0x0F) * 16, Int(v >> 8 & 0x0F) * 16, 0, 255)
        }
        let gif = try ImageCodec.encode(noise, as: .gif, lossless: true)
        XCTAssertEqual(try ImageCodec.decode(gif).pixels, noise.pixels)
        let tiff = TIFFCodec.encode(noise, compression: .lzw)
        XCTAssertEqual(try ImageCodec.decode(tiff).pixels, noise.pixels)
        // Long runs: strings near the 4096-byte limit.
        let flat = Pixels.image(width: 500, height: 300) { x, _ in (x < 250 ? 10 : 20, 0, 0, 255) }
        XCTAssertEqual(try ImageCodec.decode(ImageCodec.encode(flat, as: .gif)).pixels, flat.pixels)
        XCTAssertEqual(try ImageCodec.decode(ImageCodec.encode(flat, as: .tiff)).pixels, flat.pixels)
        // Every table width a small palette goes through, one image per minimum code size.
        for bits in 1...8 {
            let colours = 1 << bits
            let image = Pixels.image(width: 64, height: 64) { x, y in (((x * 7 + y * 13) % colours) * (255 / max(1, colours - 1)), bits, 0, 255) }
            XCTAssertEqual(try ImageCodec.decode(ImageCodec.encode(image, as: .gif, lossless: true)).pixels, image.pixels, "\(bits) bits")
        }
    }

    func testOnePixelImages() throws {
        let pixel = Pixels.image(width: 1, height: 1) { _, _ in (10, 20, 30, 40) }
        for format in ImageFormat.allCases {
            let decoded = try ImageCodec.decode(ImageCodec.encode(pixel, as: format, lossless: format == .webp ? true : nil))
            XCTAssertEqual(decoded.width, 1, "\(format)")
            XCTAssertEqual(decoded.height, 1, "\(format)")
        }
    }

    func testJPEGCompositesOverWhite() throws {
        let translucent = Pixels.image(width: 16, height: 16) { _, _ in (0, 0, 0, 0) }
        let decoded = try ImageCodec.decode(ImageCodec.encode(translucent, as: .jpeg))
        XCTAssertFalse(decoded.hasAlpha)
        XCTAssertTrue(Pixels.samples8(decoded).allSatisfy { $0 >= 250 }, "transparent black shows as white")
        XCTAssertThrowsError(try ImageCodec.encode(translucent, as: .jpeg, lossless: true))
    }

    func testGIFRefusesToQuantizeWhenAskedForLossless() throws {
        XCTAssertThrowsError(try ImageCodec.encode(Self.photo, as: .gif, lossless: true)) { error in
            XCTAssertEqual((error as? ImageError)?.kind, .encodingFailed)
        }
    }

    /// Bytes already in the target format come back as they were (an animation stays animated); an
    /// EXIF orientation is applied, so those are re-encoded.
    func testConvertToTheSameFormat() throws {
        let gif = try Fixtures.data("gif-animated.gif")
        XCTAssertEqual(try ImageCodec.convert(gif, to: .gif, quality: 90), gif)
        let rotated = try Fixtures.data("jpeg-orientation-6.jpg")
        let upright = try ImageCodec.convert(rotated, to: .jpeg, quality: 95)
        XCTAssertNotEqual(upright, rotated)
        XCTAssertEqual(ImageCodec.dimensions(upright)?.width, 12)
    }

    /// Without a quality, lossless sources make lossless WebP and JPEG makes lossy WebP; an explicit
    /// quality makes lossy WebP from either (ImageCostTests.testAnExplicitQualityMakesWebPLossy).
    func testConvertChoosesWebPLosslessnessFromTheSource() throws {
        let png = try ImageCodec.encode(Self.photo, as: .png)
        XCTAssertEqual(try ImageCodec.decode(ImageCodec.convert(png, to: .webp)).pixels, Self.photo.pixels)
        XCTAssertNotEqual(try ImageCodec.decode(ImageCodec.convert(png, to: .webp, quality: 50)).pixels, Self.photo.pixels)
        let lossy = try ImageCodec.convert(try Fixtures.data("jpeg-baseline.jpg"), to: .webp)
        XCTAssertEqual(Array(lossy[12..<16]), Array("VP8 ".utf8))
    }
}

extension ImageRoundTripTests {
    /// Large enough for libpng to write many IDAT chunks and choose every filter (None, Sub, Up,
    /// Average, Paeth) for some row: the fast path joins the chunks and undoes each filter exactly.
    func testPNGWithManyIDATChunksAndEveryFilter() throws {
        var random = SplitMix64(state: 9)
        for depth in [RasterImage.Depth.eight, .sixteen] {
            for alpha in [false, true] {
                let maximum = depth == .eight ? 255 : 65535
                let image = Pixels.image(width: 257, height: 190, depth: depth) { x, y in
                    let noise = Int(random.next() % 9)
                    let (r, g, b, a): (Int, Int, Int, Int)
                    switch y % 5 {
                    case 0: (r, g, b, a) = (x * 251, 0, maximum / 3, maximum - x)
                    case 1: (r, g, b, a) = (noise * 7, y * 3, x, x * y)
                    case 2: (r, g, b, a) = (x * x + y, noise, maximum - x, maximum / 2)
                    default: (r, g, b, a) = (x + noise, y * 7 + noise, x ^ y, maximum)
                    }
                    // Every sample within the depth: kept to its low bits.
                    return (r & maximum, g & maximum, b & maximum, alpha ? a & maximum : maximum)
                }
                let png = try ImageCodec.encode(image, as: .png)
                var chunks = 0
                var search = png.startIndex
                while let range = png[search...].firstRange(of: Data("IDAT".utf8)) {
                    chunks += 1
                    search = range.upperBound
                }
                XCTAssertGreaterThan(chunks, 1, "\(depth) alpha \(alpha)")
                XCTAssertEqual(try ImageCodec.decode(png).pixels, image.pixels, "\(depth) alpha \(alpha)")
            }
        }
    }
}

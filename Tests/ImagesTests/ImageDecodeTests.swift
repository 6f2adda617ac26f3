import Foundation
import XCTest

@testable import Images

/// Every fixture decoded by pbctl and compared with what ImageMagick decodes it to (expected/NAME.png).
final class ImageDecodeTests: XCTestCase {
    /// Where pbctl and ImageMagick round differently, by at most this much a sample: 5- and 6-bit BMP
    /// channels are scaled to the nearest 8-bit value (ImageMagick replicates bits), 4-bit ones too
    /// (ImageMagick shifts them), and premultiplied TIFF alpha is divided out with rounding.
    static let tolerance: [String: Int] = ["bmp-555.bmp": 1, "bmp-565.bmp": 1, "bmp-argb4444.bmp": 15, "tiff-associated-alpha.tif": 1]

    /// Lossy fixtures compare by PSNR (two decoders of the same JPEG may round differently); every
    /// other fixture pixel for pixel, alpha included (a fully transparent pixel's colour aside).
    func testEveryFixtureDecodesAsImageMagickDecodesIt() throws {
        var compared = 0
        for name in try Fixtures.names() {
            // A 32-bit BI_RGB BMP whose fourth bytes are all zero: ImageMagick reads it as transparent,
            // pbctl (as browsers) as opaque; testZeroFourthByteIsPadding checks it.
            guard name != "bmp-32-zero-fourth-byte.bmp", let expected = try Fixtures.expected(name) else { continue }
            let image: RasterImage
            do { image = try ImageCodec.decode(Fixtures.data(name)) } catch {
                XCTFail("\(name): \(error)")
                continue
            }
            XCTAssertEqual(image.width, expected.width, name)
            XCTAssertEqual(image.height, expected.height, name)
            guard image.width == expected.width, image.height == expected.height else { continue }
            if name.hasPrefix("jpeg") || name == "webp-lossy.webp" {
                let psnr = Pixels.psnr(Pixels.samples8(image), Pixels.samples8(expected))
                XCTAssertGreaterThan(psnr, 40, "\(name): PSNR \(psnr) dB against ImageMagick's decoding")
            } else if image.depth == .sixteen, expected.depth == .sixteen {
                XCTAssertEqual(Pixels.samples16(image), Pixels.samples16(expected), name)
            } else {
                let ours = Pixels.clearingTransparent(Pixels.samples8(image))
                let theirs = Pixels.clearingTransparent(Pixels.samples8(expected))
                if let tolerance = Self.tolerance[name] {
                    let worst = zip(ours, theirs).map { abs(Int($0) - Int($1)) }.max() ?? 0
                    XCTAssertLessThanOrEqual(worst, tolerance, name)
                } else if let difference = Pixels.firstDifference(ours, theirs, width: image.width) {
                    XCTFail("\(name): \(difference)")
                }
            }
            compared += 1
        }
        XCTAssertGreaterThan(compared, 50)
    }

    func testDepthFollowsTheSource() throws {
        XCTAssertEqual(try ImageCodec.decode(Fixtures.data("png-rgba16.png")).depth, .sixteen)
        XCTAssertEqual(try ImageCodec.decode(Fixtures.data("png-rgb16.png")).depth, .sixteen)
        XCTAssertEqual(try ImageCodec.decode(Fixtures.data("tiff-rgba16.tif")).depth, .sixteen)
        XCTAssertEqual(try ImageCodec.decode(Fixtures.data("png-rgba.png")).depth, .eight)
    }

    func testICCProfilesAreKept() throws {
        let profile = try Fixtures.data("test.icc")
        for name in ["png-icc.png", "jpeg-icc.jpg", "webp-icc.webp", "tiff-icc.tif"] {
            XCTAssertEqual(try ImageCodec.decode(Fixtures.data(name)).iccProfile, profile, name)
        }
        XCTAssertNil(try ImageCodec.decode(Fixtures.data("png-rgb.png")).iccProfile)
    }

    func testAnimationsShowTheirFirstFrameAndCountTheFrames() throws {
        for name in ["gif-animated.gif", "webp-animated.webp"] {
            let image = try ImageCodec.decode(Fixtures.data(name))
            XCTAssertEqual(image.frameCount, 3, name)
            XCTAssertTrue(image.isAnimated, name)
        }
        XCTAssertEqual(try ImageCodec.decode(Fixtures.data("tiff-two-pages.tif")).frameCount, 2)
        XCTAssertFalse(try ImageCodec.decode(Fixtures.data("gif-transparent.gif")).isAnimated)
    }

    /// The eight EXIF orientations on one asymmetric picture: each as ImageMagick's -auto-orient shows it.
    func testEveryEXIFOrientationIsApplied() throws {
        for n in 1...8 {
            let name = "jpeg-orientation-\(n).jpg"
            let image = try ImageCodec.decode(Fixtures.data(name))
            let expected = try XCTUnwrap(Fixtures.expected(name))
            XCTAssertEqual(image.width, n >= 5 ? 12 : 16, name)
            XCTAssertEqual(image.width, expected.width, name)
            XCTAssertEqual(image.height, expected.height, name)
            let psnr = Pixels.psnr(Pixels.samples8(image), Pixels.samples8(expected))
            XCTAssertGreaterThan(psnr, 40, "\(name): PSNR \(psnr)")
            let size = try XCTUnwrap(ImageCodec.dimensions(Fixtures.data(name)))
            XCTAssertEqual(size.width, image.width, name)
            XCTAssertEqual(size.height, image.height, name)
        }
    }

    /// RLE4 with a delta and an early end of bitmap (ImageMagick refuses the file): skipped pixels are
    /// transparent, the others their palette colour.
    func testRLE4DeltaLeavesSkippedPixelsTransparent() throws {
        let image = try ImageCodec.decode(Fixtures.data("bmp-rle4-delta.bmp"))
        XCTAssertEqual(image.width, 16)
        XCTAssertEqual(image.height, 6)
        let samples = Pixels.samples8(image)
        func pixel(_ x: Int, _ fileRow: Int) -> [UInt8] {
            let i = ((5 - fileRow) * 16 + x) * 4
            return Array(samples[i..<(i + 4)])
        }
        XCTAssertEqual(pixel(0, 0), [255, 0, 0, 255])
        XCTAssertEqual(pixel(1, 0), [0, 255, 0, 255])
        XCTAssertEqual(pixel(0, 1), [0, 0, 255, 255])  // absolute run: 3
        XCTAssertEqual(pixel(3, 2), [255, 255, 255, 255])
        XCTAssertEqual(pixel(4, 2), [0, 0, 0, 0])  // skipped by the delta
        XCTAssertEqual(pixel(7, 3), [0, 0, 0, 0])
        XCTAssertEqual(pixel(8, 3), [255, 0, 0, 255])
        XCTAssertEqual(pixel(4, 5), [0, 255, 0, 255])
        XCTAssertEqual(pixel(5, 5), [0, 0, 0, 0])  // after the end of the bitmap
    }

    /// 32-bit BI_RGB: a fourth byte that is zero everywhere is padding (opaque); one that varies is alpha.
    func testZeroFourthByteIsPadding() throws {
        let padded = try ImageCodec.decode(Fixtures.data("bmp-32-zero-fourth-byte.bmp"))
        let withAlpha = try ImageCodec.decode(Fixtures.data("bmp-32-alpha-bi-rgb.bmp"))
        let source = try ImageCodec.decode(Fixtures.data("png-rgba.png"))
        XCTAssertFalse(padded.hasAlpha)
        XCTAssertEqual(withAlpha, source)
        var opaque = Pixels.samples8(source)
        for i in stride(from: 3, to: opaque.count, by: 4) { opaque[i] = 255 }
        XCTAssertEqual(Pixels.samples8(padded), opaque)
    }

    func testTiledTIFFIsAnUnsupportedVariant() throws {
        XCTAssertThrowsError(try ImageCodec.decode(Fixtures.data("tiff-tiled.tif"))) { error in
            XCTAssertEqual((error as? ImageError)?.kind, .unsupported, "\(error)")
        }
    }

    func testDimensionsReadOnlyTheHeader() throws {
        for name in try Fixtures.names() where name != "tiff-tiled.tif" {
            let size = try XCTUnwrap(ImageCodec.dimensions(Fixtures.data(name)), name)
            let image = try ImageCodec.decode(Fixtures.data(name))
            XCTAssertEqual(size.width, image.width, name)
            XCTAssertEqual(size.height, image.height, name)
        }
        XCTAssertEqual(ImageCodec.dimensions(try Fixtures.data("bombs/png-100000x100000.png"))?.width, 100000)
        XCTAssertNil(ImageCodec.dimensions(Data("hello".utf8)))
    }

    func testSniffing() throws {
        let cases: [(String, ImageFormat)] = [
            ("png-rgb.png", .png), ("jpeg-baseline.jpg", .jpeg), ("gif87a.gif", .gif), ("gif-transparent.gif", .gif),
            ("bmp-24bit.bmp", .bmp), ("bmp-os2.bmp", .bmp), ("tiff-none.tif", .tiff), ("tiff-big-endian-rgba.tif", .tiff),
            ("webp-lossy.webp", .webp),
        ]
        for (name, format) in cases { XCTAssertEqual(ImageFormat.sniff(try Fixtures.data(name)), format, name) }
        XCTAssertNil(ImageFormat.sniff(Data("BMW 3 series".utf8)))
        XCTAssertNil(ImageFormat.sniff(Data("RIFF0000WAVEfmt ".utf8)))
        XCTAssertNil(ImageFormat.sniff(Data()))
    }
}

import Foundation
import XCTest

@testable import Images

/// Hostile input: decompression bombs, truncated, corrupt and random bytes. Each is an ImageError, never
/// a trap, and a declared size over the cap is refused before any pixel is allocated: the error says
/// the cap was exceeded (a decoder that allocated first would have answered otherwise, or not at all).
final class ImageErrorTests: XCTestCase {
    func kind(_ data: Data, limits: ImageLimits = ImageLimits()) -> ImageError.Kind? {
        do {
            _ = try ImageCodec.decode(data, limits: limits)
            return nil
        } catch let error as ImageError {
            XCTAssertFalse(error.message.contains("\n"))
            return error.kind
        } catch {
            XCTFail("not an ImageError: \(error)")
            return nil
        }
    }

    /// Tiny files declaring 100000x100000 PNG, 65000x65000 JPEG, 65535x65535 GIF, 50000x50000 BMP,
    /// 100000x100000 TIFF, and WebP at its largest (16384 a side, a 2^24 canvas).
    func testDecompressionBombsAreRefusedByThePixelCap() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.root.appendingPathComponent("bombs").path).sorted()
        XCTAssertEqual(names.count, 7)
        for name in names {
            let data = try Fixtures.data("bombs/" + name)
            XCTAssertLessThan(data.count, 8192, name)
            XCTAssertThrowsError(try ImageCodec.decode(data), name) { error in
                guard let error = error as? ImageError else { return XCTFail("\(name): \(error)") }
                XCTAssertEqual(error.kind, .tooManyPixels, "\(name): \(error)")
                XCTAssertTrue(error.message.contains("over the cap of 100000000 pixels"), "\(name): \(error)")
            }
        }
    }

    /// A cap below a fixture's 1,200 pixels refuses every format, through each decoder's own check.
    func testTheCapIsOverridable() throws {
        let limits = ImageLimits(maxPixels: 1000)
        for name in try Fixtures.names() where !name.hasPrefix("jpeg-orientation") && name != "bmp-rle4.bmp" && name != "bmp-rle4-delta.bmp" {
            XCTAssertEqual(kind(try Fixtures.data(name), limits: limits), .tooManyPixels, name)
        }
        XCTAssertNil(kind(try Fixtures.data("png-rgb.png"), limits: ImageLimits(maxPixels: 1200)))
        let bomb = try Fixtures.data("bombs/png-100000x100000.png")
        XCTAssertThrowsError(try ImageCodec.decode(bomb, limits: ImageLimits(maxPixels: 50_000_000))) { error in
            XCTAssertTrue("\(error)".contains("100000x100000 (10000000000 pixels), over the cap of 50000000 pixels"), "\(error)")
        }
    }

    func testInputOverTheByteCapIsRefused() throws {
        XCTAssertEqual(kind(try Fixtures.data("png-rgb.png"), limits: ImageLimits(maxInputBytes: 100)), .inputTooLarge)
    }

    /// Every still fixture cut at a quarter and at half its length. (Later cuts can leave the pixels
    /// whole: ImageMagick writes text chunks after a PNG's image data, and those may go.)
    func testTruncatedFilesAreErrors() throws {
        for name in try Fixtures.names() where !["gif-animated.gif", "tiff-two-pages.tif", "tiff-tiled.tif"].contains(name) {
            let data = try Fixtures.data(name)
            for cut in [data.count / 4, data.count / 2] {
                XCTAssertNotNil(kind(data.prefix(cut)), "\(name) cut to \(cut) of \(data.count) bytes decoded")
            }
        }
    }

    func testTruncationIsReportedAsSuch() throws {
        for name in ["png-rgba.png", "jpeg-baseline.jpg", "gif-transparent.gif", "bmp-24bit.bmp", "webp-lossless.webp", "tiff-none.tif"] {
            let data = try Fixtures.data(name)
            XCTAssertEqual(kind(data.prefix(data.count / 2)), .truncated, name)
        }
    }

    func testCorruptHeadersAreErrors() throws {
        var png = try Fixtures.data("png-rgb.png")
        png[20] ^= 0xFF  // IHDR's CRC no longer matches
        XCTAssertEqual(kind(png), .corrupt)
        var bmp = try Fixtures.data("bmp-24bit.bmp")
        bmp[14] = 99  // header size
        XCTAssertEqual(kind(bmp), .unknownFormat)
        bmp[14] = 40
        bmp[28] = 7  // bits a pixel
        XCTAssertEqual(kind(bmp), .unsupported)
        var tiff = try Fixtures.data("tiff-none.tif")
        tiff[4] = 0xF0  // IFD offset past the end
        tiff[5] = 0xFF
        XCTAssertEqual(kind(tiff), .truncated)
        // A 2x2 GIF whose LZW code size is 12, then one whose first code is not a colour.
        let gif = Array("GIF89a".utf8) + [2, 0, 2, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255, 0x2C, 0, 0, 0, 0, 2, 0, 2, 0, 0]
        XCTAssertEqual(kind(Data(gif + [12, 1, 0, 0, 0x3B])), .corrupt)
        XCTAssertEqual(kind(Data(gif + [2, 1, 0x07, 0, 0x3B])), .corrupt)
        XCTAssertNil(kind(Data(gif + [2, 2, 0x4C, 0x01, 0, 0x3B])))
        XCTAssertEqual(kind(Data("GIF89a".utf8)), .truncated)
        XCTAssertEqual(kind(Data("not an image".utf8)), .unknownFormat)
        XCTAssertEqual(kind(Data()), .unknownFormat)
    }

    /// Bytes flipped through every fixture: an image or an ImageError, never a trap or a hang.
    func testFlippedBytesNeverTrap() throws {
        var random = SplitMix64(state: 7)
        for name in try Fixtures.names() {
            let data = try Fixtures.data(name)
            for _ in 0..<30 {
                var damaged = data
                for _ in 0..<4 {
                    let offset = Int(random.next() % UInt64(data.count))
                    damaged[offset] = UInt8(truncatingIfNeeded: random.next())
                }
                _ = kind(damaged)
                _ = ImageCodec.dimensions(damaged)
            }
        }
    }

    /// Random bytes behind each format's signature.
    func testRandomBytesBehindEverySignature() throws {
        let signatures: [[UInt8]] = [
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0xFF, 0xD8, 0xFF], Array("GIF89a".utf8), Array("GIF87a".utf8),
            [0x42, 0x4D, 0, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0], [0x42, 0x4D, 0, 0, 0, 0, 0, 0, 0, 0, 26, 0, 0, 0, 12, 0],
            [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8L".utf8),
        ]
        var random = SplitMix64(state: 11)
        for signature in signatures {
            for length in [0, 1, 7, 30, 100, 1000, 5000] {
                for _ in 0..<20 {
                    let tail = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    let data = Data(signature + tail)
                    _ = kind(data)
                    _ = ImageCodec.dimensions(data)
                }
            }
        }
    }

    func testEncodersRefuseWhatTheirFormatCannotHold() throws {
        let wide = Pixels.image(width: 70000, height: 1) { _, _ in (0, 0, 0, 255) }
        for format in [ImageFormat.jpeg, .webp, .gif] {
            XCTAssertThrowsError(try ImageCodec.encode(wide, as: format), "\(format)") { error in
                XCTAssertEqual((error as? ImageError)?.kind, .encodingFailed, "\(format): \(error)")
            }
        }
    }
}

extension ImageErrorTests {
    /// A 12-bit JPEG (SOF1 with precision 12): valid, but not what libjpeg-turbo's 8-bit build reads.
    func testTwelveBitJPEGIsUnsupported() throws {
        var jpeg = try Fixtures.data("jpeg-baseline.jpg")
        let sof = try XCTUnwrap(jpeg.firstRange(of: Data([0xFF, 0xC0]))).lowerBound
        jpeg[sof + 1] = 0xC1
        jpeg[sof + 4] = 12
        XCTAssertEqual(kind(jpeg), .unsupported)
    }
}

extension ImageErrorTests {
    /// The fast PNG path (libdeflate) checks each IDAT CRC and the stream's length; on any surprise
    /// libpng decodes the file and reports the error as it would have.
    func testDamagedIDATFallsBackToLibpngsError() throws {
        var png = try Fixtures.data("png-rgb.png")
        let idat = try XCTUnwrap(png.firstRange(of: Data("IDAT".utf8))).upperBound
        png[idat + 10] ^= 0x55
        XCTAssertEqual(kind(png), .corrupt)
    }
}

import Foundation
import XCTest

@testable import Images

/// What pbctl writes, read by another decoder: ImageMagick (libpng, libjpeg-turbo, libwebp, libtiff and
/// its own GIF and BMP readers) decodes each file back to PNG, and the pixels must be the ones written.
/// Skipped where ImageMagick is not installed (`make test-deps` installs it).
final class ImageMagickAgreementTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/convert") else { throw XCTSkip("ImageMagick's convert is not installed") }
        work = FileManager.default.temporaryDirectory.appendingPathComponent("pbctl-images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    /// ImageMagick's decoding of `data` (written to a file named for `format`), as pbctl reads PNG.
    func imageMagickReads(_ data: Data, _ name: String, sixteen: Bool = false) throws -> RasterImage {
        let input = work.appendingPathComponent(name), output = work.appendingPathComponent(name + ".png")
        try data.write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
        process.arguments = [input.path + "[0]", (sixteen ? "PNG64:" : "PNG32:") + output.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "convert refused \(name)")
        return try ImageCodec.decode(Data(contentsOf: output))
    }

    func assertSame(_ read: RasterImage, _ source: RasterImage, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        let a = Pixels.clearingTransparent(Pixels.samples8(read)), b = Pixels.clearingTransparent(Pixels.samples8(source))
        if let difference = Pixels.firstDifference(a, b, width: source.width) { XCTFail("\(label): \(difference)", file: file, line: line) }
    }

    func testLosslessWritersAgree() throws {
        let photo = Pixels.photo(width: 97, height: 61, alpha: true)
        for (name, data) in [
            ("photo.png", try ImageCodec.encode(photo, as: .png)), ("photo.bmp", try ImageCodec.encode(photo, as: .bmp)),
            ("photo-lzw.tif", TIFFCodec.encode(photo, compression: .lzw)), ("photo-none.tif", TIFFCodec.encode(photo, compression: .none)),
            ("photo.webp", try ImageCodec.encode(photo, as: .webp, lossless: true)),
        ] {
            assertSame(try imageMagickReads(data, name), photo, name)
        }
        let opaque = Pixels.photo(width: 33, height: 21, alpha: false)
        for format in [ImageFormat.png, .tiff, .bmp] {
            assertSame(try imageMagickReads(ImageCodec.encode(opaque, as: format), "opaque." + format.rawValue), opaque, "opaque \(format)")
        }
    }

    func testSixteenBitWritersAgree() throws {
        let source = Pixels.image(width: 23, height: 13, depth: .sixteen) { x, y in (x * 2900 + 11, y * 5000 + 3, 65535 - x * y * 97, 65535 - x * 1000) }
        for format in [ImageFormat.png, .tiff] {
            let read = try imageMagickReads(ImageCodec.encode(source, as: format), "deep." + format.rawValue, sixteen: true)
            XCTAssertEqual(read.depth, .sixteen)
            XCTAssertEqual(read.pixels, source.pixels, "\(format)")
        }
    }

    /// GIF through every LZW code width, table resets included (noise), and with a transparent index.
    func testGIFWriterAgrees() throws {
        var random = SplitMix64(state: 3)
        let noise = Pixels.image(width: 301, height: 127) { x, y in
            let v = random.next()
            return x < 8 && y < 8 ? (0, 0, 0, 0) : (Int(v & 0x0F) * 17, Int(v >> 8 & 0x07) * 36, 0, 255)
        }
        assertSame(try imageMagickReads(ImageCodec.encode(noise, as: .gif, lossless: true), "noise.gif"), noise, "noise.gif")
        for bits in 1...8 {
            let colours = 1 << bits
            let image = Pixels.image(width: 61, height: 29) { x, y in (((x * 7 + y * 13) % colours) * (255 / max(1, colours - 1)), 9, 0, 255) }
            assertSame(try imageMagickReads(ImageCodec.encode(image, as: .gif, lossless: true), "bits\(bits).gif"), image, "\(bits) bits")
        }
    }

    func testTIFFLZWAgreesOnLongRunsAndNoise() throws {
        var random = SplitMix64(state: 5)
        let noise = Pixels.image(width: 257, height: 131) { _, _ in
            let v = random.next()
            return (Int(v & 0xFF), Int(v >> 8 & 0xFF), Int(v >> 16 & 0xFF), Int(v >> 24 & 0xFF))
        }
        assertSame(try imageMagickReads(TIFFCodec.encode(noise, compression: .lzw), "noise.tif"), noise, "noise.tif")
        let flat = Pixels.image(width: 700, height: 90) { x, _ in (x < 350 ? 10 : 20, 0, 0, 255) }
        assertSame(try imageMagickReads(TIFFCodec.encode(flat, compression: .lzw), "flat.tif"), flat, "flat.tif")
    }

    func testLossyWritersAgree() throws {
        let photo = Pixels.photo(width: 97, height: 61, alpha: true)
        let jpeg = try imageMagickReads(ImageCodec.encode(photo, as: .jpeg), "photo.jpg")
        let psnr = Pixels.psnr(Pixels.samples8(jpeg), [UInt8](ImageCodec.compositedOverWhite(photo)))
        XCTAssertGreaterThanOrEqual(psnr, 30, "JPEG: PSNR \(psnr)")
        let webp = try imageMagickReads(ImageCodec.encode(photo, as: .webp, quality: 90), "photo.webp")
        let webpPSNR = Pixels.psnr(Pixels.samples8(webp), Pixels.samples8(photo))
        // Lossy WebP compresses alpha too; this alpha changes every pixel (see ImageRoundTripTests).
        XCTAssertGreaterThanOrEqual(webpPSNR, 27, "WebP: PSNR \(webpPSNR)")
    }
}

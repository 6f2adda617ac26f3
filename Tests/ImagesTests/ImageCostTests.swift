import Foundation
import XCTest

@testable import Images

/// The cost of an image is bounded by what the output needs: tiny files declaring a huge image within
/// the pixel cap are refused by the memory cap before anything is allocated, or validated without
/// their pixels; 16-bit sources headed for an 8-bit target decode straight to 8 bits with the same
/// pixels as before; `--quality` makes WebP lossy. (Peak memory and time are measured on the release
/// binary by scripts/release-smoke.sh, never timed here.)
final class ImageCostTests: XCTestCase {
    // MARK: - Tiny bombs within the pixel cap, one a format

    /// A 35-byte GIF declaring 10000x10000: a 2-colour table and an LZW stream of clear, 0, end.
    static func gifBomb(_ width: Int = 10000, _ height: Int = 10000) -> Data {
        var out = Data("GIF89a".utf8)
        out += [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF]
        out += [0x2C, 0, 0, 0, 0, UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), 0]
        let codes = 4 | 0 << 3 | 5 << 6  // 3-bit codes: clear (4), 0, end (5)
        out += [2, 2, UInt8(codes & 0xFF), UInt8(codes >> 8), 0, 0x3B]
        return out
    }

    /// An RLE8 BMP declaring `width`x`height`: a 256-entry palette and one end-of-bitmap escape.
    static func bmpRLEBomb(_ width: Int = 10000, _ height: Int = 10000) -> Data {
        var out = ByteWriter()
        let offset = 14 + 40 + 1024
        out.ascii("BM")
        out.u32le(offset + 2)
        out.u32le(0)
        out.u32le(offset)
        for value in [40, width, height] { out.u32le(value) }
        out.u16le(1)
        out.u16le(8)
        for value in [1, 2, 2835, 2835, 256, 0] { out.u32le(value) }
        out.append(repeatElement(0, count: 1024))
        out.append([0, 1])
        return Data(out.bytes)
    }

    /// A zlib stream of `count` zero bytes: fixed-Huffman deflate, a literal 0 then matches of 258 at
    /// distance 1 (13 bits each), what a bomb needs without a compressor.
    static func zlibZeros(_ count: Int) -> Data {
        var bytes: [UInt8] = [0x78, 0x01]
        var bits: UInt64 = 0, bitCount = 0
        func put(_ value: Int, _ length: Int) {
            bits |= UInt64(value) << UInt64(bitCount)
            bitCount += length
            while bitCount >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
                bitCount -= 8
            }
        }
        // Fixed Huffman codes are sent most significant bit first.
        func huffman(_ code: Int, _ length: Int) {
            var reversed = 0
            for i in 0..<length where code & (1 << i) != 0 { reversed |= 1 << (length - 1 - i) }
            put(reversed, length)
        }
        put(1, 1)  // final block
        put(1, 2)  // fixed Huffman
        huffman(0x30, 8)  // literal 0
        var left = count - 1
        // Lengths 3…258 by code 257…285 and extra bits; distance code 0 (distance 1).
        func match(_ length: Int) {
            let table: [(code: Int, base: Int, extra: Int)] = [
                (257, 3, 0), (258, 4, 0), (259, 5, 0), (260, 6, 0), (261, 7, 0), (262, 8, 0), (263, 9, 0), (264, 10, 0),
                (265, 11, 1), (266, 13, 1), (267, 15, 1), (268, 17, 1), (269, 19, 2), (270, 23, 2), (271, 27, 2), (272, 31, 2),
                (273, 35, 3), (274, 43, 3), (275, 51, 3), (276, 59, 3), (277, 67, 4), (278, 83, 4), (279, 99, 4), (280, 115, 4),
                (281, 131, 5), (282, 163, 5), (283, 195, 5), (284, 227, 5), (285, 258, 0),
            ]
            let entry = table.last { $0.base <= length }!
            if entry.code < 280 { huffman(entry.code - 256, 7) } else { huffman(entry.code - 280 + 0xC0, 8) }
            if entry.extra > 0 { put(length - entry.base, entry.extra) }
            huffman(0, 5)
        }
        while left >= 258 + 3 || left == 258 {
            match(258)
            left -= 258
        }
        while left > 0 {
            if left >= 3 {
                let length = min(left, 258)
                match(length)
                left -= length
            } else {
                huffman(0x30, 8)
                left -= 1
            }
        }
        huffman(0, 7)  // end of block
        if bitCount > 0 { bytes.append(UInt8(truncatingIfNeeded: bits)) }
        let adler = UInt32(count % 65521) << 16 | 1
        bytes += [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        return Data(bytes)
    }

    static func pngChunk(_ type: String, _ data: Data) -> Data {
        var out = Data()
        let length = UInt32(data.count)
        out += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        let body = Data(type.utf8) + data
        out += body
        let crc = crc32(body)
        out += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return out
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    static func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    /// A 16-bit RGBA PNG of zeros declaring `side`x`side` (the 777 KB file of the report is 10000x10000
    /// compressed by zlib; this stream is fixed-Huffman, a few times larger for the same image).
    static func png16Bomb(_ side: Int) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png += pngChunk("IHDR", Data(be32(side) + be32(side) + [16, 6, 0, 0, 0]))
        png += pngChunk("IDAT", zlibZeros((side * 8 + 1) * side))
        png += pngChunk("IEND", Data())
        return png
    }

    /// An 8-bit gray TIFF of zeros declaring `side`x`side`, one deflate strip.
    static func tiffBomb(_ side: Int) -> Data {
        let strip = zlibZeros(side * side)
        var out = ByteWriter()
        out.ascii("II")
        out.u16le(42)
        let ifd = 8 + strip.count + strip.count % 2
        out.u32le(ifd)
        out.append(strip)
        if strip.count % 2 == 1 { out.u8(0) }
        let entries: [(Int, Int, Int)] = [(256, 4, side), (257, 4, side), (258, 3, 8), (259, 3, 8), (262, 3, 1), (273, 4, 8), (277, 3, 1),
                                          (278, 4, side), (279, 4, strip.count)]
        out.u16le(entries.count)
        for (tag, type, value) in entries {
            out.u16le(tag)
            out.u16le(type)
            out.u32le(1)
            out.u32le(value)
        }
        out.u32le(0)
        return Data(out.bytes)
    }

    func assertOverMemoryCap(_ body: @autoclosure () throws -> Any, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), what, file: file, line: line) { error in
            guard let error = error as? ImageError else { return XCTFail("\(what): \(error)", file: file, line: line) }
            XCTAssertEqual(error.kind, .overMemoryCap, "\(what): \(error)", file: file, line: line)
            XCTAssertTrue(error.message.contains("over the image memory cap of"), "\(what): \(error)", file: file, line: line)
        }
    }

    /// The report's shapes (a 35-byte GIF, a 1 KB RLE BMP, a deflate TIFF and a 16-bit PNG, each within
    /// the pixel cap): validated without their pixels, refused as WebP by the default memory cap (which
    /// a decoder that allocated first could not have said), and refused for every target under a small cap.
    func testTinyBombsWithinThePixelCapAreValidatedCheaplyOrRefused() throws {
        let shapes: [(String, Data, ImageFormat)] = [
            ("GIF 10000x10000", Self.gifBomb(), .gif),
            ("BMP RLE 10000x10000", Self.bmpRLEBomb(), .bmp),
            ("TIFF 4000x4000", Self.tiffBomb(4000), .tiff),
            ("PNG 16-bit 2000x2000", Self.png16Bomb(2000), .png),
        ]
        for (name, data, format) in shapes {
            XCTAssertEqual(ImageFormat.sniff(data), format, name)
            XCTAssertEqual(try ImageCodec.validate(data, as: format), 1, name)
            let small = ImageLimits(maxMemory: 8 << 20)
            assertOverMemoryCap(try ImageCodec.decode(data, limits: small), "\(name) decoded")
            for target in ImageFormat.allCases where target != format {
                assertOverMemoryCap(try ImageCodec.convert(data, to: target, limits: small), "\(name) as \(target)")
            }
            // Validation needs rows, not the image: it passes under the small cap only where the decode
            // itself fits (a copy refuses what no paste could convert), so under a cap just above it.
            let probe = try XCTUnwrap(ImageCodec.probe(data, as: format, eightBit: true), name)
            XCTAssertLessThan(probe.validateWork, 1 << 20, name)
        }
        assertOverMemoryCap(try ImageCodec.convert(Self.gifBomb(), to: .webp), "the GIF as WebP, default cap")
        assertOverMemoryCap(try ImageCodec.convert(Self.bmpRLEBomb(), to: .webp), "the BMP as WebP, default cap")
        // The copy-time check: a decode to 8 bits that does not fit refuses the copy.
        assertOverMemoryCap(try ImageCodec.validate(Self.gifBomb(), as: .gif, limits: ImageLimits(maxMemory: 64 << 20)), "GIF validated, 64 MiB")
    }

    /// A 23 KB progressive JPEG and a 208-byte lossless WebP, 2000x2000 each (the fuzz seeds): the
    /// estimate counts libjpeg's coefficient arrays (64 two-byte values a block) and libwebp's ARGB copy
    /// of lossless data, so a cap just above the pixels refuses them before the libraries allocate.
    func testJPEGAndWebPBombsCountTheirLibrariesBuffers() throws {
        let corpus = Fixtures.root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")
        let jpeg = try Data(contentsOf: corpus.appendingPathComponent("image-jpeg/jpeg-progressive-2000x2000-black.jpg"))
        let webp = try Data(contentsOf: corpus.appendingPathComponent("image-webp/webp-lossless-2000x2000-transparent.webp"))
        for (name, data, format) in [("JPEG", jpeg, ImageFormat.jpeg), ("WebP", webp, .webp)] {
            let probe = try XCTUnwrap(ImageCodec.probe(data, as: format, eightBit: true), name)
            XCTAssertEqual(probe.width * probe.height, 4_000_000, name)
            XCTAssertGreaterThanOrEqual(probe.decodeWork, 2 * 4_000_000, "\(name): the library's own buffers")
            XCTAssertEqual(try ImageCodec.validate(data, as: format), 1, name)
            let pixelsOnly = ImageLimits(maxMemory: 4_000_000 * 4 + (1 << 20))
            assertOverMemoryCap(try ImageCodec.decode(data, limits: pixelsOnly), "\(name) decoded with room for its pixels only")
            XCTAssertNoThrow(try ImageCodec.decode(data, limits: ImageLimits(maxMemory: 64 << 20)), name)
        }
    }

    /// A BMP's size is signed: a negative width times a positive height is a negative area, under any
    /// cap. The estimate saturates instead of trapping, and the decoder says the size is empty (found
    /// by the image-bmp fuzz target, Tests/Fuzz/regressions/image-bmp).
    func testNegativeAndHugeDeclaredSizesNeverTrap() throws {
        var bmp = Self.bmpRLEBomb()
        for (offset, value) in [(18, UInt32(0xA1A1_A110)), (22, UInt32(0x5E5E_5E5F))] {
            for i in 0..<4 { bmp[offset + i] = UInt8(value >> (8 * UInt32(i)) & 0xFF) }
        }
        for target in ImageFormat.allCases {
            XCTAssertThrowsError(try ImageCodec.convert(bmp, to: target)) { XCTAssertEqual(($0 as? ImageError)?.kind, .corrupt, "\($0)") }
        }
        XCTAssertThrowsError(try ImageCodec.validate(bmp, as: .bmp)) { XCTAssertEqual(($0 as? ImageError)?.kind, .corrupt, "\($0)") }
        let huge = ImageProbe(format: .tiff, width: Int.max / 2, height: 3, bits: 16, orientation: 6, lossless: true,
                              decodeWork: Int.max, validateWork: Int.max)
        for target in ImageFormat.allCases {
            XCTAssertEqual(ImageCodec.memoryNeeded(huge, eightBit: false, target: target, lossless: true), Int.max)
        }
    }

    /// Estimates grow with what the conversion allocates: 16 bits kept costs twice 8, lossless WebP more
    /// than lossy, BMP its whole file, an EXIF turn a second image.
    func testMemoryNeededFollowsTheBuffers() throws {
        let probe = ImageProbe(format: .png, width: 1000, height: 1000, bits: 16, orientation: 1, lossless: true, decodeWork: 0, validateWork: 0)
        let eight = ImageCodec.memoryNeeded(probe, eightBit: true, target: nil, lossless: nil)
        XCTAssertEqual(eight, 4_000_000)
        XCTAssertEqual(ImageCodec.memoryNeeded(probe, eightBit: false, target: nil, lossless: nil), 8_000_000)
        let lossy = ImageCodec.memoryNeeded(probe, eightBit: true, target: .webp, lossless: false)
        let lossless = ImageCodec.memoryNeeded(probe, eightBit: true, target: .webp, lossless: true)
        XCTAssertGreaterThan(lossless, lossy)
        XCTAssertGreaterThanOrEqual(ImageCodec.memoryNeeded(probe, eightBit: true, target: .bmp, lossless: nil), 2 * eight)
        var turned = probe
        turned.orientation = 6
        XCTAssertEqual(ImageCodec.memoryNeeded(turned, eightBit: true, target: nil, lossless: nil), 2 * eight)
    }

    /// What README and `ImageLimits.defaultMaxMemory` promise of the default cap: an image at the pixel
    /// cap converts to PNG, JPEG, TIFF, GIF and BMP (16-bit kept for PNG and TIFF), an 8K screenshot to
    /// lossless WebP, 60 MP to lossy WebP; the 10000x10000 bombs do not go to WebP.
    func testTheDefaultCapAdmitsWhatTheDocsSay() {
        let cap = ImageLimits.defaultMaxMemory
        func probe(_ width: Int, _ height: Int, bits: Int = 8) -> ImageProbe {
            ImageProbe(format: .png, width: width, height: height, bits: bits, orientation: 1, lossless: true, decodeWork: 1 << 20, validateWork: 1 << 20)
        }
        for target in [ImageFormat.png, .jpeg, .tiff, .gif, .bmp] {
            XCTAssertLessThanOrEqual(ImageCodec.memoryNeeded(probe(10000, 10000), eightBit: true, target: target, lossless: nil), cap, "\(target)")
        }
        for target in [ImageFormat.png, .tiff] {
            XCTAssertLessThanOrEqual(ImageCodec.memoryNeeded(probe(10000, 10000, bits: 16), eightBit: false, target: target, lossless: nil), cap)
        }
        XCTAssertLessThanOrEqual(ImageCodec.memoryNeeded(probe(7680, 4320), eightBit: true, target: .webp, lossless: true), cap)
        XCTAssertLessThanOrEqual(ImageCodec.memoryNeeded(probe(9000, 6666), eightBit: true, target: .webp, lossless: false), cap)
        XCTAssertGreaterThan(ImageCodec.memoryNeeded(probe(10000, 10000), eightBit: true, target: .webp, lossless: false), cap)
    }

    /// Validation finds what a decode finds: every fixture and its cuts succeed or fail alike, with the
    /// same kind of error.
    func testValidationAgreesWithDecoding() throws {
        var names = try Fixtures.names().map { ($0, try Fixtures.data($0)) }
        names += try ["png-gray16.png", "png-rgb16-trns.png", "png-rgba16-interlaced.png", "tiff-gray16-deflate.tif", "tiff-rgb16-lzw-predictor.tif"]
            .map { ($0, try Fixtures.data("sixteen/" + $0)) }
        for (name, data) in names {
            guard let format = ImageFormat.sniff(data) else { continue }
            for cut in [data.count, data.count / 4, data.count / 2, data.count * 3 / 4, data.count - 1] {
                let bytes = data.prefix(cut)
                let decoded = Result { try ImageCodec.decode(bytes, as: format) }
                let validated = Result { try ImageCodec.validate(bytes, as: format) }
                switch (decoded, validated) {
                case (.success(let image), .success(let frames)):
                    XCTAssertEqual(image.frameCount, frames, "\(name) cut to \(cut)")
                case (.failure(let a), .failure(let b)):
                    XCTAssertEqual((a as? ImageError)?.kind, (b as? ImageError)?.kind, "\(name) cut to \(cut): \(a) / \(b)")
                default:
                    XCTFail("\(name) cut to \(cut) of \(data.count): decode \(decoded), validate \(validated)")
                }
            }
        }
    }

    // MARK: - 16 bits to 8

    /// A 16-bit PNG or TIFF headed for an 8-bit target decodes straight to 8 bits (libpng's scaling, the
    /// TIFF reader's rounding): the same pixels as the 16-bit decode rounded by `eightBit()`, and the
    /// same files out as before, when the 16-bit image was decoded whole and then rounded.
    func testSixteenBitSourcesDecodeStraightToTheSameEightBits() throws {
        var sources = try ["png-rgb16.png", "png-rgba16.png", "tiff-rgba16.tif"].map { ($0, try Fixtures.data($0)) }
        sources += try ["png-gray16.png", "png-rgb16-trns.png", "png-rgba16-interlaced.png", "tiff-gray16-deflate.tif", "tiff-rgb16-lzw-predictor.tif"]
            .map { ($0, try Fixtures.data("sixteen/" + $0)) }
        // Every 16-bit value once, in a PNG written by pbctl (the fast path) and a TIFF.
        var samples = [UInt16](repeating: 0, count: 256 * 256 * 4)
        for i in 0..<65536 {
            samples[4 * i] = UInt16(i)
            samples[4 * i + 1] = UInt16(65535 - i)
            samples[4 * i + 2] = UInt16(i &* 7 & 0xFFFF)
            samples[4 * i + 3] = UInt16((i &* 13) & 0xFFFF)
        }
        let every = RasterImage(width: 256, height: 256, depth: .sixteen, pixels: samples.withUnsafeBytes { Data($0) })
        sources.append(("every value (PNG)", try ImageCodec.encode(every, as: .png)))
        sources.append(("every value (TIFF)", try ImageCodec.encode(every, as: .tiff)))
        for (name, data) in sources {
            let format = try XCTUnwrap(ImageFormat.sniff(data), name)
            let sixteen = try ImageCodec.decode(data, as: format)
            XCTAssertEqual(sixteen.depth, .sixteen, name)
            let direct = try ImageCodec.decodeDetailed(data, as: format, limits: ImageLimits(), eightBit: true).image
            XCTAssertEqual(direct.depth, .eight, name)
            XCTAssertEqual(direct, sixteen.eightBit(), name)
            for target in [ImageFormat.jpeg, .bmp, .gif] {
                XCTAssertEqual(try ImageCodec.convert(data, to: target), try ImageCodec.encode(sixteen, as: target), "\(name) as \(target)")
            }
            XCTAssertEqual(try ImageCodec.convert(data, to: .webp), try ImageCodec.encode(sixteen, as: .webp, lossless: true), "\(name) as WebP")
            XCTAssertEqual(try ImageCodec.convert(data, to: .webp, quality: 80), try ImageCodec.encode(sixteen, as: .webp, quality: 80),
                           "\(name) as lossy WebP")
        }
    }

    /// 8-bit sources convert to the same files as encoding their decode (JPEG composited a band at a
    /// time, WebP from pixels taken in place).
    func testConversionsMatchEncodingTheDecode() throws {
        for name in ["png-rgba.png", "png-rgb.png", "png-palette-trns.png", "gif-transparent.gif", "bmp-v5-alpha.bmp", "jpeg-baseline.jpg", "webp-lossy.webp"] {
            let data = try Fixtures.data(name)
            let image = try ImageCodec.decode(data)
            for target in ImageFormat.allCases where ImageFormat.sniff(data) != target {
                let lossless: Bool? = target == .webp ? ImageFormat.sniff(data)!.isLossless || name == "webp-lossless.webp" : nil
                XCTAssertEqual(try ImageCodec.convert(data, to: target), try ImageCodec.encode(image, as: target, lossless: lossless),
                               "\(name) as \(target)")
            }
        }
    }

    // MARK: - --quality and WebP

    func webpKind(_ data: Data) -> String { String(decoding: data[12..<16], as: UTF8.self) }

    /// As cwebp -q and ImageMagick's -quality: an explicit quality is lossy WebP at it; without one a
    /// lossless source stays lossless. An explicit quality also encodes anew an image already in the format.
    func testAnExplicitQualityMakesWebPLossy() throws {
        let png = try Fixtures.data("png-rgba.png")
        let lossless = try ImageCodec.convert(png, to: .webp)
        XCTAssertEqual(webpKind(lossless), "VP8L")
        let q80 = try ImageCodec.convert(png, to: .webp, quality: 80)
        let q10 = try ImageCodec.convert(png, to: .webp, quality: 10)
        XCTAssertNil(q80.range(of: Data("VP8L".utf8)))
        XCTAssertTrue(q80.range(of: Data("VP8 ".utf8)) != nil)
        XCTAssertNotEqual(q80, q10)
        XCTAssertNotEqual(q80, lossless)
        let webp = try Fixtures.data("webp-lossy.webp")
        XCTAssertEqual(try ImageCodec.convert(webp, to: .webp), webp)
        XCTAssertNotEqual(try ImageCodec.convert(webp, to: .webp, quality: 30), webp)
        let jpeg = try Fixtures.data("jpeg-baseline.jpg")
        XCTAssertEqual(try ImageCodec.convert(jpeg, to: .jpeg), jpeg)
        XCTAssertNotEqual(try ImageCodec.convert(jpeg, to: .jpeg, quality: 30), jpeg)
        // Lossless targets ignore it: bytes already PNG come back as they were.
        XCTAssertEqual(try ImageCodec.convert(png, to: .png, quality: 30), png)
    }

    // MARK: - Loops a small file could make long

    /// 10,000 IFDs, each at its own offset and declaring 3,334 entries that overlap the others', in an
    /// 80 KB file: counting the images reads each IFD's count and next pointer only (it once parsed every
    /// entry of every IFD, 33 million of them).
    func testTIFFImageCountReadsNoEntries() throws {
        let data = Self.tiffIFDChain()
        XCTAssertLessThan(data.count, 90_000)
        try data.withUnsafeBytes { raw in
            let (reader, first) = try TIFFCodec.reader(raw)
            XCTAssertEqual(TIFFCodec.imageCount(reader, first: first), 10_000)
        }
    }

    static func tiffIFDChain() -> Data {
        let count = 3334, base = 8, ifds = 10_000
        var bytes = [UInt8](repeating: 0, count: base + 4 * ifds + 2 + 12 * count + 4)
        bytes[0] = 0x49
        bytes[1] = 0x49
        bytes[2] = 42
        bytes[4] = UInt8(base)
        for k in 0..<ifds {
            let offset = base + 4 * k
            bytes[offset] = UInt8(count & 0xFF)
            bytes[offset + 1] = UInt8(count >> 8)
            let pointer = offset + 2 + 12 * count
            let next = k + 1 < ifds ? offset + 4 : 0
            for i in 0..<4 { bytes[pointer + i] = UInt8(next >> (8 * i) & 0xFF) }
        }
        return Data(bytes)
    }

    /// An RLE run past the row's end writes nothing and costs one step, as does a whole RLE stream when
    /// validated: a 1 KB file of 255-pixel runs on a 1-pixel-wide image.
    func testRLERunsPastTheRowCostNothing() throws {
        var data = Self.bmpRLEBomb(1, 2000)
        data.removeLast(2)
        for _ in 0..<500 { data += [255, 7, 0, 0] }  // a run of 255, then end of line
        data += [0, 1]
        let image = try ImageCodec.decode(data)
        XCTAssertEqual(image.width, 1)
        XCTAssertEqual(try ImageCodec.validate(data, as: .bmp), 1)
    }
}

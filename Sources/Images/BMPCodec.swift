#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// BMP (Windows DIB) in Swift. Reads every header from OS/2's 12 bytes to BITMAPV5HEADER, 1/2/4/8-bit
/// palettes, 16, 24 and 32 bits with or without BITFIELDS masks, RLE8 and RLE4, bottom-up and
/// top-down rows, and a V5 header's embedded ICC profile. Writes what Windows' CF_DIBV5 and WSLg
/// read with alpha: 32 bits a pixel, a BITMAPV5HEADER with BI_BITFIELDS masks (alpha in the top byte),
/// sRGB, bottom-up.
enum BMPCodec {
    struct Header {
        var width: Int
        var height: Int
        var topDown: Bool
        var headerSize: Int
        var bitsPerPixel: Int
        var compression: Int
        var pixelOffset: Int
        /// Red, green, blue, alpha masks (alpha 0: none).
        var masks: [UInt32]?
        var paletteOffset: Int
        var paletteEntrySize: Int
        var paletteCount: Int
        var iccProfile: Data?
    }

    static let biRGB = 0, biRLE8 = 1, biRLE4 = 2, biBitfields = 3, biAlphaBitfields = 6

    static func header(_ bytes: UnsafeRawBufferPointer) throws -> Header {
        let reader = ByteReader(bytes, format: .bmp)
        guard try reader.u8(0) == 0x42, try reader.u8(1) == 0x4D else { throw ImageError.corrupt(.bmp, "no BM signature") }
        let pixelOffset = try reader.u32(10)
        let headerSize = try reader.u32(14)
        var header = Header(width: 0, height: 0, topDown: false, headerSize: headerSize, bitsPerPixel: 0, compression: biRGB,
                            pixelOffset: pixelOffset, masks: nil, paletteOffset: 14 + headerSize, paletteEntrySize: 4, paletteCount: 0)
        switch headerSize {
        case 12:
            header.width = try reader.u16(18)
            header.height = Int(Int16(truncatingIfNeeded: try reader.u16(20)))
            header.bitsPerPixel = try reader.u16(24)
            header.paletteEntrySize = 3
        case 16, 40, 52, 56, 64, 108, 124:
            header.width = try reader.i32(18)
            header.height = try reader.i32(22)
            header.bitsPerPixel = try reader.u16(28)
            if headerSize >= 20 { header.compression = try reader.u32(30) }
            if headerSize >= 40 { header.paletteCount = try reader.u32(46) }
            // OS/2 2.x reuses 3 and 4 for Huffman 1D and RLE24.
            if headerSize == 64, header.compression == 3 || header.compression == 4 {
                throw ImageError.unsupported(.bmp, "OS/2 Huffman or RLE24 compression")
            }
        default:
            throw ImageError.corrupt(.bmp, "unknown header size \(headerSize)")
        }
        guard header.height != Int(Int32.min) else { throw ImageError.corrupt(.bmp, "height out of range") }
        header.topDown = header.height < 0
        header.height = abs(header.height)
        if header.compression == biBitfields || header.compression == biAlphaBitfields {
            // Masks live in the header from V2 (52 bytes) on, after a 40-byte header otherwise.
            let inHeader = headerSize >= 52
            let maskCount = headerSize >= 56 ? 4 : (inHeader ? 3 : (header.compression == biAlphaBitfields ? 4 : 3))
            var masks: [UInt32] = []
            for index in 0..<maskCount { masks.append(UInt32(try reader.u32(54 + 4 * index))) }
            if maskCount == 3 { masks.append(0) }
            header.masks = masks
            if !inHeader { header.paletteOffset += 4 * maskCount }
        }
        if headerSize == 124, try reader.u32(70) == 0x4D42_4544 {  // 'MBED': an embedded profile
            let offset = try reader.u32(14 + 112), size = try reader.u32(14 + 116)
            if size > 0, reader.contains(14 + offset, size) {
                header.iccProfile = Data(try reader.slice(14 + offset, size, "the ICC profile"))
            }
        }
        if header.bitsPerPixel <= 8 {
            let maximum = 1 << header.bitsPerPixel
            if header.paletteCount == 0 || header.paletteCount > maximum { header.paletteCount = maximum }
        } else {
            header.paletteCount = 0
        }
        return header
    }

    static func probe(_ bytes: UnsafeRawBufferPointer) throws -> ImageProbe {
        let header = try header(bytes)
        // The palette (256 words) and the mask channels: nothing that grows with the image.
        return ImageProbe(format: .bmp, width: header.width, height: header.height, bits: 8, orientation: 1, lossless: true,
                          decodeWork: 64 << 10, validateWork: 64 << 10)
    }

    /// Every check a decode makes, without its pixels: uncompressed rows must all be in the file (their
    /// size says so at once), an RLE stream is walked to its end or the last row without writing a pixel.
    static func validate(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws -> Int {
        _ = try decode(bytes, limits: limits, validating: true)
        return 1
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws -> DecodedImage {
        guard let decoded = try decode(bytes, limits: limits, validating: false) else {
            throw ImageError.corrupt(.bmp, "no pixels")
        }
        return decoded
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits, validating: Bool) throws -> DecodedImage? {
        let header = try header(bytes)
        let reader = ByteReader(bytes, format: .bmp)
        let width = header.width, height = header.height
        try ImageError.checkPixels(.bmp, width: width, height: height, limits: limits)

        let bpp = header.bitsPerPixel
        switch (bpp, header.compression) {
        case (1, biRGB), (2, biRGB), (4, biRGB), (8, biRGB), (8, biRLE8), (4, biRLE4), (16, biRGB), (24, biRGB), (32, biRGB),
            (16, biBitfields), (32, biBitfields), (16, biAlphaBitfields), (32, biAlphaBitfields):
            break
        default:
            throw ImageError.unsupported(.bmp, "\(bpp) bits a pixel with compression \(header.compression)")
        }
        // The palette: BGR(X) entries, each checked.
        var palette = [UInt32](repeating: 0xFF00_0000, count: 256)
        if header.paletteCount > 0 {
            try reader.check(header.paletteOffset, header.paletteCount * header.paletteEntrySize, "the palette")
            for index in 0..<header.paletteCount {
                let entry = header.paletteOffset + index * header.paletteEntrySize
                let b = UInt32(bytes[entry]), g = UInt32(bytes[entry + 1]), r = UInt32(bytes[entry + 2])
                palette[index] = r | g << 8 | b << 16 | 0xFF00_0000
            }
        }
        let pixelOffset = header.pixelOffset
        guard pixelOffset > 0, pixelOffset < bytes.count else {
            throw ImageError.truncated(.bmp, "the pixel data at offset \(pixelOffset) is past the end of the file (\(bytes.count) bytes)")
        }
        let rle = header.compression == biRLE8 || header.compression == biRLE4
        let stride = (width * bpp + 31) / 32 * 4
        // Uncompressed rows must all be in the file: a short file fails here, before the allocation.
        if !rle { try reader.check(pixelOffset, stride * height, "the pixel rows") }
        if validating {
            if rle {
                try decodeRLE(reader, from: pixelOffset, fourBit: header.compression == biRLE4, width: width, height: height,
                              palette: palette, out: nil, row: { $0 })
            }
            return nil
        }
        var pixels = PixelBuffer.zeroed(width * height * 4)
        try pixels.withUnsafeMutableBytes { target in
            let out = target.bindMemory(to: UInt32.self)
            func outRow(_ fileRow: Int) -> Int { header.topDown ? fileRow : height - 1 - fileRow }
            if rle {
                try decodeRLE(reader, from: pixelOffset, fourBit: header.compression == biRLE4, width: width, height: height,
                              palette: palette, out: out, row: outRow)
                return
            }
            if bpp <= 8 {
                let perByte = 8 / bpp, mask = (1 << bpp) - 1
                for fileRow in 0..<height {
                    let row = pixelOffset + fileRow * stride, base = outRow(fileRow) * width
                    for x in 0..<width {
                        let byte = Int(bytes[row + x / perByte])
                        let index = byte >> (8 - bpp * (x % perByte + 1)) & mask
                        out[base + x] = palette[index]
                    }
                }
                return
            }
            if bpp == 24 {
                for fileRow in 0..<height {
                    let row = pixelOffset + fileRow * stride, base = outRow(fileRow) * width
                    for x in 0..<width {
                        let p = row + 3 * x
                        out[base + x] = UInt32(bytes[p + 2]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p]) << 16 | 0xFF00_0000
                    }
                }
                return
            }
            let masks = header.masks ?? (bpp == 16 ? [0x7C00, 0x03E0, 0x001F, 0] : [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0])
            let channels = masks.map(MaskChannel.init)
            for fileRow in 0..<height {
                let row = pixelOffset + fileRow * stride, base = outRow(fileRow) * width
                for x in 0..<width {
                    let value: UInt32
                    if bpp == 16 {
                        value = UInt32(bytes[row + 2 * x]) | UInt32(bytes[row + 2 * x + 1]) << 8
                    } else {
                        value = bytes.loadUnaligned(fromByteOffset: row + 4 * x, as: UInt32.self).littleEndian
                    }
                    let alpha = channels[3].isEmpty ? 255 : channels[3].value(value)
                    out[base + x] = channels[0].value(value) | channels[1].value(value) << 8 | channels[2].value(value) << 16 | alpha << 24
                }
            }
            // 32-bit BI_RGB: the fourth byte is alpha when some pixel sets it (as browsers read it), and
            // padding when all are zero (what most writers leave there).
            if bpp == 32, header.compression == biRGB {
                var anyAlpha = false
                for fileRow in 0..<height where !anyAlpha {
                    let row = pixelOffset + fileRow * stride
                    for x in 0..<width where bytes[row + 4 * x + 3] != 0 {
                        anyAlpha = true
                        break
                    }
                }
                if anyAlpha {
                    for fileRow in 0..<height {
                        let row = pixelOffset + fileRow * stride, base = outRow(fileRow) * width
                        for x in 0..<width { out[base + x] = out[base + x] & 0x00FF_FFFF | UInt32(bytes[row + 4 * x + 3]) << 24 }
                    }
                }
            }
        }
        let image = RasterImage(width: width, height: height, pixels: pixels, iccProfile: header.iccProfile)
        return DecodedImage(image: image, orientation: 1, lossless: true)
    }

    /// One channel of a BITFIELDS mask, scaled to 8 bits.
    struct MaskChannel {
        let mask: UInt32
        let shift: UInt32
        let maximum: UInt32

        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            maximum = mask == 0 ? 0 : mask >> shift
        }

        var isEmpty: Bool { mask == 0 }

        func value(_ pixel: UInt32) -> UInt32 {
            guard maximum > 0 else { return 0 }
            let raw = (pixel & mask) >> shift
            return maximum == 255 ? raw : UInt32((UInt64(raw) * 255 + UInt64(maximum / 2)) / UInt64(maximum))
        }
    }

    /// RLE8 and RLE4: runs and absolute runs of palette indices, with end-of-line, end-of-bitmap and
    /// delta escapes. Every pass reads two bytes or more; pixels a delta or an early end of line skips
    /// stay transparent.
    /// `out` nil: the stream is walked and checked, no pixel written (each pass then costs the same
    /// whatever a run's length).
    static func decodeRLE(_ reader: ByteReader, from start: Int, fourBit: Bool, width: Int, height: Int, palette: [UInt32],
                          out: UnsafeMutableBufferPointer<UInt32>?, row: (Int) -> Int) throws {
        var offset = start, x = 0, y = 0
        func put(_ index: Int) {
            if let out, x < width, y < height { out[row(y) * width + x] = palette[index & 0xFF] }
            x += 1
        }
        while y < height {
            let count = try reader.u8(offset), value = try reader.u8(offset + 1)
            offset += 2
            if count > 0 {
                // Pixels past the row's end are dropped: only those inside it are written.
                guard out != nil, x < width else {
                    x += count
                    continue
                }
                for k in 0..<count { put(fourBit ? (k % 2 == 0 ? value >> 4 : value & 0x0F) : value) }
                continue
            }
            switch value {
            case 0:
                x = 0
                y += 1
            case 1:
                return
            case 2:
                x += try reader.u8(offset)
                y += try reader.u8(offset + 1)
                offset += 2
            default:
                let byteCount = fourBit ? (value + 1) / 2 : value
                let run = try reader.slice(offset, byteCount, "an absolute run")
                if out == nil || x >= width {
                    x += value
                } else {
                    for k in 0..<value {
                        let byte = Int(run[fourBit ? k / 2 : k])
                        put(fourBit ? (k % 2 == 0 ? byte >> 4 : byte & 0x0F) : byte)
                    }
                }
                offset += (byteCount + 1) & ~1
            }
        }
    }

    /// 32-bit BI_BITFIELDS in a BITMAPV5HEADER, bottom-up, sRGB.
    static func encode(_ image: RasterImage) -> Data {
        precondition(image.depth == .eight)
        let width = image.width, height = image.height
        let headerBytes = 14 + 124
        let pixelBytes = width * height * 4
        var header = ByteWriter(capacity: headerBytes)
        header.ascii("BM")
        header.u32le(headerBytes + pixelBytes)  // a file over 4 GiB is over the pixel cap long before
        header.u32le(0)
        header.u32le(headerBytes)
        header.u32le(124)
        header.u32le(width)
        header.u32le(height)  // positive: bottom-up, what every reader takes
        header.u16le(1)
        header.u16le(32)
        header.u32le(biBitfields)
        header.u32le(pixelBytes)
        header.u32le(2835)  // 72 dpi
        header.u32le(2835)
        header.u32le(0)
        header.u32le(0)
        for mask in [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0xFF00_0000] { header.u32le(mask) }
        header.u32le(0x7352_4742)  // LCS_sRGB ('sRGB')
        header.append(repeatElement(0, count: 36 + 12))  // endpoints, gamma: unused with sRGB
        header.u32le(4)  // LCS_GM_IMAGES
        header.u32le(0)
        header.u32le(0)
        header.u32le(0)
        var out = PixelBuffer.zeroed(headerBytes + pixelBytes)
        out.withUnsafeMutableBytes { target in
            header.bytes.withUnsafeBytes { target.copyMemory(from: $0) }
            image.pixels.withUnsafeBytes { raw in
                let source = raw.bindMemory(to: UInt32.self)
                let destination = UnsafeMutableRawBufferPointer(rebasing: target[headerBytes...])
                for y in 0..<height {
                    let from = (height - 1 - y) * width, to = y * width * 4
                    for x in 0..<width {
                        // RGBA in memory (a little-endian word 0xAABBGGRR) to BGRA (0xAARRGGBB).
                        let p = source[from + x]
                        let swapped = p & 0xFF00_FF00 | (p >> 16) & 0xFF | (p & 0xFF) << 16
                        destination.storeBytes(of: swapped.littleEndian, toByteOffset: to + 4 * x, as: UInt32.self)
                    }
                }
            }
        }
        return out
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The EXIF orientation tag, read from an EXIF block (a TIFF structure) or a TIFF file's first IFD.
enum Exif {
    /// Orientation 1…8 from an EXIF block, 1 when it has none or is damaged (a bad EXIF never fails a
    /// decode: the pixels are still right, only maybe sideways).
    static func orientation(_ exif: Data) -> Int {
        exif.withUnsafeBytes { raw in
            var reader = ByteReader(raw, format: .jpeg)
            guard raw.count >= 8 else { return 1 }
            switch (raw[0], raw[1]) {
            case (0x49, 0x49): reader.bigEndian = false
            case (0x4D, 0x4D): reader.bigEndian = true
            default: return 1
            }
            guard (try? reader.u16(2)) == 42, let ifd = try? reader.u32(4) else { return 1 }
            return (try? orientation(in: reader, ifd: ifd)) ?? 1
        }
    }

    /// Looks for tag 0x0112 (SHORT) in the IFD at `ifd`.
    static func orientation(in reader: ByteReader, ifd: Int) throws -> Int {
        let count = try reader.u16(ifd)
        for index in 0..<count {
            let entry = ifd + 2 + 12 * index
            guard try reader.u16(entry) == 0x0112 else { continue }
            guard try reader.u16(entry + 2) == 3 else { return 1 }
            let value = try reader.u16(entry + 8)
            return (1...8).contains(value) ? value : 1
        }
        return 1
    }
}

enum Orientation {
    /// The image turned upright for EXIF `orientation` (2 mirrors, 3 turns 180°, 4 flips, 5 transposes,
    /// 6 turns 90° clockwise, 7 transverses, 8 turns 90° anticlockwise); 1 and unknown values leave it.
    static func apply(_ orientation: Int, to image: RasterImage) -> RasterImage {
        guard (2...8).contains(orientation) else { return image }
        switch image.depth {
        case .eight: return apply(orientation, to: image, as: UInt32.self)
        case .sixteen: return apply(orientation, to: image, as: UInt64.self)
        }
    }

    static func apply<Pixel: FixedWidthInteger>(_ orientation: Int, to image: RasterImage, as _: Pixel.Type) -> RasterImage {
        let w = image.width, h = image.height
        let swaps = orientation >= 5
        let outWidth = swaps ? h : w, outHeight = swaps ? w : h
        var out = PixelBuffer.zeroed(image.pixels.count)
        image.pixels.withUnsafeBytes { raw in
            let source = raw.bindMemory(to: Pixel.self)
            out.withUnsafeMutableBytes { target in
                let destination = target.bindMemory(to: Pixel.self)
                for y in 0..<outHeight {
                    let row = y * outWidth
                    for x in 0..<outWidth {
                        let sx: Int, sy: Int
                        switch orientation {
                        case 2: (sx, sy) = (w - 1 - x, y)
                        case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case 4: (sx, sy) = (x, h - 1 - y)
                        case 5: (sx, sy) = (y, x)
                        case 6: (sx, sy) = (y, h - 1 - x)
                        case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                        default: (sx, sy) = (w - 1 - y, x)
                        }
                        destination[row + x] = source[sy * w + sx]
                    }
                }
            }
        }
        return RasterImage(width: outWidth, height: outHeight, depth: image.depth, pixels: out, iccProfile: image.iccProfile,
                           frameCount: image.frameCount)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Baseline TIFF in Swift, both byte orders. Reads the first image: strips (no tiles), chunky samples,
/// uncompressed, PackBits, LZW or Deflate (zlib through CImage), horizontal predictor; bilevel,
/// grayscale and palette at 1, 2, 4 or 8 bits, RGB with or without alpha at 8 or 16 bits, 16-bit gray,
/// 8-bit CMYK; alpha associated (un-premultiplied on reading) or not; the ICC profile (tag 34675) and
/// orientation (tag 274). Counts the images in the file. Writes RGB or RGBA (ExtraSamples =
/// unassociated alpha) at 8 or 16 bits, uncompressed or LZW with the horizontal predictor, and the
/// ICC profile.
enum TIFFCodec {
    enum Compression: Int {
        case none = 1
        case lzw = 5
    }

    /// One IFD entry: where its values are (inline in the entry, or at the offset it gives).
    struct Entry {
        var type: Int
        var count: Int
        var valueOffset: Int
    }

    static let typeSizes: [Int: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]

    struct Directory {
        var reader: ByteReader
        var entries: [Int: Entry] = [:]
        /// The next IFD's offset (0: none).
        var next = 0

        init(_ reader: ByteReader, at offset: Int) throws {
            self.reader = reader
            let count = try reader.u16(offset)
            try reader.check(offset + 2, 12 * count + 4, "the image file directory")
            for index in 0..<count {
                let entry = offset + 2 + 12 * index
                let tag = try reader.u16(entry), type = try reader.u16(entry + 2), valueCount = try reader.u32(entry + 4)
                // Types this reader does not know are skipped, as the specification says.
                guard let size = TIFFCodec.typeSizes[type] else { continue }
                let (total, overflow) = size.multipliedReportingOverflow(by: valueCount)
                guard !overflow else { continue }
                let valueOffset = total <= 4 ? entry + 8 : try reader.u32(entry + 8)
                entries[tag] = Entry(type: type, count: valueCount, valueOffset: valueOffset)
            }
            next = try reader.u32(offset + 2 + 12 * count)
        }

        /// The integer values of a BYTE, SHORT or LONG tag, every one inside the file; nil when absent.
        func values(_ tag: Int) throws -> [Int]? {
            guard let entry = entries[tag] else { return nil }
            let size: Int
            switch entry.type {
            case 1, 7: size = 1
            case 3: size = 2
            case 4, 13: size = 4
            default: throw ImageError.corrupt(.tiff, "tag \(tag) has type \(entry.type), not an integer")
            }
            try reader.check(entry.valueOffset, size * entry.count, "the values of tag \(tag)")
            return try (0..<entry.count).map { index in
                let offset = entry.valueOffset + size * index
                switch size {
                case 1: return try reader.u8(offset)
                case 2: return try reader.u16(offset)
                default: return try reader.u32(offset)
                }
            }
        }

        func value(_ tag: Int) throws -> Int? { try values(tag)?.first }

        func bytes(_ tag: Int) throws -> Data? {
            guard let entry = entries[tag], let size = TIFFCodec.typeSizes[entry.type] else { return nil }
            return Data(try reader.slice(entry.valueOffset, size * entry.count, "the bytes of tag \(tag)"))
        }
    }

    static func reader(_ bytes: UnsafeRawBufferPointer) throws -> (ByteReader, Int) {
        var reader = ByteReader(bytes, format: .tiff)
        try reader.check(0, 8, "the header")
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): reader.bigEndian = false
        case (0x4D, 0x4D): reader.bigEndian = true
        default: throw ImageError.corrupt(.tiff, "no byte order mark")
        }
        let magic = try reader.u16(2)
        if magic == 43 { throw ImageError.unsupported(.tiff, "BigTIFF") }
        guard magic == 42 else { throw ImageError.corrupt(.tiff, "magic number \(magic), not 42") }
        return (reader, try reader.u32(4))
    }

    static func header(_ bytes: UnsafeRawBufferPointer) throws -> (width: Int, height: Int, orientation: Int) {
        let (reader, first) = try reader(bytes)
        let directory = try Directory(reader, at: first)
        guard let width = try directory.value(256), let height = try directory.value(257) else {
            throw ImageError.corrupt(.tiff, "no ImageWidth or ImageLength")
        }
        let orientation = try directory.value(274) ?? 1
        return (width, height, (1...8).contains(orientation) ? orientation : 1)
    }

    /// How many images the file holds: the IFD chain followed until it ends, loops, or breaks, at most
    /// 10,000. Each IFD costs its count and next pointer only, never its entries (IFDs overlapping in a
    /// small file once cost their entries each: quadratic in the file's size).
    static func imageCount(_ reader: ByteReader, first: Int) -> Int {
        var seen: Set<Int> = []
        var offset = first
        while offset != 0, seen.count < 10_000, seen.insert(offset).inserted {
            guard let count = try? reader.u16(offset), let next = try? reader.u32(offset + 2 + 12 * count) else { break }
            offset = next
        }
        return max(1, seen.count)
    }

    /// What the first IFD says about the pixels, every check a decode makes before it allocates done.
    struct Plan {
        var width: Int
        var height: Int
        var compression: Int
        var predictor: Int
        var rowsPerStrip: Int
        var stripCount: Int
        var offsets: [Int]
        var counts: [Int]
        var rowLength: Int
        var layout: Layout
        var iccProfile: Data?
        var orientation: Int
        var bits: Int
    }

    static func plan(_ reader: ByteReader, first: Int, limits: ImageLimits) throws -> Plan {
        let directory = try Directory(reader, at: first)
        guard let width = try directory.value(256), let height = try directory.value(257) else {
            throw ImageError.corrupt(.tiff, "no ImageWidth or ImageLength")
        }
        try ImageError.checkPixels(.tiff, width: width, height: height, limits: limits)
        if directory.entries[322] != nil || directory.entries[324] != nil { throw ImageError.unsupported(.tiff, "tiled images") }
        let samples = try directory.value(277) ?? 1
        let bitsPerSample = try directory.values(258) ?? [1]
        guard let bits = bitsPerSample.first, bitsPerSample.allSatisfy({ $0 == bits }) else {
            throw ImageError.unsupported(.tiff, "samples of different sizes (\(bitsPerSample))")
        }
        let compression = try directory.value(259) ?? 1
        guard let photometric = try directory.value(262) else { throw ImageError.corrupt(.tiff, "no PhotometricInterpretation") }
        let predictor = try directory.value(317) ?? 1
        let planar = try directory.value(284) ?? 1
        if let format = try directory.values(339), format.contains(where: { $0 != 1 }) {
            throw ImageError.unsupported(.tiff, "samples that are not unsigned integers")
        }
        let colourSamples: Int
        switch photometric {
        case 0, 1, 3: colourSamples = 1
        case 2: colourSamples = 3
        case 5: colourSamples = 4
        default: throw ImageError.unsupported(.tiff, "photometric interpretation \(photometric)")
        }
        guard samples >= colourSamples, samples <= 8 else { throw ImageError.corrupt(.tiff, "\(samples) samples a pixel for photometric \(photometric)") }
        guard planar == 1 || samples == 1 else { throw ImageError.unsupported(.tiff, "planar (separate) samples") }
        switch (photometric, bits) {
        case (0, 1), (0, 2), (0, 4), (0, 8), (1, 1), (1, 2), (1, 4), (1, 8), (1, 16), (0, 16), (3, 1), (3, 2), (3, 4), (3, 8), (2, 8), (2, 16), (5, 8):
            break
        default:
            throw ImageError.unsupported(.tiff, "\(bits) bits a sample with photometric interpretation \(photometric)")
        }
        guard [1, 5, 8, 32946, 32773].contains(compression) else { throw ImageError.unsupported(.tiff, "compression \(compression)") }
        guard predictor == 1 || (predictor == 2 && bits >= 8) else { throw ImageError.unsupported(.tiff, "predictor \(predictor)") }
        // The first extra sample is alpha when it says so (1 premultiplied, 2 straight).
        let extra = try directory.values(338) ?? []
        let alphaKind = samples > colourSamples ? (extra.first ?? 0) : 0
        let hasAlpha = alphaKind == 1 || alphaKind == 2

        var palette: [UInt16] = []
        if photometric == 3 {
            guard let map = try directory.values(320), map.count >= 3 << bits else { throw ImageError.corrupt(.tiff, "a palette image without its ColorMap") }
            palette = map.map { UInt16(truncatingIfNeeded: $0) }
        }
        let rowsPerStrip = min(height, max(1, try directory.value(278) ?? height))
        let stripCount = (height + rowsPerStrip - 1) / rowsPerStrip
        guard let offsets = try directory.values(273), offsets.count >= stripCount else {
            throw ImageError.corrupt(.tiff, "fewer strips than \(stripCount)")
        }
        guard let counts = try directory.values(279), counts.count >= stripCount else {
            throw ImageError.corrupt(.tiff, "no StripByteCounts for \(stripCount) strips")
        }
        let iccProfile = try directory.bytes(34675)
        let orientation = try directory.value(274) ?? 1
        let (rowBits, overflow) = (width * samples).multipliedReportingOverflow(by: bits)
        guard !overflow else { throw ImageError.tooManyPixels(.tiff, width: width, height: height, cap: limits.maxPixels) }
        let rowLength = (rowBits + 7) / 8

        // Every strip in the file, and an uncompressed one whole, before anything is allocated.
        for index in 0..<stripCount {
            let rows = min(rowsPerStrip, height - index * rowsPerStrip)
            try reader.check(offsets[index], counts[index], "strip \(index)")
            if compression == 1, counts[index] < rows * rowLength {
                throw ImageError.truncated(.tiff, "strip \(index) holds \(counts[index]) bytes of \(rows * rowLength)")
            }
        }
        let layout = Layout(width: width, samples: samples, bits: bits, photometric: photometric, alpha: hasAlpha ? alphaKind : 0,
                            bigEndian: reader.bigEndian, palette: palette)
        return Plan(width: width, height: height, compression: compression, predictor: predictor, rowsPerStrip: rowsPerStrip,
                    stripCount: stripCount, offsets: offsets, counts: counts, rowLength: rowLength, layout: layout,
                    iccProfile: iccProfile, orientation: (1...8).contains(orientation) ? orientation : 1, bits: bits)
    }

    static func probe(_ bytes: UnsafeRawBufferPointer, eightBit: Bool) throws -> ImageProbe {
        let (reader, first) = try reader(bytes)
        let directory = try Directory(reader, at: first)
        guard let width = try directory.value(256), let height = try directory.value(257) else {
            throw ImageError.corrupt(.tiff, "no ImageWidth or ImageLength")
        }
        let orientation = try directory.value(274) ?? 1
        let bits = try directory.value(258) ?? 1
        let samples = min(8, max(1, try directory.value(277) ?? 1))
        let strips = directory.entries[273]?.count ?? 1
        // Two rows of samples (the row being decoded and the previous one of an LZW string), the strip
        // offsets and counts, the LZW tables and zlib's window: nothing that grows with the height.
        let row = width.multipliedReportingOverflow(by: samples * 2).partialValue
        let work = 2 * row + 16 * strips + (512 << 10)
        return ImageProbe(format: .tiff, width: width, height: height, bits: bits == 16 ? 16 : 8,
                          orientation: (1...8).contains(orientation) ? orientation : 1, lossless: true, decodeWork: work, validateWork: work)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits, eightBit: Bool = false) throws -> DecodedImage {
        let (reader, first) = try reader(bytes)
        let plan = try plan(reader, first: first, limits: limits)
        let depth: RasterImage.Depth = plan.bits == 16 && !eightBit ? .sixteen : .eight
        var pixels = PixelBuffer.zeroed(plan.width * plan.height * (depth == .eight ? 4 : 8))
        try pixels.withUnsafeMutableBytes { target in
            try readRows(reader, plan) { rowIndex, row in
                plan.layout.convert(row, into: target, row: rowIndex, eightBit: depth == .eight)
            }
        }
        let image = RasterImage(width: plan.width, height: plan.height, depth: depth, pixels: pixels, iccProfile: plan.iccProfile,
                                frameCount: imageCount(reader, first: first))
        return DecodedImage(image: image, orientation: plan.orientation, lossless: true)
    }

    /// Every check a decode makes: each compressed strip decompressed a row at a time into one row,
    /// nothing kept; an uncompressed one is whole in the file, which `plan` has checked.
    static func validate(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws -> Int {
        let (reader, first) = try reader(bytes)
        let plan = try plan(reader, first: first, limits: limits)
        if plan.compression != 1 { try readRows(reader, plan) { _, _ in } }
        return imageCount(reader, first: first)
    }

    /// Each row of the image, in order, decompressed and its predictor undone, into one row buffer
    /// handed to `body`: no strip is ever held whole.
    static func readRows(_ reader: ByteReader, _ plan: Plan, _ body: (Int, UnsafeRawBufferPointer) -> Void) throws {
        let rowLength = plan.rowLength
        var row = [UInt8](repeating: 0, count: max(1, rowLength))
        try row.withUnsafeMutableBytes { buffer in
            let output = UnsafeMutableRawBufferPointer(rebasing: buffer[..<rowLength])
            for index in 0..<plan.stripCount {
                let firstRow = index * plan.rowsPerStrip
                let rows = min(plan.rowsPerStrip, plan.height - firstRow)
                let source = try reader.slice(plan.offsets[index], plan.counts[index], "strip \(index)")
                var stream = try StripStream(source, compression: plan.compression)
                for rowInStrip in 0..<rows {
                    let produced = try stream.read(into: output)
                    guard produced == rowLength else {
                        let total = rowInStrip * rowLength + produced
                        throw ImageError(plan.compression == 1 ? .truncated : .corrupt,
                                         "TIFF: strip \(index) holds \(total) bytes of \(rows * rowLength)")
                    }
                    if plan.predictor == 2 { undoPredictor(output, layout: plan.layout) }
                    body(firstRow + rowInStrip, UnsafeRawBufferPointer(output))
                }
            }
        }
    }

    /// A strip's bytes as they decompress, read a row at a time.
    struct StripStream {
        enum Kind {
            case none(offset: Int)
            case packBits(PackBitsState)
            case lzw(TIFFLZW.Decoder)
            case deflate(LibraryCodecs.Inflater)
        }

        let source: UnsafeRawBufferPointer
        var kind: Kind

        init(_ source: UnsafeRawBufferPointer, compression: Int) throws {
            self.source = source
            switch compression {
            case 1: kind = .none(offset: 0)
            case 32773: kind = .packBits(PackBitsState())
            case 5: kind = .lzw(try TIFFLZW.Decoder(source))
            default: kind = .deflate(try LibraryCodecs.Inflater(source))
            }
        }

        /// Fills `output`, or less where the strip's data ends.
        mutating func read(into output: UnsafeMutableRawBufferPointer) throws -> Int {
            switch kind {
            case .none(let offset):
                let count = min(output.count, source.count - offset)
                output.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + count)]))
                kind = .none(offset: offset + count)
                return count
            case .packBits(var state):
                let count = state.read(source, into: output)
                kind = .packBits(state)
                return count
            case .lzw(let decoder): return try decoder.read(into: output)
            case .deflate(let inflater): return try inflater.read(into: output)
            }
        }
    }

    /// PackBits, resumable: a count byte n, then n + 1 literal bytes (n ≥ 0) or one byte repeated 1 − n
    /// times (n < 0; −128 is a no-op). A run that does not fit the output waits for the next read.
    struct PackBitsState {
        var input = 0
        /// Literal bytes still to copy from `input`, or repeats of `repeated` still to write.
        var literal = 0
        var repeats = 0
        var repeated: UInt8 = 0

        mutating func read(_ source: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
            var produced = 0
            while produced < output.count {
                if literal > 0 {
                    let length = min(literal, source.count - input, output.count - produced)
                    guard length > 0 else {
                        literal = 0
                        break
                    }
                    for k in 0..<length { output[produced + k] = source[input + k] }
                    input += length
                    produced += length
                    literal -= length
                    continue
                }
                if repeats > 0 {
                    let length = min(repeats, output.count - produced)
                    for k in 0..<length { output[produced + k] = repeated }
                    produced += length
                    repeats -= length
                    continue
                }
                guard input < source.count else { break }
                let n = Int(Int8(bitPattern: source[input]))
                input += 1
                if n >= 0 {
                    literal = n + 1
                } else if n != -128 {
                    guard input < source.count else { break }
                    repeated = source[input]
                    repeats = 1 - n
                    input += 1
                }
            }
            return produced
        }
    }

    /// PackBits: a count byte n, then n + 1 literal bytes (n ≥ 0) or one byte repeated 1 − n times
    /// (n < 0; −128 is a no-op). Each pass consumes at least one byte.
    static func unpackBits(_ source: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        var input = 0, produced = 0
        while input < source.count, produced < output.count {
            let n = Int(Int8(bitPattern: source[input]))
            input += 1
            if n >= 0 {
                let length = min(n + 1, source.count - input, output.count - produced)
                for k in 0..<length { output[produced + k] = source[input + k] }
                input += n + 1
                produced += length
            } else if n != -128 {
                guard input < source.count else { break }
                let length = min(1 - n, output.count - produced)
                for k in 0..<length { output[produced + k] = source[input] }
                input += 1
                produced += length
            }
        }
        return produced
    }

    /// Horizontal differencing undone on one row: each sample is the sum of itself and the same sample
    /// of the pixel before, in 8- or 16-bit arithmetic (16-bit samples in the file's byte order).
    static func undoPredictor(_ row: UnsafeMutableRawBufferPointer, layout: Layout) {
        let samples = layout.samples
        let count = layout.width * samples
        guard count > samples else { return }
        if layout.bits == 8 {
            let bytes = row.bindMemory(to: UInt8.self)
            for i in samples..<count { bytes[i] = bytes[i] &+ bytes[i - samples] }
        } else {
            let bytes = row.bindMemory(to: UInt8.self)
            func read(_ i: Int) -> UInt16 {
                let a = UInt16(bytes[2 * i]), b = UInt16(bytes[2 * i + 1])
                return layout.bigEndian ? a << 8 | b : b << 8 | a
            }
            for i in samples..<count {
                let value = read(i) &+ read(i - samples)
                let high = UInt8(value >> 8), low = UInt8(value & 0xFF)
                bytes[2 * i] = layout.bigEndian ? high : low
                bytes[2 * i + 1] = layout.bigEndian ? low : high
            }
        }
    }

    /// How a row's samples become RGBA.
    struct Layout {
        let width: Int
        let samples: Int
        let bits: Int
        let photometric: Int
        /// 0 none, 1 associated (premultiplied), 2 unassociated.
        let alpha: Int
        let bigEndian: Bool
        let palette: [UInt16]

        /// A 16-bit sample as `RasterImage.eightBit()` rounds it.
        @inline(__always) static func eight(_ value: UInt16) -> UInt8 { UInt8((UInt32(value) * 255 + 32767) / 65535) }

        /// One row of the file's samples into row `row` of `target`: RGBA of 8 bits, or of 16 when the
        /// samples are 16-bit and not `eightBit` (then rounded to 8 as they are written, never held at 16).
        func convert(_ row: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer, row y: Int, eightBit: Bool) {
            let source = row.bindMemory(to: UInt8.self)
            if bits == 16 {
                @inline(__always) func sample(_ i: Int) -> UInt16 {
                    let a = UInt16(source[2 * i]), b = UInt16(source[2 * i + 1])
                    return bigEndian ? a << 8 | b : b << 8 | a
                }
                let base = y * width * 4
                let out16 = eightBit ? nil : Optional(target.bindMemory(to: UInt16.self))
                let out8 = eightBit ? Optional(target.bindMemory(to: UInt8.self)) : nil
                for x in 0..<width {
                    let first = x * samples
                    var r: UInt16, g: UInt16, b: UInt16, a: UInt16 = 0xFFFF
                    if photometric == 2 {
                        (r, g, b) = (sample(first), sample(first + 1), sample(first + 2))
                        if alpha != 0 { a = sample(first + 3) }
                    } else {
                        r = photometric == 0 ? 0xFFFF - sample(first) : sample(first)
                        (g, b) = (r, r)
                        if alpha != 0 { a = sample(first + 1) }
                    }
                    if alpha == 1 { (r, g, b) = (unpremultiply16(r, a), unpremultiply16(g, a), unpremultiply16(b, a)) }
                    if let out8 {
                        out8[base + 4 * x] = Self.eight(r)
                        out8[base + 4 * x + 1] = Self.eight(g)
                        out8[base + 4 * x + 2] = Self.eight(b)
                        out8[base + 4 * x + 3] = Self.eight(a)
                    } else if let out16 {
                        out16[base + 4 * x] = r
                        out16[base + 4 * x + 1] = g
                        out16[base + 4 * x + 2] = b
                        out16[base + 4 * x + 3] = a
                    }
                }
                return
            }
            let out = target.bindMemory(to: UInt8.self)
            let base = y * width * 4
            // The common layouts without a sample function: 8-bit gray, RGB and straight RGBA.
            if bits == 8, alpha != 1, photometric == 1 || photometric == 2 {
                switch (photometric, samples, alpha) {
                case (1, 1, 0):
                    for x in 0..<width {
                        let v = source[x]
                        out[base + 4 * x] = v
                        out[base + 4 * x + 1] = v
                        out[base + 4 * x + 2] = v
                        out[base + 4 * x + 3] = 255
                    }
                    return
                case (2, 3, 0):
                    for x in 0..<width {
                        out[base + 4 * x] = source[3 * x]
                        out[base + 4 * x + 1] = source[3 * x + 1]
                        out[base + 4 * x + 2] = source[3 * x + 2]
                        out[base + 4 * x + 3] = 255
                    }
                    return
                case (2, 4, 2):
                    UnsafeMutableRawBufferPointer(rebasing: target[base..<(base + 4 * width)]).copyMemory(from: UnsafeRawBufferPointer(rebasing: row[..<(4 * width)]))
                    return
                default:
                    break
                }
            }
            let maximum = (1 << bits) - 1
            // A sample of `bits` bits (1, 2, 4 or 8), MSB first in its byte.
            @inline(__always) func sample(_ i: Int) -> Int {
                if bits == 8 { return Int(source[i]) }
                let bit = i * bits
                return Int(source[bit / 8]) >> (8 - bits - bit % 8) & maximum
            }
            for x in 0..<width {
                let first = x * samples
                var r: Int, g: Int, b: Int, a = 255
                switch photometric {
                case 2:
                    (r, g, b) = (sample(first), sample(first + 1), sample(first + 2))
                    if alpha != 0 { a = sample(first + 3) }
                case 3:
                    let index = sample(first)
                    let entries = palette.count / 3
                    r = (Int(palette[index]) * 255 + 32767) / 65535
                    g = (Int(palette[entries + index]) * 255 + 32767) / 65535
                    b = (Int(palette[2 * entries + index]) * 255 + 32767) / 65535
                    if alpha != 0 { a = sample(first + 1) }
                case 5:
                    let k = 255 - sample(first + 3)
                    r = ((255 - sample(first)) * k + 127) / 255
                    g = ((255 - sample(first + 1)) * k + 127) / 255
                    b = ((255 - sample(first + 2)) * k + 127) / 255
                    if alpha != 0 { a = sample(first + 4) }
                default:
                    var value = sample(first)
                    if photometric == 0 { value = maximum - value }
                    r = bits == 8 ? value : (value * 255 + maximum / 2) / maximum
                    (g, b) = (r, r)
                    if alpha != 0 { a = bits == 8 ? sample(first + 1) : (sample(first + 1) * 255 + maximum / 2) / maximum }
                }
                if alpha == 1 { (r, g, b) = (unpremultiply8(r, a), unpremultiply8(g, a), unpremultiply8(b, a)) }
                out[base + 4 * x] = UInt8(r)
                out[base + 4 * x + 1] = UInt8(g)
                out[base + 4 * x + 2] = UInt8(b)
                out[base + 4 * x + 3] = UInt8(a)
            }
        }

        func unpremultiply8(_ c: Int, _ a: Int) -> Int { a == 0 ? 0 : min(255, (c * 255 + a / 2) / a) }
        func unpremultiply16(_ c: UInt16, _ a: UInt16) -> UInt16 {
            a == 0 ? 0 : UInt16(min(65535, (UInt32(c) * 65535 + UInt32(a) / 2) / UInt32(a)))
        }
    }

    // MARK: - Writing

    /// Little-endian ("II") TIFF: RGB, or RGBA with ExtraSamples = 2 (unassociated alpha) when some pixel
    /// is not opaque; 8 or 16 bits a sample; strips of about 64 KiB; LZW with the horizontal predictor,
    /// or uncompressed; 72 dpi; the ICC profile in tag 34675.
    static func encode(_ image: RasterImage, compression: Compression) -> Data {
        let alpha = image.hasAlpha
        let samples = alpha ? 4 : 3
        let bytesPerSample = image.depth == .eight ? 1 : 2
        let rowLength = image.width * samples * bytesPerSample
        let rowsPerStrip = max(1, min(image.height, 65536 / rowLength))
        let stripCount = (image.height + rowsPerStrip - 1) / rowsPerStrip
        var file = [UInt8]("II".utf8) + [42, 0, 0, 0, 0, 0]
        var offsets: [Int] = [], counts: [Int] = []
        var row = [UInt8](repeating: 0, count: rowLength)
        var raw: [UInt8] = []
        raw.reserveCapacity(rowsPerStrip * rowLength)
        image.pixels.withUnsafeBytes { pixels in
            for strip in 0..<stripCount {
                raw.removeAll(keepingCapacity: true)
                let firstRow = strip * rowsPerStrip
                for y in firstRow..<min(image.height, firstRow + rowsPerStrip) {
                    let source = UnsafeRawBufferPointer(rebasing: pixels[(y * image.bytesPerRow)..<((y + 1) * image.bytesPerRow)])
                    pack(source, into: &row, samples: samples, bytesPerSample: bytesPerSample, width: image.width)
                    if compression == .lzw { applyPredictor(&row, samples: samples, bytesPerSample: bytesPerSample) }
                    raw += row
                }
                let encoded = compression == .lzw ? TIFFLZW.encode(raw) : raw
                if file.count % 2 == 1 { file.append(0) }
                offsets.append(file.count)
                counts.append(encoded.count)
                file += encoded
            }
        }
        // The IFD's out-of-line values, then the IFD itself, each on a word boundary.
        var entries: [(tag: Int, type: Int, count: Int, values: [UInt8])] = []
        func short(_ values: [Int]) -> [UInt8] { values.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8 & 0xFF)] } }
        func long(_ values: [Int]) -> [UInt8] { values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } } }
        entries.append((256, 4, 1, long([image.width])))
        entries.append((257, 4, 1, long([image.height])))
        entries.append((258, 3, samples, short(Array(repeating: bytesPerSample * 8, count: samples))))
        entries.append((259, 3, 1, short([compression.rawValue])))
        entries.append((262, 3, 1, short([2])))
        entries.append((273, 4, stripCount, long(offsets)))
        entries.append((277, 3, 1, short([samples])))
        entries.append((278, 4, 1, long([rowsPerStrip])))
        entries.append((279, 4, stripCount, long(counts)))
        entries.append((282, 5, 1, long([72, 1])))
        entries.append((283, 5, 1, long([72, 1])))
        entries.append((284, 3, 1, short([1])))
        entries.append((296, 3, 1, short([2])))
        if compression == .lzw { entries.append((317, 3, 1, short([2]))) }
        if alpha { entries.append((338, 3, 1, short([2]))) }
        if let icc = image.iccProfile, !icc.isEmpty { entries.append((34675, 7, icc.count, [UInt8](icc))) }
        var valueOffsets: [Int] = []
        for entry in entries {
            if entry.values.count > 4 {
                if file.count % 2 == 1 { file.append(0) }
                valueOffsets.append(file.count)
                file += entry.values
            } else {
                valueOffsets.append(0)
            }
        }
        if file.count % 2 == 1 { file.append(0) }
        let ifd = file.count
        file.replaceSubrange(4..<8, with: long([ifd]))
        file += short([entries.count])
        for (entry, valueOffset) in zip(entries, valueOffsets) {
            file += short([entry.tag, entry.type]) + long([entry.count])
            file += entry.values.count > 4 ? long([valueOffset]) : entry.values + [UInt8](repeating: 0, count: 4 - entry.values.count)
        }
        file += long([0])
        return Data(file)
    }

    /// One image row as the file stores it: RGB or RGBA samples, 16-bit ones little-endian.
    static func pack(_ source: UnsafeRawBufferPointer, into row: inout [UInt8], samples: Int, bytesPerSample: Int, width: Int) {
        if bytesPerSample == 1 {
            if samples == 4 {
                row.withUnsafeMutableBytes { $0.copyMemory(from: source) }
                return
            }
            for x in 0..<width {
                row[3 * x] = source[4 * x]
                row[3 * x + 1] = source[4 * x + 1]
                row[3 * x + 2] = source[4 * x + 2]
            }
            return
        }
        let values = source.bindMemory(to: UInt16.self)
        for x in 0..<width {
            for c in 0..<samples {
                let value = values[4 * x + c]
                row[2 * (samples * x + c)] = UInt8(value & 0xFF)
                row[2 * (samples * x + c) + 1] = UInt8(value >> 8)
            }
        }
    }

    /// Horizontal differencing (predictor 2), the inverse of `undoPredictor`, right to left.
    static func applyPredictor(_ row: inout [UInt8], samples: Int, bytesPerSample: Int) {
        if bytesPerSample == 1 {
            var i = row.count - 1
            while i >= samples {
                row[i] = row[i] &- row[i - samples]
                i -= 1
            }
            return
        }
        let count = row.count / 2
        var i = count - 1
        while i >= samples {
            let value = UInt16(row[2 * i]) | UInt16(row[2 * i + 1]) << 8
            let before = UInt16(row[2 * (i - samples)]) | UInt16(row[2 * (i - samples) + 1]) << 8
            let difference = value &- before
            row[2 * i] = UInt8(difference & 0xFF)
            row[2 * i + 1] = UInt8(difference >> 8)
            i -= 1
        }
    }
}

/// TIFF's LZW: codes MSB first from 9 to 12 bits, widened one code early (as libtiff writes and
/// reads), 256 clears the table, 257 ends the strip.
enum TIFFLZW {
    static let clear = 256, end = 257

    /// Decodes into `output` until it is full, the end code, or the input runs out; returns the bytes
    /// written.
    static func decode(_ source: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws -> Int {
        try Decoder(source).read(into: output)
    }

    /// A strip's LZW stream read a piece at a time: the table and the bit reader carry over between
    /// reads, and a string that does not fit the output waits in `pending` for the next. The tables are
    /// raw buffers and the state is copied into locals for each read: a class's array properties would
    /// cost an exclusivity check on every access of the inner loop.
    final class Decoder {
        let source: UnsafeRawBufferPointer
        let prefix = UnsafeMutablePointer<Int16>.allocate(capacity: 4096)
        let suffix = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
        let firstByte = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
        let length = UnsafeMutablePointer<Int16>.allocate(capacity: 4096)
        /// The current string, spelt out, and how much of it is already written.
        let pending = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
        var pendingLength = 0, pendingTaken = 0
        var next = 258, codeSize = 9
        var previous = -1
        var bits: UInt64 = 0, bitCount = 0, input = 0
        /// The end code was read, or the input ran out.
        var ended = false

        init(_ source: UnsafeRawBufferPointer) throws {
            // LZW of TIFF before 5.0 (codes LSB first) starts 00 01: libtiff still reads it, few write it.
            if source.count >= 2, source[0] == 0, source[1] & 1 != 0 {
                for pointer in [prefix, length] as [UnsafeMutablePointer<Int16>] { pointer.deallocate() }
                for pointer in [suffix, firstByte, pending] { pointer.deallocate() }
                throw ImageError.unsupported(.tiff, "old-style (LSB-first) LZW")
            }
            self.source = source
            prefix.initialize(repeating: -1, count: 4096)
            length.initialize(repeating: 0, count: 4096)
            suffix.initialize(repeating: 0, count: 4096)
            firstByte.initialize(repeating: 0, count: 4096)
            pending.initialize(repeating: 0, count: 4096)
            for code in 0..<256 {
                suffix[code] = UInt8(code)
                firstByte[code] = UInt8(code)
                length[code] = 1
            }
        }

        deinit {
            prefix.deallocate()
            suffix.deallocate()
            firstByte.deallocate()
            length.deallocate()
            pending.deallocate()
        }

        /// Fills `output`, or less where the stream ends. Each pass reads one code or ends.
        func read(into output: UnsafeMutableRawBufferPointer) throws -> Int {
            let out = output.bindMemory(to: UInt8.self)
            let capacity = out.count
            var produced = 0
            if pendingTaken < pendingLength {
                let count = min(pendingLength - pendingTaken, capacity)
                for k in 0..<count { out[k] = pending[pendingTaken + k] }
                pendingTaken += count
                produced = count
            }
            let prefix = prefix, suffix = suffix, firstByte = firstByte, length = length
            var next = next, codeSize = codeSize, previous = previous, bits = bits, bitCount = bitCount, input = input, ended = ended
            defer {
                self.next = next
                self.codeSize = codeSize
                self.previous = previous
                self.bits = bits
                self.bitCount = bitCount
                self.input = input
                self.ended = ended
            }
            func add(_ previous: Int, _ byte: UInt8) {
                guard next < 4096 else { return }
                prefix[next] = Int16(previous)
                suffix[next] = byte
                firstByte[next] = firstByte[previous]
                length[next] = length[previous] + 1
                next += 1
                if next >= (1 << codeSize) - 1, codeSize < 12 { codeSize += 1 }
            }
            while produced < capacity, !ended {
                while bitCount < codeSize, input < source.count {
                    bits = bits << 8 | UInt64(source[input])
                    bitCount += 8
                    input += 1
                }
                guard bitCount >= codeSize else {
                    ended = true
                    break
                }
                let code = Int(bits >> UInt64(bitCount - codeSize)) & ((1 << codeSize) - 1)
                bitCount -= codeSize
                bits &= (1 << UInt64(bitCount)) - 1
                if code == clear {
                    next = 258
                    codeSize = 9
                    previous = -1
                    continue
                }
                if code == end {
                    ended = true
                    break
                }
                if previous < 0 {
                    guard code < 256 else { throw ImageError.corrupt(.tiff, "LZW code \(code) after a clear") }
                } else if code < next {
                    add(previous, firstByte[code])
                } else if code == next {
                    add(previous, firstByte[previous])
                } else {
                    throw ImageError.corrupt(.tiff, "LZW code \(code) past the table (\(next))")
                }
                guard length[code] > 0 else { throw ImageError.corrupt(.tiff, "LZW code \(code) has no string") }
                let stringLength = Int(length[code])
                previous = code
                if stringLength <= capacity - produced {
                    // Whole: spelt backwards straight into the output.
                    var position = produced + stringLength - 1
                    var walk = code
                    while walk >= 0 {
                        out[position] = suffix[walk]
                        position -= 1
                        walk = Int(prefix[walk])
                    }
                    produced += stringLength
                } else {
                    var position = stringLength - 1
                    var walk = code
                    while walk >= 0 {
                        pending[position] = suffix[walk]
                        position -= 1
                        walk = Int(prefix[walk])
                    }
                    let count = capacity - produced
                    for k in 0..<count { out[produced + k] = pending[k] }
                    produced += count
                    pendingLength = stringLength
                    pendingTaken = count
                }
            }
            return produced
        }
    }

    static func encode(_ input: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 2 + 16)
        var bits: UInt64 = 0, bitCount = 0
        var codeSize = 9, next = 258
        func emit(_ code: Int) {
            bits = bits << UInt64(codeSize) | UInt64(code)
            bitCount += codeSize
            while bitCount >= 8 {
                out.append(UInt8(truncatingIfNeeded: bits >> UInt64(bitCount - 8)))
                bitCount -= 8
            }
            bits &= (1 << UInt64(bitCount)) - 1
        }
        // The decoder adds an entry for every code it reads after the first, one step behind this
        // encoder; widening follows its count, which is `next` here.
        func grow() {
            if next >= 1 << codeSize, codeSize < 12 { codeSize += 1 }
        }
        let tableSize = 8192
        var keys = [Int32](repeating: 0, count: tableSize)
        var codes = [Int16](repeating: 0, count: tableSize)
        emit(clear)
        guard var prefix = input.first.map(Int.init) else {
            emit(end)
            if bitCount > 0 { out.append(UInt8(truncatingIfNeeded: bits << UInt64(8 - bitCount))) }
            return out
        }
        for byte in input.dropFirst() {
            let key = Int32(prefix << 8 | Int(byte)) + 1
            var slot = Int(key &* 40503) & (tableSize - 1)
            var found = -1
            while keys[slot] != 0 {
                if keys[slot] == key {
                    found = Int(codes[slot])
                    break
                }
                slot = (slot + 1) & (tableSize - 1)
            }
            if found >= 0 {
                prefix = found
                continue
            }
            emit(prefix)
            keys[slot] = key
            codes[slot] = Int16(next)
            next += 1
            if next == 4094 {
                // The table is full: start again (libtiff's limit, one below the 12-bit maximum).
                emit(clear)
                for i in 0..<tableSize { keys[i] = 0 }
                next = 258
                codeSize = 9
            } else {
                grow()
            }
            prefix = Int(byte)
        }
        emit(prefix)
        // The decoder adds an entry on reading that last code: the end code may need the next width.
        next += 1
        grow()
        emit(end)
        if bitCount > 0 { out.append(UInt8(truncatingIfNeeded: bits << UInt64(8 - bitCount))) }
        return out
    }
}

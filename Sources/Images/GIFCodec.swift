#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// GIF in Swift. Reads GIF87a and GIF89a: the first frame as it shows on the logical screen (its
/// palette, transparency from the graphic control extension, interlaced rows), and counts the frames.
/// Writes one frame: the exact palette when the image has at most 256 colours (255 and a transparent
/// one when some pixel is under half opaque), else a median-cut palette.
enum GIFCodec {
    struct Screen {
        var width: Int
        var height: Int
        /// Offset of the global colour table (nil: none) and its entry count.
        var globalPalette: (offset: Int, count: Int)?
        /// Where the blocks start.
        var blocks: Int
    }

    static func screen(_ bytes: UnsafeRawBufferPointer) throws -> Screen {
        let reader = ByteReader(bytes, format: .gif)
        try reader.check(0, 13, "the logical screen descriptor")
        let packed = try reader.u8(10)
        var screen = Screen(width: try reader.u16(6), height: try reader.u16(8), globalPalette: nil, blocks: 13)
        if packed & 0x80 != 0 {
            let count = 1 << ((packed & 7) + 1)
            try reader.check(13, 3 * count, "the global colour table")
            screen.globalPalette = (13, count)
            screen.blocks += 3 * count
        }
        return screen
    }

    /// The canvas size: the logical screen, or the first frame's extent when the screen says 0x0.
    static func header(_ bytes: UnsafeRawBufferPointer) throws -> (width: Int, height: Int) {
        let screen = try screen(bytes)
        if screen.width > 0, screen.height > 0 { return (screen.width, screen.height) }
        let reader = ByteReader(bytes, format: .gif)
        var offset = screen.blocks
        while true {
            switch try reader.u8(offset) {
            case 0x21: offset = try skipSubBlocks(reader, from: offset + 2)
            case 0x2C:
                let width = try reader.u16(offset + 1) + reader.u16(offset + 5)
                let height = try reader.u16(offset + 3) + reader.u16(offset + 7)
                return (width, height)
            default: throw ImageError.corrupt(.gif, "no image")
            }
        }
    }

    /// Skips a chain of data sub-blocks (each a length byte, then that many bytes; a zero length ends
    /// it) and returns the offset after the terminator. Each pass consumes at least one byte.
    static func skipSubBlocks(_ reader: ByteReader, from start: Int) throws -> Int {
        var offset = start
        while true {
            let length = try reader.u8(offset)
            offset += 1
            if length == 0 { return offset }
            try reader.check(offset, length, "a data sub-block")
            offset += length
        }
    }

    static func probe(_ bytes: UnsafeRawBufferPointer) throws -> ImageProbe {
        let size = try header(bytes)
        // The LZW tables, one row of indices and a string's worth: nothing that grows with the canvas.
        return ImageProbe(format: .gif, width: size.width, height: size.height, bits: 8, orientation: 1, lossless: true,
                          decodeWork: 256 << 10, validateWork: 256 << 10)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws -> DecodedImage {
        let (canvas, size, frames) = try read(bytes, limits: limits, validating: false)
        guard let canvas else { throw ImageError.truncated(.gif, "the file ends before its first image") }
        let image = RasterImage(width: size.width, height: size.height, pixels: canvas, frameCount: frames)
        return DecodedImage(image: image, orientation: 1, lossless: true)
    }

    /// Every check a decode makes, the first frame's LZW codes read and counted, no pixel written.
    static func validate(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws -> Int {
        try read(bytes, limits: limits, validating: true).frames
    }

    static func read(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits, validating: Bool)
        throws -> (canvas: Data?, size: (width: Int, height: Int), frames: Int)
    {
        let reader = ByteReader(bytes, format: .gif)
        let screen = try screen(bytes)
        var offset = screen.blocks
        var transparent: Int?
        var canvas: Data?
        var decodedFirst = false
        var canvasSize = (width: screen.width, height: screen.height)
        var frames = 0
        blocks: while offset < bytes.count {
            do {
                switch try reader.u8(offset) {
                case 0x21:
                    let label = try reader.u8(offset + 1)
                    // The graphic control extension before the first image gives its transparent index.
                    if label == 0xF9, frames == 0, try reader.u8(offset + 2) >= 4 {
                        let packed = try reader.u8(offset + 3)
                        transparent = packed & 1 != 0 ? try reader.u8(offset + 6) : nil
                    }
                    offset = try skipSubBlocks(reader, from: offset + 2)
                case 0x2C:
                    let left = try reader.u16(offset + 1), top = try reader.u16(offset + 3)
                    let width = try reader.u16(offset + 5), height = try reader.u16(offset + 7)
                    let packed = try reader.u8(offset + 9)
                    offset += 10
                    var palette = screen.globalPalette
                    if packed & 0x80 != 0 {
                        let count = 1 << ((packed & 7) + 1)
                        try reader.check(offset, 3 * count, "a local colour table")
                        palette = (offset, count)
                        offset += 3 * count
                    }
                    let minimumCodeSize = try reader.u8(offset)
                    offset += 1
                    if frames == 0 {
                        if canvasSize.width == 0 || canvasSize.height == 0 { canvasSize = (left + width, top + height) }
                        try ImageError.checkPixels(.gif, width: canvasSize.width, height: canvasSize.height, limits: limits)
                        try ImageError.checkPixels(.gif, width: width, height: height, limits: limits)
                        let end = try skipSubBlocks(reader, from: offset)
                        let frame = Frame(left: left, top: top, width: width, height: height, interlaced: packed & 0x40 != 0)
                        if validating {
                            _ = try decompress(reader, from: offset, minimumCodeSize: minimumCodeSize, frame: frame, row: nil)
                        } else {
                            canvas = try render(reader, from: offset, minimumCodeSize: minimumCodeSize, frame: frame, canvas: canvasSize,
                                                palette: palette, transparent: transparent)
                        }
                        decodedFirst = true
                        offset = end
                    } else {
                        offset = try skipSubBlocks(reader, from: offset)
                    }
                    frames += 1
                case 0x3B:
                    break blocks
                default:
                    // Bytes after the first frame that are no block: the frames so far are the file.
                    if frames > 0 { break blocks }
                    throw ImageError.corrupt(.gif, "unknown block 0x\(String(try reader.u8(offset), radix: 16)) at offset \(offset)")
                }
            } catch let error as ImageError where frames > 0 && error.kind == .truncated {
                // A file cut after its first frame still shows that frame; the count is what arrived.
                break blocks
            }
        }
        guard decodedFirst else { throw ImageError.truncated(.gif, "the file ends before its first image") }
        return (canvas, canvasSize, frames)
    }

    /// Where an image descriptor puts its frame on the canvas.
    struct Frame {
        var left: Int
        var top: Int
        var width: Int
        var height: Int
        var interlaced: Bool

        /// The frame's row shown `sequence`-th in the stream: in order, or by the four interlaced passes
        /// (every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
        func row(_ sequence: Int) -> Int {
            guard interlaced else { return sequence }
            let first = (height + 7) / 8, second = (height + 3) / 8, third = (height + 1) / 4
            if sequence < first { return 8 * sequence }
            if sequence < first + second { return 8 * (sequence - first) + 4 }
            if sequence < first + second + third { return 4 * (sequence - first - second) + 2 }
            return 2 * (sequence - first - second - third) + 1
        }
    }

    /// GIF's LZW (codes LSB first, growing from minimumCodeSize + 1 to 12 bits) over the chained sub-blocks
    /// into the frame's width × height palette indices, handed to `row` a row at a time (the row's
    /// sequence in the stream and its indices; the last may be short when the stream ends early). Each
    /// pass reads one code or ends. A stream that ends (its end code, or the sub-blocks' terminator)
    /// before the frame is full leaves the rest unwritten, marked by the returned count; a file that
    /// ends inside the sub-blocks is truncated. `row` nil: codes are read and checked, strings only
    /// counted (the time is the input's, not the frame's).
    static func decompress(_ reader: ByteReader, from start: Int, minimumCodeSize: Int, frame: Frame,
                           row: ((Int, UnsafeBufferPointer<UInt8>) -> Void)?) throws -> Int {
        guard (1...11).contains(minimumCodeSize) else { throw ImageError.corrupt(.gif, "LZW code size \(minimumCodeSize)") }
        let count = frame.width * frame.height
        let clear = 1 << minimumCodeSize, end = clear + 1
        var codeSize = minimumCodeSize + 1
        var next = clear + 2
        var prefix = [Int16](repeating: -1, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        var length = [Int16](repeating: 0, count: 4096)
        var firstByte = [UInt8](repeating: 0, count: 4096)
        for code in 0..<min(clear, 4096) {
            suffix[code] = UInt8(truncatingIfNeeded: code)
            firstByte[code] = suffix[code]
            length[code] = 1
        }
        // One row of indices, and one string (at most 4096 bytes) as it is spelt backwards.
        var line = [UInt8](repeating: 0, count: row == nil ? 0 : frame.width)
        var string = [UInt8](repeating: 0, count: row == nil ? 0 : 4096)
        var lineFill = 0, sequence = 0
        var filled = 0
        var previous = -1
        var bits: UInt64 = 0, bitCount = 0
        var block = start, blockLeft = 0
        decoding: while filled < count {
            // Refill: whole bytes from the current sub-block, the next one when it runs out.
            while bitCount < codeSize {
                if blockLeft == 0 {
                    let size = try reader.u8(block)
                    if size == 0 { break decoding }
                    try reader.check(block + 1, size, "a data sub-block")
                    block += 1
                    blockLeft = size
                }
                bits |= UInt64(reader.bytes[block]) << UInt64(bitCount)
                bitCount += 8
                block += 1
                blockLeft -= 1
            }
            let code = Int(bits & ((1 << UInt64(codeSize)) - 1))
            bits >>= UInt64(codeSize)
            bitCount -= codeSize
            if code == clear {
                codeSize = minimumCodeSize + 1
                next = clear + 2
                previous = -1
                continue
            }
            if code == end { break }
            var emitted: Int
            if previous < 0 {
                guard code < clear else { throw ImageError.corrupt(.gif, "LZW code \(code) before any string") }
                emitted = code
            } else if code < next {
                emitted = code
                if next < 4096 { add(previous, firstByte[code]) }
            } else if code == next, next < 4096 {
                add(previous, firstByte[previous])
                emitted = code
            } else {
                throw ImageError.corrupt(.gif, "LZW code \(code) past the table (\(next))")
            }
            let stringLength = min(Int(length[emitted]), count - filled)
            filled += stringLength
            previous = code
            guard let row else { continue }
            // The string, spelt backwards from its last byte, then copied into rows, cut at the frame's end.
            var position = Int(length[emitted]) - 1
            var walk = emitted
            while walk >= 0 {
                string[position] = suffix[walk]
                position -= 1
                walk = Int(prefix[walk])
            }
            var taken = 0
            while taken < stringLength {
                let piece = min(stringLength - taken, frame.width - lineFill)
                for k in 0..<piece { line[lineFill + k] = string[taken + k] }
                lineFill += piece
                taken += piece
                if lineFill == frame.width {
                    line.withUnsafeBufferPointer { row(sequence, $0) }
                    sequence += 1
                    lineFill = 0
                }
            }
        }
        if let row, lineFill > 0 { line.withUnsafeBufferPointer { row(sequence, UnsafeBufferPointer(rebasing: $0[..<lineFill])) } }
        return filled

        // A new entry: the previous string and one byte. The code widens once the table holds 2^size
        // entries (the encoder widened one code earlier).
        func add(_ previous: Int, _ byte: UInt8) {
            prefix[next] = Int16(previous)
            suffix[next] = byte
            firstByte[next] = firstByte[previous]
            length[next] = length[previous] + 1
            next += 1
            if next == 1 << codeSize, codeSize < 12 { codeSize += 1 }
        }
    }

    /// The first frame on a transparent canvas, each row of indices put through the palette as the LZW
    /// stream yields it: no buffer of indices the size of the frame.
    static func render(_ reader: ByteReader, from start: Int, minimumCodeSize: Int, frame: Frame, canvas size: (width: Int, height: Int),
                       palette: (offset: Int, count: Int)?, transparent: Int?) throws -> Data {
        var colours = [UInt32](repeating: 0xFF00_0000, count: 256)
        if let palette {
            for index in 0..<palette.count {
                let entry = palette.offset + 3 * index
                colours[index] = UInt32(reader.bytes[entry]) | UInt32(reader.bytes[entry + 1]) << 8
                    | UInt32(reader.bytes[entry + 2]) << 16 | 0xFF00_0000
            }
        } else {
            for index in 0..<256 { colours[index] = UInt32(index) * 0x0001_0101 | 0xFF00_0000 }
        }
        if let transparent { colours[transparent] = 0 }
        var pixels = PixelBuffer.zeroed(size.width * size.height * 4)
        try pixels.withUnsafeMutableBytes { raw in
            let out = raw.bindMemory(to: UInt32.self)
            try colours.withUnsafeBufferPointer { colours in
                _ = try decompress(reader, from: start, minimumCodeSize: minimumCodeSize, frame: frame) { sequence, indices in
                    // Pixels the stream did not reach stay transparent.
                    let y = frame.top + frame.row(sequence)
                    guard y < size.height else { return }
                    let span = max(0, min(indices.count, size.width - frame.left))
                    let base = y * size.width + frame.left
                    for x in 0..<span { out[base + x] = colours[Int(indices[x])] }
                }
            }
        }
        return pixels
    }

    // MARK: - Writing

    static func encode(_ image: RasterImage, exactColours: Bool) throws -> Data {
        precondition(image.depth == .eight)
        guard image.width <= 0xFFFF, image.height <= 0xFFFF else {
            throw ImageError(.encodingFailed, "GIF cannot hold a \(image.width)x\(image.height) image (at most 65535 a side)")
        }
        let (palette, indices, transparentIndex) = try GIFPalette.build(image, exactColours: exactColours)
        var bits = 1
        while 1 << bits < palette.count { bits += 1 }
        var out = ByteWriter(capacity: image.width * image.height / 2 + 1024)
        out.ascii("GIF89a")
        out.u16le(image.width)
        out.u16le(image.height)
        out.u8(0x80 | (bits - 1) << 4 | (bits - 1))
        out.u8(0)
        out.u8(0)
        for index in 0..<(1 << bits) {
            let colour = index < palette.count ? palette[index] : 0
            out.u8(Int(colour & 0xFF))
            out.u8(Int(colour >> 8 & 0xFF))
            out.u8(Int(colour >> 16 & 0xFF))
        }
        if let transparentIndex {
            out.append([0x21, 0xF9, 0x04, 0x01, 0x00, 0x00, UInt8(transparentIndex), 0x00])
        }
        out.u8(0x2C)
        out.u16le(0)
        out.u16le(0)
        out.u16le(image.width)
        out.u16le(image.height)
        out.u8(0)
        let minimumCodeSize = max(2, bits)
        out.u8(minimumCodeSize)
        let compressed = compress(indices, minimumCodeSize: minimumCodeSize)
        var position = 0
        while position < compressed.count {
            let size = min(255, compressed.count - position)
            out.u8(size)
            out.append(compressed[position..<(position + size)])
            position += size
        }
        out.u8(0)
        out.u8(0x3B)
        return Data(out.bytes)
    }

    /// GIF's LZW: a clear code first, codes LSB first, widened when the decoder will widen (the code
    /// after the one that fills 2^size entries), a clear code when the 4096-entry table is full.
    static func compress(_ indices: [UInt8], minimumCodeSize: Int) -> [UInt8] {
        let clear = 1 << minimumCodeSize, end = clear + 1
        var codeSize = minimumCodeSize + 1
        var next = clear + 2
        var out: [UInt8] = []
        out.reserveCapacity(indices.count / 2 + 16)
        var bits: UInt64 = 0, bitCount = 0
        func emit(_ code: Int) {
            bits |= UInt64(code) << UInt64(bitCount)
            bitCount += codeSize
            while bitCount >= 8 {
                out.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
                bitCount -= 8
            }
        }
        // (prefix << 8 | byte) + 1 → code, open addressing; 0 marks an empty slot.
        let tableSize = 8192
        var keys = [Int32](repeating: 0, count: tableSize)
        var codes = [Int16](repeating: 0, count: tableSize)
        emit(clear)
        guard var prefix = indices.first.map(Int.init) else {
            emit(end)
            if bitCount > 0 { out.append(UInt8(truncatingIfNeeded: bits)) }
            return out
        }
        for index in indices.dropFirst() {
            let key = Int32(prefix << 8 | Int(index)) + 1
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
            if next < 4096 {
                keys[slot] = key
                codes[slot] = Int16(next)
                next += 1
                if next == (1 << codeSize) + 1, codeSize < 12 { codeSize += 1 }
            } else {
                emit(clear)
                for i in 0..<tableSize { keys[i] = 0 }
                codeSize = minimumCodeSize + 1
                next = clear + 2
            }
            prefix = Int(index)
        }
        emit(prefix)
        // The decoder adds an entry on reading that last code (one step behind): the end code may
        // need the next width.
        if next == 1 << codeSize, codeSize < 12 { codeSize += 1 }
        emit(end)
        if bitCount > 0 { out.append(UInt8(truncatingIfNeeded: bits)) }
        return out
    }
}

/// The palette of a GIF to write: every colour when there are at most 256, else a median cut of the
/// colours (5 bits a channel) into 256 boxes, each the mean of its pixels.
enum GIFPalette {
    static func build(_ image: RasterImage, exactColours: Bool) throws -> (palette: [UInt32], indices: [UInt8], transparent: Int?) {
        let count = image.width * image.height
        var indices = [UInt8](repeating: 0, count: count)
        return try image.pixels.withUnsafeBytes { raw in
            let pixels = raw.bindMemory(to: UInt32.self)
            var hasTransparent = false
            for pixel in pixels where pixel >> 24 < 128 {
                hasTransparent = true
                break
            }
            let room = hasTransparent ? 255 : 256
            // Exact: the colours in order of appearance, while they fit.
            var lookup: [UInt32: UInt8] = [:]
            var palette: [UInt32] = []
            var exact = true
            for i in 0..<count {
                let pixel = pixels[i]
                if pixel >> 24 < 128 { continue }
                let colour = pixel & 0x00FF_FFFF
                if let index = lookup[colour] {
                    indices[i] = index
                } else if palette.count < room {
                    lookup[colour] = UInt8(palette.count)
                    indices[i] = UInt8(palette.count)
                    palette.append(colour)
                } else {
                    exact = false
                    break
                }
            }
            if !exact {
                if exactColours { throw ImageError(.encodingFailed, "GIF: the image has more than \(room) colours") }
                palette = medianCut(pixels, colours: room, indices: &indices)
            }
            var transparent: Int?
            if hasTransparent {
                transparent = palette.count
                palette.append(0)
                for i in 0..<count where pixels[i] >> 24 < 128 { indices[i] = UInt8(transparent!) }
            }
            if palette.count < 2 { palette.append(0) }
            return (palette, indices, transparent)
        }
    }

    static func medianCut(_ pixels: UnsafeBufferPointer<UInt32>, colours: Int, indices: inout [UInt8]) -> [UInt32] {
        func bin(_ pixel: UInt32) -> Int { Int(pixel >> 3 & 0x1F) | Int(pixel >> 11 & 0x1F) << 5 | Int(pixel >> 19 & 0x1F) << 10 }
        var population = [Int](repeating: 0, count: 32768)
        var sums = [Int](repeating: 0, count: 3 * 32768)
        for pixel in pixels where pixel >> 24 >= 128 {
            let b = bin(pixel)
            population[b] += 1
            sums[3 * b] += Int(pixel & 0xFF)
            sums[3 * b + 1] += Int(pixel >> 8 & 0xFF)
            sums[3 * b + 2] += Int(pixel >> 16 & 0xFF)
        }
        func channel(_ b: Int, _ axis: Int) -> Int { b >> (5 * axis) & 0x1F }
        var boxes: [[Int]] = [(0..<32768).filter { population[$0] > 0 }]
        // Split the box with the widest channel range (population breaks ties) at its median pixel.
        while boxes.count < colours {
            var best = -1, bestScore = 0, bestAxis = 0
            for (index, box) in boxes.enumerated() where box.count > 1 {
                for axis in 0..<3 {
                    var low = 31, high = 0
                    for b in box {
                        low = min(low, channel(b, axis))
                        high = max(high, channel(b, axis))
                    }
                    let score = (high - low) * 1_000_000 + box.count
                    if score > bestScore {
                        (best, bestScore, bestAxis) = (index, score, axis)
                    }
                }
            }
            guard best >= 0 else { break }
            let sorted = boxes[best].sorted { channel($0, bestAxis) < channel($1, bestAxis) }
            let total = sorted.reduce(0) { $0 + population[$1] }
            var running = 0, cut = 1
            for (position, b) in sorted.enumerated() {
                running += population[b]
                if running * 2 >= total {
                    cut = max(1, min(sorted.count - 1, position + 1))
                    break
                }
            }
            boxes[best] = Array(sorted[..<cut])
            boxes.append(Array(sorted[cut...]))
        }
        var palette: [UInt32] = []
        var binIndex = [UInt8](repeating: 0, count: 32768)
        for (index, box) in boxes.enumerated() {
            var r = 0, g = 0, b = 0, n = 0
            for bin in box {
                r += sums[3 * bin]
                g += sums[3 * bin + 1]
                b += sums[3 * bin + 2]
                n += population[bin]
                binIndex[bin] = UInt8(index)
            }
            n = max(n, 1)
            palette.append(UInt32((r + n / 2) / n) | UInt32((g + n / 2) / n) << 8 | UInt32((b + n / 2) / n) << 16)
        }
        for i in 0..<pixels.count where pixels[i] >> 24 >= 128 { indices[i] = binIndex[bin(pixels[i])] }
        return palette
    }
}

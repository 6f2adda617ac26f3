/// Bounds-checked reads of a file's bytes for the Swift decoders: every offset and length read from a
/// file goes through here, and one out of range is a truncation error, never a trap.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    let format: ImageFormat
    /// TIFF and EXIF say their byte order; BMP, GIF and WebP are little-endian.
    var bigEndian = false

    init(_ bytes: UnsafeRawBufferPointer, format: ImageFormat) {
        self.bytes = bytes
        self.format = format
    }

    var count: Int { bytes.count }

    /// Whether `length` bytes from `offset` are inside the file (no overflow for any Int inputs).
    func contains(_ offset: Int, _ length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= bytes.count && length <= bytes.count - offset
    }

    func check(_ offset: Int, _ length: Int, _ what: @autoclosure () -> String) throws {
        guard contains(offset, length) else {
            throw ImageError.truncated(format, "\(what()) at offset \(offset) (\(length) bytes) is past the end of the file (\(bytes.count) bytes)")
        }
    }

    func u8(_ offset: Int) throws -> Int {
        try check(offset, 1, "a byte")
        return Int(bytes[offset])
    }

    func u16(_ offset: Int) throws -> Int {
        try check(offset, 2, "a 16-bit field")
        let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func u32(_ offset: Int) throws -> Int {
        try check(offset, 4, "a 32-bit field")
        let a = Int(bytes[offset]), b = Int(bytes[offset + 1]), c = Int(bytes[offset + 2]), d = Int(bytes[offset + 3])
        return bigEndian ? a << 24 | b << 16 | c << 8 | d : d << 24 | c << 16 | b << 8 | a
    }

    /// A signed 32-bit field (BMP's width and height).
    func i32(_ offset: Int) throws -> Int { Int(Int32(truncatingIfNeeded: try u32(offset))) }

    /// `length` bytes from `offset`, checked.
    func slice(_ offset: Int, _ length: Int, _ what: @autoclosure () -> String) throws -> UnsafeRawBufferPointer {
        try check(offset, length, what())
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
    }
}

/// Bytes appended little- or big-endian, for the Swift encoders.
struct ByteWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ value: Int) { bytes.append(UInt8(truncatingIfNeeded: value)) }
    mutating func u16le(_ value: Int) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }
    mutating func u32le(_ value: Int) {
        u16le(value & 0xFFFF)
        u16le(value >> 16 & 0xFFFF)
    }
    mutating func ascii(_ text: String) { bytes.append(contentsOf: text.utf8) }
    mutating func append(_ other: some Sequence<UInt8>) { bytes.append(contentsOf: other) }
}

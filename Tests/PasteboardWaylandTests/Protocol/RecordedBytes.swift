// Recorded messages spelled out: the little-endian words and padded strings of the wire format.

/// The little-endian words and padded strings of recorded messages, to spell them out in tests.
enum Bytes {
    static func words(_ values: UInt32...) -> [UInt8] {
        values.flatMap { value in [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)] }
    }

    /// A header: object, then size (upper 16 bits) and opcode.
    static func header(_ object: UInt32, size: UInt32, opcode: UInt32) -> [UInt8] { words(object, size << 16 | opcode) }

    /// A string argument: its length with the NUL, the bytes, the NUL, padding to 4.
    static func string(_ text: String) -> [UInt8] {
        var bytes = words(UInt32(text.utf8.count + 1)) + Array(text.utf8) + [0]
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }
}

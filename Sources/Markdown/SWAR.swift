/// Word-at-a-time search for the next byte that needs attention (SIMD within a register): eight bytes
/// are loaded as one `UInt64` and tested against each byte sought at once, so a plain run costs about one
/// test per eight bytes. `(t - 0x01…) & ~t & 0x80…` is non-zero exactly when a byte of `t` is zero, and its
/// lowest set bit marks the first such byte (a borrow only sets bits above a true zero byte), so the
/// index of the first byte found is exact.
enum SWAR {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each byte of `x` equal to `c`, exact up to and including the lowest.
    @inline(__always)
    static func bytes(_ x: UInt64, equalTo c: UInt8) -> UInt64 {
        let t = x ^ (ones &* UInt64(c))
        return (t &- ones) & ~t & highs
    }

    /// The high bit of each byte of `x` that is `"` or `&` (0x22, 0x26: the same with bit 2 set), exact up
    /// to and including the lowest.
    @inline(__always)
    static func quotesOrAmpersands(_ x: UInt64) -> UInt64 { bytes(x | (ones &* 0x04), equalTo: 0x26) }

    /// The high bit of each byte of `x` that is `<` or `>` (0x3C, 0x3E: the same with bit 1 set), exact up
    /// to and including the lowest.
    @inline(__always)
    static func angleBrackets(_ x: UInt64) -> UInt64 { bytes(x | (ones &* 0x02), equalTo: 0x3E) }

    /// The index of the first byte in `from..<to` that HTML escaping changes (`"`, `&`, `<`, `>`, and the
    /// line ending when `escapingLineEndings`), or `to`.
    @inline(__always)
    static func next(in base: UnsafePointer<UInt8>, from start: Int, to end: Int, escapingLineEndings: Bool) -> Int {
        var i = start
        let raw = UnsafeRawPointer(base)
        while i + 8 <= end {
            let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            var found = quotesOrAmpersands(x) | angleBrackets(x)
            if escapingLineEndings { found |= bytes(x, equalTo: 0x0A) }
            if found != 0 { return i + (found.littleEndian.trailingZeroBitCount >> 3) }
            i += 8
        }
        if i < end && end - start >= 8 {
            // The last bytes as the range's last word: those before `i` in it hold no byte sought, so the
            // lowest found is exact.
            let x = raw.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self)
            var found = quotesOrAmpersands(x) | angleBrackets(x)
            if escapingLineEndings { found |= bytes(x, equalTo: 0x0A) }
            return found != 0 ? end - 8 + (found.littleEndian.trailingZeroBitCount >> 3) : end
        }
        while i < end {
            let c = base[i]
            if c == 0x22 || c == 0x26 || c == 0x3C || c == 0x3E || (escapingLineEndings && c == 0x0A) { return i }
            i += 1
        }
        return end
    }

    /// The index of the first byte in `from..<to` that text emission stops at or marks (a line ending, `\`,
    /// `&`, and `<`, `>`, `"`, which make a run need escaping), or `to`.
    @inline(__always)
    static func nextInText(in base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var i = start
        let raw = UnsafeRawPointer(base)
        while i + 8 <= end {
            let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let found = bytes(x, equalTo: 0x0A) | bytes(x, equalTo: 0x5C) | quotesOrAmpersands(x) | angleBrackets(x)
            if found != 0 { return i + (found.littleEndian.trailingZeroBitCount >> 3) }
            i += 8
        }
        if i < end && end - start >= 8 {
            let x = raw.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self)
            let found = bytes(x, equalTo: 0x0A) | bytes(x, equalTo: 0x5C) | quotesOrAmpersands(x) | angleBrackets(x)
            return found != 0 ? end - 8 + (found.littleEndian.trailingZeroBitCount >> 3) : end
        }
        while i < end {
            let c = base[i]
            if c == 0x0A || c == 0x5C || c == 0x26 || c == 0x3C || c == 0x3E || c == 0x22 { return i }
            i += 1
        }
        return end
    }

    /// The index of the first `byte` in `from..<to`, or `to`.
    @inline(__always)
    static func first(_ byte: UInt8, in base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var i = start
        let raw = UnsafeRawPointer(base)
        while i + 8 <= end {
            let found = bytes(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self), equalTo: byte)
            if found != 0 { return i + (found.littleEndian.trailingZeroBitCount >> 3) }
            i += 8
        }
        if i < end && end - start >= 8 {
            let found = bytes(raw.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self), equalTo: byte)
            return found != 0 ? end - 8 + (found.littleEndian.trailingZeroBitCount >> 3) : end
        }
        while i < end {
            if base[i] == byte { return i }
            i += 1
        }
        return end
    }

    /// The index of the first of the bytes `a`, `b` and `c` in `from..<to` (pass one twice to seek two), or `to`.
    @inline(__always)
    static func first(of a: UInt8, _ b: UInt8, _ c: UInt8, in base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var i = start
        let raw = UnsafeRawPointer(base)
        while i + 8 <= end {
            let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let found = bytes(x, equalTo: a) | bytes(x, equalTo: b) | bytes(x, equalTo: c)
            if found != 0 { return i + (found.littleEndian.trailingZeroBitCount >> 3) }
            i += 8
        }
        if i < end && end - start >= 8 {
            let x = raw.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self)
            let found = bytes(x, equalTo: a) | bytes(x, equalTo: b) | bytes(x, equalTo: c)
            return found != 0 ? end - 8 + (found.littleEndian.trailingZeroBitCount >> 3) : end
        }
        while i < end {
            let d = base[i]
            if d == a || d == b || d == c { return i }
            i += 1
        }
        return end
    }
}

/// A byte-level RTF tokenizer: groups, control words and symbols, `\'hh` bytes, `\binN` data and text runs.
///
/// It never fails: whatever the bytes, ``next()`` returns tokens until ``RTFToken/end``. Control words longer
/// than 32 letters are cut as the specification says; a parameter is clamped to the `Int32` range.
///
/// It reads through a buffer pointer (no bounds checks, no reference counting per byte): the owner keeps the
/// bytes alive while it runs, as ``RTFParser/run()`` does inside `withUnsafeBufferPointer`.
struct RTFTokenizer {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.position = 0
    }

    enum Token: Equatable {
        case groupStart
        case groupEnd
        /// `name` is the FNV-1a hash of the letters (see ``hash(_:)``): control words are compared as integers.
        case word(name: UInt64, parameter: Int?)
        /// `\` + one non-letter, other than `'`: `\\`, `\{`, `\~`, `\*`, `\<LF>`…
        case symbol(UInt8)
        case hexByte(UInt8)
        /// Text bytes up to the next `\`, `{`, `}` or line break (line breaks are dropped).
        /// `ascii`: no byte of the run is 0x80 or above (so it needs no code page).
        case text(Range<Int>, ascii: Bool)
        /// The raw bytes after `\binN`.
        case binary(Range<Int>)
        case end
    }

    @inline(__always)
    private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    mutating func next() -> Token {
        let count = bytes.count
        while position < count {
            let b = bytes[position]
            switch b {
            case UInt8(ascii: "{"):
                position += 1
                return .groupStart
            case UInt8(ascii: "}"):
                position += 1
                return .groupEnd
            case UInt8(ascii: "\\"):
                return controlSequence()
            case 0x0A, 0x0D, 0x00:
                position += 1
                continue
            default:
                let start = position
                var p = start + 1
                var high = b
                // Eight bytes at a time while none of them is special (SWAR: a byte equal to x makes the
                // "has a zero byte" test of word ^ x true); the byte loop below finds the exact stop.
                if let base = bytes.baseAddress {
                    let raw = UnsafeRawPointer(base)
                    var wide: UInt64 = 0
                    while p + 8 <= count {
                        let w = raw.loadUnaligned(fromByteOffset: p, as: UInt64.self)
                        if Self.hasZeroByte(w) | Self.hasZeroByte(w ^ 0x0A0A_0A0A_0A0A_0A0A) | Self.hasZeroByte(w ^ 0x0D0D_0D0D_0D0D_0D0D)
                            | Self.hasZeroByte(w ^ 0x5C5C_5C5C_5C5C_5C5C) | Self.hasZeroByte(w ^ 0x7B7B_7B7B_7B7B_7B7B)
                            | Self.hasZeroByte(w ^ 0x7D7D_7D7D_7D7D_7D7D) != 0
                        {
                            break
                        }
                        wide |= w
                        p += 8
                    }
                    if wide & 0x8080_8080_8080_8080 != 0 { high |= 0x80 }
                }
                while p < count {
                    let c = bytes[p]
                    if c == UInt8(ascii: "\\") || c == UInt8(ascii: "{") || c == UInt8(ascii: "}") || c == 0x0A || c == 0x0D || c == 0 {
                        break
                    }
                    high |= c
                    p += 1
                }
                position = p
                return .text(start..<position, ascii: high < 0x80)
            }
        }
        return .end
    }

    private mutating func controlSequence() -> Token {
        let count = bytes.count
        position += 1  // the backslash
        guard position < count else { return .end }
        let c = bytes[position]
        if Self.isLetter(c) {
            let start = position
            var hash: UInt64 = Self.fnvBasis
            while position < count, Self.isLetter(bytes[position]), position - start < 32 {
                hash = (hash ^ UInt64(bytes[position])) &* Self.fnvPrime
                position += 1
            }
            var parameter: Int? = nil
            if position < count {
                var negative = false
                var p = position
                if bytes[p] == UInt8(ascii: "-"), p + 1 < count, bytes[p + 1] >= 0x30, bytes[p + 1] <= 0x39 {
                    negative = true
                    p += 1
                }
                if p < count, bytes[p] >= 0x30, bytes[p] <= 0x39 {
                    var value = 0
                    var digits = 0
                    while p < count, bytes[p] >= 0x30, bytes[p] <= 0x39 {
                        if digits < 10 { value = value * 10 + Int(bytes[p] - 0x30) }
                        digits += 1
                        p += 1
                    }
                    value = min(value, Int(Int32.max))
                    parameter = negative ? -value : value
                    position = p
                }
            }
            if position < count, bytes[position] == 0x20 { position += 1 }
            // \binN: the next N bytes are data, whatever they contain.
            if hash == Self.binKey {
                let n = max(0, parameter ?? 0)
                let start = position
                position = min(count, position + n)
                return .binary(start..<position)
            }
            return .word(name: hash, parameter: parameter)
        }
        if c == UInt8(ascii: "'") {
            if position + 2 < count, let h = Self.hexValue(bytes[position + 1]), let l = Self.hexValue(bytes[position + 2]) {
                position += 3
                return .hexByte(h << 4 | l)
            }
            position += 1
            return .symbol(UInt8(ascii: "'"))
        }
        position += 1
        return .symbol(c)
    }

    /// Non-zero when some byte of `v` is zero.
    @inline(__always)
    static func hasZeroByte(_ v: UInt64) -> UInt64 { (v &- 0x0101_0101_0101_0101) & ~v & 0x8080_8080_8080_8080 }

    static let fnvBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let fnvPrime: UInt64 = 0x100_0000_01b3

    /// FNV-1a hash of a control word's letters: keywords are looked up without making a string.
    @inline(__always)
    static func hash<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        var h = fnvBasis
        for b in bytes { h = (h ^ UInt64(b)) &* fnvPrime }
        return h
    }
    /// `hash("bin".utf8)`, as a literal: a `static let` would cost a `swift_once` check per control word.
    static var binKey: UInt64 { 0x0054_1819_134f_de3e }
}

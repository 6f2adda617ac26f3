/// Decodes HTML character references (`&amp;`, `&#233;`, `&#x1F600;`, legacy `&copy` without `;`).
enum HTMLEntityDecoder {
    /// Name (without `&` and `;`) → replacement, built once from the generated table.
    static let table: [String: String] = {
        var t: [String: String] = [:]
        t.reserveCapacity(2300)
        for entry in HTMLEntities.packed.split(separator: "\u{0}") {
            guard let eq = entry.firstIndex(of: "=") else { continue }
            t[String(entry[..<eq])] = String(entry[entry.index(after: eq)...])
        }
        return t
    }()

    /// Windows-1252 meanings of the C1 range in numeric references, as HTML5 specifies.
    private static let c1: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D,
        0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D,
        0x017E, 0x0178,
    ]

    static func scalar(forCode code: UInt32) -> Unicode.Scalar {
        var v = code
        if v >= 0x80 && v <= 0x9F { v = c1[Int(v - 0x80)] }
        if v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) { return "\u{FFFD}" }
        return Unicode.Scalar(v) ?? "\u{FFFD}"
    }

    static func decode(_ s: String, inAttribute: Bool = false) -> String {
        guard s.utf8.contains(UInt8(ascii: "&")) else { return s }
        let bytes = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b != UInt8(ascii: "&") {
                out.append(b)
                i += 1
                continue
            }
            if let (replacement, length) = reference(bytes, at: i, inAttribute: inAttribute) {
                out.append(contentsOf: replacement.utf8)
                i += length
            } else {
                out.append(b)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always) private static func isAlnum(_ b: UInt8) -> Bool {
        (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || (b >= 0x30 && b <= 0x39)
    }

    /// The reference starting at `bytes[i]` (an `&`): its replacement and length in bytes.
    static func reference(_ bytes: [UInt8], at i: Int, inAttribute: Bool) -> (String, Int)? {
        var j = i + 1
        guard j < bytes.count else { return nil }
        if bytes[j] == UInt8(ascii: "#") {
            j += 1
            var hex = false
            if j < bytes.count, bytes[j] | 0x20 == UInt8(ascii: "x") {
                hex = true
                j += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while j < bytes.count, let h = RTFTokenizer.hexValue(bytes[j]), hex || h < 10 {
                if value < 0x110000 { value = value * (hex ? 16 : 10) + UInt32(h) }
                digits += 1
                j += 1
            }
            guard digits > 0 else { return nil }
            if j < bytes.count, bytes[j] == UInt8(ascii: ";") { j += 1 }
            return (String(Character(scalar(forCode: value))), j - i)
        }
        let start = j
        while j < bytes.count, j - start < 32, isAlnum(bytes[j]) { j += 1 }
        guard j > start else { return nil }
        if j < bytes.count, bytes[j] == UInt8(ascii: ";"), let r = table[String(decoding: bytes[start..<j], as: UTF8.self)] {
            return (r, j + 1 - i)
        }
        // Legacy references without `;` (at most 6 letters): the longest that is one.
        var length = min(j - start, 6)
        while length >= 2 {
            let name = String(decoding: bytes[start..<start + length], as: UTF8.self)
            if HTMLEntities.legacyNames.contains(name), let r = table[name] {
                if inAttribute, start + length < bytes.count {
                    let next = bytes[start + length]
                    if next == UInt8(ascii: "=") || isAlnum(next) { return nil }
                }
                return (r, length + 1)
            }
            length -= 1
        }
        return nil
    }
}

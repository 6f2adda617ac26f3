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
        var out = String.UnicodeScalarView()
        let scalars = Array(s.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c != "&" {
                out.append(c)
                i += 1
                continue
            }
            if let (replacement, length) = reference(scalars, at: i, inAttribute: inAttribute) {
                out.append(contentsOf: replacement.unicodeScalars)
                i += length
            } else {
                out.append(c)
                i += 1
            }
        }
        return String(out)
    }

    /// The reference starting at `scalars[i]` (an `&`): its replacement and length.
    static func reference(_ scalars: [Unicode.Scalar], at i: Int, inAttribute: Bool) -> (String, Int)? {
        var j = i + 1
        guard j < scalars.count else { return nil }
        if scalars[j] == "#" {
            j += 1
            var hex = false
            if j < scalars.count, scalars[j] == "x" || scalars[j] == "X" {
                hex = true
                j += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while j < scalars.count, scalars[j].isASCII, let h = RTFTokenizer.hexValue(UInt8(scalars[j].value)),
                hex || h < 10
            {
                if value < 0x110000 { value = value * (hex ? 16 : 10) + UInt32(h) }
                digits += 1
                j += 1
            }
            guard digits > 0 else { return nil }
            if j < scalars.count, scalars[j] == ";" { j += 1 }
            return (String(Character(scalar(forCode: value))), j - i)
        }
        var name = ""
        var longest: (String, Int)? = nil
        while j < scalars.count, j - i <= 33, scalars[j].isASCII, scalars[j].properties.isAlphabetic || ("0"..."9").contains(scalars[j]) {
            name.unicodeScalars.append(scalars[j])
            j += 1
            if j < scalars.count, scalars[j] == ";", let r = table[name] { return (r, j + 1 - i) }
            if HTMLEntities.legacyNames.contains(name), let r = table[name] { longest = (r, j - i) }
        }
        if let (r, length) = longest {
            if inAttribute, i + length < scalars.count {
                let next = scalars[i + length]
                if next == "=" || next.properties.isAlphabetic || ("0"..."9").contains(next) { return nil }
            }
            return (r, length)
        }
        return nil
    }
}

import ReaderSupport

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
        var s = s
        return s.withUTF8 { decode($0, inAttribute: inAttribute) }
    }

    /// Decodes UTF-8 bytes straight to a string (no intermediate `String` of the raw text).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, inAttribute: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        decode(bytes, inAttribute: inAttribute, appendingTo: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes UTF-8 bytes, appending the result to `out`.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, inAttribute: Bool = false, appendingTo out: inout [UInt8]) {
        var i = 0
        var runStart = 0
        while i < bytes.count {
            if bytes[i] != UInt8(ascii: "&") {
                i += 1
                continue
            }
            if i > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            if let length = reference(bytes, at: i, inAttribute: inAttribute, into: &out) {
                i += length
            } else {
                out.append(UInt8(ascii: "&"))
                i += 1
            }
            runStart = i
        }
        if i > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
    }

    /// The reference starting at `bytes[i]` (an `&`): appends its replacement to `out` and returns its
    /// length in bytes, or returns nil (appending nothing) when it is not a reference.
    private static func reference(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int, inAttribute: Bool, into out: inout [UInt8]) -> Int? {
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
            UTF8.append(scalar(forCode: value), to: &out)
            return j - i
        }
        let start = j
        while j < bytes.count, j - start < 32, isAlnum(bytes[j]) { j += 1 }
        guard j > start else { return nil }
        if j < bytes.count, bytes[j] == UInt8(ascii: ";") {
            // The references serializers use all the time, without a table look-up.
            let n = j - start
            let b0 = bytes[start]
            if n == 2, bytes[start + 1] == UInt8(ascii: "t"), b0 == UInt8(ascii: "l") || b0 == UInt8(ascii: "g") {
                out.append(b0 == UInt8(ascii: "l") ? UInt8(ascii: "<") : UInt8(ascii: ">"))
                return j + 1 - i
            }
            if n == 3, b0 == UInt8(ascii: "a"), bytes[start + 1] == UInt8(ascii: "m"), bytes[start + 2] == UInt8(ascii: "p") {
                out.append(UInt8(ascii: "&"))
                return j + 1 - i
            }
            if n == 4, b0 == UInt8(ascii: "q"), bytes[start + 1] == UInt8(ascii: "u"), bytes[start + 2] == UInt8(ascii: "o"),
                bytes[start + 3] == UInt8(ascii: "t")
            {
                out.append(UInt8(ascii: "\""))
                return j + 1 - i
            }
        }
        if j < bytes.count, bytes[j] == UInt8(ascii: ";"),
            let r = table[String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<j]), as: UTF8.self)]
        {
            out.append(contentsOf: r.utf8)
            return j + 1 - i
        }
        // Legacy references without `;` (at most 6 letters): the longest that is one.
        var length = min(j - start, 6)
        while length >= 2 {
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<start + length]), as: UTF8.self)
            if HTMLEntities.legacyNames.contains(name), let r = table[name] {
                if inAttribute, start + length < bytes.count {
                    let next = bytes[start + length]
                    if next == UInt8(ascii: "=") || isAlnum(next) { return nil }
                }
                out.append(contentsOf: r.utf8)
                return length + 1
            }
            length -= 1
        }
        return nil
    }

    @inline(__always) private static func isAlnum(_ b: UInt8) -> Bool {
        (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || (b >= 0x30 && b <= 0x39)
    }
}

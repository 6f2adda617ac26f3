#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Text in the encodings other programs put on a clipboard, as UTF-8: the one decoding the paste,
/// the X11 transcoder and the personalities use.
public enum TextDecoding {
    /// UTF-16 with an optional byte-order mark (little-endian without one) as UTF-8; an odd last byte
    /// is dropped and unpaired surrogates become U+FFFD.
    public static func utf16ToUTF8(_ bytes: Data) -> Data {
        var bigEndian = false
        var start = bytes.startIndex
        if bytes.count >= 2 {
            let b0 = bytes[start], b1 = bytes[start + 1]
            if b0 == 0xFE && b1 == 0xFF {
                bigEndian = true
                start += 2
            } else if b0 == 0xFF && b1 == 0xFE {
                start += 2
            }
        }
        var units: [UInt16] = []
        units.reserveCapacity((bytes.endIndex - start) / 2)
        var i = start
        while i + 1 < bytes.endIndex {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            units.append(bigEndian ? (a << 8 | b) : (b << 8 | a))
            i += 2
        }
        return Data(String(decoding: units, as: UTF16.self).utf8)
    }

    /// Latin-1 (ISO 8859-1) as UTF-8: each byte is its code point.
    public static func latin1ToUTF8(_ bytes: Data) -> Data {
        Data(String(decoding: bytes.map { UInt16($0) }, as: UTF16.self).utf8)
    }
}

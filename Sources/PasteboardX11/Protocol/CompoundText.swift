#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReaderSupport

/// COMPOUND_TEXT (X Consortium, "Compound Text Encoding", version 1.1): ISO 2022 text in which escape
/// sequences designate the character sets of the left (GL, 0x21–0x7E) and right (GR, 0xA1–0xFF)
/// halves. GL starts as ASCII and GR as the right half of ISO 8859-1, so Latin-1 text is COMPOUND_TEXT
/// as it is. Xlib writes other text with `ESC - F` (an ISO 8859 part in GR), `ESC $ ( F` (JIS X 0208,
/// GB 2312 or KS C 5601 in GL) and `ESC % G … ESC % @` (a UTF-8 segment): GTK and Xt/Motif
/// applications offer it, and an owner may answer TEXT with it.
///
/// Decoding never fails: a character of a set this table does not know, or a malformed sequence,
/// becomes U+FFFD. Encoding is lossless: Latin-1 as it is, everything else in UTF-8 segments, which
/// Xlib (and so GTK and Xt) reads back in a UTF-8 locale.
public enum CompoundText {
    private static let escape: UInt8 = 0x1B
    private static let csi: UInt8 = 0x9B
    private static let replacement = Unicode.Scalar(0xFFFD)!

    private enum Charset: Equatable {
        case ascii, jisRoman, jisKatakana
        case latin(final: UInt8)  // a 96-character set (ISO 8859 part)
        case double(final: UInt8)  // a 94×94 set
        case unknown94, unknown96, unknownDouble
    }

    /// UTF-8 for COMPOUND_TEXT `bytes`. A trailing NUL (a C string's end) is dropped.
    public static func decode(_ bytes: Data) -> Data {
        var out = String.UnicodeScalarView()
        var gl = Charset.ascii
        var gr = Charset.latin(final: UInt8(ascii: "A"))
        var tables = Tables()
        let input = [UInt8](bytes)
        let end = input.last == 0 ? input.count - 1 : input.count
        var i = 0
        var progress = ProgressCheck("COMPOUND_TEXT decoder")
        while i < end {
            progress.advance(to: i)
            let byte = input[i]
            if byte == escape {
                i = escapeSequence(input, at: i, end: end, gl: &gl, gr: &gr, out: &out, tables: &tables)
                continue
            }
            if byte == csi {
                // Direction (CSI 1 ], CSI 2 ], CSI ]) and other control sequences carry no text.
                i += 1
                while i < end, (0x20...0x3F).contains(input[i]) { i += 1 }
                if i < end { i += 1 }
                continue
            }
            if byte < 0x21 || byte == 0x7F {
                // C0 controls (tab, newline) and space are the same in every set.
                out.append(Unicode.Scalar(byte))
                i += 1
                continue
            }
            if byte >= 0x80 && byte < 0xA0 {
                out.append(replacement)  // C1 controls have no place in COMPOUND_TEXT
                i += 1
                continue
            }
            let inGR = byte >= 0xA0
            let set = inGR ? gr : gl
            let code = byte & 0x7F
            switch set {
            case .double(let final):
                if i + 1 < end, (input[i + 1] >= 0x80) == inGR, (0x21...0x7E).contains(input[i + 1] & 0x7F),
                    code >= 0x21, code <= 0x7E
                {
                    out.append(tables.double(final: final, row: code, cell: input[i + 1] & 0x7F))
                    i += 2
                } else {
                    out.append(replacement)
                    i += 1
                }
                continue
            case .unknownDouble:
                out.append(replacement)
                i += (i + 1 < end && (input[i + 1] >= 0x80) == inGR) ? 2 : 1
                continue
            default:
                out.append(single(set, code: code, tables: &tables))
                i += 1
            }
        }
        var text = String(out)
        return Data(text.withUTF8 { Array($0) })
    }

    /// A character of a single-byte set, from its 7-bit code.
    private static func single(_ set: Charset, code: UInt8, tables: inout Tables) -> Unicode.Scalar {
        switch set {
        case .ascii: return Unicode.Scalar(code)
        case .jisRoman:
            // JIS X 0201 Roman: ASCII but for the yen sign and the overline.
            if code == 0x5C { return "\u{A5}" }
            if code == 0x7E { return "\u{203E}" }
            return Unicode.Scalar(code)
        case .jisKatakana:
            return (0x21...0x5F).contains(code) ? Unicode.Scalar(0xFF61 + UInt32(code) - 0x21)! : replacement
        case .latin(let final):
            return tables.latin(final: final, code: code)
        case .double, .unknownDouble, .unknown94, .unknown96:
            return replacement
        }
    }

    /// Reads the escape sequence at `start`, updating the designations (or copying a UTF-8 or
    /// extended segment to `out`); returns the index after it.
    private static func escapeSequence(
        _ input: [UInt8], at start: Int, end: Int, gl: inout Charset, gr: inout Charset,
        out: inout String.UnicodeScalarView, tables: inout Tables
    ) -> Int {
        var i = start + 1
        var intermediates: [UInt8] = []
        while i < end, (0x20...0x2F).contains(input[i]) {
            intermediates.append(input[i])
            i += 1
        }
        guard i < end, (0x30...0x7E).contains(input[i]) else {
            out.append(replacement)  // a sequence cut off or malformed
            return i
        }
        let final = input[i]
        i += 1
        switch intermediates {
        case [0x28]:  // ESC ( F: a 94-character set into GL
            gl = final == 0x42 ? .ascii : final == 0x4A ? .jisRoman : final == 0x49 ? .jisKatakana : .unknown94
        case [0x29]:  // ESC ) F: a 94-character set into GR
            gr = final == 0x49 ? .jisKatakana : final == 0x42 ? .ascii : final == 0x4A ? .jisRoman : .unknown94
        case [0x2D]:  // ESC - F: a 96-character set into GR
            gr = CompoundTextCharsets.latinRightHalf(final: final) != nil ? .latin(final: final) : .unknown96
        case [0x24, 0x28]:  // ESC $ ( F: a 94^2 set into GL
            gl = CompoundTextCharsets.doubleByteSet(final: final) != nil ? .double(final: final) : .unknownDouble
        case [0x24, 0x29]:  // ESC $ ) F: a 94^2 set into GR
            gr = CompoundTextCharsets.doubleByteSet(final: final) != nil ? .double(final: final) : .unknownDouble
        case [0x25] where final == 0x47:  // ESC % G: UTF-8 until ESC % @
            var j = i
            while j < end {
                if input[j] == escape, j + 2 < end, input[j + 1] == 0x25, input[j + 2] == 0x40 { break }
                j += 1
            }
            appendUTF8(input[i..<j], to: &out)
            return min(end, j + 3)
        case [0x25, 0x2F]:  // ESC % / N M L name STX bytes: an extended segment of M×128+L bytes
            guard i + 1 < end, input[i] >= 0x80, input[i + 1] >= 0x80 else {
                out.append(replacement)
                return end
            }
            let length = Int(input[i] - 0x80) * 128 + Int(input[i + 1] - 0x80)
            let body = (i + 2)..<min(end, i + 2 + length)
            let stx = input[body].firstIndex(of: 0x02) ?? body.upperBound
            let name = String(decoding: input[body.lowerBound..<stx], as: UTF8.self).lowercased()
            let text = input[min(stx + 1, body.upperBound)..<body.upperBound]
            if name == "iso10646-1" || name == "utf-8" {
                appendUTF8(text, to: &out)
            } else if name.hasPrefix("iso8859-"), let part = Int(name.dropFirst(8)),
                let final = latinFinal(part: part)
            {
                for b in text { out.append(b < 0xA0 ? Unicode.Scalar(b & 0x7F) : tables.latin(final: final, code: b & 0x7F)) }
            } else {
                out.append(replacement)
            }
            return body.upperBound
        default:
            break  // ESC % @ outside a segment, revision sequences: nothing to show
        }
        return i
    }

    private static func appendUTF8(_ bytes: ArraySlice<UInt8>, to out: inout String.UnicodeScalarView) {
        out.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars)
    }

    private static func latinFinal(part: Int) -> UInt8? {
        let finals: [Int: Character] = [1: "A", 2: "B", 3: "C", 4: "D", 5: "L", 6: "G", 7: "F", 8: "H", 9: "M",
                                        10: "V", 11: "T", 13: "Y", 14: "_", 15: "b", 16: "f"]
        return finals[part].flatMap(\.asciiValue)
    }

    /// The tables met so far, unpacked from their string literals once per decode.
    private struct Tables {
        private var latinSets: [UInt8: [Unicode.Scalar]] = [:]
        private var doubleSets: [UInt8: [Unicode.Scalar]] = [:]

        mutating func latin(final: UInt8, code: UInt8) -> Unicode.Scalar {
            if latinSets[final] == nil {
                latinSets[final] = Array((CompoundTextCharsets.latinRightHalf(final: final) ?? "").unicodeScalars)
            }
            let table = latinSets[final]!
            let index = Int(code) - 0x20
            return index >= 0 && index < table.count ? table[index] : CompoundText.replacement
        }

        mutating func double(final: UInt8, row: UInt8, cell: UInt8) -> Unicode.Scalar {
            if doubleSets[final] == nil {
                doubleSets[final] = Array((CompoundTextCharsets.doubleByteSet(final: final) ?? "").unicodeScalars)
            }
            let table = doubleSets[final]!
            let index = (Int(row) - 0x21) * 94 + Int(cell) - 0x21
            return index >= 0 && index < table.count ? table[index] : CompoundText.replacement
        }
    }

    /// COMPOUND_TEXT for UTF-8 `text`: Latin-1 characters as they are (GL ASCII, GR ISO 8859-1, the
    /// initial state), every other character in a UTF-8 segment. Invalid UTF-8 is repaired first.
    public static func encode(_ utf8: Data) -> Data {
        var out = Data()
        out.reserveCapacity(utf8.count + 8)
        var inSegment = false
        for scalar in String(decoding: utf8, as: UTF8.self).unicodeScalars {
            let value = scalar.value
            // ASCII controls, printable ASCII and the printable right half of Latin-1 need no segment.
            // ESC would start an escape sequence: no COMPOUND_TEXT carries it, so it is left out
            // (UTF8_STRING keeps it). U+009B goes in a segment as UTF-8, so it is no CSI byte.
            if value == 0x1B {
                continue
            }
            if value < 0x80 || (value >= 0xA0 && value <= 0xFF) {
                if inSegment {
                    out.append(contentsOf: [escape, 0x25, 0x40])
                    inSegment = false
                }
                out.append(UInt8(value))
            } else {
                if !inSegment {
                    out.append(contentsOf: [escape, 0x25, 0x47])
                    inSegment = true
                }
                out.append(contentsOf: Array(String(scalar).utf8))
            }
        }
        if inSegment { out.append(contentsOf: [escape, 0x25, 0x40]) }
        return out
    }
}

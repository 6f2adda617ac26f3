#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

// What characters each text holds, as two 64-bit sets kept beside its searchable text (`search_text`'s
// `chars_a` and `chars_b`, under an index of their own): a needle too short for the trigram index (one
// or two characters) is looked for only in the texts holding every character it needs, instead of in
// every text. The sets are built from the text as a search compares it (lowercased), so a text that
// matches always holds them; a text may hold them and not match (the search confirms it, as for the
// trigram index). A row without its sets (NULL: written by an earlier pbctl) is always a candidate.
//
// - `chars_a`: one bit for each of the first 64 printable ASCII characters with A-Z folded (space,
//   punctuation, digits, a-z: 69 in all), `chars_b` bits 0-4 for the other 5;
// - `chars_b` bit 5: a control character; bit 6: any scalar outside ASCII; bits 7-63: a scalar outside
//   ASCII by its hash (57 buckets), asked of a needle only for scalars nothing else is canonically
//   equivalent to (symbols, punctuation, emoji: ``CharacterSets/bucketed(_:)``).

/// The character sets of texts and needles (``History`` search).
enum CharacterSets {
    /// The two sets, as SQLite's signed integers.
    struct Sets: Equatable {
        var a: Int64 = 0
        var b: Int64 = 0

        mutating func insert(bit: Int) {
            if bit < 64 { a |= Int64(bitPattern: 1 << UInt64(bit)) } else { b |= Int64(bitPattern: 1 << UInt64(bit - 64)) }
        }

        /// Whether `other`'s characters are all among these.
        func holds(_ other: Sets) -> Bool { a & other.a == other.a && b & other.b == other.b }
    }

    static let controlBit = 64 + 5
    static let outsideASCIIBit = 64 + 6
    static let firstBucketBit = 64 + 7
    static let buckets = 57

    /// The bit of a printable ASCII byte (A-Z folded to a-z); nil for a control character.
    static func bit(ascii byte: UInt8) -> Int? {
        switch byte {
        case 0x20...0x40: return Int(byte - 0x20)  // 0-32: space to @
        case 0x41...0x5A: return Int(byte - 0x41 + 0x61 - 0x20 - 26)  // A-Z as a-z
        case 0x5B...0x7E: return Int(byte - 0x20 - 26)  // 33-68: [ to ~
        default: return nil
        }
    }

    /// The bucket bit of a scalar outside ASCII.
    static func bucketBit(_ scalar: Unicode.Scalar) -> Int {
        firstBucketBit + Int((UInt64(scalar.value) &* 0x9E37_79B9_7F4A_7C15) >> 32 % UInt64(buckets))
    }

    /// The sets of a text's UTF-8 bytes, lowercased as a search lowercases it.
    static func of(_ bytes: UnsafeRawBufferPointer) -> Sets {
        var sets = Sets()
        var outside = false
        for byte in bytes {
            if byte >= 0x80 {
                outside = true
                break
            }
            sets.insert(bit: bit(ascii: byte) ?? controlBit)
        }
        guard outside else { return sets }
        sets = Sets()
        for scalar in String(decoding: bytes, as: UTF8.self).lowercased().unicodeScalars {
            add(scalar, to: &sets)
        }
        return sets
    }

    /// The sets of a text.
    static func of(_ text: String) -> Sets {
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBytes { of(UnsafeRawBufferPointer($0)) }
    }

    private static func add(_ scalar: Unicode.Scalar, to sets: inout Sets) {
        if scalar.isASCII {
            sets.insert(bit: bit(ascii: UInt8(scalar.value)) ?? controlBit)
            return
        }
        sets.insert(bit: outsideASCIIBit)
        sets.insert(bit: bucketBit(scalar))
        // The scalars canonically equivalent to an ASCII character (besides the Kelvin sign, which
        // lowercases to k): a text holding one matches a needle of that character.
        if let ascii = asciiEquivalent[scalar.value] { sets.insert(bit: bit(ascii: ascii)!) }
    }

    static let asciiEquivalent: [UInt32: UInt8] = [0x037E: 0x3B, 0x1FEF: 0x60]

    /// What a text must hold to match `needle` (lowercased as a search lowercases it); nil when nothing
    /// can be required (an empty needle).
    static func required(_ needle: String) -> Sets? {
        var sets = Sets()
        var any = false
        for character in needle.lowercased() {
            any = true
            let scalars = character.unicodeScalars
            if scalars.allSatisfy(\.isASCII) {
                // Only an ASCII character is equal to an ASCII character (or one of the scalars
                // `asciiEquivalent` names, which set its bit in a text too).
                for scalar in scalars { sets.insert(bit: bit(ascii: UInt8(scalar.value)) ?? controlBit) }
            } else if scalars.count == 1, let ascii = asciiEquivalent[scalars.first!.value] {
                sets.insert(bit: bit(ascii: ascii)!)
            } else {
                // A character holding a scalar outside ASCII (é, or e and a combining accent, which are
                // equal): a matching text holds some scalar outside ASCII, and this very one when it stands
                // alone and nothing else is canonically equivalent to it.
                sets.insert(bit: outsideASCIIBit)
                if scalars.count == 1, bucketed(scalars.first!) { sets.insert(bit: bucketBit(scalars.first!)) }
            }
        }
        return any ? sets : nil
    }

    /// Whether a scalar outside ASCII has no canonical decomposition and is the decomposition of no
    /// other scalar, so a text matching it holds it as it is: symbols, punctuation, box drawing, emoji.
    static func bucketed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xA1...0xB3, 0xB5...0xB6, 0xB8...0xBF, 0xD7, 0xF7: return true  // not ´ (U+1FFD's) nor · (U+0387's)
        case 0x2010...0x2027, 0x2030...0x205E, 0x20A0...0x20C0: return true
        case 0x2500...0x27BF: return true
        case 0x1F300...0x1FAFF: return true
        default: return false
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CSystem

// A case-insensitive substring search over UTF-8 bytes that answers exactly as
// `String(decoding: text, as: UTF8.self).lowercased().contains(needle.lowercased())` does, at the speed
// of `memmem` for what people type. The text's ASCII letters are folded into a scratch buffer (a loop
// the compiler vectorizes) and searched with the C library's `memmem`; the exact String comparison runs
// only where bytes cannot decide it:
// - an ASCII text and an ASCII needle without CR or LF: the folded bytes decide (in ASCII text every
//   scalar is its own Character except CR LF, which such a needle cannot cut);
// - an ASCII text and a needle with a scalar outside ASCII that is no ASCII character in another
//   spelling: never a match (an ASCII text lowercases to ASCII, and its Characters are ASCII);
// - a text with bytes outside ASCII: the needle's longest run of ASCII characters that only ASCII
//   makes (``History/CaseInsensitiveSubstring/asciiAnchor``) must be among the folded bytes, or there
//   is no match; when it is, the exact comparison decides.

extension History {
    /// A needle, ready to be looked for in many texts (see the comment above).
    public struct CaseInsensitiveSubstring: Sendable {
        /// The needle lowercased, as Swift lowercases.
        public let lowered: String
        /// Its UTF-8 bytes.
        let bytes: [UInt8]
        /// Whether the folded bytes decide for an ASCII text: the needle is ASCII without CR or LF.
        let bytesDecideASCII: Bool
        /// Whether no ASCII text can hold the needle (a scalar outside ASCII that is no ASCII character).
        let neverInASCII: Bool
        /// Bytes every text holding the needle holds (ASCII case folded); empty when there are none.
        public let asciiAnchor: [UInt8]

        /// The non-ASCII scalars whose lowercase holds ASCII: İ (to i and a combining dot) and the Kelvin
        /// sign (to k). Checked against every scalar by a test.
        static let lowercasedToASCII: Set<UInt8> = [UInt8(ascii: "i"), UInt8(ascii: "k")]
        /// The non-ASCII scalars canonically equivalent to an ASCII character: U+037E (;), U+1FEF (`)
        /// and U+212A (K). Checked against every scalar by a test.
        static let equivalentToASCII: Set<UInt8> = [UInt8(ascii: ";"), UInt8(ascii: "`"), UInt8(ascii: "k")]
        static let equivalentScalars: Set<UInt32> = [0x037E, 0x1FEF, 0x212A]

        public init(_ needle: String) {
            lowered = needle.lowercased()
            bytes = Array(lowered.utf8)
            let ascii = bytes.allSatisfy { $0 < 0x80 }
            bytesDecideASCII = ascii && !bytes.contains(0x0A) && !bytes.contains(0x0D)
            neverInASCII = lowered.unicodeScalars.contains { $0.value >= 0x80 && !Self.equivalentScalars.contains($0.value) }
            // The anchor: a run of ASCII scalars none of which a non-ASCII scalar lowercases to or is
            // equivalent to, nor CR or LF, without its ends next to a scalar outside ASCII (which may
            // join them into one Character).
            let scalars = Array(lowered.unicodeScalars)
            var best: [UInt8] = [], run: [UInt8] = []
            func close(_ followedByOther: Bool) {
                if followedByOther, !run.isEmpty { run.removeLast() }
                if run.count > best.count { best = run }
                run = []
            }
            var afterOther = false
            for scalar in scalars {
                let value = scalar.value
                if value >= 0x80 {
                    close(true)
                    afterOther = true
                    continue
                }
                let byte = UInt8(value)
                if byte == 0x0A || byte == 0x0D || Self.lowercasedToASCII.contains(byte) || Self.equivalentToASCII.contains(byte) {
                    close(false)
                    afterOther = false
                    continue
                }
                if afterOther {
                    // The first ASCII scalar after one outside ASCII may belong to its Character.
                    afterOther = false
                    continue
                }
                run.append(byte)
            }
            close(false)
            asciiAnchor = best
        }

        /// Whether `text` (UTF-8, possibly invalid: decoded as `String(decoding:)` does) holds the needle
        /// in any case.
        public func matches(_ text: UnsafeRawBufferPointer) -> Bool {
            if bytes.isEmpty { return true }
            let count = text.count
            guard count > 0 else { return false }
            let (found, ascii): (Bool, Bool) = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { folded in
                let ascii = Self.fold(text, into: folded)
                let key: [UInt8]
                if ascii {
                    if bytesDecideASCII {
                        key = bytes
                    } else if neverInASCII {
                        return (false, true)
                    } else {
                        key = asciiAnchor
                    }
                } else {
                    key = asciiAnchor
                }
                if key.isEmpty { return (true, ascii) }
                return (Self.find(key, in: UnsafeRawBufferPointer(folded)), ascii)
            }
            if !found { return false }
            if ascii && bytesDecideASCII { return true }
            return exact(text)
        }

        /// The reference answer: the text decoded, lowercased, searched as Swift Strings.
        public func exact(_ text: UnsafeRawBufferPointer) -> Bool {
            lowered.isEmpty || String(decoding: text, as: UTF8.self).lowercased().contains(lowered)
        }

        /// What a search answered before the byte search (the expression it replaced, in this module's
        /// context, whose `contains` is the standard library's): what the tests compare it with.
        static func reference(_ needle: String, in text: UnsafeRawBufferPointer) -> Bool {
            let lowered = needle.lowercased()
            return lowered.isEmpty || String(decoding: text, as: UTF8.self).lowercased().contains(lowered)
        }

        /// ASCII letters of `text` lowercased into `folded` (as long); whether every byte is ASCII.
        @inline(__always)
        static func fold(_ text: UnsafeRawBufferPointer, into folded: UnsafeMutableBufferPointer<UInt8>) -> Bool {
            let source = text.bindMemory(to: UInt8.self)
            var high: UInt8 = 0
            for index in 0..<source.count {
                let byte = source[index]
                high |= byte
                // A-Z (0x41...0x5A) gain 0x20.
                let isUpper: UInt8 = (byte &- 0x41) < 26 ? 0x20 : 0
                folded[index] = byte | isUpper
            }
            return high < 0x80
        }

        /// Whether `key` occurs in `haystack` (the C library's `memmem`; `memchr` for one byte).
        static func find(_ key: [UInt8], in haystack: UnsafeRawBufferPointer) -> Bool {
            guard let base = haystack.baseAddress, key.count <= haystack.count else { return false }
            if key.count == 1 { return memchr(base, Int32(key[0]), haystack.count) != nil }
            return key.withUnsafeBytes { csystem_contains_bytes(base, haystack.count, $0.baseAddress, key.count) != 0 }
        }
    }
}

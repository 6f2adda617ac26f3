#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Guesses the type of bytes from their content: the signatures of RTF, PNG, JPEG, GIF and PDF, an
/// HTML document or fragment, valid UTF-8 text, else `public.data`.
///
/// A copy pastes back byte for byte, so only bytes that are valid UTF-8 are text (or HTML): other text is
/// stored, and pasted, converted to UTF-8. Bytes that start with a UTF-16 byte order mark (`FF FE`) were
/// sniffed as UTF-16 text and pasted as UTF-8 without their mark (and without a last odd byte): they are
/// `public.data` like any other bytes that are not UTF-8, unless the user declares a type.
public enum TypeSniffer {
    public static func sniff(_ data: Data) -> TypeIdentifier {
        let head = data.prefix(512)
        let text = skipBOMAndSpace([UInt8](head))
        // Validation (a pass over everything) only where the answer depends on it.
        let binary = head.starts(with: [0x89, 0x50, 0x4E, 0x47]) || head.starts(with: [0xFF, 0xD8, 0xFF])
            || head.starts(with: Array("GIF8".utf8)) || head.starts(with: Array("%PDF-".utf8))
            || text.starts(with: Array("{\\rtf".utf8))
        return sniff(head: Data(head), isValidUTF8: binary ? false : isValidUTF8(data))
    }

    /// Validates in place (no String is built: a copy of megabytes on every `copy`).
    public static func isValidUTF8(_ data: Data) -> Bool {
        data.withUnsafeBytes { firstInvalidUTF8Offset(in: $0) == nil }
    }

    /// The offset of the first byte that breaks UTF-8, or nil when `data` is valid.
    public static func firstInvalidUTF8Offset(_ data: Data) -> Int? {
        data.withUnsafeBytes { firstInvalidUTF8Offset(in: $0) }
    }

    /// Well-formed UTF-8 as Unicode defines it: no overlong forms, surrogates or scalars above
    /// U+10FFFF. ASCII runs are checked 32 bytes at a time.
    static func firstInvalidUTF8Offset(in raw: UnsafeRawBufferPointer) -> Int? {
        guard let base = raw.baseAddress else { return nil }
        let count = raw.count
        var i = 0
        while i < count {
            // ASCII runs: 32 bytes a step (four words or'ed, one test), then 8.
            while i + 32 <= count {
                let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    | base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
                    | base.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
                    | base.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
                guard word & 0x8080_8080_8080_8080 == 0 else { break }
                i += 32
            }
            while i + 8 <= count, base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
            guard i < count else { break }
            let b = base.load(fromByteOffset: i, as: UInt8.self)
            let length: Int
            var minimum: UInt32
            var scalar: UInt32
            switch b {
            case 0x00...0x7F: i += 1; continue
            case 0xC2...0xDF: length = 2; minimum = 0x80; scalar = UInt32(b & 0x1F)
            case 0xE0...0xEF: length = 3; minimum = 0x800; scalar = UInt32(b & 0x0F)
            case 0xF0...0xF4: length = 4; minimum = 0x10000; scalar = UInt32(b & 0x07)
            default: return i
            }
            guard i + length <= count else { return i }
            for k in 1..<length {
                let c = base.load(fromByteOffset: i + k, as: UInt8.self)
                guard c & 0xC0 == 0x80 else { return i }
                scalar = scalar << 6 | UInt32(c & 0x3F)
            }
            if scalar < minimum || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return i }
            i += length
        }
        return nil
    }

    static func skipBOMAndSpace(_ head: [UInt8]) -> ArraySlice<UInt8> {
        var slice = head[...]
        if slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice = slice.dropFirst(3) }
        while let b = slice.first, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { slice = slice.dropFirst() }
        return slice
    }

    /// Tags whose presence at the start of the input makes it HTML rather than text that happens to
    /// start with `<`.
    static let htmlStarts = [
        "<!doctype html", "<html", "<head", "<body", "<meta", "<!--startfragment", "<p>", "<p ", "<div", "<span",
        "<b>", "<b ", "<i>", "<strong", "<em>", "<a href", "<a ", "<ul", "<ol", "<li", "<table", "<h1", "<h2", "<h3",
        "<h4", "<h5", "<h6", "<pre", "<code", "<blockquote", "<br", "<img", "<style", "<title",
    ].map { Array($0.utf8) }

    static func looksLikeHTML(_ text: ArraySlice<UInt8>) -> Bool {
        guard text.first == UInt8(ascii: "<") else { return false }
        let lowered = text.prefix(20).map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        return htmlStarts.contains { lowered.starts(with: $0) }
    }
}

/// UTF-8 validation fed in chunks (what a copy streamed to disk checks as it goes, never holding the
/// whole input): the same rules as ``TypeSniffer/isValidUTF8(_:)``, a sequence split across chunks
/// carried over.
public struct UTF8StreamValidator: Sendable {
    /// The offset of the first invalid byte, once one is seen.
    public private(set) var firstInvalidOffset: Int?
    /// Bytes of an unfinished sequence at the end of the last chunk.
    private var carry: [UInt8] = []
    /// Bytes consumed before `carry`.
    private var consumed = 0

    public init() {}

    public mutating func feed(_ chunk: UnsafeRawBufferPointer) {
        guard firstInvalidOffset == nil, chunk.count > 0 else { return }
        var start = 0
        if !carry.isEmpty {
            let need = Self.sequenceLength(carry[0]) - carry.count
            if chunk.count < need {
                let joined = carry + Array(chunk)
                if Self.isValidPrefix(joined) { carry = joined } else { firstInvalidOffset = consumed }
                return
            }
            let joined = carry + Array(chunk[0..<need])
            if joined.withUnsafeBytes({ TypeSniffer.firstInvalidUTF8Offset(in: $0) }) != nil {
                firstInvalidOffset = consumed
                return
            }
            consumed += joined.count
            carry = []
            start = need
        }
        let rest = UnsafeRawBufferPointer(rebasing: chunk[start...])
        // A sequence the chunk ends in the middle of is carried to the next one.
        var boundary = rest.count
        for back in stride(from: 1, through: min(3, rest.count), by: 1) {
            let byte = rest[rest.count - back]
            if byte & 0xC0 == 0x80 { continue }
            if byte >= 0xC0, Self.sequenceLength(byte) > back { boundary = rest.count - back }
            break
        }
        if let offset = TypeSniffer.firstInvalidUTF8Offset(in: UnsafeRawBufferPointer(rebasing: rest[0..<boundary])) {
            firstInvalidOffset = consumed + offset
            return
        }
        let tail = Array(rest[boundary...])
        if !tail.isEmpty {
            guard Self.isValidPrefix(tail) else {
                firstInvalidOffset = consumed + boundary
                return
            }
            carry = tail
        }
        consumed += boundary
    }

    /// Ends the input: nil when everything fed was valid UTF-8.
    public mutating func finish() -> Int? {
        if firstInvalidOffset == nil, !carry.isEmpty { firstInvalidOffset = consumed }
        carry = []
        return firstInvalidOffset
    }

    static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC2...0xDF: return 2
        case 0xE0...0xEF: return 3
        case 0xF0...0xF4: return 4
        default: return 1
        }
    }

    /// Whether `bytes` (shorter than its lead byte's sequence) can still become a valid sequence.
    static func isValidPrefix(_ bytes: [UInt8]) -> Bool {
        guard let lead = bytes.first, bytes.count < sequenceLength(lead) else { return false }
        for (index, byte) in bytes.enumerated().dropFirst() {
            guard byte & 0xC0 == 0x80 else { return false }
            if index == 1 {
                // The second byte's range excludes overlong forms, surrogates and scalars past U+10FFFF.
                switch lead {
                case 0xE0: if byte < 0xA0 { return false }
                case 0xED: if byte > 0x9F { return false }
                case 0xF0: if byte < 0x90 { return false }
                case 0xF4: if byte > 0x8F { return false }
                default: break
                }
            }
        }
        return true
    }
}

extension TypeSniffer {
    /// ``sniff(_:)`` from the first bytes and what streaming validation found, for input that is
    /// never held whole.
    public static func sniff(head: Data, isValidUTF8 valid: Bool) -> TypeIdentifier {
        let bytes = [UInt8](head.prefix(512))
        func starts(_ signature: [UInt8]) -> Bool { bytes.starts(with: signature) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("%PDF-".utf8)) { return .pdf }
        let text = skipBOMAndSpace(bytes)
        if text.starts(with: Array("{\\rtf".utf8)) { return .rtf }
        if looksLikeHTML(text) { return valid ? .html : .data }
        return valid ? .utf8PlainText : .data
    }
}

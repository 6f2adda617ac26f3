#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Guesses the type of bytes from their content: the signatures of RTF, PNG, JPEG, GIF and PDF, an
/// HTML document or fragment, valid UTF-8 text, else `public.data`.
public enum TypeSniffer {
    public static func sniff(_ data: Data) -> TypeIdentifier {
        let head = [UInt8](data.prefix(512))
        func starts(_ signature: [UInt8]) -> Bool { head.starts(with: signature) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("%PDF-".utf8)) { return .pdf }
        let text = skipBOMAndSpace(head)
        if text.starts(with: Array("{\\rtf".utf8)) { return .rtf }
        if looksLikeHTML(text) { return isValidUTF8(data) || hasUTF16BOM(head) ? .html : .data }
        if hasUTF16BOM(head) { return .utf16PlainText }
        return isValidUTF8(data) ? .utf8PlainText : .data
    }

    static func hasUTF16BOM(_ head: [UInt8]) -> Bool {
        head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF])
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
    /// U+10FFFF. ASCII runs are checked eight bytes at a time.
    static func firstInvalidUTF8Offset(in raw: UnsafeRawBufferPointer) -> Int? {
        guard let base = raw.baseAddress else { return nil }
        let count = raw.count
        var i = 0
        while i < count {
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

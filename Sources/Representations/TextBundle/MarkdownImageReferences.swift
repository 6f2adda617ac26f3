#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Markdown

/// Finds the images a Markdown document references and rewrites their destinations in the source
/// text, leaving every other byte as it was written.
///
/// Images are found with the Markdown parser (so `![x](a.png)` inside a code span is not an image);
/// each destination is then located in the source through the image node's source range (inline
/// images) or in its link reference definition (`![x][ref]` with `[ref]: a.png`).
public enum MarkdownImageReferences {
    /// One image destination and where it is written in the source.
    public struct Reference: Sendable, Equatable {
        /// The destination as the parser reports it (escapes and entities decoded).
        public var destination: String
        /// The bytes of the source that spell the destination; nil when it could not be located
        /// (for example a destination written with escapes or entities), so it cannot be rewritten.
        public var sourceRange: Range<Int>?
    }

    /// Every image in `markdown`, in document order.
    public static func references(in markdown: [UInt8], options: MarkdownOptions = .gfm) -> [Reference] {
        let document = MarkdownParser.parse(markdown, options: options)
        var lineStarts = [0]
        for (index, byte) in markdown.enumerated() where byte == 0x0A { lineStarts.append(index + 1) }
        func offset(_ position: MarkdownSourcePosition) -> Int? {
            guard position.line >= 1, position.line <= lineStarts.count, position.column >= 1 else { return nil }
            let value = lineStarts[position.line - 1] + position.column - 1
            return value <= markdown.count ? value : nil
        }
        var result: [Reference] = []
        for event in document.events where event.phase == .enter && event.kind == .image {
            let destination = document.destination(event.node)
            guard !destination.isEmpty else { continue }
            let needle = Array(destination.utf8)
            var found: Range<Int>? = nil
            let range = document.sourceRange(event.node)
            if let start = offset(range.start), let endInclusive = offset(range.end), start <= endInclusive,
                endInclusive < markdown.count
            {
                found = inlineDestination(needle, in: markdown, start..<(endInclusive + 1))
            }
            if found == nil {
                found = definitionDestination(needle, in: markdown)
            }
            result.append(Reference(destination: destination, sourceRange: found))
        }
        return result
    }

    /// `](` + optional spaces + optional `<` + the destination, the last such in the image's span.
    static func inlineDestination(_ needle: [UInt8], in bytes: [UInt8], _ span: Range<Int>) -> Range<Int>? {
        var index = span.upperBound - 2
        while index >= span.lowerBound {
            if bytes[index] == UInt8(ascii: "]"), bytes[index + 1] == UInt8(ascii: "(") {
                var cursor = index + 2
                while cursor < span.upperBound, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[cursor]) { cursor += 1 }
                if cursor < span.upperBound, bytes[cursor] == UInt8(ascii: "<") { cursor += 1 }
                if cursor + needle.count <= span.upperBound, Array(bytes[cursor..<(cursor + needle.count)]) == needle {
                    let after = cursor + needle.count
                    // The destination must end there (space, `)`, `>` or a newline follows).
                    if after == span.upperBound || [0x20, 0x09, 0x0A, 0x0D, 0x29, 0x3E].contains(bytes[after]) {
                        return cursor..<after
                    }
                }
            }
            index -= 1
        }
        return nil
    }

    /// A link reference definition's destination: `]:` + spaces (one newline allowed) + optional `<`.
    /// Several images may share one definition; ``rewrite(_:references:replacements:)`` edits it once.
    static func definitionDestination(_ needle: [UInt8], in bytes: [UInt8]) -> Range<Int>? {
        guard bytes.count >= 2 else { return nil }
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "]"), bytes[index + 1] == UInt8(ascii: ":") {
                var cursor = index + 2
                while cursor < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[cursor]) { cursor += 1 }
                if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "<") { cursor += 1 }
                let after = cursor + needle.count
                if after <= bytes.count, Array(bytes[cursor..<after]) == needle,
                    after == bytes.count || [0x20, 0x09, 0x0A, 0x0D, 0x3E].contains(bytes[after])
                {
                    return cursor..<after
                }
            }
            index += 1
        }
        return nil
    }

    /// Replaces image destinations in the source: every reference whose destination is a key of
    /// `replacements` and whose bytes were located gets the new destination. A new destination with
    /// spaces or parentheses is written in angle brackets.
    public static func rewrite(_ markdown: [UInt8], references: [Reference], replacements: [String: String]) -> [UInt8] {
        var edits: [(Range<Int>, [UInt8])] = []
        var seen = Set<Int>()
        for reference in references {
            guard let range = reference.sourceRange, let replacement = replacements[reference.destination],
                seen.insert(range.lowerBound).inserted
            else { continue }
            var bytes = Array(replacement.utf8)
            let bracketed = range.lowerBound > 0 && markdown[range.lowerBound - 1] == UInt8(ascii: "<")
            if !bracketed, bytes.contains(where: { $0 == 0x20 || $0 == 0x28 || $0 == 0x29 || $0 == 0x3C || $0 == 0x3E }) {
                bytes = [UInt8(ascii: "<")] + bytes.filter { $0 != 0x3C && $0 != 0x3E } + [UInt8(ascii: ">")]
            }
            edits.append((range, bytes))
        }
        edits.sort { $0.0.lowerBound < $1.0.lowerBound }
        var out: [UInt8] = []
        out.reserveCapacity(markdown.count)
        var cursor = 0
        for (range, bytes) in edits where range.lowerBound >= cursor {
            out.append(contentsOf: markdown[cursor..<range.lowerBound])
            out.append(contentsOf: bytes)
            cursor = range.upperBound
        }
        out.append(contentsOf: markdown[cursor...])
        return out
    }

    /// Whether a destination names a local file: a relative or absolute path, or a `file:` URL (not
    /// `http:`, `data:`, `//host/…` or a `#fragment`).
    public static func isLocalFile(_ destination: String) -> Bool {
        if destination.isEmpty || destination.hasPrefix("#") || destination.hasPrefix("//") { return false }
        if destination.lowercased().hasPrefix("file:") { return true }
        // A scheme is letters, digits, + - . after a letter, then a colon (RFC 3986).
        if let colon = destination.firstIndex(of: ":") {
            let scheme = destination[..<colon]
            if let first = scheme.first, first.isASCII, first.isLetter,
                scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            {
                return false
            }
        }
        return true
    }

    /// The file path a local destination names: `file:` URLs lose their scheme and host, and `%XX`
    /// escapes are decoded; nil when the destination is not local or decodes to something unusable.
    public static func filePath(_ destination: String) -> String? {
        guard isLocalFile(destination) else { return nil }
        var path = destination
        if path.lowercased().hasPrefix("file://") {
            path = String(path.dropFirst(7))
            // file://host/path: only an empty host or localhost is local.
            if !path.hasPrefix("/") {
                guard path.lowercased().hasPrefix("localhost/") else { return nil }
                path = String(path.dropFirst(9))
            }
        } else if path.lowercased().hasPrefix("file:") {
            path = String(path.dropFirst(5))
        }
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<query]) }
        guard let decoded = percentDecoded(path), !decoded.isEmpty, !decoded.contains("\0") else { return nil }
        return decoded
    }

    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var i = 0
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "%"), i + 2 < utf8.count, let hi = hex(utf8[i + 1]), let lo = hex(utf8[i + 2]) {
                bytes.append(hi << 4 | lo)
                i += 3
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

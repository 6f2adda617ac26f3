
/// Paths are bytes: a Linux file name is any bytes but `/` and NUL, not necessarily UTF-8. pbctl keeps
/// paths in `String`s, so a name that is not UTF-8 travels in a reversible form: each byte that is not
/// part of valid UTF-8 becomes the scalar U+10FF00 + byte (the end of Supplementary Private Use
/// Area-B, as Python's `surrogateescape` uses lone surrogates, which a Swift `String` cannot hold). A
/// scalar of that range in valid UTF-8 is escaped byte by byte too, so the mapping is one to one.
/// What reaches the system (`open`, `lstat`, a `file://` URI, standard output) is the original bytes.
public enum PathBytes {
    public static let escapeBase: UInt32 = 0x10_FF00

    /// ``string(_:)`` of bytes in memory (argv): ASCII, the common case, without the generic path (which
    /// costs a static executable run-time type lookups at start-up).
    public static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        return ascii ? String(decoding: bytes, as: UTF8.self) : string(Array(bytes))
    }

    /// The string for a path's bytes (argv, `readdir`, a decoded URI).
    public static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if let text = String(validating: bytes, as: UTF8.self), !text.unicodeScalars.contains(where: { $0.value >= escapeBase }) {
            return text
        }
        var scalars = String.UnicodeScalarView()
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0
            var end = index
            var count = 0
            while count < length, end != bytes.endIndex {
                end = bytes.index(after: end)
                count += 1
            }
            if length > 0, count == length, let text = String(validating: bytes[index..<end], as: UTF8.self),
                let scalar = text.unicodeScalars.first, scalar.value < escapeBase
            {
                scalars.append(scalar)
                index = end
            } else {
                scalars.append(Unicode.Scalar(escapeBase + UInt32(lead))!)
                index = bytes.index(after: index)
            }
        }
        return String(scalars)
    }

    /// The bytes a path string stands for.
    public static func bytes(_ path: String) -> [UInt8] {
        guard path.unicodeScalars.contains(where: { $0.value >= escapeBase }) else { return Array(path.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if scalar.value >= escapeBase {
                out.append(UInt8(scalar.value - escapeBase))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }
}

extension String {
    /// The extension of the path's last component (`md` of `a/notes.md`); nil without one.
    public var pathExtension: String? {
        // Over the UTF-8 bytes, not `split`: an array of substrings costs a static executable a run-time
        // type look-up (a small copy asks this first).
        let bytes = utf8
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[bytes.index(before: end)] == UInt8(ascii: "/") { end = bytes.index(before: end) }
        var start = end
        while start > bytes.startIndex, bytes[bytes.index(before: start)] != UInt8(ascii: "/") { start = bytes.index(before: start) }
        var dot = end
        while dot > start {
            dot = bytes.index(before: dot)
            if bytes[dot] == UInt8(ascii: ".") {
                guard dot != start else { return nil }
                return String(Substring(bytes[bytes.index(after: dot)..<end]))
            }
        }
        return nil
    }

    /// The bytes this path string stands for (see ``PathBytes``).
    public var pathBytes: [UInt8] { PathBytes.bytes(self) }

    /// Calls `body` with the path as the C string of its original bytes.
    public func withPathCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        guard unicodeScalars.contains(where: { $0.value >= PathBytes.escapeBase }) else { return try withCString(body) }
        var bytes = pathBytes.map { CChar(bitPattern: $0) }
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// The path as a message shows it: bytes that are not UTF-8 as `\xFF`.
    public var shownPath: String {
        guard unicodeScalars.contains(where: { $0.value >= PathBytes.escapeBase }) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            if scalar.value >= PathBytes.escapeBase {
                let byte = scalar.value - PathBytes.escapeBase
                out += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}


#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Files on the clipboard: the forms file managers and toolkits exchange, both ways.
///
/// - `text/uri-list` (RFC 2483): one URI per line, lines end in CRLF, `#` lines are comments; local
///   files as `file://` URIs (RFC 8089) with an absolute, percent-encoded path.
/// - `x-special/gnome-copied-files` (Nautilus, Nemo, Caja, GTK file choosers): `copy` or `cut`, then one
///   URI per line (LF, no trailing newline).
/// - `application/x-kde-cutselection` (Dolphin): `1` when the files were cut.
public struct FileList: Sendable, Equatable {
    /// The URIs, in order (`file://…` for local files; others as they came).
    public var uris: [String]
    /// The files were cut (the paste moves them), not copied.
    public var cut: Bool

    public init(uris: [String], cut: Bool = false) {
        self.uris = uris
        self.cut = cut
    }

    /// A list of local files from absolute paths.
    public init(paths: [String], cut: Bool = false) {
        self.init(uris: paths.map { Self.fileURI($0) }, cut: cut)
    }

    // MARK: Encoding

    /// `text/uri-list`: each URI and CRLF.
    public var uriList: Data { Data(uris.map { $0 + "\r\n" }.joined().utf8) }

    /// `x-special/gnome-copied-files`.
    public var gnomeCopiedFiles: Data { Data(([cut ? "cut" : "copy"] + uris).joined(separator: "\n").utf8) }

    /// `application/x-kde-cutselection`.
    public var kdeCutSelection: Data { Data((cut ? "1" : "0").utf8) }

    /// The paths (or URIs that are not local files), one per line, as bytes: what a text consumer gets.
    public var plainText: Data { Data(displayed.flatMap { $0.pathBytes + [0x0A] }) }

    /// Each entry as a user reads it: the decoded local path (see ``PathBytes``), or the URI as it is.
    public var displayed: [String] { uris.map { Self.localPath($0) ?? $0 } }

    // MARK: Decoding

    /// Reads `text/uri-list` (comments and blank lines skipped; LF or CRLF).
    public static func parseURIList(_ data: Data) -> FileList {
        FileList(uris: lines(data).filter { !$0.hasPrefix("#") })
    }

    /// Reads `x-special/gnome-copied-files`.
    public static func parseGnomeCopiedFiles(_ data: Data) -> FileList {
        var all = lines(data)
        guard let first = all.first else { return FileList(uris: []) }
        let cut = first == "cut"
        if first == "cut" || first == "copy" { all.removeFirst() }
        return FileList(uris: all.filter { !$0.hasPrefix("#") }, cut: cut)
    }

    private static func lines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self)
            .split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .map { String($0).trimmingWhitespaceAndNUL() }
            .filter { !$0.isEmpty }
    }

    // MARK: URIs

    /// `file://` + the absolute path, every byte outside RFC 3986's unreserved and path characters
    /// percent-encoded; with `host`, `file://HOST/…`: a file of another machine.
    public static func fileURI(_ path: String, host: String = "") -> String {
        var out = "file://" + host
        for byte in path.pathBytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"),
                UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
                UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"),
                UInt8(ascii: "@"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// The local path a `file:` URI names (`file:///p`, `file://localhost/p`, `file:/p`), percent-decoded
    /// to its bytes (a name that is not UTF-8 kept as ``PathBytes`` keeps it); nil for other URIs, other
    /// hosts, or a path with a NUL byte.
    public static func localPath(_ uri: String) -> String? {
        let lower = uri.lowercased()
        var rest: Substring
        if lower.hasPrefix("file://localhost/") {
            rest = uri.dropFirst("file://localhost".count)
        } else if lower.hasPrefix("file:///") {
            rest = uri.dropFirst("file://".count)
        } else if lower.hasPrefix("file:/"), !lower.hasPrefix("file://") {
            rest = uri.dropFirst("file:".count)
        } else {
            return nil
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        if let query = rest.firstIndex(of: "?") { rest = rest[..<query] }
        var bytes: [UInt8] = []
        var iterator = Array(rest.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        guard !bytes.contains(0) else { return nil }
        return PathBytes.string(bytes)
    }
}

extension String {
    fileprivate func trimmingWhitespaceAndNUL() -> String {
        var scalars = Substring(self)
        while let last = scalars.last, last == " " || last == "\t" || last == "\0" { scalars.removeLast() }
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        return String(scalars)
    }
}

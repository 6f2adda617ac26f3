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
import Pasteboard
import SystemIO

/// The one way pbctl reads a file that a document names (an image in Markdown, for HTML `data:` URLs,
/// RTF pictures and TextBundle assets). Documents are untrusted: a README from a cloned repository must
/// not be able to carry `~/.ssh/id_ed25519` or `/proc/self/environ` into a paste.
///
/// A resource is read only when it is a relative path that resolves, component by component with
/// `openat` and `O_NOFOLLOW` (no symbolic link at all, so none can leave the folder), to a regular
/// file inside the document's own folder (`base`), opened without blocking, whose bytes are an image
/// (PNG, JPEG, GIF, WebP, BMP, TIFF or SVG), within ``Limits``. Everything else is refused with the
/// reason; nothing remote is ever fetched.
public struct DocumentResources {
    public struct Limits: Sendable {
        /// The largest image taken.
        public var perResource: Int
        /// All images of one document together.
        public var perDocument: Int

        public init(perResource: Int = 16 << 20, perDocument: Int = 64 << 20) {
            self.perResource = perResource
            self.perDocument = perDocument
        }
    }

    /// Why a resource was not taken, in words for `-v`.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// The document's folder, as given (the resolution is relative to it).
    public let base: String
    public let limits: Limits
    /// Bytes taken so far.
    public private(set) var used = 0

    public init(base: String, limits: Limits = Limits()) {
        self.base = base
        self.limits = limits
    }

    /// Reads the image `path` names (a path as the document spells it, already percent-decoded).
    /// - Returns: the bytes, or the reason they were not taken.
    public mutating func load(_ path: String) -> Result<Data, Refusal> {
        func refuse(_ reason: String) -> Result<Data, Refusal> { .failure(Refusal(reason: reason)) }
        if path.hasPrefix("/") || path.hasPrefix("~") { return refuse("an absolute path; only files in the document's folder are taken") }
        if path.contains("\\") { return refuse("a backslash in the path") }
        var components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        components.removeAll { $0 == "." }
        if components.contains("..") { return refuse("'..' leaves the document's folder") }
        guard let name = components.popLast() else { return refuse("an empty path") }
        var fd = open(base.isEmpty ? "." : base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return refuse("the document's folder cannot be opened: \(POSIX.errorString())") }
        defer { close(fd) }
        for component in components {
            let next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else {
                return refuse(errno == ELOOP || errno == ENOTDIR ? "'\(component)' is a symbolic link or not a folder" : POSIX.errorString())
            }
            close(fd)
            fd = next
        }
        let file = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard file >= 0 else {
            return refuse(errno == ELOOP ? "a symbolic link" : errno == ENOENT ? "no such file" : POSIX.errorString())
        }
        defer { close(file) }
        var st = stat()
        guard fstat(file, &st) == 0 else { return refuse(POSIX.errorString()) }
        guard st.st_mode & S_IFMT == S_IFREG else { return refuse("not a regular file") }
        let size = Int(st.st_size)
        guard size <= limits.perResource else { return refuse("\(size) bytes, over the \(limits.perResource >> 20) MiB an image may have") }
        guard used + size <= limits.perDocument else {
            return refuse("the document's images would pass \(limits.perDocument >> 20) MiB together")
        }
        guard let data = try? POSIX.readAll(file, path: path, sizeHint: size, limit: size) else { return refuse(POSIX.errorString()) }
        guard Self.imageType(data) != nil else { return refuse("not an image (PNG, JPEG, GIF, WebP, BMP, TIFF or SVG)") }
        used += data.count
        return .success(data)
    }

    /// The MIME type of image bytes, by signature; nil for anything else.
    public static func imageType(_ data: Data) -> String? {
        let head = [UInt8](data.prefix(1024))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        if head.count >= 14, head.starts(with: Array("BM".utf8)) { return "image/bmp" }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return "image/tiff" }
        // SVG: XML whose first element is <svg (after an optional declaration, comments and a doctype).
        var text = Substring(String(decoding: head, as: UTF8.self))
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        while true {
            text = text.drop { $0.isWhitespace }
            if text.hasPrefix("<?") || text.hasPrefix("<!") {
                guard let end = text.firstIndex(of: ">") else { return nil }
                text = text[text.index(after: end)...]
                continue
            }
            break
        }
        if text.hasPrefix("<svg") { return "image/svg+xml" }
        return nil
    }
}

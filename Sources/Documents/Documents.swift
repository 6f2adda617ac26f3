// TextBundles and document provenance: how `copy` reads `.textbundle` folders and `.textpack` archives
// and offers a Markdown file's local images as a TextBundle, and what `paste -o` writes (a package
// folder for org.textbundle.package, the `user.x-document-source` attribute). Folders are read and
// written relative to their descriptors, never following a link, within ``textBundleLimits``.
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
import Archive
import Pasteboard
import SystemIO
import PasteboardStore
import Representations

/// pbctl's identifier where a convention asks for an application's (TextBundle's
/// `creatorIdentifier`, `x-document-source`'s `identifier`).
public let pbctlIdentifier = "org.pbctl.pbctl"

/// Caps on what a TextBundle read from disk may hold (the ZIP limits, shared by folders).
public let textBundleLimits = ZipArchive.Limits(
    maximumEntryCount: 4096, maximumEntrySize: 128 << 20, maximumTotalSize: 256 << 20, maximumPathLength: 1024,
    maximumPathDepth: 16)

// MARK: Bundle bytes

/// The bytes of an org.textbundle.package representation: the bundle's files at the top of a
/// stored (uncompressed) ZIP. `paste -o NAME.textbundle` unpacks them into a folder.
public func packageRepresentation(_ bundle: TextBundle) throws -> Data {
    try ZipArchive.encode(try bundle.files().map { ZipEntry(path: $0.path, data: $0.data, modified: now()) }, method: .stored)
}

/// The bytes of an org.textbundle.compressed representation (a `.textpack`): a deflated ZIP holding
/// the bundle folder `NAME.textbundle/`, as the specification describes.
public func textPackRepresentation(_ bundle: TextBundle, name: String) throws -> Data {
    let folder = safeBundleName(name) + ".textbundle/"
    var entries = [ZipEntry.directory(folder, modified: now())]
    entries += try bundle.files().map { ZipEntry(path: folder + $0.path, data: $0.data, modified: now()) }
    return try ZipArchive.encode(entries, method: .deflate)
}

func now() -> Int64 { Int64(time(nil)) }

func safeBundleName(_ name: String) -> String {
    let cleaned = String(name.map { $0 == "/" || $0 == "\\" || $0.asciiValue.map { $0 < 0x20 } == true ? "_" : $0 })
    return cleaned.isEmpty || cleaned.hasPrefix(".") ? "Text" + cleaned : cleaned
}

/// Reads a bundle from ZIP bytes: either the bundle's files at the top (our package bytes) or one
/// top-level `NAME.textbundle/` folder (a `.textpack`).
/// - Throws: ``PasteboardError`` `.invalidData` (exit 65) naming `source` and what is wrong.
public func readBundle(zip data: Data, source: String) throws -> TextBundle {
    let entries: [ZipEntry]
    do {
        entries = try ZipArchive.decode(data, limits: textBundleLimits)
    } catch let error as ZipError {
        throw PasteboardError(.invalidData, "\(source): \(error.message)")
    }
    var files: [String: Data] = [:]
    for entry in entries { files[entry.path] = entry.data }
    if files["info.json"] == nil {
        let tops = Set(entries.compactMap { $0.path.split(separator: "/", maxSplits: 1).first.map(String.init) })
        // macOS archivers add a __MACOSX/ folder of resource forks: not part of the bundle.
        let candidates = tops.filter { $0 != "__MACOSX" && files[$0 + "/info.json"] != nil }
        guard candidates.count == 1, let top = candidates.first else {
            throw PasteboardError(
                .invalidData, "\(source): not a TextBundle archive (no info.json at the top or in one NAME.textbundle folder)")
        }
        var inner: [String: Data] = [:]
        for (path, bytes) in files where path.hasPrefix(top + "/") && path.count > top.count + 1 {
            inner[String(path.dropFirst(top.count + 1))] = bytes
        }
        files = inner
    }
    do {
        return try TextBundle(files: files)
    } catch let error as TextBundleError {
        throw PasteboardError(.invalidData, "\(source): \(error.message)")
    }
}

// MARK: copy

/// Whether `copy` should read `source` as a TextBundle: a `.textbundle` folder or a `.textpack`.
public func isTextBundleSource(_ source: String, declared: TypeIdentifier?) -> Bool {
    if declared == .textBundle || declared == .textPack { return true }
    guard declared == nil, let ext = source.pathExtension?.lowercased() else { return false }
    return ext == "textbundle" || ext == "textpack"
}

/// The item `copy` makes from a `.textbundle` folder or `.textpack` archive: Markdown (the bundle's
/// text, original), HTML and RTF with the assets embedded, plain text, and the bundle itself in
/// both forms (so pasting it back keeps every `info.json` key). Nil when `source` is not a bundle.
/// `metadata` is what the item carries (its provenance included).
public func textBundleItem(_ source: String, declared: TypeIdentifier?, metadata: ItemMetadata, registry: TypeRegistry) throws -> Item? {
    guard source != "-", isTextBundleSource(source, declared: declared) else { return nil }
    var st = stat()
    guard PathCalls.stat(source, &st) == 0 else { throw PasteboardError(.invalidData, "\(source.shownPath): \(POSIX.errorString())") }
    let bundle: TextBundle
    if (st.st_mode & S_IFMT) == S_IFDIR {
        bundle = try readBundleFolder(source)
    } else {
        bundle = try readBundle(zip: try POSIX.readFile(source), source: source)
    }
    let textType = registry.resolve(bundle.type) ?? .markdown
    guard TypeSniffer.isValidUTF8(bundle.text) else {
        throw PasteboardError(.invalidData, "\(source): \(bundle.textFileName) is not valid UTF-8")
    }
    var item = Item(representations: [Representation(type: textType, data: bundle.text)], metadata: metadata)
    if registry.conforms(textType, to: .markdown) {
        let embedded = Data(bundle.textWithEmbeddedImages())
        item.set(Representation(type: .html, data: try Conversion.produceRepresentation(.markdown, embedded, .html), derivedFrom: textType))
        item.set(Representation(type: .rtf, data: try Conversion.produceRepresentation(.markdown, embedded, .rtf), derivedFrom: textType))
    }
    if textType != .utf8PlainText {
        item.set(Representation(type: .utf8PlainText, data: bundle.text, derivedFrom: textType))
    }
    let name = bundleBaseName(source)
    item.set(Representation(type: .textBundle, data: try packageRepresentation(bundle), derivedFrom: textType))
    item.set(Representation(type: .textPack, data: try textPackRepresentation(bundle, name: name), derivedFrom: textType))
    return item
}

/// `trip.textpack` → `trip`.
public func bundleBaseName(_ path: String) -> String {
    var name = String(path.split(separator: "/").last ?? "Text")
    if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
    return name
}

/// Reads a `.textbundle` folder: regular files only (symbolic links and devices are refused), every
/// file opened relative to its folder without following links, within ``textBundleLimits``.
public func readBundleFolder(_ path: String) throws -> TextBundle {
    let root = PathCalls.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard root >= 0 else { throw PasteboardError(.invalidData, "\(path): \(POSIX.errorString())") }
    defer { close(root) }
    var files: [String: Data] = [:]
    var total = 0
    func walk(_ fd: Int32, _ prefix: String, depth: Int) throws {
        guard depth <= textBundleLimits.maximumPathDepth else {
            throw PasteboardError(.invalidData, "\(path)/\(prefix): folders nested too deeply")
        }
        for name in try FileTree.entries(fd, path: path + "/" + prefix) {
            let relative = prefix + name
            let shown = path + "/" + relative
            guard files.count < textBundleLimits.maximumEntryCount else {
                throw PasteboardError(.invalidData, "\(path): more than \(textBundleLimits.maximumEntryCount) files")
            }
            var st = stat()
            guard PathCalls.fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { throw PasteboardError(.io, "\(shown): \(POSIX.errorString())") }
            switch st.st_mode & S_IFMT {
            case S_IFLNK:
                throw PasteboardError(.invalidData, "\(shown): is a symbolic link; a TextBundle may not point outside itself")
            case S_IFDIR:
                let child = PathCalls.openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else { throw PasteboardError(.io, "\(shown): \(POSIX.errorString())") }
                defer { close(child) }
                try walk(child, relative + "/", depth: depth + 1)
            case S_IFREG:
                guard Int(st.st_size) <= textBundleLimits.maximumEntrySize,
                    total + Int(st.st_size) <= textBundleLimits.maximumTotalSize
                else {
                    throw PasteboardError(.invalidData, "\(shown): the bundle is larger than \(textBundleLimits.maximumTotalSize) bytes")
                }
                let file = PathCalls.openat(fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
                guard file >= 0 else { throw PasteboardError(.io, "\(shown): \(POSIX.errorString())") }
                defer { close(file) }
                let data = try POSIX.readAll(file, path: shown, sizeHint: Int(st.st_size))
                total += data.count
                files[relative] = data
            default:
                throw PasteboardError(.invalidData, "\(shown): not a regular file or folder")
            }
        }
    }
    try walk(root, "", depth: 0)
    do {
        return try TextBundle(files: files)
    } catch let error as TextBundleError {
        throw PasteboardError(.invalidData, "\(path): \(error.message)")
    }
}

/// How HTML from a Markdown copy carries its local images (`PBCTL_HTML_IMAGES`).
public enum HTMLImages: String, Sendable {
    /// `data:` URLs (the default): the HTML stands alone.
    case data
    /// `file:` URLs of the images where they are.
    case file
    /// The links as written.
    case none
}

/// For a Markdown document whose images are local files: adds org.textbundle.package and
/// org.textbundle.compressed, and replaces HTML and RTF by versions that carry the images (HTML as
/// `data:` URLs, `file:` URLs with ``HTMLImages/file``, or the links as written with ``HTMLImages/none``;
/// RTF as embedded pictures). Only images inside the document's own folder are taken
/// (``DocumentResources``): the file's folder, or for standard input `base` (else the current
/// directory). `report` hears, with `verbose`, each image not embedded and why.
public func addTextBundleRepresentations(
    _ item: inout Item, source: String, data: Data, base: String? = nil, registry: TypeRegistry, htmlImages: HTMLImages,
    verbose: Bool, report: (String) -> Void
) {
    guard let original = item.original, registry.conforms(original.type, to: .markdown) else { return }
    // Every Markdown image starts with `![`: without one there is nothing to take along, and the
    // parse the builder needs (the bulk of a large copy) is skipped.
    guard mayHoldImages(data) else { return }
    let folder: String
    var sourceURL: String? = nil
    if source == "-" {
        folder = POSIX.absolutePath(base ?? ".")
    } else {
        let markdownPath = POSIX.absolutePath(source)
        folder = markdownPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        sourceURL = fileURL(markdownPath)
    }
    let shownSource = source == "-" ? "standard input" : source
    var resources = DocumentResources(
        base: folder.isEmpty ? "/" : folder,
        limits: .init(perResource: min(documentImageLimit, textBundleLimits.maximumEntrySize), perDocument: documentImagesLimit))
    var refusals: [String: String] = [:]
    let built = TextBundleBuilder.build(
        markdown: data, creatorIdentifier: pbctlIdentifier, sourceURL: sourceURL,
        load: { path in
            switch resources.load(path) {
            case .success(let bytes):
                let relative = path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
                return (folder + "/" + relative, bytes)
            case .failure(let refusal):
                refusals[path] = refusal.reason
                return nil
            }
        })
    if verbose {
        let references = MarkdownImageReferences.references(in: [UInt8](data))
        for reference in references {
            guard let path = MarkdownImageReferences.filePath(reference.destination) else {
                if !reference.destination.hasPrefix("data:") {
                    report("\(shownSource): image \(reference.destination) not embedded: not a local file (nothing is fetched)")
                }
                continue
            }
            if let reason = refusals[path] {
                report("\(shownSource): image \(reference.destination) not embedded: \(reason)")
            }
        }
    }
    guard let built else { return }
    do {
        var htmlMarkdown = Data(built.embeddedMarkdown)
        switch htmlImages {
        case .none:
            htmlMarkdown = data
        case .file:
            let references = MarkdownImageReferences.references(in: [UInt8](data))
            htmlMarkdown = Data(
                MarkdownImageReferences.rewrite(
                    [UInt8](data), references: references, replacements: built.resolvedPaths.mapValues(fileURL)))
        case .data:
            break
        }
        item.set(Representation(type: .html, data: try Conversion.produceRepresentation(.markdown, htmlMarkdown, .html), derivedFrom: original.type))
        item.set(
            Representation(
                type: .rtf, data: try Conversion.produceRepresentation(.markdown, Data(built.embeddedMarkdown), .rtf), derivedFrom: original.type))
        item.set(Representation(type: .textBundle, data: try packageRepresentation(built.bundle), derivedFrom: original.type))
        item.set(
            Representation(
                type: .textPack, data: try textPackRepresentation(built.bundle, name: bundleBaseName(source)),
                derivedFrom: original.type))
    } catch {
        if verbose { report("\(source): no TextBundle offered: \(error)") }
    }
}

/// Whether `markdown` contains `![`, which every image (inline or reference) begins with.
public func mayHoldImages(_ markdown: Data) -> Bool {
    markdown.withUnsafeBytes { raw in
        guard var cursor = raw.baseAddress, raw.count > 1 else { return false }
        let end = raw.baseAddress! + raw.count
        while cursor < end - 1, let bang = memchr(cursor, Int32(UInt8(ascii: "!")), end - 1 - cursor) {
            let found = UnsafeRawPointer(bang)
            if found.load(fromByteOffset: 1, as: UInt8.self) == UInt8(ascii: "[") { return true }
            cursor = found + 1
        }
        return false
    }
}

/// The largest image a document may carry into a paste (README, security).
public let documentImageLimit = 16 << 20
/// All images of one document together.
public let documentImagesLimit = 64 << 20

/// `file://` + the absolute path, percent-encoded where a URL needs it.
public func fileURL(_ path: String) -> String {
    "file://" + TextBundleBuilder.percentEncodedPathComponent(path, allowed: "-._~/!$&'()*+,;=:@")
}

// MARK: x-document-source

/// The `user.x-document-source` record `source` carries, as ``ItemMetadata/extra`` entries; empty
/// when there is none, or when the file system has no extended attributes (`report` hears why).
public func documentSourceMetadata(_ source: String, report: (String) -> Void) -> [String: String] {
    guard source != "-" else { return [:] }
    do {
        return try DocumentSource.read(path: source)?.metadataEntries ?? [:]
    } catch let failure as ExtendedAttributes.Failure {
        report("\(source): x-document-source not read: \(failure.message)")
    } catch {
        report("\(source): x-document-source not read: \(error)")
    }
    return [:]
}

/// Where pasted content came from: the record an item kept from the file it was copied from, else
/// the application that put it on the pasteboard (pbctl itself when it was `pbctl copy`).
public func documentSource(for metadata: ItemMetadata) -> DocumentSource {
    if let kept = DocumentSource(metadata: metadata) { return kept }
    let application = metadata.sourceApplication ?? "pbctl"
    if application == "pbctl" || application == pbctlIdentifier {
        return DocumentSource(identifier: pbctlIdentifier, name: "pbctl", path: executablePath() ?? "")
    }
    let name = application.split(separator: ".").last.map(String.init) ?? application
    return DocumentSource(identifier: application, name: name, path: "")
}

public func executablePath() -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

// MARK: paste -o

/// Writes what `paste -o PATH` pasted as whole bytes: an org.textbundle.package becomes a package
/// folder, anything else a file; then records where it came from (``recordDocumentSource``).
public func writePastedFile(
    _ path: String, _ output: Data, items: [ItemSummary], requested: TypeIdentifier?, report: (String) -> Void
) throws {
    if requested == .textBundle {
        try writeTextBundlePackage(output, to: path)
    } else {
        try POSIX.writeFile(path, output)
    }
    recordDocumentSource(path, items: items, report: report)
}

/// Records the pasted content's source in `user.x-document-source` of `path` (skipped where the file
/// system has no extended attributes; `report` hears why). Sensitive content never gets here from the
/// store, and its provenance is not recorded.
public func recordDocumentSource(_ path: String, items: [ItemSummary], report: (String) -> Void) {
    guard let metadata = items.first?.metadata, !metadata.flags.contains(.sensitive) else { return }
    do {
        try documentSource(for: metadata).write(path: path)
    } catch let failure as ExtendedAttributes.Failure {
        report("\(path): x-document-source not recorded: \(failure.message)")
    } catch {
        report("\(path): x-document-source not recorded: \(error)")
    }
}

/// Unpacks package bytes into a new folder `path` (which must not exist): everything is written in a
/// fresh sibling folder, relative to its descriptor and without following links, then renamed into
/// place, so nothing lands outside `path` and a failure leaves nothing behind.
public func writeTextBundlePackage(_ data: Data, to path: String) throws {
    let bundle = try readBundle(zip: data, source: "org.textbundle.package")
    let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    var st = stat()
    if PathCalls.lstat(trimmed, &st) == 0 {
        throw PasteboardError(.refused, "\(trimmed): already exists; remove it first (a package is a folder, never merged)")
    }
    let temporary = trimmed + ".partial-\(getpid())"
    guard temporary.withPathCString({ mkdir($0, 0o755) }) == 0 else { throw PasteboardError(.io, "\(temporary): mkdir failed: \(POSIX.errorString())") }
    var done = false
    defer { if !done { FileTree.removeTree(temporary) } }
    let root = PathCalls.open(temporary, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard root >= 0 else { throw PasteboardError(.io, "\(temporary): \(POSIX.errorString())") }
    defer { close(root) }
    for (relative, bytes) in try bundle.files() {
        let components = relative.split(separator: "/").map(String.init)
        guard !components.isEmpty, !components.contains(where: { $0 == ".." || $0 == "." }) else { continue }
        var fd = root
        var opened: [Int32] = []
        defer { for descriptor in opened { close(descriptor) } }
        let folders = relative.hasSuffix("/") ? components : Array(components.dropLast())
        for folder in folders {
            if mkdirat(fd, folder, 0o755) != 0, errno != EEXIST {
                throw PasteboardError(.io, "\(trimmed)/\(relative): mkdir failed: \(POSIX.errorString())")
            }
            let next = openat(fd, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { throw PasteboardError(.io, "\(trimmed)/\(relative): \(POSIX.errorString())") }
            opened.append(next)
            fd = next
        }
        if relative.hasSuffix("/") { continue }
        let file = openat(fd, components.last!, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw PasteboardError(.io, "\(trimmed)/\(relative): \(POSIX.errorString())") }
        defer { close(file) }
        try POSIX.writeAll(file, bytes, path: trimmed + "/" + relative)
    }
    guard PathCalls.renameat(AT_FDCWD, temporary, AT_FDCWD, trimmed) == 0 else {
        throw PasteboardError(.io, "\(trimmed): rename failed: \(POSIX.errorString())")
    }
    done = true
}

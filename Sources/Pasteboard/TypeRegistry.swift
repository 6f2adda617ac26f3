#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the registry knows about one type: where it sits in the conformance graph and its tags.
public struct TypeDeclaration: Sendable, Codable, Equatable {
    public var identifier: TypeIdentifier
    public var conformsTo: [TypeIdentifier]
    public var description: String
    /// Tags by class; the first of each class is the preferred one.
    public var tags: [TagClass: [String]]
    /// Set for text types whose bytes have one fixed encoding.
    public var textEncoding: TextEncoding?
    /// Where the declaration came from ("built-in", or a file path).
    public var origin: String

    public init(
        _ identifier: TypeIdentifier, conformsTo: [TypeIdentifier], description: String = "",
        extensions: [String] = [], mimeTypes: [String] = [], x11Targets: [String] = [],
        textEncoding: TextEncoding? = nil, origin: String = "built-in"
    ) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.description = description
        var tags: [TagClass: [String]] = [:]
        if !extensions.isEmpty { tags[.filenameExtension] = extensions.map { $0.isPlainLowercaseASCII ? $0 : $0.lowercased() } }
        if !mimeTypes.isEmpty { tags[.mimeType] = mimeTypes.map { $0.isPlainLowercaseASCII ? $0 : $0.lowercased() } }
        if !x11Targets.isEmpty { tags[.x11Target] = x11Targets }
        self.tags = tags
        self.textEncoding = textEncoding
        self.origin = origin
    }
}

/// The type registry: a conformance graph of ``TypeDeclaration``s with tag look-ups both ways,
/// modelled on UTType.
///
/// Look-ups of a tag nobody declared return a dynamic identifier (`dyn.mime.…`, `dyn.ext.…`,
/// `dyn.x11.…`) that maps back to exactly the same tag, so nothing an application offers is dropped
/// or renamed.
public struct TypeRegistry: Sendable {
    private var declarations: [TypeIdentifier: TypeDeclaration] = [:]
    /// Declaration order, so listings are stable.
    private var order: [TypeIdentifier] = []
    private var byTag: [TagClass: [String: [TypeIdentifier]]] = [:]

    public init(declarations: [TypeDeclaration] = []) {
        for declaration in declarations { declare(declaration) }
    }

    /// The built-in declarations (see `TypeRegistry+Standard.swift`).
    public static let standard = TypeRegistry(declarations: standardDeclarations)

    /// Adds or replaces a declaration. Tags of a later declaration are looked up after earlier ones.
    public mutating func declare(_ declaration: TypeDeclaration) {
        let id = declaration.identifier
        if declarations[id] == nil { order.append(id) }
        declarations[id] = declaration
        for (tagClass, values) in declaration.tags {
            for value in values {
                let key = Self.normalizedTag(value, tagClass)
                var ids = byTag[tagClass, default: [:]][key, default: []]
                if !ids.contains(id) { ids.append(id) }
                byTag[tagClass, default: [:]][key] = ids
            }
        }
    }

    public var allDeclarations: [TypeDeclaration] { order.compactMap { declarations[$0] } }

    public func declaration(for type: TypeIdentifier) -> TypeDeclaration? { declarations[type] }

    // MARK: Conformance

    /// The direct supertypes of `type`. A dynamic type conforms to `public.data` (and `public.text`
    /// when its MIME type is `text/*`).
    public func directSupertypes(of type: TypeIdentifier) -> [TypeIdentifier] {
        if let declaration = declarations[type] { return declaration.conformsTo }
        if let (tagClass, tag) = Self.dynamicTag(type) {
            // X11 targets are often MIME types too (`text/_moz_htmlcontext`).
            let mimeLike = tagClass == .mimeType || (tagClass == .x11Target && tag.contains("/"))
            if mimeLike, tag.hasPrefix("text/") { return [.text] }
            if mimeLike, tag.hasPrefix("image/") { return [.image] }
            return [.data]
        }
        return []
    }

    /// Every type `type` conforms to, itself excluded, nearest first.
    public func supertypes(of type: TypeIdentifier) -> [TypeIdentifier] {
        var result: [TypeIdentifier] = []
        var seen: Set<TypeIdentifier> = [type]
        var queue = directSupertypes(of: type)
        var index = 0
        while index < queue.count {
            let next = queue[index]
            index += 1
            if seen.insert(next).inserted {
                result.append(next)
                queue.append(contentsOf: directSupertypes(of: next))
            }
        }
        return result
    }

    /// Whether `type` is `other` or conforms to it through the graph.
    public func conforms(_ type: TypeIdentifier, to other: TypeIdentifier) -> Bool {
        type == other || supertypes(of: type).contains(other)
    }

    /// Whether the type is text, and if so how its bytes are encoded (UTF-8 unless declared).
    public func textEncoding(of type: TypeIdentifier) -> TextEncoding? {
        guard conforms(type, to: .text) else { return nil }
        if let encoding = declarations[type]?.textEncoding { return encoding }
        for supertype in supertypes(of: type) {
            if let encoding = declarations[supertype]?.textEncoding { return encoding }
        }
        return .utf8
    }

    public func isText(_ type: TypeIdentifier) -> Bool { conforms(type, to: .text) }

    // MARK: Tags

    /// All tags of `type` in one class, preferred first. A dynamic type has exactly its own tag.
    public func tags(of type: TypeIdentifier, _ tagClass: TagClass) -> [String] {
        if let tags = declarations[type]?.tags[tagClass] { return tags }
        if let (dynamicClass, tag) = Self.dynamicTag(type), dynamicClass == tagClass { return [tag] }
        return []
    }

    public func preferredTag(of type: TypeIdentifier, _ tagClass: TagClass) -> String? {
        tags(of: type, tagClass).first
    }

    public func preferredMIMEType(of type: TypeIdentifier) -> String? { preferredTag(of: type, .mimeType) }
    public func preferredFilenameExtension(of type: TypeIdentifier) -> String? {
        preferredTag(of: type, .filenameExtension)
    }

    /// The types declaring `tag`, in declaration order; empty when none does.
    public func types(withTag tag: String, _ tagClass: TagClass) -> [TypeIdentifier] {
        let key = Self.normalizedTag(tag, tagClass)
        if let ids = byTag[tagClass]?[key], !ids.isEmpty { return ids }
        if tagClass == .mimeType, let bare = key.split(separator: ";").first, bare.count != key.count {
            // Parameters we do not know (`text/html;charset=utf-8`) fall back to the bare type.
            return byTag[tagClass]?[String(bare)] ?? []
        }
        return []
    }

    /// The preferred type for a tag, or a dynamic identifier that round-trips to the same tag.
    public func type(forTag tag: String, _ tagClass: TagClass) -> TypeIdentifier {
        if let known = types(withTag: tag, tagClass).first { return known }
        return Self.dynamicIdentifier(tag: Self.normalizedTag(tag, tagClass), tagClass)
    }

    public func type(forMIMEType mimeType: String) -> TypeIdentifier { type(forTag: mimeType, .mimeType) }
    public func type(forFilenameExtension ext: String) -> TypeIdentifier {
        type(forTag: ext, .filenameExtension)
    }
    public func type(forX11Target target: String) -> TypeIdentifier { type(forTag: target, .x11Target) }

    /// Resolves what a user typed: an identifier the registry knows, a MIME type, an X11 target,
    /// a filename extension (with or without a dot), or a well-formed identifier taken as is.
    public func resolve(_ text: String) -> TypeIdentifier? {
        let trimmed = text.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty else { return nil }
        let asIdentifier = TypeIdentifier(trimmed)
        if declarations[asIdentifier] != nil || Self.dynamicTag(asIdentifier) != nil { return asIdentifier }
        if trimmed.contains("/") { return type(forMIMEType: trimmed) }
        if !types(withTag: trimmed, .x11Target).isEmpty { return type(forX11Target: trimmed) }
        let ext = trimmed.hasPrefix(".") ? String(trimmed.dropFirst()) : trimmed
        if !types(withTag: ext, .filenameExtension).isEmpty { return type(forFilenameExtension: ext) }
        if trimmed.contains("."), !trimmed.hasPrefix("."), asIdentifier.isWellFormed { return asIdentifier }
        return nil
    }

    // MARK: Normalisation and dynamic identifiers

    /// Extensions and MIME types compare case-insensitively; MIME parameters are trimmed, lowercased
    /// and kept in order (`text/plain; charset=UTF-8` → `text/plain;charset=utf-8`). X11 targets are
    /// case-sensitive atom names, except those that are MIME types.
    static func normalizedTag(_ tag: String, _ tagClass: TagClass) -> String {
        switch tagClass {
        case .filenameExtension:
            let name = tag.hasPrefix(".") ? String(tag.dropFirst()) : tag
            return name.isPlainLowercaseASCII ? name : name.lowercased()
        case .mimeType:
            return normalizedMIMEType(tag)
        case .x11Target:
            return tag.contains("/") ? normalizedMIMEType(tag) : tag
        }
    }

    static func normalizedMIMEType(_ tag: String) -> String {
        if tag.isPlainLowercaseASCII { return tag }
        let parts = tag.split(separator: ";", omittingEmptySubsequences: true).map {
            $0.trimmingASCIIWhitespace().lowercased()
        }
        guard let head = parts.first else { return "" }
        let params = parts.dropFirst().map { param -> String in
            guard let eq = param.firstIndex(of: "=") else { return param }
            let name = param[..<eq].trimmingASCIIWhitespace()
            var value = param[param.index(after: eq)...].trimmingASCIIWhitespace()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            return "\(name)=\(value)"
        }
        return ([head] + params).joined(separator: ";")
    }

    private static let dynamicPrefixes: [(TagClass, String)] = [
        (.mimeType, "dyn.mime."), (.filenameExtension, "dyn.ext."), (.x11Target, "dyn.x11."),
    ]

    /// `dyn.<class>.<escaped tag>`: letters and digits kept (lowercase; upper case escaped), every
    /// other byte as `-XX`, so the tag comes back unchanged.
    static func dynamicIdentifier(tag: String, _ tagClass: TagClass) -> TypeIdentifier {
        let prefix = dynamicPrefixes.first { $0.0 == tagClass }!.1
        var out = prefix
        let hex = Array("0123456789ABCDEF".utf8)
        for b in tag.utf8 {
            if (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "-"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 15)]))
            }
        }
        return TypeIdentifier(out)
    }

    /// The tag a dynamic identifier stands for, or nil when `type` is not dynamic or is malformed.
    static func dynamicTag(_ type: TypeIdentifier) -> (TagClass, String)? {
        guard type.isDynamic,
            let (tagClass, prefix) = dynamicPrefixes.first(where: { type.rawValue.hasPrefix($0.1) })
        else { return nil }
        var bytes: [UInt8] = []
        let utf8 = Array(type.rawValue.utf8.dropFirst(prefix.utf8.count))
        var i = 0
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        while i < utf8.count {
            if utf8[i] == 0x2D {
                guard i + 2 < utf8.count, let hi = nibble(utf8[i + 1]), let lo = nibble(utf8[i + 2]) else {
                    return nil
                }
                bytes.append(hi << 4 | lo)
                i += 3
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        guard !bytes.isEmpty, let tag = String(validating: bytes, as: UTF8.self) else { return nil }
        return (tagClass, tag)
    }
}

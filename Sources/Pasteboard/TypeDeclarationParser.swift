#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A declaration that could not be used, with the file and the key that made it so.
public struct TypeDeclarationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (or other origin) the declaration came from.
    public var origin: String
    /// Where in the file: `UTExportedTypeDeclarations[2].UTTypeConformsTo`, or "" for the whole file.
    public var key: String
    public var message: String

    public init(origin: String, key: String, message: String) {
        self.origin = origin
        self.key = key
        self.message = message
    }

    public var description: String {
        key.isEmpty ? "\(origin): \(message)" : "\(origin): \(key): \(message)"
    }
}

/// Reads type declarations from property lists shaped like an `Info.plist`'s
/// `UTExportedTypeDeclarations` / `UTImportedTypeDeclarations` (XML or binary).
///
/// Each declaration is a dictionary with `UTTypeIdentifier` (required), `UTTypeConformsTo` (a string
/// or an array of strings), `UTTypeDescription`, and `UTTypeTagSpecification` whose
/// `public.filename-extension` and `public.mime-type` (and our `org.x.selection-target`) are a string
/// or an array of strings. A declared type with MIME types but no X11 target is offered over X11
/// under its MIME types. The file may also be a bare array of declarations (taken as exported).
///
/// Parsing is pure and never traps: a malformed declaration becomes a ``TypeDeclarationProblem``
/// naming the key, and the others are still returned.
public enum TypeDeclarationParser {
    /// Limits that keep a hostile file from costing much.
    public static let maximumFileSize = 1 << 20
    public static let maximumDeclarations = 1024
    public static let maximumTagsPerClass = 64
    public static let maximumStringLength = 255
    public static let maximumNestingDepth = 32

    public struct Result: Sendable {
        /// Exported declarations, in file order.
        public var exported: [TypeDeclaration] = []
        /// Imported declarations, in file order: used only for identifiers nobody exports.
        public var imported: [TypeDeclaration] = []
        public var problems: [TypeDeclarationProblem] = []
    }

    /// Parses one property list file's bytes. `origin` (usually the path) names the file in problems
    /// and becomes each declaration's ``TypeDeclaration/origin``.
    public static func parse(_ data: Data, origin: String) -> Result {
        var result = Result()
        guard data.count <= maximumFileSize else {
            result.problems.append(.init(origin: origin, key: "", message: "larger than \(maximumFileSize) bytes; skipped"))
            return result
        }
        if let problem = PropertyListShape.problem(data, maximumDepth: maximumNestingDepth) {
            result.problems.append(.init(origin: origin, key: "", message: problem + "; skipped"))
            return result
        }
        let root: PropertyListValue
        do {
            root = try PropertyListDecoder().decode(PropertyListValue.self, from: data)
        } catch {
            result.problems.append(.init(origin: origin, key: "", message: "not a property list (XML or binary); skipped"))
            return result
        }
        var lists: [(key: String, exported: Bool, value: PropertyListValue)] = []
        switch root {
        case .dictionary(let dictionary):
            for (key, exported) in [("UTExportedTypeDeclarations", true), ("UTImportedTypeDeclarations", false)] {
                if let value = dictionary[key] { lists.append((key, exported, value)) }
            }
            if lists.isEmpty {
                result.problems.append(
                    .init(
                        origin: origin, key: "",
                        message: "has neither UTExportedTypeDeclarations nor UTImportedTypeDeclarations"))
            }
        case .array:
            lists.append(("", true, root))
        default:
            result.problems.append(.init(origin: origin, key: "", message: "the top level must be a dictionary"))
        }
        var count = 0
        for (listKey, exported, value) in lists {
            guard case .array(let entries) = value else {
                result.problems.append(.init(origin: origin, key: listKey, message: "must be an array of dictionaries"))
                continue
            }
            for (index, entry) in entries.enumerated() {
                let key = "\(listKey)[\(index)]"
                count += 1
                guard count <= maximumDeclarations else {
                    result.problems.append(
                        .init(origin: origin, key: key, message: "more than \(maximumDeclarations) declarations; the rest are skipped"))
                    break
                }
                switch declaration(entry, origin: origin, key: key) {
                case .success(let declaration):
                    if exported { result.exported.append(declaration) } else { result.imported.append(declaration) }
                case .failure(let problem):
                    result.problems.append(problem)
                }
            }
        }
        return result
    }

    static func declaration(_ entry: PropertyListValue, origin: String, key: String)
        -> Swift.Result<TypeDeclaration, TypeDeclarationProblem>
    {
        func problem(_ subkey: String, _ message: String, _ identifier: String? = nil) -> TypeDeclarationProblem {
            let where_ = subkey.isEmpty ? key : key + "." + subkey
            let suffix = identifier.map { " (\($0)); declaration skipped" } ?? "; declaration skipped"
            return TypeDeclarationProblem(origin: origin, key: where_, message: message + suffix)
        }
        guard case .dictionary(let dictionary) = entry else {
            return .failure(problem("", "must be a dictionary"))
        }
        guard let identifierValue = dictionary["UTTypeIdentifier"] else {
            return .failure(problem("UTTypeIdentifier", "missing"))
        }
        guard case .string(let identifierText) = identifierValue, !identifierText.isEmpty,
            identifierText.utf8.count <= maximumStringLength
        else {
            return .failure(problem("UTTypeIdentifier", "must be a non-empty string of at most \(maximumStringLength) bytes"))
        }
        let identifier = TypeIdentifier(identifierText)
        guard identifier.isWellFormed, !identifier.isDynamic, identifierText.contains("."),
            !identifierText.hasPrefix("."), !identifierText.hasSuffix(".")
        else {
            return .failure(
                problem(
                    "UTTypeIdentifier",
                    "'\(identifierText)' is not a reverse-DNS identifier (letters, digits, '-' and '.'; not dyn.)"))
        }
        let id = identifier.rawValue

        var conformsTo: [TypeIdentifier] = []
        if let value = dictionary["UTTypeConformsTo"] {
            guard let strings = stringList(value) else {
                return .failure(problem("UTTypeConformsTo", "must be a string or an array of strings", id))
            }
            for text in strings {
                let parent = TypeIdentifier(text)
                guard parent.isWellFormed, text.utf8.count <= maximumStringLength else {
                    return .failure(problem("UTTypeConformsTo", "'\(text)' is not a type identifier", id))
                }
                guard parent != identifier else {
                    return .failure(problem("UTTypeConformsTo", "a type cannot conform to itself", id))
                }
                if !conformsTo.contains(parent) { conformsTo.append(parent) }
            }
        }

        var description = ""
        if let value = dictionary["UTTypeDescription"] {
            guard case .string(let text) = value else {
                return .failure(problem("UTTypeDescription", "must be a string", id))
            }
            description = String(text.prefix(1024))
        }

        var extensions: [String] = []
        var mimeTypes: [String] = []
        var x11Targets: [String] = []
        if let value = dictionary["UTTypeTagSpecification"] {
            guard case .dictionary(let tags) = value else {
                return .failure(problem("UTTypeTagSpecification", "must be a dictionary", id))
            }
            for (tagClass, tagValue) in tags.sorted(by: { $0.key < $1.key }) {
                let subkey = "UTTypeTagSpecification.\(tagClass)"
                guard let strings = stringList(tagValue) else {
                    return .failure(problem(subkey, "must be a string or an array of strings", id))
                }
                guard strings.count <= maximumTagsPerClass else {
                    return .failure(problem(subkey, "more than \(maximumTagsPerClass) tags", id))
                }
                for tag in strings {
                    guard !tag.isEmpty, tag.utf8.count <= maximumStringLength,
                        tag.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
                    else {
                        return .failure(problem(subkey, "'\(tag)' is not a valid tag (empty, too long or has spaces)", id))
                    }
                }
                switch tagClass {
                case TagClass.filenameExtension.rawValue:
                    for tag in strings {
                        let ext = tag.hasPrefix(".") ? String(tag.dropFirst()) : tag
                        guard !ext.isEmpty, !ext.contains("/") else {
                            return .failure(problem(subkey, "'\(tag)' is not a filename extension", id))
                        }
                        extensions.append(ext)
                    }
                case TagClass.mimeType.rawValue:
                    for tag in strings {
                        let bare = tag.split(separator: ";").first.map(String.init) ?? ""
                        let halves = bare.split(separator: "/", omittingEmptySubsequences: false)
                        guard halves.count == 2, !halves[0].isEmpty, !halves[1].isEmpty else {
                            return .failure(problem(subkey, "'\(tag)' is not a MIME type (type/subtype)", id))
                        }
                        mimeTypes.append(tag)
                    }
                case TagClass.x11Target.rawValue:
                    x11Targets.append(contentsOf: strings)
                default:
                    // Other tag classes (com.apple.ostype, …) mean nothing here: ignored, as UTType does.
                    break
                }
            }
        }
        if x11Targets.isEmpty {
            // X11 applications name content by MIME type.
            x11Targets = mimeTypes.map { TypeRegistry.normalizedMIMEType($0) }
        }
        return .success(
            TypeDeclaration(
                identifier, conformsTo: conformsTo, description: description, extensions: extensions,
                mimeTypes: mimeTypes.map { TypeRegistry.normalizedMIMEType($0) }, x11Targets: x11Targets,
                origin: origin))
    }

    static func stringList(_ value: PropertyListValue) -> [String]? {
        switch value {
        case .string(let text): return [text]
        case .array(let values):
            var strings: [String] = []
            for value in values {
                guard case .string(let text) = value else { return nil }
                strings.append(text)
            }
            return strings
        default: return nil
        }
    }
}

extension TypeRegistry {
    /// Adds parsed declarations to the registry, UTType's way: an identifier the registry already
    /// declares (a built-in type, or an earlier file) is kept and the newcomer reported; exported
    /// declarations come before imported ones, so an imported declaration only counts when nobody
    /// exports that identifier.
    /// - Returns: what was skipped and why.
    @discardableResult
    public mutating func declare(_ results: [TypeDeclarationParser.Result]) -> [TypeDeclarationProblem] {
        var problems: [TypeDeclarationProblem] = []
        let exported = results.flatMap(\.exported)
        let imported = results.flatMap(\.imported)
        for declaration in exported {
            if let existing = self.declaration(for: declaration.identifier) {
                problems.append(
                    .init(
                        origin: declaration.origin, key: "UTTypeIdentifier",
                        message: "\(declaration.identifier) is already declared (\(existing.origin)); skipped"))
                continue
            }
            declare(declaration)
        }
        for declaration in imported where self.declaration(for: declaration.identifier) == nil {
            declare(declaration)
        }
        return problems
    }
}

/// A property list value of any kind, for reading property lists whose shape is not known in advance.
public indirect enum PropertyListValue: Sendable, Equatable, Codable {
    case string(String)
    case integer(Int)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: PropertyListValue].self) {
            self = .dictionary(value)
        } else if let value = try? container.decode([PropertyListValue].self) {
            self = .array(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .boolean(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .real(value)
        } else if let value = try? container.decode(Date.self) {
            self = .date(value)
        } else if let value = try? container.decode(Data.self) {
            self = .data(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown property list value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value)
        case .boolean(let value): try container.encode(value)
        case .date(let value): try container.encode(value)
        case .data(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .dictionary(let value): try container.encode(value)
        }
    }
}

/// Checks a property list's shape before it is decoded, so a hostile file cannot exhaust the
/// decoder's stack: XML nesting depth, and for binary property lists (whose objects refer to each
/// other by number) reference cycles, depth and the number of objects reached.
public enum PropertyListShape {
    /// Why `data` should not be decoded, or nil when it may be.
    public static func problem(_ data: Data, maximumDepth: Int = 32, maximumVisits: Int = 100_000) -> String? {
        // Any "bplist" header: Foundation decodes other version bytes too ("bplist0$" once slipped past
        // a check for "bplist00" and expanded shared references exponentially).
        if data.starts(with: Array("bplist".utf8)) {
            return binaryProblem([UInt8](data), maximumDepth: maximumDepth, maximumVisits: maximumVisits)
        }
        // Foundation's XML property list reader traps on some invalid UTF-8 (a byte 0xF8 to 0xFF makes its
        // scalar decoder hit fatalError()): refuse what is not UTF-8 before it gets there. A UTF-16
        // document (with its byte-order mark) is left to the decoder.
        let utf16 = data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF])
        if !utf16, String(validating: data, as: UTF8.self) == nil {
            return "not valid UTF-8"
        }
        if let depth = xmlNestingDepth(data), depth > maximumDepth {
            return "nested deeper than \(maximumDepth) levels"
        }
        return nil
    }

    /// How deeply `<array>` and `<dict>` elements nest in an XML property list (nil for other
    /// formats), counted before decoding so a hostile file cannot exhaust the decoder's stack.
    static func xmlNestingDepth(_ data: Data) -> Int? {
        let bytes = [UInt8](data.prefix(16 << 20))
        guard !bytes.starts(with: Array("bplist".utf8)) else { return nil }
        var depth = 0
        var deepest = 0
        var i = 0
        let open: [[UInt8]] = [Array("<array".utf8), Array("<dict".utf8)]
        let close: [[UInt8]] = [Array("</array".utf8), Array("</dict".utf8)]
        func matches(_ tag: [UInt8], at index: Int) -> Bool {
            guard index + tag.count < bytes.count, Array(bytes[index..<(index + tag.count)]) == tag else { return false }
            let next = bytes[index + tag.count]
            return next == UInt8(ascii: ">") || next == UInt8(ascii: "/") || next == 0x20 || next == 0x09 || next == 0x0A
                || next == 0x0D
        }
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "<") {
                if open.contains(where: { matches($0, at: i) }) {
                    // `<array/>` opens and closes at once.
                    var j = i + 1
                    while j < bytes.count, bytes[j] != UInt8(ascii: ">") { j += 1 }
                    if j < bytes.count, bytes[j - 1] != UInt8(ascii: "/") {
                        depth += 1
                        deepest = max(deepest, depth)
                    }
                    i = j
                } else if close.contains(where: { matches($0, at: i) }) {
                    depth = max(0, depth - 1)
                }
            }
            i += 1
        }
        return deepest
    }


    static func binaryProblem(_ b: [UInt8], maximumDepth: Int, maximumVisits: Int) -> String? {
        let damaged = "a damaged binary property list"
        guard b.count >= 8 + 32 else { return damaged }
        func uint(_ at: Int, _ size: Int) -> Int? {
            guard size >= 1, size <= 8, at >= 0, at + size <= b.count else { return nil }
            var value: UInt64 = 0
            for i in 0..<size { value = value << 8 | UInt64(b[at + i]) }
            return value > UInt64(Int.max / 2) ? nil : Int(value)
        }
        let trailer = b.count - 32
        let offsetSize = Int(b[trailer + 6])
        let refSize = Int(b[trailer + 7])
        guard let objectCount = uint(trailer + 8, 8), let top = uint(trailer + 16, 8),
            let tableOffset = uint(trailer + 24, 8), (1...8).contains(offsetSize), (1...8).contains(refSize),
            objectCount >= 1, top < objectCount, objectCount <= (b.count - 8) ,
            tableOffset >= 8, tableOffset <= trailer, objectCount <= (trailer - tableOffset) / offsetSize
        else { return damaged }
        func offset(_ object: Int) -> Int? {
            guard object >= 0, object < objectCount, let value = uint(tableOffset + object * offsetSize, offsetSize),
                value >= 8, value < tableOffset
            else { return nil }
            return value
        }
        /// The references an array, set or dictionary holds; [] for scalars; nil when damaged.
        func children(_ object: Int) -> [Int]? {
            guard let at = offset(object) else { return nil }
            let marker = b[at]
            let kind = marker >> 4
            guard kind == 0xA || kind == 0xC || kind == 0xD else { return [] }
            var count = Int(marker & 0xF)
            var start = at + 1
            if count == 0xF {
                guard start < b.count, b[start] >> 4 == 0x1 else { return nil }
                let size = 1 << Int(b[start] & 0xF)
                guard let extended = uint(start + 1, size) else { return nil }
                count = extended
                start += 1 + size
            }
            let refs = kind == 0xD ? count * 2 : count
            guard count <= objectCount * 2, start + refs * refSize <= tableOffset else { return nil }
            var result: [Int] = []
            result.reserveCapacity(refs)
            for i in 0..<refs {
                guard let ref = uint(start + i * refSize, refSize), ref < objectCount else { return nil }
                result.append(ref)
            }
            return result
        }
        var visits = 0
        var stack: [(object: Int, depth: Int)] = [(top, 0)]
        while let (object, depth) = stack.popLast() {
            visits += 1
            guard visits <= maximumVisits else { return "a binary property list with too many objects" }
            guard depth <= maximumDepth else {
                return "a binary property list nested deeper than \(maximumDepth) levels (or with a reference cycle)"
            }
            guard let refs = children(object) else { return damaged }
            for ref in refs { stack.append((ref, depth + 1)) }
        }
        return nil
    }
}

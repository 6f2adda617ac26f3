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
import Pasteboard
import SystemIO

/// Extended attributes of files (`user.*` names on Linux), each call turning `errno` into an error
/// that names the file and the attribute.
///
/// The C functions come from `<sys/xattr.h>` through the `CSystem` module (Swift's Glibc module leaves
/// the header out) and are called directly, so the fully static release binary has them too: looking
/// them up with `dlsym` found nothing there and silently skipped provenance.
public enum ExtendedAttributes {
    static func getxattr(_ path: String, _ name: String, _ value: UnsafeMutableRawPointer?, _ size: Int) throws -> Int {
        CSystem.getxattr(path, name, value, size)
    }

    static func setxattr(_ path: String, _ name: String, _ value: UnsafeRawPointer?, _ size: Int, _ flags: Int32) throws -> Int32 {
        CSystem.setxattr(path, name, value, size, flags)
    }

    static func removexattr(_ path: String, _ name: String) throws -> Int32 { CSystem.removexattr(path, name) }

    static func listxattr(_ path: String, _ list: UnsafeMutablePointer<CChar>?, _ size: Int) throws -> Int {
        CSystem.listxattr(path, list, size)
    }

    /// Why an attribute could not be read or written.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public enum Code: Sendable, Equatable {
            /// The file system (or the file's kind) has no user extended attributes: callers skip quietly.
            case unsupported
            /// The value is larger than the caller allows.
            case tooLarge
            /// Anything else (permissions, missing file, no space).
            case io
        }

        public let code: Code
        public let message: String

        public init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        public var description: String { message }
    }

    static func failure(_ what: String, _ name: String, _ path: String, _ code: Int32 = errno) -> Failure {
        if code == ENOTSUP || code == EOPNOTSUPP {
            return Failure(.unsupported, "\(path): the file system does not support extended attributes (\(name))")
        }
        if code == EPERM, name.hasPrefix("user.") {
            // Linux refuses user.* attributes on symlinks and special files with EPERM.
            return Failure(.unsupported, "\(path): user extended attributes are not allowed on this kind of file (\(name))")
        }
        return Failure(.io, "\(path): \(what) \(name) failed: \(POSIX.errorString(code))")
    }

    /// The value of attribute `name`, or nil when the file does not have it.
    /// - Throws: ``Failure`` `.unsupported` when the file system has no extended attributes,
    ///   `.tooLarge` over `maximumSize`, `.io` otherwise. The corresponding C function is `getxattr`.
    public static func get(_ name: String, path: String, maximumSize: Int = 64 << 10) throws -> Data? {
        while true {
            let size = try getxattr(path, name, nil, 0)
            if size < 0 {
                if errno == ENODATA { return nil }
                if errno == EINTR { continue }
                throw failure("reading", name, path)
            }
            guard size <= maximumSize else {
                throw Failure(.tooLarge, "\(path): attribute \(name) holds \(size) bytes, more than \(maximumSize)")
            }
            if size == 0 { return Data() }
            var buffer = [UInt8](repeating: 0, count: size)
            let read = try buffer.withUnsafeMutableBytes { try getxattr(path, name, $0.baseAddress, size) }
            if read < 0 {
                if errno == ERANGE || errno == EINTR { continue }  // it grew in between: ask again
                if errno == ENODATA { return nil }
                throw failure("reading", name, path)
            }
            return Data(buffer[0..<read])
        }
    }

    /// Sets attribute `name` to `value`, creating or replacing it.
    /// - Throws: ``Failure``; the corresponding C function is `setxattr`.
    public static func set(_ name: String, _ value: Data, path: String) throws {
        let status = try value.withUnsafeBytes { try setxattr(path, name, $0.baseAddress, $0.count, 0) }
        if status != 0 { throw failure("writing", name, path) }
    }

    /// Removes attribute `name`; absent is not an error. The corresponding C function is `removexattr`.
    public static func remove(_ name: String, path: String) throws {
        if try removexattr(path, name) != 0, errno != ENODATA { throw failure("removing", name, path) }
    }

    /// The names of the file's attributes. The corresponding C function is `listxattr`.
    public static func names(path: String) throws -> [String] {
        while true {
            let size = try listxattr(path, nil, 0)
            if size < 0 { throw failure("listing", "attributes", path) }
            if size == 0 { return [] }
            var buffer = [CChar](repeating: 0, count: size)
            let read = try listxattr(path, &buffer, size)
            if read < 0 {
                if errno == ERANGE { continue }
                throw failure("listing", "attributes", path)
            }
            return buffer[0..<read].split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
    }
}

/// Where a document came from, as the `x-document-source` convention records it in the extended
/// attribute `user.x-document-source`: a binary property list with `identifier` (the source
/// application's identifier), `name` (its name), `path` (where the content came from) and, when
/// known, `appInfoURL`.
public struct DocumentSource: Sendable, Equatable, Codable {
    public var identifier: String
    public var name: String
    public var path: String
    public var appInfoURL: String?

    public init(identifier: String, name: String, path: String, appInfoURL: String? = nil) {
        self.identifier = identifier
        self.name = name
        self.path = path
        self.appInfoURL = appInfoURL
    }

    /// The attribute's name on Linux (the `user.` namespace).
    public static let attributeName = "user.x-document-source"
    /// Larger values are not read: the record is a few hundred bytes.
    public static let maximumSize = 16 << 10
    /// The prefix of the keys under which an item's ``ItemMetadata/extra`` keeps a record.
    public static let metadataPrefix = "x-document-source."

    /// The record as a binary property list.
    public func encoded() throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return try encoder.encode(self)
    }

    /// Reads a record (binary or XML property list); nil for anything else, including a record
    /// missing `identifier`, `name` or `path`, or with strings over 4 KiB.
    public init?(propertyList data: Data) {
        guard data.count <= Self.maximumSize, PropertyListShape.problem(data, maximumDepth: 4) == nil,
            let record = try? PropertyListDecoder().decode(DocumentSource.self, from: data),
            [record.identifier, record.name, record.path, record.appInfoURL ?? ""].allSatisfy({ $0.utf8.count <= 4096 })
        else { return nil }
        self = record
    }

    /// The record as ``ItemMetadata/extra`` entries (`x-document-source.identifier`, …).
    public var metadataEntries: [String: String] {
        var entries = [
            Self.metadataPrefix + "identifier": identifier, Self.metadataPrefix + "name": name,
            Self.metadataPrefix + "path": path,
        ]
        if let appInfoURL { entries[Self.metadataPrefix + "appInfoURL"] = appInfoURL }
        return entries
    }

    /// The record kept in an item's metadata, if there is one.
    public init?(metadata: ItemMetadata) {
        let extra = metadata.extra
        guard let identifier = extra[Self.metadataPrefix + "identifier"], let name = extra[Self.metadataPrefix + "name"],
            let path = extra[Self.metadataPrefix + "path"]
        else { return nil }
        self.init(identifier: identifier, name: name, path: path, appInfoURL: extra[Self.metadataPrefix + "appInfoURL"])
    }

    /// Reads the record a file carries; nil when it has none or it is not a record.
    /// - Throws: ``ExtendedAttributes/Failure`` (`.unsupported` where the file system has no
    ///   extended attributes).
    public static func read(path: String) throws -> DocumentSource? {
        guard let data = try ExtendedAttributes.get(attributeName, path: path, maximumSize: maximumSize) else { return nil }
        return DocumentSource(propertyList: data)
    }

    /// Records this source on a file.
    public func write(path: String) throws {
        try ExtendedAttributes.set(Self.attributeName, try encoded(), path: path)
    }
}

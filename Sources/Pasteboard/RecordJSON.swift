#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The records the store and the history keep on disk, to and from ``JSONValue``: the same keys and
// forms `Codable` gives them (a missing optional is left out; dates are ISO 8601 to the second), read
// without `JSONDecoder` (see ``JSONValue``). A record of the wrong shape is a ``RecordError``.

/// A metadata record that does not have the shape it should.
public struct RecordError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension JSONValue {
    /// Member `key`, which must be there.
    public func required(_ key: String) throws -> JSONValue {
        guard let value = self[key] else { throw RecordError("missing '\(key)'") }
        return value
    }

    public func requiredString(_ key: String) throws -> String {
        guard let value = try required(key).string else { throw RecordError("'\(key)' is not a string") }
        return value
    }

    public func requiredInt(_ key: String) throws -> Int {
        guard let value = try required(key).int else { throw RecordError("'\(key)' is not an integer") }
        return value
    }

    /// Member `key` as a string when present and not null.
    public func optionalString(_ key: String) throws -> String? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let text = value.string else { throw RecordError("'\(key)' is not a string") }
        return text
    }

    public func optionalInt(_ key: String) throws -> Int? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let number = value.int else { throw RecordError("'\(key)' is not an integer") }
        return number
    }

    public func optionalBool(_ key: String) throws -> Bool? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let flag = value.bool else { throw RecordError("'\(key)' is not a boolean") }
        return flag
    }

    public func requiredArray(_ key: String) throws -> [JSONValue] {
        guard let value = try required(key).array else { throw RecordError("'\(key)' is not an array") }
        return value
    }

    public func requiredDate(_ key: String) throws -> Date {
        guard let date = ISO8601Seconds.date(try requiredString(key)) else { throw RecordError("'\(key)' is not a date") }
        return date
    }

    /// An object from the members that are present (nil ones left out), keys sorted as `JSONEncoder`'s
    /// `.sortedKeys` wrote them.
    public static func record(_ members: [(String, JSONValue?)]) -> JSONValue {
        .object(members.compactMap { key, value in value.map { (key, $0) } }.sorted { $0.0 < $1.0 })
    }
}

extension ItemMetadata {
    public var json: JSONValue {
        let extraMembers: [(String, JSONValue)] = extra.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }
        var members: [(String, JSONValue?)] = [("sourceApplication", sourceApplication.map { JSONValue.string($0) })]
        members.append(("sourcePath", sourcePath.map { JSONValue.string($0) }))
        members.append(("created", JSONValue.string(ISO8601Seconds.string(created))))
        members.append(("flags", JSONValue.integer(Int64(flags.rawValue))))
        members.append(("extra", JSONValue.object(extraMembers)))
        return .record(members)
    }

    public init(json: JSONValue) throws {
        var extra: [String: String] = [:]
        if let members = try json.required("extra").members {
            for (key, value) in members {
                guard let text = value.string else { throw RecordError("'extra.\(key)' is not a string") }
                extra[key] = text
            }
        } else {
            throw RecordError("'extra' is not an object")
        }
        self.init(
            sourceApplication: try json.optionalString("sourceApplication"), sourcePath: try json.optionalString("sourcePath"),
            created: try json.requiredDate("created"), flags: ItemFlags(rawValue: try json.requiredInt("flags")), extra: extra)
    }
}

extension RepresentationRecord {
    public var json: JSONValue {
        var members: [(String, JSONValue?)] = [("type", JSONValue.string(type.rawValue))]
        members.append(("size", size.map { JSONValue.integer(Int64($0)) }))
        members.append(("derivedFrom", derivedFrom.map { JSONValue.string($0.rawValue) }))
        members.append(("file", file.map { JSONValue.string($0) }))
        members.append(("held", held.map { JSONValue.bool($0) }))
        members.append(("sameBytesAs", sameBytesAs.map { JSONValue.string($0.rawValue) }))
        return .record(members)
    }

    public init(json: JSONValue) throws {
        self.init(
            type: TypeIdentifier(try json.requiredString("type")), size: try json.optionalInt("size"),
            derivedFrom: try json.optionalString("derivedFrom").map { TypeIdentifier($0) }, file: try json.optionalString("file"),
            held: try json.optionalBool("held"), sameBytesAs: try json.optionalString("sameBytesAs").map { TypeIdentifier($0) })
    }
}

extension ItemRecord {
    public var json: JSONValue {
        .record([("metadata", metadata.json), ("representations", .array(representations.map(\.json)))])
    }

    public init(json: JSONValue) throws {
        self.init(
            metadata: try ItemMetadata(json: try json.required("metadata")),
            representations: try json.requiredArray("representations").map(RepresentationRecord.init(json:)))
    }
}

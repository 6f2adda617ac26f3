#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value as KDE Connect's packets carry them, read with bounds: the input's size, the depth of
/// nesting, the number of members and the length of strings are capped before anything is kept, so a
/// hostile peer's packet costs at most its own size. Numbers keep their integer value when they have
/// one (ids, timestamps, sizes are 64-bit integers on the wire). Pure: bytes in, values out, and back.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// A member of an object (the first of that name), nil otherwise.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var string: String? { if case .string(let s) = self { return s }; return nil }
    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// An integer, or a double with an exact integer value, or a string of decimal digits (KDE Connect
    /// 22.12 sends a packet's id as a string).
    public var integer: Int64? {
        switch self {
        case .integer(let n): return n
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return Int64(d)
        case .string(let s) where !s.isEmpty && s.count <= 19 && s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }): return Int64(s)
        default: return nil
        }
    }
    public var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var members: [(String, JSONValue)]? { if case .object(let m) = self { return m }; return nil }
    /// An array of strings, nil when it is not one.
    public var strings: [String]? {
        guard let array else { return nil }
        var out: [String] = []
        for value in array {
            guard let s = value.string else { return nil }
            out.append(s)
        }
        return out
    }
}

/// What reading JSON may take.
public struct JSONLimits: Sendable {
    public var maximumBytes: Int
    public var maximumDepth = 8
    /// Array elements and object members, each container.
    public var maximumMembers = 4096
    public var maximumStringBytes: Int

    public init(maximumBytes: Int, maximumStringBytes: Int? = nil) {
        self.maximumBytes = maximumBytes
        self.maximumStringBytes = maximumStringBytes ?? maximumBytes
    }
}

public struct JSONError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public var offset: Int
    public var description: String { "\(message) at byte \(offset)" }
}

extension JSONValue {
    /// Parses one JSON value filling `bytes` (whitespace around it allowed), within `limits`.
    public static func parse(_ bytes: some Collection<UInt8>, limits: JSONLimits) throws -> JSONValue {
        guard bytes.count <= limits.maximumBytes else {
            throw JSONError(message: "over \(limits.maximumBytes) bytes", offset: 0)
        }
        var parser = JSONParser(bytes: Array(bytes), limits: limits)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("bytes after the value") }
        return value
    }

    /// Compact JSON text (members in their order; strings escaped as JSON requires, non-ASCII kept as UTF-8).
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(into: &out)
        return out
    }

    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .integer(let n): out += Array(String(n).utf8)
        case .double(let d): out += Array((d.isFinite ? "\(d)" : "0").utf8)
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (i, value) in values.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// A recursive-descent reader whose recursion is bounded by ``JSONLimits/maximumDepth``.
struct JSONParser {
    let bytes: [UInt8]
    let limits: JSONLimits
    var index = 0

    init(bytes: [UInt8], limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    func error(_ message: String) -> JSONError { JSONError(message: message, offset: index) }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func value(depth: Int) throws -> JSONValue {
        guard depth <= limits.maximumDepth else { throw error("nested deeper than \(limits.maximumDepth)") }
        guard index < bytes.count else { throw error("the input ends before a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("not a JSON value")
        }
    }

    mutating func literal(_ word: String) throws {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("not a JSON value")
        }
        index += expected.count
    }

    mutating func object(depth: Int) throws -> JSONValue {
        index += 1
        var members: [(String, JSONValue)] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("an object key must be a string") }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("':' expected") }
            index += 1
            skipSpace()
            let value = try value(depth: depth + 1)
            guard members.count < limits.maximumMembers else { throw error("more than \(limits.maximumMembers) members") }
            members.append((key, value))
            skipSpace()
            guard index < bytes.count else { throw error("the input ends inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("',' or '}' expected") }
            index += 1
            return .object(members)
        }
    }

    mutating func array(depth: Int) throws -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipSpace()
            let value = try value(depth: depth + 1)
            guard values.count < limits.maximumMembers else { throw error("more than \(limits.maximumMembers) elements") }
            values.append(value)
            skipSpace()
            guard index < bytes.count else { throw error("the input ends inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("',' or ']' expected") }
            index += 1
            return .array(values)
        }
    }

    mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("a \\u escape is cut short") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - 0x41 + 10)
            default: throw error("a \\u escape needs four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func string() throws -> String {
        index += 1
        var out: [UInt8] = []
        func append(_ scalar: Unicode.Scalar) { out += Array(String(Character(scalar)).utf8) }
        while true {
            guard index < bytes.count else { throw error("the input ends inside a string") }
            guard out.count <= limits.maximumStringBytes else { throw error("a string over \(limits.maximumStringBytes) bytes") }
            let c = bytes[index]
            switch c {
            case UInt8(ascii: "\""):
                index += 1
                // Invalid UTF-8 is refused rather than repaired: a packet is text.
                guard let text = String(validating: out, as: UTF8.self) else { throw error("a string that is not UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("the input ends inside an escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    let first = try hex4()
                    if (0xD800..<0xDC00).contains(first) {
                        // A surrogate pair; a lone half becomes U+FFFD, as JSON readers commonly do.
                        if index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                            let saved = index
                            index += 2
                            let second = try hex4()
                            if (0xDC00..<0xE000).contains(second) {
                                append(Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!)
                            } else {
                                index = saved
                                append("\u{FFFD}")
                            }
                        } else {
                            append("\u{FFFD}")
                        }
                    } else if let scalar = Unicode.Scalar(first) {
                        append(scalar)
                    } else {
                        append("\u{FFFD}")
                    }
                default: throw error("an unknown escape")
                }
            case 0..<0x20:
                throw error("a control character inside a string")
            default:
                out.append(c)
                index += 1
            }
        }
    }

    mutating func number() throws -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        var integral = true
        func digits() -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - from
        }
        guard digits() > 0 else { throw error("a number without digits") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            integral = false
            guard digits() > 0 else { throw error("a number without digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            integral = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("an exponent without digits") }
        }
        guard index - start <= 64 else { throw error("a number over 64 characters") }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let n = Int64(text) { return .integer(n) }
        guard let d = Double(text), d.isFinite else { throw error("a number out of range") }
        return .double(d)
    }
}

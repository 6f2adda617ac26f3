#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON document as a value: what the store's and the history's metadata files, and KDE Connect's
/// packets and device records, are read into and written from.
///
/// The store's records are read on every paste and written on every copy. Foundation's `JSONDecoder`
/// goes through `Codable`, whose generic containers make a static executable look up type metadata
/// and protocol conformances at run time: about a third of a small paste's time. This reader and
/// writer are plain code over bytes. Objects keep their keys in order, as a list (they are small; a
/// linear lookup is cheaper than hashing). Reading is strict RFC 8259 (nothing after the value, no
/// trailing commas, no leading zeros, escapes checked, strings valid UTF-8) and bounded by
/// ``JSONLimits``: the input's size, the nesting depth, the members of a container and the bytes of a
/// string are capped before anything is kept, so hostile bytes cost at most their own size and cannot
/// exhaust the stack. Fuzz targets (`json`, `kdeconnect-packet`) feed it arbitrary bytes.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// An integer written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    // MARK: Access

    /// The member `key` of an object (the first, if repeated); nil for anything else.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for (name, value) in members where name == key { return value }
        return nil
    }

    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    public var int: Int? {
        if case .integer(let n) = self, let value = Int(exactly: n) { return value }
        return nil
    }
    public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var members: [(String, JSONValue)]? { if case .object(let m) = self { return m } else { return nil } }
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    // MARK: Reading

    /// Parses one JSON value filling all of `data` (whitespace around it allowed).
    public static func parse(_ data: Data, limits: JSONLimits = JSONLimits()) throws -> JSONValue {
        try data.withUnsafeBytes { raw in
            try parse(UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count), limits: limits)
        }
    }

    public static func parse(_ bytes: [UInt8], limits: JSONLimits = JSONLimits()) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { try parse($0, limits: limits) }
    }

    public static func parse(_ bytes: ArraySlice<UInt8>, limits: JSONLimits = JSONLimits()) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { try parse($0, limits: limits) }
    }

    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits = JSONLimits()) throws -> JSONValue {
        guard bytes.count <= limits.maximumBytes else { throw JSONError(message: "over \(limits.maximumBytes) bytes", offset: 0) }
        var reader = Reader(bytes: bytes, limits: limits)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.at == bytes.count else { throw reader.fail("bytes after the value") }
        return value
    }

    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let limits: JSONLimits
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
            self.bytes = bytes
            self.limits = limits
        }

        func fail(_ message: String) -> JSONError { JSONError(message: message, offset: at) }

        mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }

        mutating func expect(_ literal: StaticString) throws {
            let count = literal.utf8CodeUnitCount
            guard at + count <= bytes.count else { throw fail("truncated literal") }
            let start = literal.utf8Start
            for i in 0..<count where bytes[at + i] != start[i] { throw fail("unknown literal") }
            at += count
        }

        mutating func value(depth: Int) throws -> JSONValue {
            guard at < bytes.count else { throw fail("a value was expected") }
            switch bytes[at] {
            case UInt8(ascii: "{"):
                guard depth < limits.maximumDepth else { throw fail("nested too deeply") }
                at += 1
                var members: [(String, JSONValue)] = []
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                    at += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("a member name was expected") }
                    let key = try string()
                    skipSpace()
                    guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("':' was expected") }
                    at += 1
                    skipSpace()
                    guard members.count < limits.maximumMembers else { throw fail("more than \(limits.maximumMembers) members") }
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard at < bytes.count else { throw fail("unterminated object") }
                    if bytes[at] == UInt8(ascii: ",") {
                        at += 1
                        continue
                    }
                    guard bytes[at] == UInt8(ascii: "}") else { throw fail("',' or '}' was expected") }
                    at += 1
                    return .object(members)
                }
            case UInt8(ascii: "["):
                guard depth < limits.maximumDepth else { throw fail("nested too deeply") }
                at += 1
                var elements: [JSONValue] = []
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                    at += 1
                    return .array(elements)
                }
                while true {
                    skipSpace()
                    guard elements.count < limits.maximumMembers else { throw fail("more than \(limits.maximumMembers) elements") }
                    elements.append(try value(depth: depth + 1))
                    skipSpace()
                    guard at < bytes.count else { throw fail("unterminated array") }
                    if bytes[at] == UInt8(ascii: ",") {
                        at += 1
                        continue
                    }
                    guard bytes[at] == UInt8(ascii: "]") else { throw fail("',' or ']' was expected") }
                    at += 1
                    return .array(elements)
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                try expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expect("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expect("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return try number()
            default:
                throw fail("a value was expected")
            }
        }

        mutating func number() throws -> JSONValue {
            let start = at
            if bytes[at] == UInt8(ascii: "-") { at += 1 }
            func digits() -> Int {
                let from = at
                while at < bytes.count, bytes[at] >= 0x30, bytes[at] <= 0x39 { at += 1 }
                return at - from
            }
            let integerStart = at
            let integerDigits = digits()
            guard integerDigits > 0 else { throw fail("a digit was expected") }
            guard integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw fail("a leading zero") }
            var isInteger = true
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
                at += 1
                isInteger = false
                guard digits() > 0 else { throw fail("a digit was expected after '.'") }
            }
            if at < bytes.count, bytes[at] | 0x20 == UInt8(ascii: "e") {
                at += 1
                isInteger = false
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard digits() > 0 else { throw fail("a digit was expected in the exponent") }
            }
            if isInteger, integerDigits <= 18 {
                var value: Int64 = 0
                for i in integerStart..<at { value = value * 10 + Int64(bytes[i] - 0x30) }
                return .integer(bytes[start] == UInt8(ascii: "-") ? -value : value)
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
            if isInteger, let value = Int64(text) { return .integer(value) }
            guard let value = Double(text), value.isFinite else { throw JSONError(message: "a number out of range", offset: start) }
            return .double(value)
        }

        /// A string at `at` (its opening quote): escapes decoded, the UTF-8 checked.
        mutating func string() throws -> String {
            at += 1
            let start = at
            // The common case: no escape, ASCII or valid UTF-8 straight from the input.
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: bytes[start..<at])
                    at += 1
                    guard slice.count <= limits.maximumStringBytes else { throw JSONError(message: "a string over \(limits.maximumStringBytes) bytes", offset: start) }
                    guard let text = String(validating: slice, as: UTF8.self) else { throw JSONError(message: "invalid UTF-8 in a string", offset: start) }
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw fail("a control character in a string") }
                at += 1
            }
            var buffer = Array(UnsafeBufferPointer(rebasing: bytes[start..<at]))
            while at < bytes.count {
                let byte = bytes[at]
                switch byte {
                case UInt8(ascii: "\""):
                    at += 1
                    guard let text = String(validating: buffer, as: UTF8.self) else { throw JSONError(message: "invalid UTF-8 in a string", offset: start) }
                    return text
                case UInt8(ascii: "\\"):
                    at += 1
                    guard at < bytes.count else { throw fail("unterminated escape") }
                    let escape = bytes[at]
                    at += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
                    case UInt8(ascii: "b"): buffer.append(0x08)
                    case UInt8(ascii: "f"): buffer.append(0x0C)
                    case UInt8(ascii: "n"): buffer.append(0x0A)
                    case UInt8(ascii: "r"): buffer.append(0x0D)
                    case UInt8(ascii: "t"): buffer.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            // A high surrogate must be followed by an escaped low one.
                            guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                                throw fail("a lone surrogate")
                            }
                            at += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00..<0xE000).contains(scalar) {
                            throw fail("a lone surrogate")
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw fail("an invalid code point") }
                        buffer.append(contentsOf: String(Character(unicode)).utf8)
                    default:
                        throw fail("an unknown escape")
                    }
                default:
                    guard byte >= 0x20 else { throw fail("a control character in a string") }
                    buffer.append(byte)
                    at += 1
                }
                guard buffer.count <= limits.maximumStringBytes else { throw JSONError(message: "a string over \(limits.maximumStringBytes) bytes", offset: start) }
            }
            throw fail("unterminated string")
        }

        mutating func hex4() throws -> UInt32 {
            guard at + 4 <= bytes.count else { throw fail("a short \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[at]
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = UInt32(byte - 0x30)
                case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
                default: throw fail("a bad hex digit")
                }
                value = value << 4 | digit
                at += 1
            }
            return value
        }
    }

    // MARK: Writing

    /// Compact UTF-8 JSON: members in the order given, no space, `/` not escaped, control characters
    /// as escapes, everything else as it is.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return out
    }

    /// ``encoded()`` as `Data`, for a file.
    public var encodedData: Data { Data(encoded()) }

    public func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let n): out.append(contentsOf: String(n).utf8)
        case .double(let d):
            if d.isFinite { out.append(contentsOf: "\(d)".utf8) } else { out.append(contentsOf: "null".utf8) }
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
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
        out.append(UInt8(ascii: "\""))
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// What reading JSON may take: every cap is checked before what it bounds is kept.
public struct JSONLimits: Sendable {
    public var maximumBytes: Int
    public var maximumDepth: Int
    /// Array elements and object members, each container.
    public var maximumMembers: Int
    public var maximumStringBytes: Int

    /// The defaults fit pbctl's own metadata files: any size the caller read, 64 levels.
    public init(maximumBytes: Int = .max, maximumDepth: Int = 64, maximumMembers: Int = .max, maximumStringBytes: Int? = nil) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumMembers = maximumMembers
        self.maximumStringBytes = maximumStringBytes ?? maximumBytes
    }
}

/// JSON that does not read: what is wrong and where.
public struct JSONError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public var offset: Int
    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }
    public var description: String { "\(message) at byte \(offset)" }
}

// MARK: Dates

/// Dates as the metadata files write them: ISO 8601 in UTC to the second (`2026-11-26T09:56:10Z`), the
/// form `JSONEncoder`'s `.iso8601` strategy wrote before, computed without a calendar or time zone (a
/// calendar reads `/etc/localtime` and the time-zone database: milliseconds on a paste).
public enum ISO8601Seconds {
    public static func string(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let yearText = year >= 0 && year < 10000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    /// `YYYY-MM-DDTHH:MM:SS`, optional fraction, then `Z` or `±HH:MM`; nil for anything else.
    public static func date(_ text: String) -> Date? {
        let b = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            var value: Int64 = 0
            for i in from..<(from + count) {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int64(b[i] - 0x30)
            }
            return value
        }
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] | 0x20 == UInt8(ascii: "t"),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var at = 19
        var fraction = 0.0
        if at < b.count, b[at] == UInt8(ascii: ".") {
            at += 1
            var scale = 0.1
            let start = at
            while at < b.count, b[at] >= 0x30, b[at] <= 0x39 {
                fraction += Double(b[at] - 0x30) * scale
                scale /= 10
                at += 1
            }
            guard at > start else { return nil }
        }
        var offset: Int64 = 0
        guard at < b.count else { return nil }
        if b[at] | 0x20 == UInt8(ascii: "z"), at + 1 == b.count {
            offset = 0
        } else if b[at] == UInt8(ascii: "+") || b[at] == UInt8(ascii: "-"), at + 6 == b.count, b[at + 3] == UInt8(ascii: ":"),
            let hours = number(at + 1, 2), let minutes = number(at + 4, 2), hours < 24, minutes < 60
        {
            offset = (hours * 3600 + minutes * 60) * (b[at] == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        let days = days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Howard Hinnant's days-from-civil: days since 1970-01-01 of a proleptic Gregorian date.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

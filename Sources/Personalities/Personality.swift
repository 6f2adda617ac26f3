/// The programs pbctl answers as when it is started under their name (a symbolic link): xclip 0.13,
/// xsel 1.2.0 and wl-clipboard 2.1.0's wl-copy and wl-paste, as Debian 12 ships them. This module
/// reads their command lines exactly as they do (xclip through Xlib's `XrmParseCommand`, with its
/// prefix abbreviations; xsel with its combined short flags; wl-clipboard through GNU `getopt_long`)
/// and words their help, version and usage errors byte for byte. It is pure: the arguments and what
/// the standard streams are come in, a typed invocation or the tool's reply goes out; the CLI
/// (`Sources/pbctl/Personalities`) does the copying and pasting through pbctl's own policy.
public enum Personality: String, CaseIterable, Sendable {
    case xclip
    case xsel
    case wlCopy = "wl-copy"
    case wlPaste = "wl-paste"

    /// The personality a program name (the last component of argv[0]) asks for; nil for any other name.
    public init?(invokedAs name: String) {
        self.init(rawValue: name)
    }

    /// The name the links are made under.
    public var name: String { rawValue }
}

/// What a tool answers without doing anything else (help, version, a usage error): its exit status
/// and the exact bytes of its two streams.
public struct ToolReply: Equatable, Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String

    public init(status: Int32, standardOutput: String = "", standardError: String = "") {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
}

/// A command line read: what to do, or the reply to give at once.
public enum ParseOutcome<Invocation: Equatable & Sendable>: Equatable, Sendable {
    case run(Invocation)
    case reply(ToolReply)
}

/// C's `atoi` and `strtol(text, NULL, 10)`: leading white space, an optional sign, the digits that follow;
/// 0 when there are none, the sum clamped where a `long` would overflow (`strtol`'s LONG_MAX/LONG_MIN).
func cInteger(_ text: String) -> Int {
    var bytes = Substring(text).utf8.drop { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }
    var negative = false
    if let first = bytes.first, first == 0x2B || first == 0x2D {
        negative = first == 0x2D
        bytes = bytes.dropFirst()
    }
    var value = 0
    for byte in bytes {
        guard byte >= 0x30, byte <= 0x39 else { break }
        let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times.addingReportingOverflow(Int(byte - 0x30))
        if overflow1 || overflow2 { return negative ? Int.min : Int.max }
        value = sum
    }
    return negative ? -value : value
}

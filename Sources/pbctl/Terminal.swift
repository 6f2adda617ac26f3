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

/// The process's standard streams. pbctl is the only code that reads argv or the environment, or
/// prints; everything goes through here.
struct Terminal: Sendable {
    var environment: [String: String]

    func out(_ data: Data) throws { try Self.writeStandardOutput(data) }

    /// Writes to standard output. When its reader has gone (`pbctl paste | head -2`), pbctl stops at once,
    /// silently, with the status a shell shows for SIGPIPE, as `cat` does.
    static func writeStandardOutput(_ data: Data) throws {
        try POSIX.writeAll(STDOUT_FILENO, data, path: "standard output", brokenPipe: { exit(ExitCode.brokenPipe) })
    }
    func out(_ text: String) throws { try out(Data(text.utf8)) }
    /// Bytes to standard output (a piece of output made as it is written), as `out(_:)` writes `Data`.
    func out(_ bytes: UnsafeRawBufferPointer) throws {
        try POSIX.writeAll(STDOUT_FILENO, bytes, path: "standard output", brokenPipe: { exit(ExitCode.brokenPipe) })
    }

    /// One line on standard error.
    func err(_ text: String) {
        let line = Data((text.hasSuffix("\n") ? text : text + "\n").utf8)
        try? POSIX.writeAll(STDERR_FILENO, line, path: "standard error")
    }

    /// - Parameter finalLineEnding: see `POSIX.readAll(_:path:sizeHint:limit:finalLineEnding:)`.
    func readStandardInput(finalLineEnding: Bool = false) throws -> Data {
        try POSIX.readAll(STDIN_FILENO, path: "standard input", finalLineEnding: finalLineEnding)
    }

    /// Standard input, refused (exit 65) as soon as it grows past `limit` bytes, so an endless input
    /// (`pbctl copy < /dev/zero`) ends at once instead of filling memory.
    func readStandardInput(limit: Int) throws -> Data {
        let data = try POSIX.readAll(STDIN_FILENO, path: "standard input", limit: limit == Int.max ? limit : limit + 1)
        guard data.count <= limit else { throw tooLarge("standard input", limit) }
        return data
    }
}

func tooLarge(_ source: String, _ limit: Int) -> PasteboardError {
    PasteboardError(.invalidData, "\(source): larger than the \(formatSize(limit)) allowed (--max-size or PBCTL_MAX_SIZE); nothing was copied")
}

extension Terminal {

    var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let pair = String(cString: entry)
            if let eq = pair.firstIndex(of: "=") {
                result[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            }
            pointer += 1
        }
        return result
    }
}

/// JSON output for scripts: sorted keys, one document per call.
func jsonString<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
}

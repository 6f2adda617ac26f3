// The quick way through `pbctl convert --from MARKDOWN --to html [FILE]`: tried before anything else is set
// up (no Swift array of the arguments, no environment dictionary, no command table, no type registry), so a
// small document costs little more than the process itself. It falls back to the full command (nil) for
// anything else, and answers exactly as the full command would: the same bytes, the same errors and codes.
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
import Representations
import SystemIO

/// Runs `pbctl convert` when it converts Markdown (any dialect name `--from` takes) to an HTML fragment,
/// with `--from`/`-f` and `--to`/`-t` (also as `--from=NAME`) and at most one FILE (or `-`) and nothing
/// else; nil otherwise, and the full command runs instead. `PBCTL_BACKEND`, which the full command checks
/// even for a conversion, sends it to the full command too.
func fastConvert(argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32? {
    guard argc >= 6, argc <= 7, let zero = argv[0], let first = argv[1], strcmp(first, "convert") == 0 else { return nil }
    let name = strrchr(zero, 0x2F).map { $0 + 1 } ?? zero
    guard strcmp(name, "pbpaste") != 0, strcmp(name, "pbcopy") != 0, answersAsPbctlItself(name),
        getenv("PBCTL_BACKEND") == nil
    else { return nil }
    var from: UnsafePointer<CChar>?
    var to: UnsafePointer<CChar>?
    var file: UnsafeMutablePointer<CChar>?
    var index = 2
    while index < Int(argc) {
        guard let argument = argv[index] else { return nil }
        index += 1
        func value(_ long: String, _ short: String, into slot: inout UnsafePointer<CChar>?) -> Bool? {
            if strcmp(argument, long) == 0 || strcmp(argument, short) == 0 {
                guard slot == nil, index < Int(argc), let next = argv[index], next[0] != 0x2D else { return nil }
                slot = UnsafePointer(next)
                index += 1
                return true
            }
            let length = strlen(long)
            if strncmp(argument, long, length) == 0, argument[length] == 0x3D {
                guard slot == nil else { return nil }
                slot = UnsafePointer(argument + length + 1)
                return true
            }
            return false
        }
        guard let isFrom = value("--from", "-f", into: &from) else { return nil }
        if isFrom { continue }
        guard let isTo = value("--to", "-t", into: &to) else { return nil }
        if isTo { continue }
        // A positional: the FILE, or `-` for standard input. Any other option is the full command's.
        guard file == nil, argument[0] != 0x2D || (argument[1] == 0 && argument[0] == 0x2D) else { return nil }
        file = argument
    }
    guard let from, let to, let format = markdownDialect(from), isHTMLName(to) else { return nil }
    do {
        let input: Data
        if let file, !(file[0] == 0x2D && file[1] == 0) {
            // The path as its bytes, as the full command takes it (PathBytes).
            let path = PathBytes.string(UnsafeBufferPointer(start: UnsafeRawPointer(file).assumingMemoryBound(to: UInt8.self), count: strlen(file)))
            input = try POSIX.readFile(path, finalLineEnding: true)
        } else {
            input = try POSIX.readAll(STDIN_FILENO, path: "standard input", finalLineEnding: true)
        }
        try Conversion.convert(input, from: format, to: .html) { chunk in
            try POSIX.writeAll(STDOUT_FILENO, chunk, path: "standard output", brokenPipe: { exit(ExitCode.brokenPipe) })
        }
        return ExitCode.ok
    } catch let error as PasteboardError {
        reportConvertFailure(error.message)
        return ExitCode.forError(error)
    } catch {
        reportConvertFailure("\(error)")
        return ExitCode.ioError
    }
}

private func reportConvertFailure(_ message: String) {
    let line = Data("pbctl convert: \(message)\n".utf8)
    try? POSIX.writeAll(STDERR_FILENO, line, path: "standard error")
}

/// The Markdown format a `--from` name means (TextFormat.names, any case), without building that table.
private func markdownDialect(_ name: UnsafePointer<CChar>) -> TextFormat? {
    for (text, format) in [("commonmark", TextFormat.commonmark), ("cm", .commonmark), ("cmark", .commonmark),
        ("gfm", .gfm), ("markdown", .gfm), ("md", .gfm), ("github", .gfm)] where strcasecmp(name, text) == 0
    {
        return format
    }
    return nil
}

private func isHTMLName(_ name: UnsafePointer<CChar>) -> Bool {
    strcasecmp(name, "html") == 0 || strcasecmp(name, "htm") == 0 || strcasecmp(name, "xhtml") == 0
}

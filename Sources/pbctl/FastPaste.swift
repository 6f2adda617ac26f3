// The quick way through `pbctl paste` with a display (BackendChoice.fastPaste): tried before anything
// else is set up, falling back to the full command when it cannot answer exactly as the full command
// would.
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
import Backends
import Pasteboard
import Representations
import SystemIO

/// Runs `pbctl paste` (optionally `--primary`) when it can answer exactly as the full command would;
/// nil when it cannot decide that cheaply, and the full command runs instead. It reads the C
/// arguments themselves: before any Swift array of strings exists (making one costs a static
/// executable a run-time type lookup, a tenth of a small paste).
func fastPaste(argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32? {
    guard argc >= 2 && argc <= 4, let zero = argv[0], let first = argv[1], strcmp(first, "paste") == 0 else { return nil }
    let name = strrchr(zero, 0x2F).map { $0 + 1 } ?? zero
    guard strcmp(name, "pbpaste") != 0, strcmp(name, "pbcopy") != 0, answersAsPbctlItself(name) else { return nil }
    func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
    // `paste --as html` (or rtf, `--as=html`): the format, named as `--as` names it.
    if argc == 4 || (argc == 3 && argv[2].map({ strncmp($0, "--as=", 5) == 0 }) == true) {
        let value: UnsafeMutablePointer<CChar>?
        if argc == 4 {
            guard let option = argv[2], strcmp(option, "--as") == 0 else { return nil }
            value = argv[3]
        } else {
            value = argv[2].map { $0 + 5 }
        }
        guard let value, let format = TextFormat(name: String(cString: value)) else { return nil }
        return finish(BackendChoice.fastPaste(as: format, variable: variable, output: standardOutput()))
    }
    let primary: Bool
    if argc == 3 {
        guard let second = argv[2], strcmp(second, "--primary") == 0 else { return nil }
        primary = true
    } else {
        primary = false
    }
    // Looked for only where it matters (a display's targets): the store's fast paste does not need it.
    let declared = { DeclaredTypes.anyDeclarationFile(variable: variable) }
    return finish(BackendChoice.fastPaste(
        primary: primary, variable: variable, hasDeclaredTypes: declared, output: standardOutput()))
}

/// Standard output, where a quick paste writes (a closed reader ends pbctl as the full paste does).
private func standardOutput() -> DescriptorSink {
    DescriptorSink(fd: STDOUT_FILENO, path: "standard output", brokenPipe: { exit(ExitCode.brokenPipe) })
}

/// The exit status of a fast paste (its error worded as the full command words it), or nil when the full
/// command is to run.
private func finish(_ result: QuickPasteResult) -> Int32? {
    switch result {
    case .pasted:
        return ExitCode.ok
    case .notHandled:
        return nil
    case .failed(let error):
        let line = Data("pbctl paste: \(error.message)\n".utf8)
        try? POSIX.writeAll(STDERR_FILENO, line, path: "standard error")
        return ExitCode.forError(error)
    }
}

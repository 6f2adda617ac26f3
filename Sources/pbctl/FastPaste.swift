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
import SystemIO

/// Runs `pbctl paste` (optionally `--primary`) when it can answer exactly as the full command would;
/// nil when it cannot decide that cheaply, and the full command runs instead. It reads the C
/// arguments themselves: before any Swift array of strings exists (making one costs a static
/// executable a run-time type lookup, a tenth of a small paste).
func fastPaste(argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32? {
    guard argc == 2 || argc == 3, let zero = argv[0], let first = argv[1], strcmp(first, "paste") == 0 else { return nil }
    let name = strrchr(zero, 0x2F).map { $0 + 1 } ?? zero
    guard strcmp(name, "pbpaste") != 0, strcmp(name, "pbcopy") != 0, answersAsPbctlItself(name) else { return nil }
    let primary: Bool
    if argc == 3 {
        guard let second = argv[2], strcmp(second, "--primary") == 0 else { return nil }
        primary = true
    } else {
        primary = false
    }
    func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
    // Looked for only where it matters (a display's targets): the store's fast paste does not need it.
    let declared = { DeclaredTypes.anyDeclarationFile(variable: variable) }
    switch BackendChoice.fastPaste(primary: primary, variable: variable, hasDeclaredTypes: declared) {
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

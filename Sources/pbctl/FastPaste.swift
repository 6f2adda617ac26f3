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
/// nil when it cannot decide that cheaply, and the full command runs instead.
func fastPaste(_ arguments: [String], invokedAs: String) -> Int32? {
    guard invokedAs != "pbpaste", invokedAs != "pbcopy", arguments.first == "paste" else { return nil }
    let primary: Bool
    switch arguments.dropFirst() {
    case []: primary = false
    case ["--primary"]: primary = true
    default: return nil
    }
    func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
    let declared = DeclaredTypes.folders(variable: variable).contains { !DeclaredTypes.plistFiles(in: $0).isEmpty }
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

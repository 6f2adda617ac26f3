#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a quick paste did: a backend's read of plain UTF-8 text straight into the output, done before
/// pbctl builds its type registry or environment table, when it can answer exactly as the full paste.
public enum QuickPasteResult: Sendable {
    /// The text went to the output. The caller exits next: a display connection may be left open for
    /// the exit to close.
    case pasted
    /// It failed after it had started (a byte was written, or the failure is final): report this.
    case failed(PasteboardError)
    /// It could not decide cheaply: the full paste runs (and words any error).
    case notHandled

    /// The result of `body`, which returns whether it pasted (false: not handled); an error thrown is
    /// the paste's failure, worded as a `PasteboardError`. The one mapping every quick path uses.
    public static func of(_ body: () throws -> Bool) -> QuickPasteResult {
        do {
            return try body() ? .pasted : .notHandled
        } catch let error as PasteboardError {
            return .failed(error)
        } catch {
            return .failed(PasteboardError(.io, "\(error)"))
        }
    }
}

/// Errors raised by the model and its backends, in the "open enum" style: a struct with a code and a
/// message that names what went wrong (a path, a type).
public struct PasteboardError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The pasteboard is empty.
        case empty
        /// The requested type is not offered.
        case typeNotOffered
        /// Input bytes are not what they claim to be.
        case invalidData
        /// The backend cannot be reached (no display, dead server, no store).
        case unavailable
        /// Reading or writing storage failed.
        case io
        /// Stored data is damaged or was edited by hand.
        case corrupt
        /// The operation is refused for safety (symlinks, permissions, sensitive content).
        case refused
        /// A peer did not answer in time.
        case timedOut
        /// A file named on the command line does not exist (`copy --files`).
        case noInput
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public static func empty(_ message: String = "nothing to paste") -> PasteboardError { .init(.empty, message) }
}

import Pasteboard

/// A type as users give it: a format name (``TextFormat``: markdown, html, text…), a type identifier,
/// a MIME type or a filename extension. The one reading of a type name for `copy --type`, `paste --as`,
/// `history --type`, the history's rules and its exchange.
public enum TypeResolution {
    /// Why a name given as a type is refused (a usage error).
    public struct Problem: Error, Equatable {
        public var message: String
    }

    /// The type `text` names. Control characters are refused (they would break listings), and so is a
    /// name that resolves to what no transport or history may keep.
    /// - Throws: ``Problem`` saying why.
    public static func resolve(_ text: String, _ registry: TypeRegistry) throws(Problem) -> TypeIdentifier {
        do { try ForeignContent.checkGivenType(text) } catch {
            throw Problem(
                message: "a type may not be empty, longer than \(ForeignContent.maximumTypeLength) bytes or contain control "
                    + "characters such as a line break (\((error as? PasteboardError)?.message ?? "\(error)"))")
        }
        if let format = TextFormat(name: text) { return format.type }
        guard let type = registry.resolve(text) else {
            throw Problem(
                message: "unknown type '\(text)' (give a type identifier such as public.html, a MIME type such as "
                    + "text/html, or an extension such as html)")
        }
        // What it names is held to the rule every transport's names and the history are held to.
        if let problem = TypeIdentifier.nameProblem(type.rawValue) {
            throw Problem(message: "'\(ForeignContent.shown(text))' is not a type name pbctl can keep: \(problem)")
        }
        return type
    }
}

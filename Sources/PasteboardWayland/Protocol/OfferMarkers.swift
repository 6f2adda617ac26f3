// The MIME types that say something about content instead of holding it: KDE's password hint and the
// nspasteboard.org markers. Pure: the backend, the owner and the daemon's decisions all read them here.
import Pasteboard

public enum OfferMarkers {
    /// Offered alongside content a password manager marks secret (KDE's convention).
    public static let passwordHint = "x-kde-passwordManagerHint"
    /// What an owner sends for the password hint: password and clipboard managers only look for the type.
    public static let passwordHintValue = "secret"
    /// The marker types, never listed or fetched as content.
    public static let all: Set<String> = [
        passwordHint, "x-kde-passwordmanagerhint", "org.nspasteboard.ConcealedType", "org.nspasteboard.TransientType",
    ]

    /// What an offer's marker types say: sensitive (KDE's password hint, nspasteboard.org Concealed),
    /// transient (nspasteboard.org Transient).
    public static func flags(forMIMEs mimes: [String]) -> ItemFlags {
        var flags: ItemFlags = []
        if mimes.contains(where: { $0.lowercased() == passwordHint.lowercased() || $0 == "org.nspasteboard.ConcealedType" }) {
            flags.insert(.sensitive)
        }
        if mimes.contains("org.nspasteboard.TransientType") { flags.insert(.transient) }
        return flags
    }
}

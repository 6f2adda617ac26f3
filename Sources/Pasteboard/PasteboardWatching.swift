#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One change of a watched pasteboard.
public struct PasteboardChange: Sendable, Equatable, Codable {
    /// Rises with every change the watcher saw.
    public var changeCount: Int
    /// Who holds the content now, in the backend's terms (`0x…` for an X window); nil when cleared.
    public var owner: String?
    /// The types on offer, empty when cleared.
    public var types: [TypeIdentifier]
    /// The owner marks the content secret (`x-kde-passwordManagerHint`, nspasteboard.org Concealed).
    public var sensitive: Bool

    public init(changeCount: Int, owner: String?, types: [TypeIdentifier], sensitive: Bool) {
        self.changeCount = changeCount
        self.owner = owner
        self.types = types
        self.sensitive = sensitive
    }
}

/// A backend that reports changes as they happen (X11 through XFixes; Wayland's selection events):
/// what `pbctl watch` needs, a capability rather than a cast to one backend.
public protocol PasteboardWatching: PasteboardBackend {
    /// Calls `body` for each change of `pasteboard` until it returns false or the connection ends.
    func watch(_ pasteboard: PasteboardName, _ body: (PasteboardChange) throws -> Bool) throws
}

extension PasteboardWatching {
    public var watching: (any PasteboardWatching)? { self }
}

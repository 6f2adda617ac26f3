#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// A content the daemon kept, as an item, with the application that owned it when the owner's window
/// says (`WM_CLASS`, else `_NET_WM_PID`'s executable).
public struct RecordedContent: Sendable {
    public var selection: X11Selection
    public var item: Item
    public var application: String?
    /// The types the owner offered that were left out for their size, with their size when known: the
    /// history lists them as skipped (the item may then hold nothing).
    public var skipped: [TypeSummary] = []
    /// Where it came from when it was handed in (``Options/inbox``).
    public var origin: ItemOrigin? = nil
}

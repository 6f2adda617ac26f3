#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A backend whose representations are files (the store): where one lives, so another store (the
/// history) can take it without copying the bytes through memory.
public protocol StoredFiles: PasteboardBackend {
    func storedFilePath(_ type: TypeIdentifier, item index: Int, in pasteboard: PasteboardName) throws -> String?
    /// The file this backend's own last write stored `data`'s bytes in (the same bytes in memory, not
    /// equal ones), whatever other processes have written since: its name is never given to other
    /// bytes, though another write may have removed it by now.
    func writtenFilePath(holding data: Data) -> String?
}

extension StoredFiles {
    public var storedFiles: (any StoredFiles)? { self }
}

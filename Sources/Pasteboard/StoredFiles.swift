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
    /// The SHA-256 (64 lowercase hexadecimal digits) of that file when this backend hashed it as it
    /// stored it (``hashSpooledInput(upTo:)``), else nil.
    func writtenFileSHA256(holding data: Data) -> String?
    /// From now on, input this backend spools, up to `limit` bytes, is hashed (SHA-256) as it is stored,
    /// beside the copy: for a history that will name the files it adopts by their hash. Only when the
    /// history records the copy; `limit` is the largest representation it keeps.
    func hashSpooledInput(upTo limit: Int)
}

extension StoredFiles {
    public var storedFiles: (any StoredFiles)? { self }
    public func writtenFileSHA256(holding data: Data) -> String? { nil }
    public func hashSpooledInput(upTo limit: Int) {}
}

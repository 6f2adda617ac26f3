#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Input a backend stored as it arrived instead of holding it: its bytes mapped from the stored
/// file, the first bytes, and what streaming validation found.
public struct SpooledInput {
    /// The whole input, mapped (pages are read from the file as they are touched).
    public var data: Data
    /// The first bytes (up to 4 KiB), for sniffing the type.
    public var head: Data
    /// Whether UTF-8 validation ran while spooling (`inspect`), and where the first invalid byte is.
    public var inspected: Bool
    public var firstInvalidUTF8Offset: Int?

    public init(data: Data, head: Data, inspected: Bool, firstInvalidUTF8Offset: Int?) {
        self.data = data
        self.head = head
        self.inspected = inspected
        self.firstInvalidUTF8Offset = firstInvalidUTF8Offset
    }
}

/// A backend that stores input as it streams in (the file store): a copy then holds no more than a
/// buffer in memory, and ``PasteboardBackend/write(_:to:options:)`` of an item whose bytes are the
/// spooled data keeps the stored file instead of writing it again.
public protocol InputSpooling: PasteboardBackend {
    /// Streams everything `fd` holds (a pipe or a file; `name` is how errors call it) into storage
    /// beside `pasteboard`.
    /// - Parameters:
    ///   - limit: more bytes than this fail with `.invalidData` (exit 65) and leave nothing behind.
    ///   - inspect: validate UTF-8 on the way (else the bytes may move in the kernel, never seen).
    func spool(_ fd: Int32, name: String, for pasteboard: PasteboardName, limit: Int, inspect: Bool) throws -> SpooledInput

    /// Lets later spooling of a large regular file take a file that already holds its bytes instead
    /// of copying it: `find(input, size, device)` answers an open descriptor of a file holding exactly
    /// the `size` bytes of `input` from offset 0, on the file system `device` and never changed in
    /// place, or nil (the history's files, for `copy`). A backend that cannot link such a file ignores it.
    func spoolSameContent(from find: @escaping (_ input: Int32, _ size: Int, _ device: UInt64) -> Int32?)
}

extension InputSpooling {
    public var spooling: (any InputSpooling)? { self }
    public func spoolSameContent(from find: @escaping (_ input: Int32, _ size: Int, _ device: UInt64) -> Int32?) {}
}

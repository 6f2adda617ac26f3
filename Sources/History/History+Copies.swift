#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import PasteboardStore

extension History {
    /// Records what a copy wrote to `backend` where nobody watches it (the store, the terminal, a pbctl
    /// ssh session's server): the one way a copy commits itself to the history, for `pbctl copy`, the
    /// quick copy and `pbctl ssh`. The representations `backend` stored in files are taken as they are
    /// (linked, on the same file system), not written again, and never hashed: the history finds an
    /// equal file by its size and then its bytes (``History/matchingBlob(_:adopted:_:)``).
    @discardableResult
    public func recordCopy(
        _ item: Item, to backend: any PasteboardBackend, options: CopyOptions? = nil, preview: String, application: String?
    ) throws -> Outcome {
        if let why = reasonNotToRecord(item, options: options) { return .notRecorded(why) }
        if let store = backend.storedFiles {
            for representation in item.representations {
                guard case .data(let data) = representation.content, let path = store.writtenFilePath(holding: data) else { continue }
                adopt(path, holding: data)
            }
        }
        return try record(item, preview: preview, application: application)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
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

    /// An open descriptor of the history's file holding exactly the bytes of the regular file `input`
    /// (`size` bytes from offset 0), when that file is on the file system `device`; nil otherwise. What
    /// `copy` gives the store (``FileStore/sameContent``) so that the same content copied again is
    /// linked from the history's file rather than copied, and then found by the record as that very
    /// file (nothing compared twice). The files of that size are compared byte for byte
    /// (``SameBytes``); nothing is read when there is none, and nothing is created or changed.
    public func openFile(sameBytesAs input: Int32, size: Int, device: UInt64) -> Int32? {
        guard size >= HistoryDatabase.inlineLimit else { return nil }
        let found = try? withDatabase(create: false, absent: -1) { database -> Int32 in
            guard let folder = try database.blobs(create: false) else { return -1 }
            var st = stat()
            guard fstat(folder, &st) == 0, UInt64(st.st_dev) == device else { return -1 }
            if let until = try pausedUntil(database), until > Date() { return -1 }  // a paused history is not read
            var names: [String] = []
            let statement = try database.connection.statement("SELECT hash FROM blob WHERE size = ? AND refs > 0")
            try statement.bind([.int(size)])
            while try statement.step() { if let name = statement.text(0), HistoryDatabase.isBlobName(name) { names.append(name) } }
            statement.reset()
            for name in names {
                guard let opened = try? database.openBlob(name, size: size) else { continue }
                if SameBytes.equal(.file(input), .file(opened.fd), count: size) { return opened.fd }
                close(opened.fd)
            }
            return -1
        }
        guard let found, found >= 0 else { return nil }
        return found
    }
}

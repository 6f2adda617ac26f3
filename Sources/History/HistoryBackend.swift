#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import PasteboardStore

/// The history's entries as a read-only backend: pasteboard `eID` holds entry ID as one item, so
/// `history paste` negotiates exactly as `paste` does. A large representation is sent from its file
/// (`sendfile`), never read whole.
final class HistoryBackend: PasteboardBackend {
    let history: History

    init(history: History) { self.history = history }

    var info: BackendInfo { BackendInfo(name: "history", detail: history.root) }

    private func id(_ pasteboard: PasteboardName) throws -> Int {
        let name = pasteboard.rawValue
        guard name.hasPrefix("e"), let id = Int(name.dropFirst()), id > 0, id < History.maximumID else {
            throw PasteboardError.empty("there is no history entry '\(name)'")
        }
        return id
    }

    func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int {
        throw PasteboardError(.refused, "history entries are not written through a backend")
    }

    func clear(_ pasteboard: PasteboardName) throws {
        throw PasteboardError(.refused, "history entries are deleted with 'pbctl history delete'")
    }

    func changeCount(of pasteboard: PasteboardName) throws -> Int { 0 }

    func items(in pasteboard: PasteboardName) throws -> [ItemSummary] {
        let entry = try history.entry(try id(pasteboard))
        let item = try history.item(entry.id)
        return [ItemSummary(types: entry.types.map { TypeSummary(type: $0.type, size: $0.size, derivedFrom: $0.derivedFrom) }, metadata: item.metadata)]
    }

    func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data {
        let sink = DataSink()
        try read(type, item: index, from: pasteboard, into: sink)
        return sink.data
    }

    func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws {
        guard index == 0 else { throw PasteboardError.empty("there is no item \(index)") }
        try history.readRepresentation(type, of: try id(pasteboard), into: sink)
    }
}

extension History {
    /// Sends entry `id`'s `type` to `sink`: inline bytes at once, a file through the kernel, a
    /// representation produced on paste from its source.
    func readRepresentation(_ type: TypeIdentifier, of id: Int, into sink: any RepresentationSink) throws {
        enum Found {
            case bytes(Data)
            case file(String, Int)
            case produced(TypeIdentifier)
        }
        let found = try withDatabase(create: false, absent: nil as Found?) { database -> Found? in
            try database.connection.transaction(write: false) { () -> Found? in
                let statement = try database.connection.statement(
                    "SELECT derived_from, size, blob, data FROM representation WHERE entry = ? AND type = ? AND skipped = 0")
                try statement.bind([.int(id), .text(type.rawValue)])
                defer { statement.reset() }
                guard try statement.step() else { return nil }
                guard let size = statement.optionalInteger(1) else {
                    guard let name = statement.text(0), TypeIdentifier(name).isWellFormed else {
                        throw PasteboardError(.corrupt, "\(database.path): entry \(id): \(type) has neither bytes nor a source")
                    }
                    return .produced(TypeIdentifier(name))
                }
                guard (0...Int64(FileStore.maximumStoredSize)).contains(size) else {
                    throw PasteboardError(.corrupt, "\(database.path): entry \(id): a size out of range")
                }
                if let hash = statement.text(2) { return .file(hash, Int(size)) }
                guard let data = statement.blob(3), data.count == Int(size) else {
                    throw PasteboardError(.corrupt, "\(database.path): entry \(id): \(type) holds another size than recorded")
                }
                return .bytes(data)
            }
        }
        switch found as Found? {
        case nil:
            _ = try entry(id)  // .empty when there is no such entry
            throw PasteboardError(.typeNotOffered, "history entry \(id) does not offer \(type)")
        case .bytes(let data)?:
            try sink.write(data)
        case .file(let hash, let size)?:
            let opened = try withDatabase(create: false) { try $0.openBlob(hash, size: size) }
            defer { close(opened.fd) }
            try FileStore.stream(opened, into: sink)
        case .produced(let source)?:
            guard let producer else { throw PasteboardError(.typeNotOffered, "\(type) is produced on paste, and nothing here produces it") }
            let original = DataSink()
            try readRepresentation(source, of: id, into: original)
            try sink.write(try producer(source, original.data, type))
        }
    }
}

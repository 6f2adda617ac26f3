// `pbctl history export` and `import`: the history as JSON Lines (PasteboardStore's HistoryExchange
// reads and writes a line), each imported entry checked as a copy checks its input; and the import
// from cliphist.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CopyPaste
import Pasteboard
import History
import HistoryText
import Representations
import SystemIO

/// A type as the exchange format writes it: its MIME type when that names it back, else its
/// identifier (both as `copy --type` takes them).
func exchangeTypeName(_ type: TypeIdentifier, _ registry: TypeRegistry) -> String {
    if let mime = registry.preferredMIMEType(of: type), (try? resolveType(mime, registry)) == type { return mime }
    return type.rawValue
}

func exportHistory(_ history: History, _ options: HistoryArguments, _ context: Context) throws -> Int32 {
    let query = try options.query(context)
    let file = try options.output.map { try OutputFile($0) }
    defer { file?.discard() }
    var buffer: [UInt8] = []
    func flush() throws {
        guard !buffer.isEmpty else { return }
        if let file {
            try buffer.withUnsafeBytes { try POSIX.writeAll(file.fd, $0, path: file.path) }
        } else {
            try buffer.withUnsafeBytes { try context.terminal.out($0) }
        }
        buffer.removeAll(keepingCapacity: true)
    }
    var exported = 0
    try history.export(since: query.since) { record, types in
        if let filter = query.conforming, !types.contains(where: filter.takes) { return }
        if let application = query.application, record.source != application { return }
        if query.pinnedOnly, !record.pinned { return }
        var record = record
        for index in record.representations.indices {
            record.representations[index].type = exchangeTypeName(TypeIdentifier(record.representations[index].type), context.registry)
        }
        buffer += HistoryExchange.line(record)
        exported += 1
        if buffer.count >= 1 << 20 { try flush() }
    }
    try flush()
    try file?.commit()
    if options.paste.verbose { context.terminal.err("pbctl history export: \(exported) entries") }
    return ExitCode.ok
}

/// Reads entries of the exchange format from FILE (or standard input), each checked as `copy --type`
/// checks its input (the type known, UTF-8 text well formed, an image readable), in batches of a
/// transaction each (10,000 entries or 16 MiB of their bytes: what the import holds at once). A bad
/// line is reported (`line N: why`) and the rest imported; then exit 65.
func importHistory(_ history: History, _ options: HistoryArguments, _ context: Context) throws -> Int32 {
    if options.fromCliphist { return try importCliphist(history, options, context) }
    let source = options.operands[0]
    let shown = source == "-" ? "standard input" : source.shownPath
    var batch: [History.ImportedEntry] = []
    var batchBytes = 0
    var added = 0, present = 0, refused = 0, ignored = 0
    var encodings = TypeFacts(context.registry)
    func commit() throws {
        guard !batch.isEmpty else { return }
        let (a, p, i) = try history.importEntries(batch)
        added += a
        present += p
        ignored += i
        batch.removeAll(keepingCapacity: true)
        batchBytes = 0
    }
    try POSIX.withInput(source) { fd in
        try POSIX.forEachLine(fd, path: shown, maximumLength: HistoryExchange.maximumLineLength) { line, number in
            func refuse(_ why: String) {
                refused += 1
                context.terminal.err("pbctl history import: \(shown): line \(number): \(why)")
            }
            guard let line else { return refuse("longer than \(HistoryExchange.maximumLineLength >> 20) MiB") }
            // Blank lines separate nothing and are not entries.
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
            do {
                let record = try HistoryExchange.parse(line)
                let entry = try importedEntry(record, context, &encodings)
                batchBytes += entry.item.representations.reduce(0) { $0 + ($1.knownSize ?? 0) }
                batch.append(entry)
                if batch.count >= 10_000 || batchBytes >= 16 << 20 { try commit() }
            } catch let error as HistoryExchange.LineError {
                refuse(error.message)
            } catch let error as PasteboardError where error.code == .invalidData {
                refuse(error.message)
            } catch let error as UsageError {
                refuse(error.message)
            }
        }
    }
    try commit()
    try? history.checkpoint()
    if options.paste.verbose || refused > 0 || ignored > 0 {
        context.terminal.err(
            "pbctl history import: \(added) entries added, \(present) already there, \(refused) lines refused"
                + (ignored > 0 ? ", \(ignored) never recorded (marked sensitive or transient, or ignored by the configuration's rules)" : ""))
    }
    return refused > 0 ? ExitCode.dataError : ExitCode.ok
}

/// One record as a copy would make it: each type resolved as `copy --type` resolves it, UTF-8 text
/// checked, images read whole.
func importedEntry(_ record: HistoryExchange.Record, _ context: Context, _ facts: inout TypeFacts) throws -> History.ImportedEntry {
    var item = Item(metadata: ItemMetadata(sourceApplication: record.source, created: record.time))
    for representation in record.representations {
        let type = try facts.resolve(representation.type)
        guard item.representation(for: type) == nil else {
            throw PasteboardError(.invalidData, "\(representation.type) names \(type), which an earlier type of the line names too")
        }
        if facts.isUTF8Text(type), !TypeSniffer.isValidUTF8(representation.data) {
            throw CopyAssembly.invalidUTF8(representation.type, TypeSniffer.firstInvalidUTF8Offset(representation.data) ?? 0, type)
        }
        if ImageRepresentations.isImage(type) {
            _ = try ImageRepresentations.validate(representation.data, as: type, source: representation.type)
        }
        item.set(Representation(type: type, data: representation.data))
    }
    return History.ImportedEntry(item: item, time: record.time, pinned: record.pinned, preview: historyPreview(item, context.registry))
}

/// What an import asks of the registry for each line, answered once per type name (a look-up walks
/// the type graph).
struct TypeFacts {
    let registry: TypeRegistry
    private var resolved: [String: TypeIdentifier] = [:]
    private var utf8: [TypeIdentifier: Bool] = [:]

    init(_ registry: TypeRegistry) { self.registry = registry }

    /// A type name as `copy --type` resolves it.
    mutating func resolve(_ name: String) throws -> TypeIdentifier {
        if let known = resolved[name] { return known }
        let type = try resolveType(name, registry)
        if resolved.count < 4096 { resolved[name] = type }
        return type
    }

    /// Whether the type's bytes must be UTF-8 (as a copy checks them).
    mutating func isUTF8Text(_ type: TypeIdentifier) -> Bool {
        if let known = utf8[type] { return known }
        let answer = registry.textEncoding(of: type) == .utf8
        if utf8.count < 4096 { utf8[type] = answer }
        return answer
    }
}

/// `history import --from cliphist`: `cliphist list` (newest first, `ID<TAB>preview`), each entry's bytes
/// from `cliphist decode`, its type from its content (an image by its signature, UTF-8 text as text,
/// anything else as bytes). cliphist keeps no times: the entries are dated now, a millisecond apart,
/// in cliphist's order.
func importCliphist(_ history: History, _ options: HistoryArguments, _ context: Context) throws -> Int32 {
    let listed = runTool(["cliphist", "list"], input: nil, environment: context.environment, keepStandardError: true)
    guard listed.status == 0 else {
        throw PasteboardError(.unavailable, listed.status == 127 ? "cliphist is not installed (not found on PATH)" : "cliphist list exited \(listed.status)")
    }
    let lines = listed.output.split(separator: 0x0A).map { Data($0) }
    let now = Date()
    var batch: [History.ImportedEntry] = []
    var added = 0, present = 0, refused = 0, ignored = 0
    for (offset, line) in lines.reversed().enumerated() {
        let decoded = runTool(["cliphist", "decode"], input: line + Data([0x0A]), environment: context.environment, keepStandardError: true)
        let id = String(decoding: line.prefix { $0 != 0x09 }, as: UTF8.self)
        guard decoded.status == 0, !decoded.output.isEmpty else {
            refused += 1
            context.terminal.err("pbctl history import: cliphist entry \(id.visibleControlCharacters): cliphist decode exited \(decoded.status)")
            continue
        }
        let data = decoded.output
        let type = ImageRepresentations.sniff(data) ?? (TypeSniffer.isValidUTF8(data) ? TypeIdentifier.utf8PlainText : .data)
        if ImageRepresentations.isImage(type), (try? ImageRepresentations.validate(data, as: type, source: "cliphist")) == nil {
            refused += 1
            context.terminal.err("pbctl history import: cliphist entry \(id.visibleControlCharacters): not a readable image")
            continue
        }
        let item = Item(
            representations: [Representation(type: type, data: data)],
            metadata: ItemMetadata(sourceApplication: "cliphist", created: now))
        let time = now.addingTimeInterval(Double(offset - lines.count) / 1000)
        batch.append(History.ImportedEntry(item: item, time: time, pinned: false, preview: historyPreview(item, context.registry)))
        if batch.count >= 500 {
            let (a, p, i) = try history.importEntries(batch)
            added += a
            present += p
            ignored += i
            batch.removeAll()
        }
    }
    let (a, p, i) = try history.importEntries(batch)
    added += a
    present += p
    ignored += i
    try? history.checkpoint()
    context.terminal.err("pbctl history import: \(added) entries added from cliphist, \(present) already there, \(refused) refused"
        + (ignored > 0 ? ", \(ignored) never recorded (ignored by the configuration's rules)" : ""))
    return refused > 0 ? ExitCode.dataError : ExitCode.ok
}

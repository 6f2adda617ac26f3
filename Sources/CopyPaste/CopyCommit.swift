#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HistoryText
import Pasteboard
import History

/// A copy committed: its items written to the backend, then recorded in the history where nobody else
/// records them. The one commit step every way in uses (`pbctl copy`, `history copy`, the xclip/xsel/
/// wl-copy personalities, `pbctl ssh`'s server). A display's clipboard is recorded by its daemon; the
/// store's and the terminal's (``PasteboardBackend/changesReachDaemons`` false) by whoever copies to
/// them, and only the general pasteboard, and never content that is sensitive or meant to vanish
/// (``RecordingPolicy``). What keeps the history from recording is returned, never thrown: the copy
/// went through, and the caller says so once.
public final class CopyCommit {
    /// What kept a committed copy out of the history (the copy itself went through).
    public struct Problem: Error, CustomStringConvertible {
        public var error: any Error
        /// `copied, but not recorded in the history: WHY`
        public var message: String { "copied, but not recorded in the history: \((error as? PasteboardError)?.message ?? "\(error)")" }
        public var description: String { message }
        public init(_ error: any Error) { self.error = error }
    }

    public var registry: TypeRegistry
    /// The application an item that names none is recorded under (`pbctl ssh: HOST`).
    public var application: String?
    /// The one-line preview the history lists.
    public var preview: (Item) -> String
    /// Why an item was left out of the history (paused, a rule ignores it), for `-v`.
    public var note: (String) -> Void = { _ in }
    private let open: () throws -> History?
    private var opened: Result<History?, any Error>?

    /// - Parameter history: the history, opened when first needed (nil: nowhere to record).
    public init(registry: TypeRegistry, history: @escaping () throws -> History?) {
        self.registry = registry
        self.preview = { historyPreview($0, registry) }
        open = history
    }

    /// Whether a copy to `pasteboard` through `backend` is this process's to record: nobody watches
    /// the backend for changes, and it is the general pasteboard.
    public static func recordsHere(_ backend: any PasteboardBackend, _ pasteboard: PasteboardName) -> Bool {
        !backend.changesReachDaemons && pasteboard == .general
    }

    /// Whether an item carrying `metadata`, copied with `options`, will be recorded here.
    public static func records(
        _ metadata: ItemMetadata, options: CopyOptions? = nil, to backend: any PasteboardBackend, _ pasteboard: PasteboardName
    ) -> Bool {
        recordsHere(backend, pasteboard) && RecordingPolicy.reasonNotToRecord(Item(representations: [], metadata: metadata), options: options) == nil
    }

    /// Before the items are read, where a copy carrying `metadata` will be recorded here and the backend
    /// spools (the store): the same large file copied again is linked from the history's file of those
    /// bytes, compared before anything is copied, instead of being copied and then compared. The history
    /// is opened now; one that cannot be is said by ``commit(_:to:pasteboard:options:)``.
    public func prepare(
        _ spooler: (any InputSpooling)?, for backend: any PasteboardBackend, _ pasteboard: PasteboardName, metadata: ItemMetadata,
        options: CopyOptions? = nil
    ) {
        guard let spooler, Self.records(metadata, options: options, to: backend, pasteboard), case .success(let opened?) = history()
        else { return }
        spooler.spoolSameContent { input, size, device in opened.openFile(sameBytesAs: input, size: size, device: device) }
    }

    /// Writes `items` to `pasteboard` through `backend`, then records each the history may take.
    /// - Returns: what kept the history from recording (the history not opened: one problem; an item
    ///   not recorded: one per item).
    /// - Throws: what kept the backend from taking the items (nothing is recorded then).
    public func commit(_ items: [Item], to backend: any PasteboardBackend, pasteboard: PasteboardName, options: CopyOptions) throws -> [Problem] {
        try backend.write(items, to: pasteboard, options: options)
        return record(items, copiedTo: backend, pasteboard: pasteboard, options: options)
    }

    /// The recording half of ``commit(_:to:pasteboard:options:)``, for items already written.
    public func record(_ items: [Item], copiedTo backend: any PasteboardBackend, pasteboard: PasteboardName, options: CopyOptions?) -> [Problem] {
        guard Self.recordsHere(backend, pasteboard) else { return [] }
        var kept: [Item] = []
        for item in items {
            if let why = RecordingPolicy.reasonNotToRecord(item, options: options) { note("not recorded in the history: \(why)") } else { kept.append(item) }
        }
        guard !kept.isEmpty else { return [] }
        let history: History
        switch self.history() {
        case .failure(let error): return [Problem(error)]
        case .success(nil): return []
        case .success(let opened?): history = opened
        }
        var problems: [Problem] = []
        for item in kept {
            do {
                let outcome = try history.recordCopy(
                    item, to: backend, options: options, preview: preview(item), application: item.metadata.sourceApplication ?? application)
                if case .notRecorded(let why) = outcome { note("not recorded in the history: \(why)") }
            } catch {
                problems.append(Problem(error))
            }
        }
        return problems
    }

    /// The history, opened once.
    private func history() -> Result<History?, any Error> {
        if let opened { return opened }
        let result = Result { try open() }
        opened = result
        return result
    }

    /// ``commit(_:to:pasteboard:options:)`` in one call.
    public static func commit(
        _ items: [Item], to backend: any PasteboardBackend, pasteboard: PasteboardName, options: CopyOptions, registry: TypeRegistry,
        history: @escaping () throws -> History?
    ) throws -> [Problem] {
        try CopyCommit(registry: registry, history: history).commit(items, to: backend, pasteboard: pasteboard, options: options)
    }
}

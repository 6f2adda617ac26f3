// What the xclip, xsel, wl-copy and wl-paste personalities do once their command line is read (the
// Personalities target reads it; the command line hands in argv and its streams): the backend (pbctl's `auto` choice
// unless the tool's flags name a display), a copy made by pbctl's copy policy (CopyAssembly) and written
// to that backend, a paste chosen by pbctl's negotiation (PasteRequest) and delivered by PasteDelivery,
// and the owner's offer under the display's own names (NativeOffer) or, where the content is held
// elsewhere (the store, a `pbctl ssh` session), the names pbctl's own owner would give it.
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
import Backends
import CopyPaste
import Documents
import Pasteboard
import Personalities
import Representations
import SystemIO

/// Runs `arguments` as `session`'s personality would: the exit status the tool would give. What it
/// throws is the command line's to word (``ToolFailure`` as it is, anything else `PROGRAM: MESSAGE`).
public func runTool(_ arguments: [String], _ session: ToolSession) throws -> Int32 {
    switch session.personality {
    case .xclip: return try runXclip(arguments, session)
    case .xsel: return try runXsel(arguments, session)
    case .wlCopy: return try runWlCopy(arguments, session)
    case .wlPaste: return try runWlPaste(arguments, session)
    }
}

/// A failure the tool reports in its own words, with its own status (the tools exit 1 on every failure).
public struct ToolFailure: Error {
    public var message: String
    public var status: Int32 = 1
    public init(message: String, status: Int32 = 1) {
        self.message = message
        self.status = status
    }
}

/// One run of a personality: its streams, and pbctl's policy behind them.
public struct ToolSession {
    /// What the command line hands a tool's run: its streams, environment and registry, and pbctl's
    /// choices it has already made (the backend chooser, the size limit, the history's commit step).
    public struct Host {
        public var registry: TypeRegistry
        public var environment: [String: String]
        public var readStandardInput: (_ limit: Int) throws -> Data
        public var writeStandardOutput: (Data) throws -> Void
        /// Standard output as a sink: a reader that went away ends the tool quietly, as pbctl paste does.
        public var standardOutputSink: () -> any RepresentationSink
        public var stdinIsTerminal: Bool
        public var stdoutIsTerminal: Bool
        /// `PBCTL_MAX_SIZE`, else the default (throws when the variable is malformed).
        public var maximumInputSize: () throws -> Int
        public var htmlImages: HTMLImages
        /// The backend of `kind` in `environment` (``BackendChoice/choose(_:_:_:)``).
        public var chooseBackend: (_ kind: BackendKind, _ environment: [String: String], _ needs: BackendNeeds) throws -> any PasteboardBackend
        /// The commit step with this invocation's history (``CopyCommit``).
        public var commit: () -> CopyCommit
        /// Says why a copy that went through was not recorded.
        public var reportNotRecorded: ([CopyCommit.Problem]) -> Void

        public init(
            registry: TypeRegistry, environment: [String: String], readStandardInput: @escaping (Int) throws -> Data,
            writeStandardOutput: @escaping (Data) throws -> Void, standardOutputSink: @escaping () -> any RepresentationSink,
            stdinIsTerminal: Bool, stdoutIsTerminal: Bool, maximumInputSize: @escaping () throws -> Int, htmlImages: HTMLImages,
            chooseBackend: @escaping (BackendKind, [String: String], BackendNeeds) throws -> any PasteboardBackend,
            commit: @escaping () -> CopyCommit, reportNotRecorded: @escaping ([CopyCommit.Problem]) -> Void
        ) {
            self.registry = registry
            self.environment = environment
            self.readStandardInput = readStandardInput
            self.writeStandardOutput = writeStandardOutput
            self.standardOutputSink = standardOutputSink
            self.stdinIsTerminal = stdinIsTerminal
            self.stdoutIsTerminal = stdoutIsTerminal
            self.maximumInputSize = maximumInputSize
            self.htmlImages = htmlImages
            self.chooseBackend = chooseBackend
            self.commit = commit
            self.reportNotRecorded = reportNotRecorded
        }
    }

    public let personality: Personality
    /// argv[0] as given, which the tools' messages name.
    public let program: String
    let host: Host

    public init(personality: Personality, program: String, host: Host) {
        self.personality = personality
        self.program = program
        self.host = host
    }

    var registry: TypeRegistry { host.registry }
    var environment: [String: String] { host.environment }
    func readStandardInput(limit: Int) throws -> Data { try host.readStandardInput(limit) }
    func maximumInputSize() throws -> Int { try host.maximumInputSize() }

    /// The reply a tool gives at once (help, version, a usage error).
    func reply(_ reply: ToolReply) -> Int32 {
        if !reply.standardOutput.isEmpty { try? out(Data(reply.standardOutput.utf8)) }
        err(reply.standardError)
        return reply.status
    }

    func out(_ data: Data) throws { try host.writeStandardOutput(data) }

    /// Exactly `text` on standard error (no line ending added).
    public func err(_ text: String) { Self.writeStandardError(text) }

    /// ``err(_:)`` for what runs on the owner's threads.
    @Sendable static func writeStandardError(_ text: String) {
        guard !text.isEmpty else { return }
        try? POSIX.writeAll(STDERR_FILENO, Data(text.utf8), path: "standard error")
    }

    // MARK: The backend

    /// The backend the tool uses: X11 on `display` when its flags name one, else pbctl's choice
    /// (`PBCTL_BACKEND`, else `auto`: a `pbctl ssh` session, Wayland, X11, the store beside the terminal).
    /// - Throws: ``ToolFailure`` with `displayFailure`'s words when the display named does not answer.
    /// A pasteboard the display has not (SECONDARY and the cut buffer under Wayland) is pbctl's store's.
    func backend(
        display: String?, displayFailure: (String) -> String, holding pasteboard: PasteboardName = .general,
        needs: BackendNeeds = BackendNeeds()
    ) throws -> any PasteboardBackend {
        let backend = try chosenBackend(display: display, displayFailure: displayFailure, needs: needs)
        if pasteboard != .general, pasteboard != .primary, backend.nativeOffer?.nativeVocabulary == .mimeTypes {
            return try host.chooseBackend(.store, environment, needs)
        }
        return backend
    }

    private func chosenBackend(display: String?, displayFailure: (String) -> String, needs: BackendNeeds) throws -> any PasteboardBackend {
        if let display {
            var environment = environment
            environment["DISPLAY"] = display
            do {
                return try host.chooseBackend(.x11, environment, needs)
            } catch let error as PasteboardError where error.code == .unavailable || error.code == .timedOut {
                throw ToolFailure(message: displayFailure(display))
            }
        }
        // A name that is no backend means `auto` here: the tools have no way to say it is wrong.
        let environment = environment
        let kind = AutoOrder.requestedKind(variable: { environment[$0] }) ?? .auto
        return try host.chooseBackend(kind, environment, needs)
    }

    // MARK: Copying

    /// What a copy reads.
    enum CopySource {
        case standardInput
        case file(String)
        /// Bytes already read (files concatenated, a trimmed line ending, wl-copy's words).
        case bytes(Data)
    }

    /// How the copy's type is decided.
    enum CopyType {
        /// The tool's default text (xclip's UTF8_STRING, xsel's string): an image by its content, else
        /// UTF-8 plain text as it is (never HTML or RTF sniffed from it, which would change the text
        /// other programs read), else the bytes as they are.
        case text
        /// A type the tool's flags name: an X11 target (`-t image/png`, `-t UTF8_STRING`) or a MIME type.
        case named(String)
    }

    /// The item a copy of `source` makes by pbctl's copy policy (``CopyAssembly``): every representation
    /// `pbctl copy` would offer. The input is read whole, as the tools read it (`pbctl copy` streams it
    /// into the store).
    func item(_ source: CopySource, type: CopyType) throws -> Item {
        let host = host
        var assembly = CopyAssembly(registry: registry) { try host.readStandardInput($0) }
        assembly.maximumSize = try maximumInputSize()
        assembly.htmlImages = host.htmlImages
        var metadata = ItemMetadata(sourceApplication: "pbctl")
        let data: Data
        switch source {
        case .standardInput: data = try readStandardInput(limit: assembly.maximumSize)
        case .file(let path):
            data = try POSIX.readFile(path, limit: assembly.maximumSize)
            metadata.sourcePath = POSIX.absolutePath(path)
        case .bytes(let bytes): data = bytes
        }
        let named: String? = if case .named(let name) = type { name } else { nil }
        let declared = named.map(declaredType)
        // The tools' typing: Latin-1 text kept is served as it is under STRING, TEXT and text/plain, so
        // their readers get the bytes back.
        let resolved = CopyAssembly.type(
            image: CopyAssembly.imageType(data, declared: declared), given: declared, isValidUTF8: TypeSniffer.isValidUTF8(data),
            typing: .tool(named: named), sniff: { .utf8PlainText })
        let shown = if case .file(let path) = source { path.shownPath } else { "standard input" }
        try assembly.checkText(data, as: resolved, source: shown)
        return try assembly.item(data, type: resolved, metadata: metadata, source: sourcePath(source))
    }

    private func sourcePath(_ source: CopySource) -> String {
        if case .file(let path) = source { return path }
        return "-"
    }

    /// The type a tool's name for it stands for: an X11 target (`UTF8_STRING`, `image/png`), a MIME type, or
    /// anything pbctl resolves (an unknown name becomes a type of its own that maps back to it).
    func declaredType(_ name: String) -> TypeIdentifier {
        if let type = registry.types(withTag: name, .x11Target).first { return type }
        if let type = registry.types(withTag: name, .mimeType).first { return type }
        if name.contains("/") { return registry.type(forMIMEType: name) }
        return registry.resolve(name) ?? registry.type(forMIMEType: name)
    }

    /// Writes `item` as `pbctl copy` does, recording it in the history where no daemon sees the backend.
    func offer(_ item: Item, on backend: any PasteboardBackend, pasteboard: PasteboardName, options: CopyOptions) throws {
        host.reportNotRecorded(try host.commit().commit([item], to: backend, pasteboard: pasteboard, options: options))
    }

    // MARK: Pasting

    /// The owner's names in `vocabulary`, in its order: the display's own when it speaks that vocabulary
    /// (nil `native`), else what pbctl's owner would offer of the items held (the store, a remote).
    func offeredNames(_ backend: any PasteboardBackend, _ pasteboard: PasteboardName, vocabulary: NativeVocabulary) throws -> [String] {
        if let native = backend.nativeOffer, native.nativeVocabulary == vocabulary {
            return try native.offeredNames(in: pasteboard)
        }
        let items = try backend.items(in: pasteboard)
        guard let item = items.first else { return [] }
        var names: [String] = vocabulary == .x11Targets ? ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS"] : []
        func add(_ name: String) { if !names.contains(name) { names.append(name) } }
        for summary in item.types {
            switch vocabulary {
            case .x11Targets: registry.tags(of: summary.type, .x11Target).forEach(add)
            case .mimeTypes:
                (summary.type == .utf8PlainText
                    ? TypeRegistry.plainTextMIMETypes
                    : summary.type == .latin1PlainText ? TypeRegistry.latin1TextMIMETypes : registry.tags(of: summary.type, .mimeType)).forEach(add)
            }
        }
        // Plain text any UTF-8 text type owes (Markdown is plain text), as pbctl's owners offer it.
        if let text = item.types.first(where: { registry.conforms($0.type, to: .plainText) && registry.textEncoding(of: $0.type) == .utf8 }),
            text.type != .utf8PlainText
        {
            (vocabulary == .x11Targets ? registry.tags(of: .utf8PlainText, .x11Target) : TypeRegistry.plainTextMIMETypes).forEach(add)
        }
        return names
    }

    /// The first item's representation `request` chooses, delivered into `sink` by pbctl's delivery
    /// policy (converted when not offered as it is).
    /// - Returns: the type delivered, nil when nothing is held.
    /// - Throws: ``PasteboardError`` `.typeNotOffered` when nothing offered is or converts to what is asked.
    @discardableResult
    func paste(
        _ request: PasteRequest, from backend: any PasteboardBackend, _ pasteboard: PasteboardName, into sink: any RepresentationSink,
        admits: (PasteRequest.Choice) -> Bool = { _ in true }
    ) throws -> TypeIdentifier? {
        let items = try backend.items(in: pasteboard)
        guard let item = items.first else { return nil }
        let choice = try request.choose(item.types, registry: registry, canConvert: Conversion.canConvert)
        guard admits(choice) else { throw PasteboardError(.typeNotOffered, "\(choice.convertTo ?? choice.read) is not what was asked for") }
        var delivery = PasteDelivery(registry: registry)
        // Latin-1 text comes back as its bytes, as the tools give back what they were given.
        delivery.exact = request.isExact || choice.read == .latin1PlainText
        try delivery.deliver(choice, item: 0, of: item, from: backend, pasteboard, to: sink)
        return choice.convertTo ?? choice.read
    }

    /// Standard output as a sink: a reader that went away ends the tool quietly, as pbctl paste does.
    func standardOutputSink() -> any RepresentationSink { host.standardOutputSink() }

    /// Whether `type` is text a tool's plain-text read takes (UTF8_STRING, STRING).
    func isPlainText(_ type: TypeIdentifier) -> Bool { registry.conforms(type, to: .plainText) }
}

/// The pasteboard a tool's selection is: CLIPBOARD the general pasteboard, PRIMARY and SECONDARY the
/// pasteboards of those names.
extension PasteboardName {
    public static let secondary = PasteboardName("secondary")!
    /// xclip's cut buffer 0 (`-selection buffer-cut`): a pasteboard of its own.
    public static let cutBuffer = PasteboardName("cut-buffer")!
}

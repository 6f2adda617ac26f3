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
import PasteboardTerminal
import PasteboardX11
import Representations

// MARK: copy

let copyCommand = Command(
    help: CommandHelp(
        name: "copy", summary: "copy standard input or files to a pasteboard",
        usage: "pbctl copy [OPTIONS] [FILE...]",
        details: """
            Reads FILE (one item per file) or standard input. The type comes from --type, else from the
            file's extension, else from the content (RTF, HTML, PNG, JPEG, GIF and PDF signatures; valid
            UTF-8 is plain text; anything else is public.data). Text types must be valid UTF-8.
            """,
        examples: [
            "make report | pbctl copy --type md     # Markdown from a pipe",
            "pbctl copy notes.md                    # type from the extension",
            "pbctl copy --type public.png < shot    # say what the bytes are",
            "pbctl copy -p scratch < draft.txt      # a named pasteboard",
        ]),
    options: [
        .value("type", "t", "TYPE", "what the bytes are: a type identifier, MIME type or extension"),
        .value("from", nil, "FORMAT", "same as --type with a format name (markdown, html, rtf, text)"),
        .value("plain-text", nil, "source|rendered", "the plain text a Markdown copy offers (default: source)"),
        .flag("sensitive", nil, "secret content: never written to disk or history; cleared after 45 s"),
        .flag("transient", nil, "mark the content transient: clipboard managers should not record it"),
        .value("source", nil, "ID", "the application the content comes from (org.nspasteboard.source)"),
        .flag("verbose", "v", "say what was skipped (extended attributes, images a TextBundle could not take)"),
        .value("base", nil, "DIR", "Markdown on standard input: the folder its images are taken from (default: the current one)"),
        .value("max-size", nil, "SIZE", "refuse input larger than SIZE (K, M, G suffixes; default 1G, or PBCTL_MAX_SIZE)"),
        .flag("mac-compat", nil, "behave as macOS pbcopy (set when run as pbcopy)"),
    ] + x11CopyOptionSpecs,
    run: { context, arguments in
        let pasteboard = try context.pasteboardName(arguments)
        if let text = arguments.value("clear-after") { _ = try parseSeconds(text, option: "clear-after") }  // before any I/O
        let maxSize = try context.maximumInputSize(arguments)
        var declared: TypeIdentifier? = nil
        if let text = arguments.value("type") ?? arguments.value("from") {
            declared = try resolveType(text, context)
        }
        var plainText = Producers.PlainTextChoice.source
        if let text = arguments.value("plain-text") {
            guard let choice = Producers.PlainTextChoice(rawValue: text) else {
                throw UsageError(message: "--plain-text takes source or rendered", command: "copy")
            }
            plainText = choice
        }
        var items: [Item] = []
        let sources = arguments.positionals.isEmpty ? ["-"] : arguments.positionals
        for source in sources {
            if let bundleItem = try textBundleItem(source, arguments, context) {  // .textbundle / .textpack
                items.append(bundleItem)
                continue
            }
            let data: Data
            var metadata = ItemMetadata(sourceApplication: "pbctl")
            var type = declared
            if source == "-" {
                data = try context.terminal.readStandardInput(limit: maxSize)
            } else {
                data = try POSIX.readFile(source, limit: maxSize)
                metadata.sourcePath = absolutePath(source)
                metadata.extra.merge(documentSourceMetadata(source, context, verbose: arguments.has("verbose"))) { $1 }
                if type == nil, let ext = fileExtension(source) {
                    type = context.registry.types(withTag: ext, .filenameExtension).first
                }
            }
            var resolved = type ?? TypeSniffer.sniff(data)
            if type == nil, arguments.has("mac-compat"), resolved == .html {
                resolved = .utf8PlainText  // pbcopy keeps anything but RTF as plain text
            }
            try validate(data, as: resolved, source: source == "-" ? "standard input" : source, context)
            if arguments.has("sensitive") { metadata.flags.insert(.sensitive) }
            if arguments.has("transient") { metadata.flags.insert(.transient) }
            if let source = arguments.value("source") { metadata.sourceApplication = source }
            items.append(
                Producers.item(
                    original: data, type: resolved, metadata: metadata, plainText: plainText,
                    convert: produceRepresentation))
            addTextBundleRepresentations(
                &items[items.count - 1], source: source, data: data, base: arguments.value("base"), context,
                verbose: arguments.has("verbose"))
        }
        let backend = try context.backend(arguments)
        try configureX11Copy(backend, arguments, context)
        if arguments.has("sensitive"), !arguments.has("clear-after"), let x11 = backend as? X11Backend {
            x11.copyOptions.clearAfter = defaultSensitiveLifetime
        }
        try backend.write(items, to: pasteboard)
        return ExitCode.ok
    })

/// Text with a fixed encoding must be well formed: a paste must never hand out broken text.
func validate(_ data: Data, as type: TypeIdentifier, source: String, _ context: Context) throws {
    guard context.registry.textEncoding(of: type) == .utf8, !TypeSniffer.isValidUTF8(data) else { return }
    let offset = TypeSniffer.firstInvalidUTF8Offset(data) ?? 0
    throw PasteboardError(
        .invalidData,
        "\(source): not valid UTF-8 near byte \(offset), but \(type) is UTF-8 text; "
            + "copy it with --type public.data to keep the bytes as they are")
}

func resolveType(_ text: String, _ context: Context) throws -> TypeIdentifier {
    guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
        throw UsageError(message: "a type may not contain control characters (such as a line break)", command: nil)
    }
    switch text.lowercased() {
    case "markdown", "md", "gfm", "commonmark": return .markdown
    case "text", "txt", "plain": return .utf8PlainText
    default: break
    }
    guard let type = context.registry.resolve(text) else {
        throw UsageError(
            message: "unknown type '\(text)' (give a type identifier such as public.html, a MIME type such as "
                + "text/html, or an extension such as html)", command: nil)
    }
    return type
}

func fileExtension(_ path: String) -> String? {
    guard let name = path.split(separator: "/").last, let dot = name.lastIndex(of: "."), dot != name.startIndex
    else { return nil }
    return String(name[name.index(after: dot)...])
}

func absolutePath(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    guard let pointer = getcwd(nil, 0) else { return path }
    defer { free(pointer) }
    let cwd = String(cString: pointer)
    return (cwd == "/" ? "" : cwd) + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
}

// MARK: paste

let pasteCommand = Command(
    help: CommandHelp(
        name: "paste", summary: "write a pasteboard's content to standard output or a file",
        usage: "pbctl paste [OPTIONS]",
        details: """
            Without --type, writes the best text form: UTF-8 plain text, else other plain text (Markdown
            included), else HTML, RTF or other text, else the first representation as it is. Each item is
            written in turn; --item N picks one.
            """,
        examples: [
            "pbctl paste > notes.md",
            "pbctl paste --type public.html        # exactly that type, or exit 1 listing the offered types",
            "pbctl paste --type png -o shot.png",
            "pbctl paste -n                        # without one trailing newline",
        ]),
    options: [
        .value("type", "t", "TYPE", "paste exactly this type (identifier, MIME type or extension)"),
        .value("output", "o", "FILE", "write to FILE instead of standard output"),
        .flag("no-newline", "n", "drop one trailing newline"),
        .value("item", nil, "N", "paste only item N (from 0)"),
        .value("accept", "a", "LIST", "comma-separated types (identifiers or MIME types) in preference order"),
        .value("as", nil, "FORMAT", "always this format, converting when needed: markdown, gfm, commonmark, html, rtf, text"),
        .flag("plain", nil, "paste as plain text: rendered from the richest source, never raw markup"),
        .flag("keep-html", nil, "when converting HTML: keep comments, divs, unknown tags… as raw HTML"),
        .flag("verbose", "v", "say on standard error which type was used and whether it was converted"),
        .value("timeout", nil, "SECONDS", "--backend osc52: how long to wait for the terminal's answer (default 2)"),
        .value("prefer", nil, "txt|rtf", "as macOS pbpaste -Prefer: which kind to look for first"),
        .flag("mac-compat", nil, "behave as macOS pbpaste (set when run as pbpaste)"),
    ],
    run: { context, arguments in
        let pasteboard = try context.pasteboardName(arguments)
        // Every argument is checked before any I/O: an unknown --as is a usage error whatever is on offer.
        let request = try PasteRequest(arguments, context)
        let backend = try context.backend(arguments)
        let items = try backend.items(in: pasteboard)
        if items.isEmpty, arguments.has("mac-compat") { return ExitCode.ok }
        guard !items.isEmpty else { throw PasteboardError.empty("nothing to paste on '\(pasteboard)'") }
        let indices = try selectItems(arguments, count: items.count)
        // One X11 item to standard output without conversion: stream it, so a 100 MB paste is never
        // held twice (or at all) in memory.
        if let x11 = backend as? X11Backend, indices.count == 1, arguments.value("output") == nil {
            let choice = try request.choose(items[indices[0]].types, context)
            if choice.convertTo == nil, context.registry.textEncoding(of: choice.read) != .utf16 {
                try streamPaste(x11, choice.read, pasteboard, dropNewline: arguments.has("no-newline"), context)
                if arguments.has("verbose") { context.terminal.err("pbctl: item 0: pasted \(choice.read)") }
                return ExitCode.ok
            }
        }
        var output = Data()
        for index in indices {
            let choice = try request.choose(items[index].types, context)
            var data = try backend.read(choice.read, item: index, from: pasteboard)
            if let target = choice.convertTo {
                data = try produceRepresentation(choice.read, data, target, keepRawHTML: arguments.has("keep-html"))
            } else if !request.isExact, context.registry.textEncoding(of: choice.read) == .utf16 {
                data = Data(utf16ToUTF8(data).utf8)
            }
            if arguments.has("verbose") {
                let derivedFrom = items[index].types.first { $0.type == choice.read }?.derivedFrom
                context.terminal.err(
                    "pbctl: item \(index): "
                        + (choice.convertTo.map { "converted \(choice.read) to \($0)" } ?? "pasted \(choice.read)")
                        + (derivedFrom.map { " (derived from \($0))" } ?? " (original)"))
            }
            output.append(data)
        }
        if arguments.has("no-newline"), output.last == 0x0A {
            output.removeLast()
            if output.last == 0x0D { output.removeLast() }
        }
        if let path = arguments.value("output") {
            try writePastedFile(path, output, items: indices.map { items[$0] }, arguments, context)
        } else {
            try context.terminal.out(output)
        }
        return ExitCode.ok
    })

/// Writes one X11 representation to standard output as its chunks arrive; with `dropNewline`, the last
/// two bytes are held back until the end so one trailing newline (or CRLF) can be dropped.
func streamPaste(
    _ backend: X11Backend, _ type: TypeIdentifier, _ pasteboard: PasteboardName, dropNewline: Bool, _ context: Context
) throws {
    var held = Data()
    try backend.read(type, item: 0, from: pasteboard) { chunk in
        guard dropNewline else { return try context.terminal.out(chunk) }
        held.append(chunk)
        if held.count > 2 {
            try context.terminal.out(held.prefix(held.count - 2))
            held = Data(held.suffix(2))
        }
    }
    if dropNewline, held.last == 0x0A {
        held.removeLast()
        if held.last == 0x0D { held.removeLast() }
    }
    if !held.isEmpty { try context.terminal.out(held) }
}

func selectItems(_ arguments: ParsedArguments, count: Int) throws -> [Int] {
    guard let text = arguments.value("item") else { return Array(0..<count) }
    guard let index = Int(text), index >= 0 else {
        throw UsageError(message: "--item takes a number from 0", command: nil)
    }
    guard index < count else { throw PasteboardError.empty("there is no item \(index) (items: \(count))") }
    return [index]
}

/// What a paste asks for, from its flags: an exact type (`--type`), an accepted list (`--accept`), a
/// format (`--as`, `--plain`), or the default ladder.
struct PasteRequest {
    enum Mode {
        case exact(TypeIdentifier)
        case accept([TypeIdentifier])
        case format(TypeIdentifier)
        case plain
        case preferRTF
        case standard
    }

    let mode: Mode

    var isExact: Bool { if case .exact = mode { return true } else { return false } }

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        let exclusive = ["type", "accept", "as", "plain"].filter { arguments.has($0) }
        guard exclusive.count <= 1 else {
            throw UsageError(
                message: exclusive.map { "--" + $0 }.joined(separator: " and ") + " cannot be combined",
                command: "paste")
        }
        if let text = arguments.value("type") {
            mode = .exact(try resolveType(text, context))
        } else if let list = arguments.value("accept") {
            let types = try list.split(separator: ",").map { try resolveType(String($0), context) }
            guard !types.isEmpty else { throw UsageError(message: "--accept needs at least one type", command: "paste") }
            mode = .accept(types)
        } else if let format = arguments.value("as") {
            let parsed = try Format.parse(format, role: "paste")
            mode = parsed == .text ? .plain : .format(parsed.type)
        } else if arguments.has("plain") {
            mode = .plain
        } else if arguments.value("prefer") == "rtf" {
            mode = .preferRTF
        } else {
            mode = .standard
        }
    }

    struct Choice {
        var read: TypeIdentifier
        var convertTo: TypeIdentifier?
    }

    func choose(_ offered: [TypeSummary], _ context: Context) throws -> Choice {
        let types = offered.map(\.type)
        let negotiator = Negotiator(registry: context.registry, canConvert: canConvert)
        switch mode {
        case .exact(let requested):
            guard types.contains(requested) else {
                throw PasteboardError(
                    .typeNotOffered,
                    "\(requested) is not offered; offered: " + types.map(\.rawValue).joined(separator: ", "))
            }
            return Choice(read: requested)
        case .accept(let accepting):
            switch negotiator.choose(offered: offered, accepting: accepting) {
            case .use(let type): return Choice(read: type)
            case .convert(let from, let to): return Choice(read: from, convertTo: to)
            case nil:
                throw PasteboardError(
                    .typeNotOffered,
                    "none of " + accepting.map(\.rawValue).joined(separator: ", ")
                        + " is offered or can be converted to; offered: " + types.map(\.rawValue).joined(separator: ", "))
            }
        case .format(let target):
            return try convertingChoice(to: target, offered, negotiator)
        case .plain:
            // Plain text as it was copied stays as it is; anything richer (Markdown included) is rendered.
            if let original = Negotiator.original(of: offered),
                original != .markdown, context.registry.conforms(original, to: .plainText)
            {
                return Choice(read: original)
            }
            // Nothing richer than plain text on offer (an X11 owner of plain text): take it as it is.
            let rich: Set<TypeIdentifier> = [.markdown, .html, .rtf, .textBundle]
            if !types.contains(where: rich.contains),
                let text = types.first(where: { context.registry.conforms($0, to: .plainText) })
            {
                return Choice(read: text)
            }
            return try convertingChoice(to: .utf8PlainText, offered, negotiator, renderFromRichest: true)
        case .preferRTF:
            if types.contains(.rtf) { return Choice(read: .rtf) }
            return Choice(read: defaultPasteType(types, context.registry))
        case .standard:
            return Choice(read: defaultPasteType(types, context.registry))
        }
    }

    /// `target` itself when offered (unless rendering is asked for), else a conversion from the
    /// original, else from the richest offered type that converts.
    func convertingChoice(
        to target: TypeIdentifier, _ offered: [TypeSummary], _ negotiator: Negotiator, renderFromRichest: Bool = false
    ) throws -> Choice {
        let types = offered.map(\.type)
        if !renderFromRichest, types.contains(target) { return Choice(read: target) }
        var sources = negotiator.rankedByRichness(types).filter { $0 != target && canConvert($0, target) }
        if let original = Negotiator.original(of: offered), let at = sources.firstIndex(of: original) {
            sources.remove(at: at)
            sources.insert(original, at: 0)
        }
        if let source = sources.first { return Choice(read: source, convertTo: target) }
        if types.contains(target) { return Choice(read: target) }
        throw PasteboardError(
            .typeNotOffered,
            "nothing offered converts to \(target); offered: " + types.map(\.rawValue).joined(separator: ", "))
    }
}

/// The type a plain `pbctl paste` writes: plain text first (a terminal wants what was copied), then
/// the richer text forms, then whatever is there.
func defaultPasteType(_ offered: [TypeIdentifier], _ registry: TypeRegistry) -> TypeIdentifier {
    let ladder: [(TypeIdentifier) -> Bool] = [
        { $0 == .utf8PlainText },
        { registry.conforms($0, to: .plainText) && registry.textEncoding(of: $0) == .utf8 },
        { registry.conforms($0, to: .plainText) },
        { $0 == .html }, { $0 == .rtf },
        { registry.isText($0) },
    ]
    for rung in ladder {
        if let match = offered.first(where: rung) { return match }
    }
    return offered[0]
}

func utf16ToUTF8(_ data: Data) -> String {
    let bytes = [UInt8](data)
    var bigEndian = false
    var start = 0
    if bytes.starts(with: [0xFE, 0xFF]) { bigEndian = true; start = 2 }
    else if bytes.starts(with: [0xFF, 0xFE]) { start = 2 }
    var units: [UInt16] = []
    units.reserveCapacity(bytes.count / 2)
    var i = start
    while i + 1 < bytes.count {
        units.append(bigEndian ? UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]) : UInt16(bytes[i + 1]) << 8 | UInt16(bytes[i]))
        i += 2
    }
    return String(decoding: units, as: UTF16.self)
}

// MARK: types

struct TypeListing: Codable {
    var type: String
    var mimeType: String?
    var size: Int?
    var derivedFrom: String?
}

let typesCommand = Command(
    help: CommandHelp(
        name: "types", summary: "list the types the current item offers",
        usage: "pbctl types [OPTIONS]",
        details: "One line per type: identifier, preferred MIME type, size in bytes (or - when produced on demand).",
        examples: ["pbctl types", "pbctl types --json | jq -r '.[].type'"]),
    options: [
        .flag("json", nil, "print JSON for scripts"),
        .value("item", nil, "N", "list item N (default 0)"),
        .flag("registry", nil, "list the type registry (built-in and declared types) instead"),
    ],
    run: { context, arguments in
        if arguments.has("registry") {
            try context.terminal.out(try registryListing(context, json: arguments.has("json")))
            return ExitCode.ok
        }
        let pasteboard = try context.pasteboardName(arguments)
        let items = try context.backend(arguments).items(in: pasteboard)
        let index = try arguments.value("item").map { text -> Int in
            guard let n = Int(text), n >= 0 else { throw UsageError(message: "--item takes a number from 0", command: nil) }
            return n
        } ?? 0
        guard items.indices.contains(index) else {
            if arguments.has("json") { try context.terminal.out("[]\n") }
            throw PasteboardError.empty(items.isEmpty ? "nothing on '\(pasteboard)'" : "there is no item \(index)")
        }
        let listing = items[index].types.map {
            TypeListing(
                type: $0.type.rawValue, mimeType: context.registry.preferredMIMEType(of: $0.type), size: $0.size,
                derivedFrom: $0.derivedFrom?.rawValue)
        }
        if arguments.has("json") {
            try context.terminal.out(try jsonString(listing))
        } else {
            var text = ""
            let width = listing.map(\.type.count).max() ?? 0
            for entry in listing {
                text += entry.type.padding(width + 1) + (entry.mimeType ?? "-").padding(26)
                    + (entry.size.map(String.init) ?? "-") + "\n"
            }
            try context.terminal.out(text)
        }
        return ExitCode.ok
    })

// MARK: info and clear

struct InfoListing: Codable {
    struct ItemInfo: Codable {
        var types: [TypeListing]
        var sourceApplication: String?
        var sourcePath: String?
        var created: Date
        var sensitive: Bool
        var transient: Bool
        /// Other provenance (`x-document-source.identifier`, …).
        var extra: [String: String]? = nil
    }
    var pasteboard: String
    var backend: String
    /// How copies reach the terminal's clipboard (OSC 52 over SSH), when they do.
    var terminal: String?
    var changeCount: Int
    var items: [ItemInfo]
}

/// The backend's name for `info`: store, x11, or osc52 (the terminal, with the store beside it).
func backendName(_ backend: any PasteboardBackend) -> String {
    if let mirrored = backend as? MirroredPasteboard { return mirrored.readsFromMirror ? "osc52" : backendName(mirrored.primary) }
    return backend is FileStore ? "store" : "x11"
}

/// Which terminal path copies take, and why (`auto` over SSH or in a multiplexer).
func terminalDescription(_ backend: any PasteboardBackend, _ context: Context) -> String? {
    guard let mirrored = backend as? MirroredPasteboard, let terminal = mirrored.mirror as? TerminalClipboardBackend else { return nil }
    let why = mirrored.readsFromMirror ? "--backend osc52" : (context.remoteTerminalReason ?? "auto")
    return terminal.pathDescription + " (" + why + ")"
}

let infoCommand = Command(
    help: CommandHelp(
        name: "info", summary: "show a pasteboard's change count, items and metadata",
        usage: "pbctl info [OPTIONS]", details: "",
        examples: ["pbctl info", "pbctl info --json"]),
    options: [.flag("json", nil, "print JSON for scripts")],
    run: { context, arguments in
        let pasteboard = try context.pasteboardName(arguments)
        let backend = try context.backend(arguments)
        let items = try backend.items(in: pasteboard)
        let listing = InfoListing(
            pasteboard: pasteboard.rawValue, backend: backendName(backend), terminal: terminalDescription(backend, context),
            changeCount: try backend.changeCount(of: pasteboard),
            items: items.map { item in
                InfoListing.ItemInfo(
                    types: item.types.map {
                        TypeListing(
                            type: $0.type.rawValue, mimeType: context.registry.preferredMIMEType(of: $0.type),
                            size: $0.size, derivedFrom: $0.derivedFrom?.rawValue)
                    },
                    sourceApplication: item.metadata.sourceApplication, sourcePath: item.metadata.sourcePath,
                    created: item.metadata.created, sensitive: item.metadata.flags.contains(.sensitive),
                    transient: item.metadata.flags.contains(.transient),
                    extra: item.metadata.extra.isEmpty ? nil : item.metadata.extra)
            })
        if arguments.has("json") {
            try context.terminal.out(try jsonString(listing))
            return ExitCode.ok
        }
        var text = "pasteboard:   \(listing.pasteboard) (\(listing.backend))\n"
        if let terminal = listing.terminal { text += "terminal:     \(terminal)\n" }
        text += "change count: \(listing.changeCount)\n"
        text += "items:        \(listing.items.count)\n"
        for (index, item) in listing.items.enumerated() {
            text += "item \(index):\n"
            if let source = item.sourcePath ?? item.sourceApplication { text += "  source:  \(source)\n" }
            for (key, value) in (item.extra ?? [:]).sorted(by: { $0.key < $1.key }) { text += "  \(key): \(value)\n" }
            text += "  created: \(item.created.formatted(.iso8601))\n"
            if item.sensitive { text += "  flags:   sensitive\n" }
            for type in item.types {
                text += "  type:    \(type.type)" + (type.size.map { " (\($0) bytes)" } ?? "")
                    + (type.derivedFrom.map { " from \($0)" } ?? "") + "\n"
            }
        }
        try context.terminal.out(text)
        return ExitCode.ok
    })

let clearCommand = Command(
    help: CommandHelp(
        name: "clear", summary: "empty a pasteboard", usage: "pbctl clear [OPTIONS]", details: "",
        examples: ["pbctl clear", "pbctl clear --primary"]),
    options: [],
    run: { context, arguments in
        let pasteboard = try context.pasteboardName(arguments)
        try context.backend(arguments).clear(pasteboard)
        return ExitCode.ok
    })

// MARK: help

let completionsCommand = Command(
    help: CommandHelp(
        name: "completions", summary: "print the shell completion script for bash, zsh or fish",
        usage: "pbctl completions bash|zsh|fish",
        details: """
            Installed by make install and the Debian package; to try one in the current shell:
            bash: source <(pbctl completions bash); zsh: source <(pbctl completions zsh);
            fish: pbctl completions fish | source
            """,
        examples: ["pbctl completions bash > ~/.local/share/bash-completion/completions/pbctl"]),
    options: [],
    run: { context, arguments in
        guard arguments.positionals.count == 1, let shell = arguments.positionals.first else {
            throw UsageError(message: "completions takes one shell: bash, zsh or fish", command: "completions")
        }
        try context.terminal.out(try completionScript(shell))
        return ExitCode.ok
    })

/// `pbctl __complete KIND`: one candidate per line, for the completion scripts.
let completeCommand = Command(
    help: CommandHelp(name: "__complete", summary: "", usage: "", details: "", examples: []), options: [], hidden: true,
    raw: { context, arguments in
        for candidate in completionCandidates(arguments.first ?? "", context) { try? context.terminal.out(candidate + "\n") }
        return ExitCode.ok
    },
    run: { _, _ in ExitCode.ok })

let helpCommand = Command(
    help: CommandHelp(
        name: "help", summary: "show help for pbctl or one command", usage: "pbctl help [--man] [COMMAND]", details: "",
        examples: ["pbctl help paste", "pbctl help --man | man -l -    # the manual page"]),
    options: [.flag("man", nil, "print the manual page pbctl(1), in roff")],
    run: { context, arguments in
        if arguments.has("man") {
            try context.terminal.out(manPage(commands))
            return ExitCode.ok
        }
        guard let name = arguments.positionals.first else {
            try context.terminal.out(mainHelp(commands))
            return ExitCode.ok
        }
        guard let command = findCommand(name) else {
            throw UsageError(message: "no command '\(name)'", command: "help")
        }
        try context.terminal.out(commandHelp(command))
        return ExitCode.ok
    })

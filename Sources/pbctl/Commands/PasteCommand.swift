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
import Representations
import SystemIO
import CopyPaste
import Files
import Documents

/// `pbctl paste`'s arguments, parsed and checked before any I/O: an unknown `--as` is a usage error
/// whatever the pasteboard holds.
struct PasteArguments {
    static let type = OptionSpec.value("type", "t", "TYPE", .type, "paste exactly this type (identifier, MIME type or extension)")
    static let output = OptionSpec.value("output", "o", "FILE", .file, "write to FILE instead of standard output")
    static let noNewline = OptionSpec.flag("no-newline", "n", "drop one trailing newline")
    static let item = OptionSpec.value("item", nil, "N", .text, "paste only item N (from 0)")
    static let accept = OptionSpec.value("accept", "a", "LIST", .type, "comma-separated types (identifiers or MIME types) in preference order")
    static let `as` = OptionSpec.value(
        "as", nil, "FORMAT", .format,
        "always this format, converting when needed: markdown, gfm, commonmark, html, rtf, text; an image as png, jpeg, gif, bmp, tiff, webp")
    static let quality = OptionSpec.value("quality", nil, "N", .text, "JPEG and WebP quality of an image conversion, 1 to 100 (default 90); given, WebP is lossy even from a lossless source")
    static let plain = OptionSpec.flag("plain", nil, "paste as plain text: rendered from the richest source, never raw markup")
    static let keepHTML = OptionSpec.flag("keep-html", nil, "when converting HTML: keep comments, divs, unknown tags… as raw HTML")
    static let verbose = OptionSpec.flag("verbose", "v", "say on standard error which type was used and whether it was converted")
    static let timeout = OptionSpec.value("timeout", nil, "SECONDS", .text, "--backend osc52: how long to wait for the terminal's answer (default 2)")
    static let prefer = OptionSpec.value("prefer", nil, "txt|rtf", .words(["txt", "rtf"]), "as macOS pbpaste -Prefer: which kind to look for first")
    static let macCompat = OptionSpec.flag("mac-compat", nil, "behave as macOS pbpaste (set when run as pbpaste)")
    static let files = OptionSpec.flag("files", nil, "print the paths of the files on the clipboard, one per line")
    static let nul = OptionSpec.flag("null", "0", "with --files: end each path with NUL instead of a newline")
    static let into = OptionSpec.value("into", nil, "DIR", .directory, "with --files: copy the files into DIR (move them after a cut); never overwrites")
    static let specs = [
        type, output, noNewline, item, accept, `as`, quality, plain, keepHTML, verbose, timeout, prefer, macCompat, files, nul, into,
    ]

    var global: GlobalOptions
    var request: PasteRequest
    var output: String?
    var dropNewline: Bool
    var item: Int?
    var keepHTML: Bool
    var quality: Int?
    var verbose: Bool
    var timeout: Double?
    var macCompat: Bool
    /// `--files`: how to print the list (`-0`), and where to put the files (`--into`).
    var files: Bool
    var nul: Bool
    var into: String?

    /// Where `-v`'s notes go: standard error with `-v`, nowhere without.
    func report(_ context: Context) -> (String) -> Void {
        { message in if verbose { context.terminal.err("pbctl: " + message) } }
    }

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        global = try GlobalOptions(arguments, environment: context.environment)
        let exclusive = [Self.type, Self.accept, Self.as, Self.plain].filter { arguments.has($0) }
        guard exclusive.count <= 1 else {
            throw UsageError(message: exclusive.map { "--" + $0.long }.joined(separator: " and ") + " cannot be combined", command: "paste")
        }
        if let text = arguments.value(Self.type) {
            request = PasteRequest(.exact(try resolveType(text, context.registry)))
        } else if let list = arguments.value(Self.accept) {
            let types = try list.split(separator: ",").map { try resolveType(String($0), context.registry) }
            guard !types.isEmpty else { throw UsageError(message: "--accept needs at least one type", command: "paste") }
            request = PasteRequest(.accept(types))
        } else if let name = arguments.value(Self.as) {
            if let image = ImageRepresentations.type(named: name) {
                // With --quality the image is encoded anew from the original, never taken as offered.
                request = PasteRequest(.format(image, takesOffered: !arguments.has(Self.quality)))
            } else if let parsed = TextFormat(name: name) {
                request = parsed.pasteRequest
            } else {
                throw UsageError(
                    message: "unknown paste format '\(name)'; known: \(TextFormat.namesDescription); images: \(ImageRepresentations.namesDescription)",
                    command: "paste")
            }
        } else if arguments.has(Self.plain) {
            request = PasteRequest(.plain)
        } else if let prefer = arguments.value(Self.prefer) {
            guard ["txt", "rtf", "ps"].contains(prefer) else { throw UsageError(message: "--prefer takes txt or rtf", command: "paste") }
            request = PasteRequest(prefer == "rtf" ? .preferRTF : .standard)
        } else {
            request = PasteRequest(.standard)
        }
        output = arguments.value(Self.output)
        // `-o shot.jpg` alone: the image format its extension names.
        if exclusive.isEmpty, arguments.value(Self.prefer) == nil, let ext = output?.pathExtension, let image = ImageRepresentations.type(named: ext) {
            request = PasteRequest(.format(image, takesOffered: !arguments.has(Self.quality)))
        }
        if let text = arguments.value(Self.quality) {
            guard let value = Int(text), (1...100).contains(value) else { throw UsageError(message: "--quality takes a number from 1 to 100", command: "paste") }
            quality = value
        }
        dropNewline = arguments.has(Self.noNewline)
        item = try parseItemIndex(arguments.value(Self.item), command: "paste")
        keepHTML = arguments.has(Self.keepHTML)
        verbose = arguments.has(Self.verbose)
        timeout = try arguments.value(Self.timeout).map { try parseSeconds($0, option: "timeout") }
        macCompat = arguments.has(Self.macCompat)
        files = arguments.has(Self.files)
        nul = arguments.has(Self.nul)
        into = arguments.value(Self.into)
        if files, !exclusive.isEmpty {
            throw UsageError(message: "--files and --" + exclusive[0].long + " cannot be combined", command: "paste")
        }
        if !files, nul || into != nil { throw UsageError(message: "-0 and --into go with --files", command: "paste") }
    }

}

let pasteCommand = Command(
    help: CommandHelp(
        name: "paste", summary: "write a pasteboard's content to standard output or a file",
        usage: "pbctl paste [OPTIONS]",
        details: """
            Without --type, writes the best text form: UTF-8 plain text, else other plain text (Markdown
            included), else HTML, RTF or other text, else the first representation as it is; an image copied
            with pbctl pastes as the image it was. Each item is written in turn; --item N picks one.
            Markdown on the pasteboard is read as GFM when converted (--as commonmark converts it too).
            Any offered image (PNG, JPEG, GIF, BMP, TIFF, WebP) pastes as any of png, jpeg, gif, bmp, tiff
            and webp (--as, or the extension of -o FILE); --quality N (1-100, default 90) for JPEG and WebP
            (given, WebP is lossy and an image already in the format is encoded anew; without it a lossless
            source gives lossless WebP).
            """,
        examples: [
            "pbctl paste > notes.md",
            "pbctl paste --type public.html        # exactly that type, or exit 1 listing the offered types",
            "pbctl paste --type png -o shot.png",
            "pbctl paste -o shot.jpg --quality 80   # any offered image, as JPEG",
            "pbctl paste -n                        # without one trailing newline",
        ]),
    options: PasteArguments.specs,
    run: { context, arguments in try runPaste(PasteArguments(arguments, context), context) })

extension PasteArguments {
    /// The delivery policy these options ask for (``PasteDelivery``).
    func delivery(_ context: Context) -> PasteDelivery {
        var delivery = PasteDelivery(registry: context.registry)
        delivery.exact = request.isExact
        delivery.keepHTML = keepHTML
        delivery.quality = quality
        if verbose {
            let terminal = context.terminal
            delivery.report = { terminal.err("pbctl: " + $0) }
        }
        return delivery
    }
}

/// `source`: the backend and pasteboard to paste from instead of the chosen one (`history paste`).
func runPaste(
    _ options: PasteArguments, _ context: Context, from source: (backend: any PasteboardBackend, pasteboard: PasteboardName)? = nil
) throws -> Int32 {
    let pasteboard = source?.pasteboard ?? options.global.pasteboard
    let backend = try source?.backend ?? context.backend(options.global, .init(terminalTimeout: options.timeout, verbose: options.verbose))
    let items = try backend.items(in: pasteboard)
    if items.isEmpty, options.macCompat { return ExitCode.ok }
    guard !items.isEmpty else { throw PasteboardError.empty("nothing to paste on '\(pasteboard)'") }
    var indices: [Int]
    if let index = options.item {
        guard index < items.count else { throw PasteboardError.empty("there is no item \(index) (items: \(items.count))") }
        indices = [index]
    } else {
        indices = Array(items.indices)
    }
    if options.files { return try pasteFiles(items, indices, backend, pasteboard, options, context) }
    // Decided for every item before a byte is written: a type that is not offered fails cleanly.
    var choices = try indices.map {
        try options.request.choose(items[$0].types, registry: context.registry, canConvert: Conversion.canConvert)
    }
    if options.macCompat {
        // pbpaste writes text only: nothing at all when the pasteboard holds none.
        (indices, choices) = PasteDelivery.textOnly(choices, items: indices, registry: context.registry)
        if choices.isEmpty { return ExitCode.ok }
    }
    let exactType: TypeIdentifier? = if case .exact(let type) = options.request.mode { type } else { nil }
    // A package folder (`-o NAME.textbundle`) is unpacked from whole bytes; everything else streams.
    if let path = options.output, exactType == .textBundle {
        let sink = DataSink()
        for (index, choice) in zip(indices, choices) { try options.delivery(context).deliver(choice, item: index, of: items[index], from: backend, pasteboard, to: sink) }
        try writePastedFile(path, sink.data, items: indices.map { items[$0] }, requested: exactType, report: options.report(context))
        return ExitCode.ok
    }
    let file = try options.output.map { try OutputFile($0) }
    let sink = DescriptorSink(
        fd: file?.fd ?? STDOUT_FILENO, path: options.output ?? "standard output", dropTrailingNewline: options.dropNewline,
        brokenPipe: options.output == nil ? { exit(ExitCode.brokenPipe) } : nil)
    for (index, choice) in zip(indices, choices) { try options.delivery(context).deliver(choice, item: index, of: items[index], from: backend, pasteboard, to: sink) }
    try sink.finish()
    try file?.commit()
    if let path = options.output {
        recordDocumentSource(path, items: indices.map { items[$0] }, report: options.report(context))
    }
    return ExitCode.ok
}

/// `paste --files`: the file list the owner offers (`x-special/gnome-copied-files`, `text/uri-list`,
/// KDE's cut flag), printed as local paths, or copied (moved after a cut) into `--into DIR`.
func pasteFiles(
    _ items: [ItemSummary], _ indices: [Int], _ backend: any PasteboardBackend, _ pasteboard: PasteboardName,
    _ options: PasteArguments, _ context: Context
) throws -> Int32 {
    let lists = try PasteDelivery.fileLists(items, indices, from: backend, pasteboard)
    guard !lists.isEmpty else {
        throw PasteboardError(
            .typeNotOffered,
            "no file list is offered (text/uri-list or x-special/gnome-copied-files); offered: "
                + items.flatMap { $0.types.map(\.type.rawValue) }.joined(separator: ", "))
    }
    guard let folder = options.into else {
        // Paths only: a URI that names no local file (http://…) is not a path, and is named on
        // standard error instead.
        let (paths, notLocal) = PasteDelivery.localPaths(lists)
        for uri in notLocal { context.terminal.err("pbctl paste: \(uri.visibleControlCharacters): not a local file; skipped") }
        var text = Data()
        for path in paths {
            text.append(contentsOf: path.pathBytes)
            text.append(options.nul ? 0 : 0x0A)
        }
        try context.terminal.out(text)
        if paths.isEmpty { throw PasteboardError.empty("the file list names no local file") }
        return ExitCode.ok
    }
    let sources = try PasteDelivery.fileSources(lists)
    let paste = try FilePaste.plan(sources, into: folder)
    try paste.execute { step in
        if options.verbose {
            context.terminal.err("pbctl: \(step.move ? "moved" : "copied") \(step.source.shownPath) to \(step.destination.shownPath)")
        }
    }
    // After a cut the files have moved: the list names nothing any more (file managers clear it too).
    if paste.steps.contains(where: \.move) { try? backend.clear(pasteboard) }
    return ExitCode.ok
}

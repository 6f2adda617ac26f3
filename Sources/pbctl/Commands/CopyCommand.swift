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
import History
import SystemIO
import Representations
import CopyPaste
import Documents

/// `pbctl copy`'s arguments, parsed and checked before any I/O.
struct CopyArguments {
    static let type = OptionSpec.value("type", "t", "TYPE", .type, "what the bytes are: a type identifier, MIME type or extension")
    static let from = OptionSpec.value("from", nil, "FORMAT", .format, "same as --type with a format name (\(TextFormat.namesDescription))")
    static let plainText = OptionSpec.value("plain-text", nil, "source|rendered", .words(["source", "rendered"]), "the plain text a Markdown copy offers (default: source)")
    static let sensitive = OptionSpec.flag("sensitive", nil, "secret content: never written to disk or history; cleared after 45 s")
    static let transient = OptionSpec.flag("transient", nil, "mark the content transient: clipboard managers should not record it")
    static let source = OptionSpec.value("source", nil, "ID", .text, "the application the content comes from (org.nspasteboard.source)")
    static let verbose = OptionSpec.flag("verbose", "v", "say what was skipped (extended attributes, images a TextBundle could not take)")
    static let base = OptionSpec.value(
        "base", nil, "DIR", .directory, "Markdown on standard input: the folder its images are taken from (default: the current one)")
    static let maxSize = OptionSpec.value(
        "max-size", nil, "SIZE", .text, "refuse input larger than SIZE (K, M, G suffixes; default 1G, or PBCTL_MAX_SIZE)")
    static let macCompat = OptionSpec.flag("mac-compat", nil, "behave as macOS pbcopy (set when run as pbcopy)")
    static let foreground = OptionSpec.flag("foreground", nil, "X11, Wayland: serve the selection from this process instead of a background owner")
    static let pasteOnce = OptionSpec.flag("paste-once", nil, "serve one paste, then give the content up (never recorded; on the store held in memory, not on disk)")
    static let clearAfter = OptionSpec.value("clear-after", nil, "SECONDS", .text, "give the content up and wipe it after SECONDS (never recorded; on the store held in memory, not on disk)")
    static let files = OptionSpec.flag("files", nil, "copy the FILEs themselves (for a file manager), not their content")
    static let cut = OptionSpec.flag("cut", nil, "with --files: the paste moves the files (a cut)")
    static let specs = [
        type, from, plainText, sensitive, transient, source, verbose, base, maxSize, macCompat, foreground, pasteOnce, clearAfter,
        files, cut,
    ]

    var global: GlobalOptions
    /// `--type` or `--from`, resolved.
    var declared: TypeIdentifier?
    var plainText = Producers.PlainTextChoice.source
    var sensitive: Bool
    var transient: Bool
    var sourceApplication: String?
    var verbose: Bool
    var base: String?
    var maximumSize: Int
    var macCompat: Bool
    /// Files, or `-` for standard input.
    var sources: [String]
    var copy = Pasteboard.CopyOptions()
    /// `--files`: the paths to offer as a file list, and whether it is a cut.
    var files: [String]?
    var cut: Bool

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        global = try GlobalOptions(arguments, environment: context.environment)
        if let text = arguments.value(Self.type) {
            declared = try resolveType(text, context.registry)
        } else if let text = arguments.value(Self.from) {
            declared = try TextFormat(name: text)?.type ?? resolveType(text, context.registry)
        }
        if let text = arguments.value(Self.plainText) {
            guard let choice = Producers.PlainTextChoice(rawValue: text) else {
                throw UsageError(message: "--plain-text takes source or rendered", command: "copy")
            }
            plainText = choice
        }
        sensitive = arguments.has(Self.sensitive)
        transient = arguments.has(Self.transient)
        sourceApplication = arguments.value(Self.source)
        if let source = sourceApplication, ForeignContent.hasControlCharacter(source) || source.utf8.count > ForeignContent.maximumTextLength {
            throw UsageError(
                message: "--source takes a name without control characters, at most \(ForeignContent.maximumTextLength) bytes", command: "copy")
        }
        verbose = arguments.has(Self.verbose)
        base = arguments.value(Self.base)
        maximumSize = try context.maximumInputSize(arguments.value(Self.maxSize))
        macCompat = arguments.has(Self.macCompat)
        sources = arguments.positionals.isEmpty ? ["-"] : arguments.positionals
        copy = Pasteboard.CopyOptions()
        copy.foreground = arguments.has(Self.foreground)
        copy.pasteOnce = arguments.has(Self.pasteOnce)
        copy.clearAfter = try arguments.value(Self.clearAfter).map { try parseSeconds($0, option: "clear-after") }
        cut = arguments.has(Self.cut)
        if arguments.has(Self.files) {
            guard !arguments.positionals.isEmpty else { throw UsageError(message: "--files needs at least one PATH", command: "copy") }
            guard declared == nil else { throw UsageError(message: "--files and --type/--from cannot be combined", command: "copy") }
            files = arguments.positionals
        } else if cut {
            throw UsageError(message: "--cut goes with --files", command: "copy")
        }
    }

    /// What every item of this copy carries.
    func metadata(sourcePath: String? = nil) -> ItemMetadata {
        var metadata = ItemMetadata(sourceApplication: sourceApplication ?? "pbctl", sourcePath: sourcePath)
        if sensitive { metadata.flags.insert(.sensitive) }
        if transient { metadata.flags.insert(.transient) }
        return metadata
    }
}

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
    options: CopyArguments.specs, operands: .file,
    run: { context, arguments in try runCopy(CopyArguments(arguments, context), context) })

func runCopy(_ options: CopyArguments, _ context: Context) throws -> Int32 {
    let backend = try context.backend(options.global, .init(sensitive: options.sensitive, verbose: options.verbose))
    // The store takes input as it streams in (memory does not grow with its size); sensitive content
    // never reaches disk, so it is read into memory for its holder.
    let spooler = options.sensitive ? nil : backend.spooling
    let assembly = options.assembly(context)
    // Nobody watches the store or the terminal for changes (a daemon records a display's clipboard):
    // the copy records itself in the history (``CopyCommit``, which takes the store's large files as they
    // are, and links the same large file copied again from the history's file of those bytes).
    let commit = context.copyCommit(verbose: options.verbose)
    commit.prepare(spooler, for: backend, options.global.pasteboard, metadata: options.metadata(), options: options.copy)
    var items: [Item] = []
    if let paths = options.files {
        items.append(try CopyAssembly.fileListItem(paths, cut: options.cut, metadata: options.metadata()))
    }
    for source in options.files == nil ? options.sources : [] {
        items.append(try assembly.item(source, metadata: options.metadata(), spooler: spooler, pasteboard: options.global.pasteboard))
    }
    // The copy goes on when the history fails: said once it is made.
    context.reportNotRecorded(try commit.commit(items, to: backend, pasteboard: options.global.pasteboard, options: options.copy))
    return ExitCode.ok
}

extension CopyArguments {
    /// The copy policy these options ask for (``CopyAssembly``).
    func assembly(_ context: Context) -> CopyAssembly {
        var assembly = CopyAssembly(registry: context.registry) { try context.terminal.readStandardInput(limit: $0) }
        assembly.declared = declared
        assembly.plainText = plainText
        assembly.macCompat = macCompat
        assembly.maximumSize = maximumSize
        assembly.base = base
        assembly.htmlImages = context.htmlImages
        assembly.verbose = verbose
        let terminal = context.terminal
        let verbose = verbose
        assembly.report = { message in if verbose { terminal.err("pbctl: " + message) } }
        return assembly
    }
}

/// ``TypeResolution/resolve(_:_:)``, its refusal a usage error.
func resolveType(_ text: String, _ registry: TypeRegistry) throws -> TypeIdentifier {
    do { return try TypeResolution.resolve(text, registry) } catch { throw UsageError(message: error.message, command: nil) }
}

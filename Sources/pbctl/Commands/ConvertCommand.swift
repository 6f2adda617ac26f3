#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import Representations
import SystemIO

struct ConvertArguments {
    static let from = OptionSpec.value("from", "f", "FORMAT", .format, "the input format")
    static let to = OptionSpec.value("to", "t", "FORMAT", .format, "the output format")
    static let output = OptionSpec.value("output", "o", "FILE", .file, "write to FILE instead of standard output")
    static let standalone = OptionSpec.flag("standalone", "s", "with --to html: a whole document with <meta charset=\"utf-8\">")
    static let keepHTML = OptionSpec.flag(
        "keep-html", nil, "with --from html: keep comments, divs, unknown tags… as raw HTML (like pandoc's raw_html)")
    static let quality = OptionSpec.value("quality", nil, "N", .text, "JPEG and WebP quality of an image conversion, 1 to 100 (default 90); given, WebP is lossy even from a lossless source")
    static let specs = [from, to, output, standalone, keepHTML, quality]

    /// Text formats, or image formats (both sides images).
    var from: TextFormat
    var to: TextFormat
    var images: (from: TypeIdentifier, to: TypeIdentifier)?
    var input: String?
    var output: String?
    var options: ConversionOptions

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        _ = try GlobalOptions(arguments, environment: context.environment)
        func format(_ option: OptionSpec, role: String) throws -> TextFormat {
            guard let name = arguments.value(option) else {
                throw UsageError(message: "convert needs --\(option.long) FORMAT", command: "convert")
            }
            guard let format = TextFormat(name: name) else {
                throw UsageError(message: "unknown \(role) format '\(name)'; known: \(TextFormat.namesDescription)", command: "convert")
            }
            return format
        }
        if let source = arguments.value(Self.from).flatMap(ImageRepresentations.type(named:)),
            let target = arguments.value(Self.to).flatMap(ImageRepresentations.type(named:))
        {
            images = (source, target)
            (from, to) = (.text, .text)
        } else {
            from = try format(Self.from, role: "input")
            to = try format(Self.to, role: "output")
        }
        guard arguments.positionals.count <= 1 else {
            throw UsageError(message: "convert takes at most one FILE", command: "convert")
        }
        input = arguments.positionals.first.flatMap { $0 == "-" ? nil : $0 }
        output = arguments.value(Self.output)
        options = ConversionOptions(standalone: arguments.has(Self.standalone), keepRawHTML: arguments.has(Self.keepHTML))
        if let text = arguments.value(Self.quality) {
            guard let value = Int(text), (1...100).contains(value) else { throw UsageError(message: "--quality takes a number from 1 to 100", command: "convert") }
            options.imageQuality = value
        }
    }
}

let convertCommand = Command(
    help: CommandHelp(
        name: "convert", summary: "convert a document between Markdown, HTML, RTF and plain text, an image between formats",
        usage: "pbctl convert --from FORMAT --to FORMAT [FILE]",
        details: """
            Reads FILE or standard input, writes standard output. Formats: commonmark (strict CommonMark
            0.31.2), gfm (also markdown, md: CommonMark with GitHub's extensions), html, rtf, text; or
            images, both sides: png, jpeg, gif, bmp, tiff, webp (--quality for JPEG and WebP: with it WebP is lossy;
            without it a lossless source gives lossless WebP).
            HTML input is read as clipboard HTML (comments, scripts and styles dropped, unknown tags and divs
            unwrapped) unless --keep-html keeps what Markdown cannot represent as raw HTML.
            The same conversions as `pbctl paste --as FORMAT`, byte for byte.
            """,
        examples: [
            "pbctl convert --from gfm --to html README.md",
            "pbctl convert --from commonmark --to html < spec.md",
            "pbctl convert --from html --to markdown --keep-html page.html",
        ]),
    options: ConvertArguments.specs, operands: .file,
    run: { context, arguments in
        let options = try ConvertArguments(arguments, context)
        // Markdown is read with a final line ending (its meaning is the same): the parser needs every line to
        // end with one, and would otherwise copy the whole input to add it.
        let lineEnding = options.images == nil && options.from.isMarkdown
        let input = try options.input.map { try POSIX.readFile($0, finalLineEnding: lineEnding) }
            ?? context.terminal.readStandardInput(finalLineEnding: lineEnding)
        if let images = options.images {
            let output = try ImageRepresentations.convert(input, from: images.from, to: images.to, quality: options.options.imageQuality)
            if let path = options.output {
                try POSIX.writeFile(path, output)
            } else {
                try context.terminal.out(output)
            }
            return ExitCode.ok
        }
        // Written as it is made where the conversion streams (Markdown to HTML): the whole output never
        // has to fit in memory at once.
        if let path = options.output {
            try POSIX.writeFile(path) { write in
                try Conversion.convert(input, from: options.from, to: options.to, options: options.options, writingTo: write)
            }
        } else {
            try Conversion.convert(input, from: options.from, to: options.to, options: options.options) { try context.terminal.out($0) }
        }
        return ExitCode.ok
    })

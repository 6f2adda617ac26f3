#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import PasteboardStore
import Representations

/// The formats `pbctl convert` reads and writes, by the names users type.
enum Format: String, CaseIterable {
    case commonmark, gfm, html, rtf, text

    static let aliases: [String: Format] = [
        "markdown": .gfm, "md": .gfm, "gfm": .gfm, "commonmark": .commonmark, "cm": .commonmark,
        "html": .html, "htm": .html, "rtf": .rtf, "text": .text, "txt": .text, "plain": .text,
    ]

    var textFormat: TextFormat {
        switch self {
        case .commonmark: return .commonmark
        case .gfm: return .gfm
        case .html: return .html
        case .rtf: return .rtf
        case .text: return .text
        }
    }

    /// The type a document of this format is held as.
    var type: TypeIdentifier {
        switch self {
        case .commonmark, .gfm: return .markdown
        case .html: return .html
        case .rtf: return .rtf
        case .text: return .utf8PlainText
        }
    }

    /// The format of a type, when pbctl converts it.
    init?(_ type: TypeIdentifier) {
        switch type {
        case .markdown: self = .gfm
        case .html: self = .html
        case .rtf: self = .rtf
        case .utf8PlainText, .plainText: self = .text
        default: return nil
        }
    }

    static func parse(_ text: String, role: String) throws -> Format {
        guard let format = aliases[text.lowercased()] else {
            throw UsageError(
                message: "unknown \(role) format '\(text)'; known: commonmark, gfm (markdown, md), html, rtf, text",
                command: nil)
        }
        return format
    }
}

let convertCommand = Command(
    help: CommandHelp(
        name: "convert", summary: "convert a document between Markdown, HTML, RTF and plain text",
        usage: "pbctl convert --from FORMAT --to FORMAT [FILE]",
        details: """
            Reads FILE or standard input, writes standard output. Formats: commonmark (strict CommonMark
            0.31.2), gfm (also markdown, md: CommonMark with GitHub's extensions), html, rtf, text.
            HTML input is read as clipboard HTML (comments, scripts and styles dropped, unknown tags and divs
            unwrapped) unless --keep-html keeps what Markdown cannot represent as raw HTML.
            """,
        examples: [
            "pbctl convert --from gfm --to html README.md",
            "pbctl convert --from commonmark --to html < spec.md",
            "pbctl convert --from html --to markdown --keep-html page.html",
        ]),
    options: [
        .value("from", "f", "FORMAT", "the input format"),
        .value("to", "t", "FORMAT", "the output format"),
        .value("output", "o", "FILE", "write to FILE instead of standard output"),
        .flag("standalone", "s", "with --to html: a whole document with <meta charset=\"utf-8\">"),
        .flag("keep-html", nil, "with --from html: keep comments, divs, unknown tags… as raw HTML (like pandoc's raw_html)"),
    ],
    run: { context, arguments in
        guard let fromText = arguments.value("from") else {
            throw UsageError(message: "convert needs --from FORMAT", command: "convert")
        }
        guard let toText = arguments.value("to") else {
            throw UsageError(message: "convert needs --to FORMAT", command: "convert")
        }
        let from = try Format.parse(fromText, role: "input")
        let to = try Format.parse(toText, role: "output")
        guard arguments.positionals.count <= 1 else {
            throw UsageError(message: "convert takes at most one FILE", command: "convert")
        }
        let input: Data
        if let path = arguments.positionals.first, path != "-" {
            input = try POSIX.readFile(path)
        } else {
            input = try context.terminal.readStandardInput()
        }
        let output = try convert(input, from: from, to: to, standalone: arguments.has("standalone"), keepRawHTML: arguments.has("keep-html"))
        if let path = arguments.value("output") {
            try POSIX.writeFile(path, output)
        } else {
            try context.terminal.out(output)
        }
        return ExitCode.ok
    })

/// Converts between formats in-process. Markdown to HTML keeps the dialect's own rendering (strict
/// CommonMark passes raw HTML through untouched); everything else goes through ``Conversion``.
func convert(_ input: Data, from: Format, to: Format, standalone: Bool = false, keepRawHTML: Bool = false) throws -> Data {
    if to == .html, !standalone, from == .commonmark || from == .gfm {
        let options: MarkdownOptions = from == .gfm ? .gfm : .commonmark
        return Data(HTMLWriter.render(MarkdownParser.parse([UInt8](input), options: options), options: options))
    }
    do {
        return Data(
            try Conversion.convert(
                [UInt8](input), from: from.textFormat, to: to.textFormat,
                options: ConversionOptions(standalone: standalone, keepRawHTML: keepRawHTML)))
    } catch let error as RepresentationError {
        throw PasteboardError(.invalidData, "nothing usable in the \(from.rawValue) input: \(error)")
    }
}

/// Whether pbctl can convert `source` into `target`: every pair of the text formats it reads and
/// writes (Markdown, HTML, RTF, plain text) goes through one AST.
@Sendable func canConvert(_ source: TypeIdentifier, _ target: TypeIdentifier) -> Bool {
    guard let from = Format(source), let to = Format(target) else { return false }
    _ = (from, to)
    return source != target
}

/// Produces a derived representation for a backend (the store or an X11 owner).
@Sendable func produceRepresentation(_ source: TypeIdentifier, _ data: Data, _ target: TypeIdentifier) throws -> Data {
    try produceRepresentation(source, data, target, keepRawHTML: false)
}

/// As ``produceRepresentation(_:_:_:)``; `keepRawHTML` keeps raw HTML when reading HTML (`paste --keep-html`).
func produceRepresentation(_ source: TypeIdentifier, _ data: Data, _ target: TypeIdentifier, keepRawHTML: Bool) throws -> Data {
    guard let from = Format(source), let to = Format(target) else {
        throw PasteboardError(.typeNotOffered, "cannot produce \(target) from \(source)")
    }
    return try convert(data, from: from, to: to, keepRawHTML: keepRawHTML)
}

// pbctl as wl-clipboard 2.1.0's wl-copy and wl-paste.
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
import Backends
import CopyPaste
import Representations
import Personalities
import SystemIO

/// `wl-copy [-p] [-t TYPE] [-n] [-o] [-f] [TEXT…]`, `wl-copy --clear`.
func runWlCopy(_ arguments: [String], _ tool: ToolSession) throws -> Int32 {
    let invocation: WlCopyInvocation
    switch WlClipboard.parseCopy(arguments, program: tool.program, posixlyCorrect: tool.environment["POSIXLY_CORRECT"] != nil) {
    case .reply(let reply): return tool.reply(reply)
    case .run(let parsed): invocation = parsed
    }
    let backend = try tool.backend(display: nil, displayFailure: { _ in "" })
    let pasteboard: PasteboardName = invocation.primary ? .primary : .general
    if invocation.clear {
        try backend.clear(pasteboard)
        return 0
    }
    let source: ToolSession.CopySource
    var type: ToolSession.CopyType = invocation.type.map { .named($0) } ?? .text
    if let text = invocation.text {
        // Arguments are bytes (main.swift keeps each byte that is not UTF-8 in PathBytes' reversible
        // form): the words' own bytes are copied, whatever they are.
        source = .bytes(Data(PathBytes.bytes(text)))
    } else {
        // Standard input keeps its file's name, which names its type, as wl-copy's copy of it does.
        if invocation.type == nil, let path = POSIX.pathOfDescriptor(STDIN_FILENO), let ext = path.pathExtension,
            let named = tool.registry.types(withTag: ext, .filenameExtension).first
        {
            type = .named(tool.registry.preferredMIMEType(of: named) ?? named.rawValue)
        }
        if invocation.trimNewline {
            var data = try tool.readStandardInput(limit: try tool.maximumInputSize())
            if data.last == 0x0A { data.removeLast() }
            source = .bytes(data)
        } else {
            source = .standardInput
        }
    }
    let item = try tool.item(source, type: type)
    var options = CopyOptions()
    options.pasteOnce = invocation.pasteOnce
    if invocation.foreground, let serving = backend.serving {
        try serving.serve(item, on: pasteboard, options: options) {}
        return 0
    }
    try tool.offer(item, on: backend, pasteboard: pasteboard, options: options)
    return 0
}

/// `wl-paste [-p] [-n] [-l] [-t TYPE] [-w COMMAND…]`.
func runWlPaste(_ arguments: [String], _ tool: ToolSession) throws -> Int32 {
    let invocation: WlPasteInvocation
    switch WlClipboard.parsePaste(arguments, program: tool.program, posixlyCorrect: tool.environment["POSIXLY_CORRECT"] != nil) {
    case .reply(let reply): return tool.reply(reply)
    case .run(let parsed): invocation = parsed
    }
    let backend = try tool.backend(display: nil, displayFailure: { _ in "" })
    let pasteboard: PasteboardName = invocation.primary ? .primary : .general
    if let command = invocation.watch { return try wlPasteWatch(command, invocation, tool, backend, pasteboard) }
    let names = try tool.offeredNames(backend, pasteboard, vocabulary: .mimeTypes)
    guard !names.isEmpty else { throw ToolFailure(message: WlClipboard.noSelection) }
    if invocation.listTypes {
        try tool.out(Data(names.map { $0 + "\n" }.joined().utf8))
        return 0
    }
    let output = CountingSink(tool.standardOutputSink())
    guard let written = try wlPasteContent(invocation, names, tool, backend, pasteboard, into: output) else {
        throw ToolFailure(message: WlClipboard.noSuitableType)
    }
    // A paste-once owner that has served its paste may still hold the selection a moment (pbctl's keeps
    // it 250 ms so its reader can tell a whole transfer) and sends nothing: the copy has been taken, and
    // wl-paste says so as it does once the selection is gone.
    if output.count == 0, names.contains(ClipboardMarkers.transient), selectionGoes(tool, backend, pasteboard, from: names) {
        throw ToolFailure(message: WlClipboard.noSelection)
    }
    // A line ending after text unless -n; never after other content.
    if !invocation.noNewline, WlClipboard.isText(written) { try tool.out(Data([0x0A])) }
    return 0
}

/// The content wl-paste chooses (``WlClipboard/chooseType(offered:explicit:inferred:)``: `--type`, else
/// the type the file standard output goes to is named for, else text), or, when a MIME type asked for is
/// not offered, what pbctl's negotiation makes of what is (`--type image/jpeg` of a PNG). Returns the
/// MIME type written, nil when there is nothing suitable.
private func wlPasteContent(
    _ invocation: WlPasteInvocation, _ names: [String], _ tool: ToolSession, _ backend: any PasteboardBackend, _ pasteboard: PasteboardName,
    into sink: any RepresentationSink
) throws -> String? {
    var inferred: String?
    if invocation.type == nil, let path = POSIX.pathOfDescriptor(STDOUT_FILENO), let ext = path.pathExtension,
        let type = tool.registry.types(withTag: ext, .filenameExtension).first
    {
        inferred = tool.registry.preferredMIMEType(of: type)
    }
    // pbctl's rule: an image pastes as itself, never as text. An owner offering an image first and no
    // plain text (pbctl's copy of an image, which adds HTML and RTF carrying it) gives the image where
    // wl-paste's text ladder would take the HTML.
    var chosen = WlClipboard.chooseType(offered: names, explicit: invocation.type, inferred: inferred)
    if invocation.type == nil, inferred == nil, let first = names.first, first.hasPrefix("image/"),
        !names.contains(where: { TypeRegistry.plainTextMIMETypes.contains($0) || $0.hasPrefix("text/plain") })
    {
        chosen = first
    }
    if let mime = chosen {
        if let native = backend.nativeOffer, native.nativeVocabulary == .mimeTypes {
            try native.read(name: mime, from: pasteboard, into: sink)
        } else {
            try tool.paste(PasteRequest(.exact(tool.mimeType(mime, in: backend, pasteboard))), from: backend, pasteboard, into: sink)
        }
        return mime
    }
    guard let wanted = invocation.type ?? inferred, wanted.contains("/") else { return nil }
    do {
        try tool.paste(PasteRequest(.accept([tool.declaredType(wanted)])), from: backend, pasteboard, into: sink)
    } catch let error as PasteboardError where error.code == .typeNotOffered {
        return nil
    }
    return wanted
}

/// `--watch COMMAND…`: COMMAND runs with the selection's content on its standard input now and each time
/// the selection changes (not when it is cleared), until the display goes away.
private func wlPasteWatch(
    _ command: [String], _ invocation: WlPasteInvocation, _ tool: ToolSession, _ backend: any PasteboardBackend, _ pasteboard: PasteboardName
) throws -> Int32 {
    guard let watching = backend.watching else {
        throw ToolFailure(message: "Watch mode requires a compositor that supports wlroots data-control protocol\n")
    }
    var environment = tool.environment
    environment.removeValue(forKey: "PBCTL_STATE")
    func runCommand() {
        guard let names = try? tool.offeredNames(backend, pasteboard, vocabulary: .mimeTypes), !names.isEmpty else { return }
        let content = DataSink()
        guard (try? wlPasteContent(invocation, names, tool, backend, pasteboard, into: content)) ?? nil != nil else { return }
        let status = runTool(command, input: content.data, environment: environment, captureOutput: false).status
        if status == 127 { tool.err("Failed to spawn \(command[0]): \(POSIX.errorString(ENOENT))") }
    }
    runCommand()
    try watching.watch(pasteboard) { change in
        if !change.types.isEmpty { runCommand() }
        return true
    }
    return 1
}

extension ToolSession {
    /// The type a MIME name stands for among what `backend` holds: the held type offered under that name
    /// (``offeredNames(_:_:vocabulary:)``), else the registry's.
    func mimeType(_ name: String, in backend: any PasteboardBackend, _ pasteboard: PasteboardName) throws -> TypeIdentifier {
        let held = try backend.items(in: pasteboard).first?.types.map(\.type) ?? []
        if let type = held.first(where: { type in
            (type == .utf8PlainText
                ? TypeRegistry.plainTextMIMETypes
                : type == .latin1PlainText ? TypeRegistry.latin1TextMIMETypes : registry.tags(of: type, .mimeType)).contains(name)
        }) {
            return type
        }
        if TypeRegistry.plainTextMIMETypes.contains(name),
            let text = held.first(where: { registry.conforms($0, to: .plainText) && registry.textEncoding(of: $0) == .utf8 })
        {
            return text
        }
        return declaredType(name)
    }
}

/// Whether the selection offered as `names` goes within half a second (a paste-once owner giving it up).
private func selectionGoes(_ tool: ToolSession, _ backend: any PasteboardBackend, _ pasteboard: PasteboardName, from names: [String]) -> Bool {
    for _ in 0..<20 {
        guard let now = try? tool.offeredNames(backend, pasteboard, vocabulary: .mimeTypes) else { return false }
        if now.isEmpty { return true }
        if now != names { return false }
        usleep(25_000)
    }
    return false
}


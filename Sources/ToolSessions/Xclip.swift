// pbctl as xclip 0.13: `xclip [-i|-o] [-selection S] [-t TARGET] [-f] [-r] [-l N] [-d DISPLAY] [FILE…]`.
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
import CopyPaste
import Pasteboard
import Backends
import CopyPaste
import Representations
import Personalities
import SystemIO

func runXclip(_ arguments: [String], _ tool: ToolSession) throws -> Int32 {
    let invocation: XclipInvocation
    switch Xclip.parse(arguments, program: tool.program) {
    case .reply(let reply): return tool.reply(reply)
    case .run(let parsed): invocation = parsed
    }
    let verbose = invocation.verbosity == .verbose
    if verbose, let display = invocation.display { tool.err("Display: \(display)\n") }
    if verbose, invocation.loops != 0 { tool.err("Loops: \(invocation.loops)\n") }
    let pasteboard = xclipPasteboard(invocation.selection)
    let backend = try tool.backend(display: invocation.display, displayFailure: { Xclip.cannotOpenDisplay($0) }, holding: pasteboard)
    if verbose {
        tool.err("Connected to X server.\n")
        if invocation.selectionName != nil { tool.err("Using selection: \(invocation.verboseSelectionName)\n") }
        tool.err(invocation.noUTF8 ? "Using old UNICODE instead of UTF8.\n" : "Using \(invocation.effectiveTarget).\n")
    }
    switch invocation.direction {
    case .input: return try xclipCopy(invocation, tool, backend, pasteboard)
    case .output: return try xclipPaste(invocation, tool, backend, pasteboard)
    }
}

private func xclipPasteboard(_ selection: XclipInvocation.Selection) -> PasteboardName {
    switch selection {
    case .primary: return .primary
    case .secondary: return .secondary
    case .clipboard: return .general
    case .cutBuffer: return .cutBuffer
    }
}

/// `xclip [-i]`: the files named (concatenated), else standard input, offered as `-target` says (else as
/// text, or as the image it is), served by pbctl's owner: in the background, or here with `-quiet` and
/// `-verbose` until another client takes the selection. Unlike xclip's, the background owner never
/// holds the caller's standard output open, so `out=$(… | xclip)` returns at once.
private func xclipCopy(_ invocation: XclipInvocation, _ tool: ToolSession, _ backend: any PasteboardBackend, _ pasteboard: PasteboardName) throws -> Int32 {
    let verbose = invocation.verbosity == .verbose
    // Read whole where xclip changes the bytes or echoes them; else streamed as pbctl copy streams.
    var source: ToolSession.CopySource
    if invocation.files.count > 1 || invocation.removeLastNewline || invocation.filter {
        var data = Data()
        let limit = try tool.maximumInputSize()
        if invocation.files.isEmpty {
            data = try tool.readStandardInput(limit: limit)
        }
        for file in invocation.files {
            if verbose { tool.err("Reading \(file)...\n") }
            data.append(try readFileForXclip(file, tool, limit: limit - data.count))
        }
        if invocation.removeLastNewline, data.last == 0x0A { data.removeLast() }
        if invocation.filter, invocation.files.isEmpty { try tool.out(data) }
        source = .bytes(data)
    } else if let file = invocation.files.first {
        if verbose { tool.err("Reading \(file)...\n") }
        // Refused as xclip refuses it, before anything is read.
        _ = try readFileForXclip(file, tool, limit: 0, probeOnly: true)
        source = .file(file)
    } else {
        source = .standardInput
    }
    let type: ToolSession.CopyType = invocation.targetIsExplicit ? .named(invocation.effectiveTarget) : .text
    let item = try tool.item(source, type: type)
    var options = CopyOptions()
    options.foreground = invocation.verbosity != .silent && backend.serving != nil
    // -loops N: N pastes, then the selection is given up; -quiet and -verbose say which one is awaited.
    let loops = invocation.loops
    let talks = invocation.verbosity > .silent
    options.pasteOnce = loops == 1  // what the owners without a count (Wayland, a remote) can do
    if loops > 0 || talks {
        let err = ToolSession.writeStandardError
        options.afterPaste = { served in
            if talks, loops < 1 || served < loops { err(Xclip.waitingLine(request: served + 1, loops: loops)) }
            return loops < 1 || served < loops
        }
    }
    if options.foreground, let serving = backend.serving {
        try serving.serve(item, on: pasteboard, options: options) {
            if invocation.verbosity > .silent { tool.err(Xclip.waitingMessage(loops: invocation.loops)) }
        }
        return 0
    }
    try tool.offer(item, on: backend, pasteboard: pasteboard, options: options)
    return 0
}

/// A file xclip reads: its bytes, or xclip's `perror` words for it.
private func readFileForXclip(_ file: String, _ tool: ToolSession, limit: Int, probeOnly: Bool = false) throws -> Data {
    do {
        if probeOnly {
            return try POSIX.withInput(file) { _ in Data() }
        }
        return try POSIX.readFile(file, limit: max(0, limit))
    } catch let error as PasteboardError {
        let reason = error.message.hasPrefix(file.shownPath + ": ") ? String(error.message.dropFirst(file.shownPath.count + 2)) : error.message
        throw ToolFailure(message: Xclip.fileError(program: tool.program, file: file, reason: reason))
    }
}

/// `xclip -o`: the selection as `-target` names it. `TARGETS` lists the owner's targets (on the store and
/// over `pbctl ssh`: what pbctl's owner offers of what is held); a named target comes as the owner gives
/// it, else made by pbctl's negotiation (`-t text/html` of Markdown, `-t image/jpeg` of a PNG); the default
/// is the text, never an image (xclip asks UTF8_STRING, then STRING).
private func xclipPaste(_ invocation: XclipInvocation, _ tool: ToolSession, _ backend: any PasteboardBackend, _ pasteboard: PasteboardName) throws -> Int32 {
    let target = invocation.effectiveTarget
    let notAvailable = ToolFailure(message: Xclip.targetNotAvailable(target))
    if pasteboard == .cutBuffer {
        // XFetchBuffer: whatever the cut buffer holds, whatever the target; nothing prints nothing.
        let held = DataSink()
        _ = try? tool.paste(PasteRequest(.standard), from: backend, pasteboard, into: held)
        var data = held.data
        if invocation.removeLastNewline, data.last == 0x0A { data.removeLast() }
        if invocation.verbosity == .verbose, !data.isEmpty { tool.err("Type is STRING.\n") }
        try tool.out(data)
        return 0
    }
    let whole = invocation.removeLastNewline || invocation.verbosity == .verbose
    let collected = DataSink()
    let sink: any RepresentationSink = whole ? collected : tool.standardOutputSink()
    var replyType: String?
    if target == "TARGETS" {
        let names = (try? tool.offeredNames(backend, pasteboard, vocabulary: .x11Targets)) ?? []
        guard !names.isEmpty else { throw notAvailable }
        try sink.write(Data(names.map { $0 + "\n" }.joined().utf8))
        replyType = "ATOM"
    } else if invocation.targetIsExplicit {
        replyType = try xclipPasteNamed(target, tool, backend, pasteboard, into: sink)
        guard replyType != nil else { throw notAvailable }
    } else if let native = backend.nativeOffer, native.nativeVocabulary == .x11Targets {
        // As xclip asks: UTF8_STRING, then STRING, whatever the owner lists (an owner may answer either).
        for name in ["UTF8_STRING", "STRING"] where replyType == nil {
            replyType = try xclipPasteNamed(name, tool, backend, pasteboard, into: sink, negotiate: false)
        }
        guard replyType != nil else { throw notAvailable }
    } else {
        // The text (UTF-8 plain text first), or bytes held as they are; never an image.
        let pasted = try? tool.paste(PasteRequest(.standard), from: backend, pasteboard, into: sink) { choice in
            let type = choice.convertTo ?? choice.read
            return tool.registry.conforms(type, to: .text) || type == .data
        }
        guard let type = pasted ?? nil else { throw notAvailable }
        replyType = type == .utf8PlainText ? "UTF8_STRING" : tool.registry.preferredTag(of: type, .x11Target) ?? type.rawValue
    }
    guard whole else { return 0 }
    var data = collected.data
    if invocation.removeLastNewline, data.last == 0x0A { data.removeLast() }
    if invocation.verbosity == .verbose { tool.err("Type is \(replyType ?? target).\n") }
    if !data.isEmpty { try tool.out(data) }
    return 0
}

/// A named target: asked of the owner as it is where the display speaks X11 (an owner may answer targets
/// it does not list, as xclip's does). An owner that refuses it, or answers a target it does not list with
/// bytes of another type (xclip's own owner answers every target with its one), gets pbctl's negotiation
/// for the type the target stands for (`-t text/html` of Markdown, `-t image/jpeg` of a PNG); where that
/// makes nothing, xclip's answer stands. Returns the reply's type name, nil when nothing answers.
private func xclipPasteNamed(
    _ target: String, _ tool: ToolSession, _ backend: any PasteboardBackend, _ pasteboard: PasteboardName, into sink: any RepresentationSink,
    negotiate: Bool = true
) throws -> String? {
    var answered: (data: Data, type: String?)?
    if let native = backend.nativeOffer, native.nativeVocabulary == .x11Targets {
        let reply = DataSink()
        do {
            let type = try native.read(name: target, from: pasteboard, into: reply)
            answered = (reply.data, type)
            // The owner's TARGETS only where the reply's type leaves it open: a plain `xclip -o` asks one
            // conversion, as xclip does.
            if !negotiate || type == target || ((try? native.offeredNames(in: pasteboard)) ?? []).contains(target) {
                try sink.write(xclipPrintable(reply.data, type: type, target: target))
                return type ?? target
            }
        } catch let error as PasteboardError where error.code == .typeNotOffered {
            guard negotiate else { return nil }
        } catch let error as PasteboardError where error.code == .empty {
            return nil
        }
    }
    let made = DataSink()
    do {
        if try tool.paste(PasteRequest(.accept([tool.declaredType(target)])), from: backend, pasteboard, into: made) != nil {
            try sink.write(made.data)
            return target
        }
    } catch let error as PasteboardError where error.code == .typeNotOffered || error.code == .empty {
        // Nothing pbctl makes: the owner's own answer, if it gave one.
    }
    guard let answered else { return nil }
    try sink.write(xclipPrintable(answered.data, type: answered.type, target: target))
    return answered.type ?? target
}

/// What xclip prints of a reply: atoms and integers as text, one a line; HTML in UTF-16 (a byte-order
/// mark first, as Firefox offers it) as UTF-8; anything else as it came.
private func xclipPrintable(_ data: Data, type: String?, target: String) -> Data {
    switch type {
    case "INTEGER"?:
        var text = ""
        var index = data.startIndex
        while index + 4 <= data.endIndex {
            let value = data[index..<index + 4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
            text += "\(Int32(bitPattern: value))\n"
            index += 4
        }
        return Data(text.utf8)
    case "text/html"? where data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]):
        return TextDecoding.utf16ToUTF8(data)
    default:
        return data
    }
}

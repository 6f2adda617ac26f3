// pbctl as xsel 1.2.0: `xsel [-i|-a|-f|-o|-c|-d|-k|-x] [-p|-s|-b] [-n] [-t MS] [--display D] …`.
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

func runXsel(_ arguments: [String], _ tool: ToolSession) throws -> Int32 {
    let host = tool.host
    let invocation: XselInvocation
    switch Xsel.parse(arguments, stdinIsTerminal: host.stdinIsTerminal, stdoutIsTerminal: host.stdoutIsTerminal) {
    case .reply(let reply): return tool.reply(reply)
    case .run(let parsed): invocation = parsed
    }
    // A backend for each copy: an owner started by a copy takes the connection it was made on with it.
    func backendFor(_ pasteboard: PasteboardName) throws -> any PasteboardBackend {
        try tool.backend(
            display: invocation.display,
            displayFailure: { Xsel.cannotOpenDisplay(program: tool.program, display: $0, reason: POSIX.errorString(ECONNREFUSED)) },
            holding: pasteboard)
    }
    if invocation.keep || invocation.exchange {
        // PRIMARY and SECONDARY read, then served again by pbctl (exchanged with -x); an empty one is cleared.
        let primary = try xselText(tool, try backendFor(.primary), .primary)
        let secondary = try xselText(tool, try backendFor(.secondary), .secondary)
        let (first, second) = invocation.exchange ? (secondary, primary) : (primary, secondary)
        try xselSet(first, tool, try backendFor(.primary), .primary, invocation)
        try xselSet(second, tool, try backendFor(.secondary), .secondary, invocation)
        return 0
    }
    let pasteboard: PasteboardName = switch invocation.selection {
    case .primary: .primary
    case .secondary: .secondary
    case .clipboard: .general
    }
    let backend = try backendFor(pasteboard)
    var old: Data?
    if invocation.output {
        let text = try xselText(tool, backend, pasteboard)
        old = text
        if let text, !text.isEmpty {
            try tool.out(text)
            if !invocation.append, host.stdoutIsTerminal, text.last != 0x0A { tool.err(Xsel.noNewlineNote) }
        }
    }
    if invocation.delete {
        // Asks the owner to delete its content (DELETE): xsel's owner gives the selection up, xclip's ignores it.
        if let native = backend.nativeOffer, native.nativeVocabulary == .x11Targets {
            _ = try? native.read(name: "DELETE", from: pasteboard, into: DataSink())
        } else {
            try? backend.clear(pasteboard)
        }
    } else if invocation.clear {
        try? backend.clear(pasteboard)
    } else if invocation.input {
        var text = Data()
        if invocation.append { text = try old ?? xselText(tool, backend, pasteboard) ?? Data() }
        if invocation.follow {
            try xselFollow(text, tool, { try backendFor(pasteboard) }, pasteboard, invocation)
            return 0
        }
        text.append(try tool.readStandardInput(limit: try tool.maximumInputSize()))
        try xselSet(text, tool, backend, pasteboard, invocation)
    }
    return 0
}

/// The selection's text as xsel reads it: UTF8_STRING, else STRING, up to its first NUL (xsel holds
/// C strings); nil when nobody owns it or it holds no text (xsel then prints nothing and succeeds).
private func xselText(_ tool: ToolSession, _ backend: any PasteboardBackend, _ pasteboard: PasteboardName) throws -> Data? {
    let reply = DataSink()
    if let native = backend.nativeOffer, native.nativeVocabulary == .x11Targets {
        // As xsel asks, whatever the owner lists; a reply of another type is no string.
        var found = false
        for name in ["UTF8_STRING", "STRING"] where !found {
            do {
                let type = try native.read(name: name, from: pasteboard, into: reply)
                guard type == "UTF8_STRING" || type == "STRING" || type == "COMPOUND_TEXT" else { return nil }
                found = true
            } catch let error as PasteboardError where error.code == .typeNotOffered {
                continue
            } catch let error as PasteboardError where error.code == .empty {
                return nil
            }
        }
        guard found else { return nil }
    } else {
        let pasted = try? tool.paste(PasteRequest(.standard), from: backend, pasteboard, into: reply) { tool.isPlainText($0.convertTo ?? $0.read) }
        guard pasted != nil, pasted! != nil else { return nil }
    }
    return reply.data.firstIndex(of: 0).map { reply.data.prefix(upTo: $0) } ?? reply.data
}

/// Sets the selection to `text` as xsel does: up to its first NUL, served by pbctl's owner (in the
/// foreground with `-n`, for `-t` milliseconds when given); empty text clears the selection instead.
private func xselSet(
    _ text: Data?, _ tool: ToolSession, _ backend: any PasteboardBackend, _ pasteboard: PasteboardName, _ invocation: XselInvocation,
    foreground: Bool? = nil
) throws {
    let bytes = text.map { data in data.firstIndex(of: 0).map { data.prefix(upTo: $0) } ?? data } ?? Data()
    guard !bytes.isEmpty else {
        try? backend.clear(pasteboard)
        return
    }
    let item = try tool.item(.bytes(Data(bytes)), type: .text)
    var options = CopyOptions()
    if invocation.timeoutMilliseconds > 0 { options.clearAfter = Double(invocation.timeoutMilliseconds) / 1000 }
    if foreground ?? invocation.noDetach, let serving = backend.serving {
        try serving.serve(item, on: pasteboard, options: options) {}
        return
    }
    try tool.offer(item, on: backend, pasteboard: pasteboard, options: options)
}

/// `-f` (`-z`): the selection follows standard input as it grows, each time it grows (`-z`: a NUL starts it
/// afresh), until the input ends; the last content stays served.
private func xselFollow(
    _ start: Data, _ tool: ToolSession, _ backend: () throws -> any PasteboardBackend, _ pasteboard: PasteboardName, _ invocation: XselInvocation
) throws {
    var text = start
    let limit = try tool.maximumInputSize()
    var served = false
    while true {
        let chunk = try POSIX.readSome(STDIN_FILENO, limit: 64 << 10, path: "standard input")
        if chunk.isEmpty { break }
        text.append(chunk)
        if invocation.zeroFlush, let nul = text.lastIndex(of: 0) { text = Data(text[(nul + 1)...]) }
        guard text.count <= limit else { throw POSIX.tooLarge("standard input", limit) }
        try xselSet(text, tool, try backend(), pasteboard, invocation, foreground: false)
        served = true
    }
    // With -n the last content is served from here.
    if !served || invocation.noDetach { try xselSet(text, tool, try backend(), pasteboard, invocation) }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The clipboard of the terminal pbctl runs in, over SSH or in a container: OSC 52 (text) written to
/// the controlling terminal, kitty's OSC 5522 (every representation) where the terminal speaks it,
/// and reads where the terminal allows them. Only `general` (the clipboard) and `primary` exist here.
public final class TerminalClipboardBackend: PasteboardBackend, @unchecked Sendable {
    public struct Configuration: Sendable {
        /// How sequences pass a multiplexer (tmux passthrough, screen DCS), when no tool does it better.
        public var wrapping: TerminalClipboardProtocol.Wrapping = .none
        /// The largest text sent (before base64): terminals drop longer sequences silently.
        public var maximumText = 1 << 20
        /// How long a read waits for the terminal's answer, in seconds.
        public var timeout = 2.0
        /// Send every representation with kitty's OSC 5522 instead of text with OSC 52.
        public var kitty = false
        /// The MIME type of a representation, for OSC 5522.
        public var mimeType: @Sendable (TypeIdentifier) -> String? = { _ in nil }
        /// The plain text of an item (what a plain-text consumer gets): the bytes OSC 52 carries.
        public var plainText: @Sendable (Item) throws -> Data? = { item in
            try item.representations.first { $0.type == .utf8PlainText }?.data()
        }
        /// A multiplexer's own tool, tried first: sets its buffer (and the outer clipboard) from text;
        /// false when it could not.
        public var multiplexerCopy: (@Sendable (Data) -> Bool)?
        /// Reads the multiplexer's buffer; nil when it could not.
        public var multiplexerPaste: (@Sendable () -> Data?)?
        /// Content with no text (an image) is not sent and not an error: for `auto`, where the terminal is a
        /// second destination beside the store.
        public var skipWithoutText = false

        public init() {}
    }

    public let configuration: Configuration
    private let device: TerminalDevice
    private var fetched: Data?

    /// - Throws: `.unavailable` when there is no controlling terminal.
    public init(configuration: Configuration) throws {
        guard let device = TerminalDevice() else {
            throw PasteboardError(.unavailable, "no controlling terminal (/dev/tty) to send OSC 52 to")
        }
        self.device = device
        self.configuration = configuration
    }

    /// A short description of the path used, for `pbctl info`.
    public var info: BackendInfo { BackendInfo(name: "osc52", detail: pathDescription) }

    public var pathDescription: String {
        if configuration.kitty { return "kitty OSC 5522 (every representation)" }
        if configuration.multiplexerCopy != nil { return "tmux load-buffer -w (tmux buffer and the outer terminal's clipboard)" }
        switch configuration.wrapping {
        case .none: return "OSC 52 to the controlling terminal"
        case .tmux: return "OSC 52 in tmux passthrough"
        case .screen: return "OSC 52 in GNU screen DCS passthrough"
        }
    }

    func selection(_ pasteboard: PasteboardName) throws -> TerminalClipboardProtocol.Selection {
        if pasteboard == .general { return .clipboard }
        if pasteboard == .primary { return .primary }
        throw PasteboardError(.unavailable, "the terminal has only the clipboard and the primary selection, not '\(pasteboard)'")
    }

    @discardableResult
    public func write(_ items: [Item], to pasteboard: PasteboardName, options: CopyOptions) throws -> Int {
        let selection = try selection(pasteboard)
        guard let item = items.first else {
            try clear(pasteboard)
            return 0
        }
        if configuration.kitty {
            var representations: [(mime: String, data: Data)] = []
            var total = 0
            for representation in item.representations {
                guard let mime = configuration.mimeType(representation.type) else { continue }
                let data = try representation.data()
                total += data.count
                representations.append((mime, data))
            }
            try checkSize(total)
            for packet in TerminalClipboardProtocol.kittyWrite(representations, selection: selection) {
                try device.write(TerminalClipboardProtocol.wrap(packet, configuration.wrapping))
            }
            return 0
        }
        guard let text = try configuration.plainText(item) else {
            if configuration.skipWithoutText { return 0 }
            throw PasteboardError(.typeNotOffered, "nothing to send to the terminal: the content has no plain text")
        }
        try checkSize(text.count)
        if selection == .clipboard, let copy = configuration.multiplexerCopy, copy(text) { return 0 }
        try device.write(TerminalClipboardProtocol.copy(text, selection: selection, wrapping: configuration.wrapping))
        return 0
    }

    private func checkSize(_ count: Int) throws {
        guard count <= configuration.maximumText else {
            throw PasteboardError(
                .invalidData,
                "\(count) bytes are more than the \(configuration.maximumText) the terminal is sent (PBCTL_OSC52_MAX); "
                    + "terminals drop larger clipboard sequences, so nothing was sent")
        }
    }

    /// The terminal's clipboard text, asked once.
    private func text(_ pasteboard: PasteboardName) throws -> Data {
        if let fetched { return fetched }
        let selection = try selection(pasteboard)
        if selection == .clipboard, let paste = configuration.multiplexerPaste, let data = paste() {
            fetched = data
            return data
        }
        var reader = TerminalClipboardProtocol.OSCReader(limit: configuration.maximumText * 4 / 3 + 64)
        var answer: Data?
        let deadline = TerminalDevice.now() + configuration.timeout
        let answered = try device.withRawMode { () -> Bool in
            try device.write(TerminalClipboardProtocol.query(selection: selection, wrapping: configuration.wrapping))
            return device.read(until: deadline) { bytes in
                for payload in reader.feed(bytes) {
                    if let data = TerminalClipboardProtocol.parseReply(payload) {
                        answer = data
                        return true
                    }
                }
                return false
            }
        }
        guard answered, let answer else {
            throw PasteboardError(
                .unavailable,
                "the terminal did not answer the clipboard query within \(configuration.timeout) s: most terminals refuse "
                    + "reads (xterm: allowWindowOps; kitty: clipboard_control read-clipboard; foot and WezTerm ask or "
                    + "refuse; tmux answers with its top buffer)")
        }
        fetched = answer
        return answer
    }

    public func items(in pasteboard: PasteboardName) throws -> [ItemSummary] {
        let data = try text(pasteboard)
        if data.isEmpty { return [] }
        return [ItemSummary(types: [TypeSummary(type: .utf8PlainText, size: data.count)], metadata: ItemMetadata())]
    }

    public func read(_ type: TypeIdentifier, item index: Int, from pasteboard: PasteboardName) throws -> Data {
        let data = try text(pasteboard)
        guard index == 0, !data.isEmpty else { throw PasteboardError.empty("nothing on the terminal's clipboard") }
        guard type == .utf8PlainText else {
            throw PasteboardError(.typeNotOffered, "\(type) is not offered; offered: \(TypeIdentifier.utf8PlainText)")
        }
        return data
    }

    public func clear(_ pasteboard: PasteboardName) throws {
        try device.write(TerminalClipboardProtocol.clear(selection: try selection(pasteboard), wrapping: configuration.wrapping))
    }

    public func changeCount(of pasteboard: PasteboardName) throws -> Int { 0 }
}

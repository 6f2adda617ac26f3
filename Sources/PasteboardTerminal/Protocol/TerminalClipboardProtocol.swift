#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The escape sequences a program uses to reach the clipboard of the terminal it runs in: OSC 52
/// (text, understood by xterm, kitty, WezTerm, foot, Alacritty, iTerm2, Windows Terminal, tmux…), the
/// multiplexers' passthrough wrappings, and kitty's OSC 5522 (any MIME type). Pure: bytes in, bytes out.
public enum TerminalClipboardProtocol {
    public static let escape: UInt8 = 0x1B
    public static let bell: UInt8 = 0x07

    /// Which clipboard: `c` (CLIPBOARD) or `p` (PRIMARY).
    public enum Selection: Character, Sendable {
        case clipboard = "c"
        case primary = "p"
    }

    /// How a sequence reaches the terminal through what stands between.
    public enum Wrapping: Sendable, Equatable {
        case none
        /// tmux's passthrough (`allow-passthrough on`): `ESC P tmux; … ESC \`, every inner ESC doubled.
        case tmux
        /// GNU screen: the sequence cut into DCS strings under screen's string limit (768 bytes).
        case screen
    }

    /// `ESC ] 52 ; c ; BASE64 BEL`, wrapped as asked.
    public static func copy(_ text: Data, selection: Selection = .clipboard, wrapping: Wrapping = .none) -> [UInt8] {
        wrap([escape] + Array("]52;\(selection.rawValue);".utf8) + Array(text.base64EncodedString().utf8) + [bell], wrapping)
    }

    /// The query a terminal answers with the clipboard's text (where it allows reads).
    public static func query(selection: Selection = .clipboard, wrapping: Wrapping = .none) -> [UInt8] {
        wrap([escape] + Array("]52;\(selection.rawValue);?".utf8) + [bell], wrapping)
    }

    /// Empties the clipboard (a payload that is not base64, as xterm documents).
    public static func clear(selection: Selection = .clipboard, wrapping: Wrapping = .none) -> [UInt8] {
        wrap([escape] + Array("]52;\(selection.rawValue);!".utf8) + [bell], wrapping)
    }

    /// screen's longest string (its `MAXSTR`), less room for the DCS framing.
    static let screenChunk = 760

    public static func wrap(_ sequence: [UInt8], _ wrapping: Wrapping) -> [UInt8] {
        switch wrapping {
        case .none:
            return sequence
        case .tmux:
            var out: [UInt8] = [escape] + Array("Ptmux;".utf8)
            out.reserveCapacity(sequence.count + 16)
            for b in sequence {
                if b == escape { out.append(escape) }
                out.append(b)
            }
            return out + [escape, UInt8(ascii: "\\")]
        case .screen:
            var out: [UInt8] = []
            var start = 0
            while start < sequence.count {
                let end = min(sequence.count, start + screenChunk)
                out += [escape, UInt8(ascii: "P")] + sequence[start..<end] + [escape, UInt8(ascii: "\\")]
                start = end
            }
            return out
        }
    }

    /// One OSC sequence (`ESC ] … BEL` or `ESC ] … ESC \`) read from a terminal.
    public struct OSCReader: Sendable {
        private var buffer: [UInt8] = []
        /// Sequences longer than this are dropped (a reply of the cap's size, base64, plus framing).
        public let limit: Int

        public init(limit: Int) { self.limit = limit }

        /// Feeds bytes; returns the payload (after `ESC ]`) of each sequence completed, in order. Bytes
        /// outside a sequence (a key the user typed meanwhile) are skipped.
        public mutating func feed(_ bytes: some Sequence<UInt8>) -> [[UInt8]] {
            var completed: [[UInt8]] = []
            for b in bytes {
                if buffer.isEmpty {
                    if b == escape { buffer.append(b) }
                    continue
                }
                if buffer.count == 1 {
                    if b == UInt8(ascii: "]") { buffer.append(b) } else { buffer = b == escape ? [b] : [] }
                    continue
                }
                if b == TerminalClipboardProtocol.bell {
                    completed.append(Array(buffer.dropFirst(2)))
                    buffer = []
                } else if b == UInt8(ascii: "\\"), buffer.last == escape {
                    completed.append(Array(buffer.dropFirst(2).dropLast()))
                    buffer = []
                } else {
                    buffer.append(b)
                    if buffer.count > limit { buffer = [] }
                }
            }
            return completed
        }
    }

    /// The text of an OSC 52 reply payload (`52;c;BASE64`, tmux sends `52;;BASE64`); nil when the payload is
    /// something else.
    public static func parseReply(_ payload: [UInt8]) -> Data? {
        guard payload.starts(with: Array("52;".utf8)) else { return nil }
        let rest = payload.dropFirst(3)
        guard let semicolon = rest.firstIndex(of: UInt8(ascii: ";")) else { return nil }
        let encoded = rest[(semicolon + 1)...]
        if encoded.isEmpty { return Data() }
        return Data(base64Encoded: Data(encoded))
    }

    // MARK: kitty's OSC 5522

    /// The packets of one OSC 5522 write: `type=write`, `type=wdata:mime=…;CHUNK` per 4096-byte chunk of
    /// each representation in order, then the closing `type=wdata`. Each packet is `ESC ] 5522 ; … ESC \`.
    public static func kittyWrite(_ representations: [(mime: String, data: Data)], selection: Selection = .clipboard) -> [[UInt8]] {
        func packet(_ metadata: String, _ payload: Data? = nil) -> [UInt8] {
            var text = "]5522;" + metadata
            if let payload { text += ";" + payload.base64EncodedString() }
            return [escape] + Array(text.utf8) + [escape, UInt8(ascii: "\\")]
        }
        var packets = [packet("type=write" + (selection == .primary ? ":loc=primary" : ""))]
        for (mime, data) in representations {
            let encodedMIME = Data(mime.utf8).base64EncodedString()
            var start = data.startIndex
            repeat {
                let end = min(data.endIndex, start + 4096)
                packets.append(packet("type=wdata:mime=" + encodedMIME, data[start..<end]))
                start = end
            } while start < data.endIndex
        }
        packets.append(packet("type=wdata"))
        return packets
    }

    /// An OSC 5522 read of `mimes` (`["."]` lists the types on offer).
    public static func kittyRead(_ mimes: [String], selection: Selection = .clipboard) -> [UInt8] {
        let payload = Data(mimes.joined(separator: " ").utf8).base64EncodedString()
        return [escape] + Array("]5522;type=read\(selection == .primary ? ":loc=primary" : "");\(payload)".utf8) + [escape, UInt8(ascii: "\\")]
    }

    /// Assembles the replies to an OSC 5522 read: `status=OK`, `status=DATA:mime=…;CHUNK`…, `status=DONE`.
    public struct KittyReadAssembler: Sendable {
        public enum State: Sendable, Equatable {
            case waiting, reading, done
            case failed(String)
        }
        public private(set) var state: State = .waiting
        /// The representations received, in order, with their bytes.
        public private(set) var representations: [(mime: String, data: Data)] = []
        public let limit: Int

        public init(limit: Int) { self.limit = limit }

        /// Feeds one OSC payload (after `ESC ]`); payloads that are not OSC 5522 read replies are ignored.
        public mutating func feed(_ payload: [UInt8]) {
            guard state == .waiting || state == .reading, payload.starts(with: Array("5522;".utf8)) else { return }
            let body = payload.dropFirst(5)
            let semicolon = body.firstIndex(of: UInt8(ascii: ";"))
            let metadataBytes = semicolon.map { body[..<$0] } ?? body[...]
            var metadata: [String: String] = [:]
            for pair in String(decoding: metadataBytes, as: UTF8.self).split(separator: ":") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { metadata[String(parts[0])] = String(parts[1]) }
            }
            guard metadata["type"] == "read", let status = metadata["status"] else { return }
            switch status {
            case "OK" where state == .waiting:
                state = .reading
            case "DATA" where state == .reading:
                guard let encodedMIME = metadata["mime"], let mimeData = Data(base64Encoded: encodedMIME),
                    let semicolon, let chunk = Data(base64Encoded: Data(body[(semicolon + 1)...]))
                else {
                    state = .failed("a malformed data packet")
                    return
                }
                let mime = String(decoding: mimeData, as: UTF8.self)
                let total = representations.reduce(0) { $0 + $1.data.count } + chunk.count
                guard total <= limit else {
                    state = .failed("more than \(limit) bytes")
                    return
                }
                if let last = representations.indices.last, representations[last].mime == mime {
                    representations[last].data.append(chunk)
                } else {
                    representations.append((mime, chunk))
                }
            case "DONE" where state == .reading:
                state = .done
            default:
                state = .failed(status == "OK" || status == "DATA" || status == "DONE" ? "packets out of order" : "the terminal answered \(status)")
            }
        }
    }
}

import Archive
import Foundation
import Images
import KDEConnect
import Markdown
import Pasteboard
import History
import PasteboardStore
import PasteboardX11
import Personalities
import RemoteProtocol
import Representations

/// Every entry point that takes outside bytes, as one function each: what the libFuzzer harness
/// (`Tests/Fuzz/Harness`, `make fuzz`) calls for each input, and what `FuzzRegressionTests` replays
/// from `Tests/Fuzz/regressions/<target>/` on every `make test`.
///
/// A target must not crash, trap or loop on any input; a thrown error is an answer, not a finding.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The Markdown parser (CommonMark or GFM, chosen by the first byte) into every writer; the direct path
    /// to HTML must give the same bytes as the document.
    case markdown
    /// The HTML reader, default and keep-raw mode (`--keep-html`, chosen by the first byte), into every writer.
    case html
    /// The RTF reader (every code page the input names) into every writer.
    case rtf
    /// A TextPack: the ZIP reader (central directory, deflate) and the TextBundle reader of its files.
    case textbundle = "textbundle"
    /// `ItemArchive` decoding (the owner hand-over between processes).
    case itemArchive = "item-archive"
    /// The store's `Info.json` metadata.
    case storeInfo = "store-info"
    /// The metadata JSON reader (``JSONValue``) and every record read from it (store items, history
    /// entries and index, ISO 8601 dates); what parses is written again and must parse to the same value.
    case json
    /// `pbctl history import`'s reader: each line of the input as a line of the exchange format
    /// (``HistoryExchange/parse(_:)``); what reads is written again and must read back the same.
    case historyImport = "history-import"
    /// Type declarations (`UTExportedTypeDeclarations`-shaped property lists) into a registry.
    case typeDeclarations = "type-declarations"
    /// Type from content, UTF-8 validation.
    case sniffer
    /// The COMPOUND_TEXT decoder, and the encoder on what it decoded.
    case compoundText = "compound-text"
    /// The X11 protocol state machines (requestor, owner, daemon fetch) fed event sequences decoded
    /// from the input: notifies, property values with bogus sizes, INCR chunks in any order, timeouts.
    case x11Protocol = "x11-protocol"
    /// The Wayland data-control client fed wire messages (registry, device, offers, sources, errors)
    /// decoded from the input, with the requests of a paste, a copy and the daemon in between.
    case waylandProtocol = "wayland-protocol"
    /// `LineRegex` (`history search --regex`): the pattern before the first NUL, the text after it (the
    /// whole input, both ways, when there is none); case-insensitive when the first byte is odd.
    case regex
    /// The `pbctl ssh` protocol reader (``RemoteFrameReader``) fed the input in slices the first byte
    /// chooses, every decoded message encoded again and compared.
    case remoteProtocol = "remote-protocol"
    /// KDE Connect: the packet reader (a line of bounded JSON) and the identity reader on what it
    /// decoded; what decodes encodes and decodes to the same packet.
    case kdeconnectPacket = "kdeconnect-packet"
    /// KDE Connect: the input's lines as what a peer sends on one link (``KDEConnectSessionFuzzer``):
    /// the handshake machine, then the device table and the clipboard channel, with the control server
    /// and discovery fed every line too.
    case kdeconnectSession = "kdeconnect-session"
    /// The image decoders, one target a family: the input read as that format whatever its signature,
    /// its header read alone, and what decodes written back in the same format and read again (the same
    /// pixels, for PNG, BMP, TIFF and lossless WebP).
    case imagePNG = "image-png"
    case imageJPEG = "image-jpeg"
    case imageGIF = "image-gif"
    case imageBMP = "image-bmp"
    case imageTIFF = "image-tiff"
    case imageWebP = "image-webp"
    /// The command lines of xclip, xsel, wl-copy and wl-paste (pbctl run under their names): the first
    /// byte picks the tool and what the standard streams are, the rest is the arguments, split at NUL.
    case toolArguments = "tool-arguments"

    /// Runs the target on one input.
    public func run(_ input: [UInt8]) {
        switch self {
        case .markdown: Self.markdown(input)
        case .html: Self.html(input)
        case .rtf: Self.rtf(input)
        case .textbundle: Self.textbundle(input)
        case .itemArchive: _ = try? ItemArchive.decode(Data(input))
        case .storeInfo: _ = try? FileStore.decodeInfo(Data(input), path: "Info.json")
        case .json: Self.json(input)
        case .historyImport: Self.historyImport(input)
        case .typeDeclarations: Self.typeDeclarations(input)
        case .sniffer: Self.sniffer(input)
        case .compoundText: Self.compoundText(input)
        case .x11Protocol: X11ProtocolFuzzer.run(input)
        case .waylandProtocol: WaylandProtocolFuzzer.run(input)
        case .regex: Self.regex(input)
        case .remoteProtocol: Self.remoteProtocol(input)
        case .kdeconnectPacket: Self.kdeconnectPacket(input)
        case .kdeconnectSession: KDEConnectSessionFuzzer.run(input)
        case .imagePNG: Self.image(input, .png)
        case .imageJPEG: Self.image(input, .jpeg)
        case .imageGIF: Self.image(input, .gif)
        case .imageBMP: Self.image(input, .bmp)
        case .imageTIFF: Self.image(input, .tiff)
        case .imageWebP: Self.image(input, .webp)
        case .toolArguments: Self.toolArguments(input)
        }
    }

    static let writers: [TextFormat] = [.html, .rtf, .text, .gfm, .commonmark]

    static func toolArguments(_ input: [UInt8]) {
        guard let selector = input.first else { return }
        let arguments = input.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        func checkReply(_ reply: ToolReply) {
            precondition(reply.status == 0 || reply.status == 1, "a tool's reply exits 0 or 1, not \(reply.status)")
            precondition(!reply.standardOutput.isEmpty || !reply.standardError.isEmpty, "a reply says something")
        }
        switch selector % 4 {
        case 0:
            switch Xclip.parse(arguments, program: "xclip") {
            case .reply(let reply): checkReply(reply)
            case .run(let invocation):
                precondition(invocation.files.allSatisfy(arguments.contains), "an xclip operand is one of the arguments")
                _ = invocation.selection
            }
        case 1:
            switch Xsel.parse(arguments, stdinIsTerminal: selector & 4 != 0, stdoutIsTerminal: selector & 8 != 0) {
            case .reply(let reply): checkReply(reply)
            case .run(let invocation): precondition(invocation.timeoutMilliseconds >= 0, "a timeout is never negative")
            }
        case 2:
            switch WlClipboard.parseCopy(arguments, program: "wl-copy", posixlyCorrect: selector & 4 != 0) {
            case .reply(let reply): checkReply(reply)
            case .run(let invocation): precondition(invocation.words.map { !$0.isEmpty } ?? true, "words, when there are any")
            }
        default:
            switch WlClipboard.parsePaste(arguments, program: "wl-paste", posixlyCorrect: selector & 4 != 0) {
            case .reply(let reply): checkReply(reply)
            case .run(let invocation):
                precondition(invocation.watch.map { !$0.isEmpty && !($0[0].hasPrefix("-")) } ?? true, "a watch command is a command")
                _ = WlClipboard.chooseType(offered: arguments, explicit: invocation.type, inferred: arguments.first)
            }
        }
    }


    /// 4 megapixels (16 MB of RGBA) and 128 MiB of buffers: room for every decoder's paths within the
    /// fuzzer's memory limit.
    static let imageLimits = ImageLimits(maxPixels: 1 << 22, maxInputBytes: 1 << 20, maxMemory: 128 << 20)

    static func image(_ input: [UInt8], _ format: ImageFormat) {
        let data = Data(input)
        _ = ImageCodec.dimensions(data)
        // Validation (what a copy runs) finds what a decode finds, keeping no pixel.
        let validated = Result { try ImageCodec.validate(data, as: format, limits: imageLimits) }
        // A conversion to 8 bits (a 16-bit source decoded straight to 8) under the memory cap.
        if ImageFormat.sniff(data) == format { _ = try? ImageCodec.convert(data, to: format == .jpeg ? .bmp : .jpeg, limits: imageLimits) }
        let decoded = Result { try ImageCodec.decode(data, as: format, limits: imageLimits) }
        if case .success = decoded, case .failure(let error) = validated, (error as? ImageError)?.kind != .overMemoryCap {
            preconditionFailure("\(format): validation refused what decodes: \(error)")
        }
        guard let image = try? decoded.get() else { return }
        precondition(image.pixels.count == image.width * image.height * image.bytesPerPixel)
        // Written back, small images only (the encoders are not what a hostile input reaches).
        guard image.width * image.height <= 1 << 16,
            let encoded = try? ImageCodec.encode(image, as: format, lossless: format == .webp ? true : nil)
        else { return }
        guard let back = try? ImageCodec.decode(encoded, as: format, limits: imageLimits) else {
            preconditionFailure("\(format): what pbctl wrote does not read back")
        }
        switch format {
        case .png, .tiff: precondition(back.pixels == image.pixels, "\(format): the pixels written are not the pixels read")
        case .bmp, .webp: precondition(back.pixels == image.eightBit().pixels, "\(format): the pixels written are not the pixels read")
        case .jpeg, .gif: precondition(back.width == image.width && back.height == image.height)
        }
    }

    static func writeAll(_ document: MarkdownDocument) {
        for format in writers { _ = Conversion.write(document, to: format) }
    }

    static func markdown(_ input: [UInt8]) {
        let format: TextFormat = (input.first ?? 0) & 1 == 0 ? .gfm : .commonmark
        guard let document = try? Conversion.read(input, from: format) else { return }
        writeAll(document)
        // Straight to HTML (no inline nodes, packed block records, output in chunks) must give the bytes
        // the document gives.
        let options: MarkdownOptions = format == .gfm ? .gfm : .commonmark
        var direct: [UInt8] = []
        input.withUnsafeBufferPointer { MarkdownParser.renderHTML($0, options: options) { direct.append(contentsOf: $0) } }
        precondition(direct == HTMLWriter.render(document, options: options), "Markdown to HTML: the direct path differs from the document's")
    }

    static func html(_ input: [UInt8]) {
        let keepRaw = (input.first ?? 0) & 1 == 1
        guard let document = try? Conversion.read(input, from: .html, keepRawHTML: keepRaw) else { return }
        writeAll(document)
    }

    static func rtf(_ input: [UInt8]) {
        guard let document = try? Conversion.read(input, from: .rtf) else { return }
        writeAll(document)
    }

    static func textbundle(_ input: [UInt8]) {
        let limits = ZipArchive.Limits(maximumEntryCount: 256, maximumEntrySize: 4 << 20, maximumTotalSize: 16 << 20)
        guard let entries = try? ZipArchive.decode(Data(input), limits: limits) else { return }
        var files: [String: Data] = [:]
        for entry in entries { files[entry.path] = entry.data }
        guard let bundle = try? TextBundle(files: files) else { return }
        let text = bundle.textWithEmbeddedImages()
        _ = try? bundle.files()
        if let document = try? Conversion.read(Array(text.prefix(1 << 16)), from: .gfm) {
            _ = Conversion.write(document, to: .html)
        }
    }

    static func typeDeclarations(_ input: [UInt8]) {
        let result = TypeDeclarationParser.parse(Data(input), origin: "fuzz.plist")
        var registry = TypeRegistry()
        _ = registry.declare([result])
        for declaration in result.exported {
            _ = registry.conforms(declaration.identifier, to: .data)
            _ = registry.supertypes(of: declaration.identifier)
        }
    }

    static func sniffer(_ input: [UInt8]) {
        let data = Data(input)
        _ = TypeSniffer.sniff(data)
        let whole = TypeSniffer.firstInvalidUTF8Offset(data)
        // The streaming validator a copy into the store uses must agree with the whole-buffer check,
        // whatever the chunking: chunk sizes 1 to 8 taken from the input's first byte.
        let step = Int((input.first ?? 0) & 7) + 1
        var validator = UTF8StreamValidator()
        var offset = 0
        while offset < input.count {
            let end = min(input.count, offset + step)
            input[offset..<end].withUnsafeBytes { validator.feed($0) }
            offset = end
        }
        precondition(validator.finish() == whole, "the streaming UTF-8 validator disagrees with the whole-buffer check")
        precondition(
            TypeSniffer.sniff(head: data.prefix(4096), isValidUTF8: whole == nil) == TypeSniffer.sniff(data),
            "sniffing from the head disagrees with sniffing the whole input")
    }

    static func compoundText(_ input: [UInt8]) {
        let decoded = CompoundText.decode(Data(input))
        _ = CompoundText.encode(decoded)
        _ = TextTranscoder.latin1ToUTF8(Data(input))
        _ = TextDecoding.utf16ToUTF8(Data(input))
    }

    /// The text a regex target matches: at most this many bytes, so a pattern at the program cap (20,000
    /// instructions) still answers within the fuzzer's time limit.
    static let regexTextLimit = 1024

    static func regex(_ input: [UInt8]) {
        let separator = input.firstIndex(of: 0)
        let patternBytes = input[..<(separator ?? input.endIndex)]
        let textBytes = (separator.map { input[($0 + 1)...] } ?? input[...]).prefix(regexTextLimit)
        let caseInsensitive = (input.first ?? 0) & 1 == 1
        let text = String(decoding: textBytes, as: UTF8.self)
        if let regex = try? LineRegex(String(decoding: patternBytes, as: UTF8.self), caseInsensitive: caseInsensitive) {
            let answer = regex.matches(text)
            precondition(answer == regex.matches(textBytes), "the String and UTF-8 entry points disagree")
            // The lazy DFA of a search over many texts answers as the NFA does, on this text and on its
            // parts (its cache carried from one text to the next).
            let scanner = LineRegex.Scanner(regex)
            let bytes = Array(textBytes)
            precondition(bytes.withUnsafeBytes { scanner.matches($0) } == answer, "the DFA and the NFA disagree")
            for part in bytes.split(separator: 0x0A, maxSplits: 8) {
                let piece = Array(part)
                precondition(piece.withUnsafeBytes { scanner.matches($0) } == regex.matches(piece), "the DFA and the NFA disagree on a part")
            }
            let literals = regex.requiredLiterals
            if answer, !regex.caseInsensitive {
                // What every match contains is in the text, scalar for scalar (what the index narrows by).
                let scalars = Array(text.unicodeScalars)
                for literal in literals {
                    let needle = Array(literal.unicodeScalars)
                    let found = needle.count <= scalars.count
                        && (0...(scalars.count - needle.count)).contains { start in scalars[start..<(start + needle.count)].elementsEqual(needle) }
                    precondition(found, "a required literal is missing from a match")
                }
            }
        }
        // The text, every operator escaped, is a pattern that matches it.
        var literal = ""
        for scalar in text.unicodeScalars {
            if #".[]()*+?{}|^$\"#.unicodeScalars.contains(scalar) { literal.unicodeScalars.append("\\") }
            literal.unicodeScalars.append(scalar)
        }
        guard let exact = try? LineRegex(literal, caseInsensitive: caseInsensitive) else {
            preconditionFailure("the escaped text was refused as a pattern")
        }
        precondition(exact.matches(text), "the escaped text does not match itself")
    }
}

extension FuzzTarget {
    static func kdeconnectPacket(_ input: [UInt8]) {
        guard let packet = try? NetworkPacket.decode(input) else { return }
        let again = try? NetworkPacket.decode(packet.encoded(), maximumSize: Int.max)
        precondition(again == packet, "a KDE Connect packet does not read back as itself")
        if let identity = try? DeviceIdentity(packet: packet) {
            precondition(DeviceIdentity.isValidID(identity.id) && !identity.name.isEmpty && identity.name.count <= 32)
            _ = try? DeviceIdentity(packet: identity.packet(now: 0))
        }
    }

    static func remoteProtocol(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let step = Int(first % 16) + 1
        var reader = RemoteFrameReader()
        var offset = 1
        while offset < input.count {
            reader.feed(input[offset..<min(input.count, offset + step)])
            offset += step
            while true {
                guard let message = try? reader.next() else { return }
                // What decodes encodes to the same message again.
                var again = RemoteFrameReader()
                again.feed(message.encoded())
                precondition((try? again.next()) == message, "a message that does not round-trip")
                foreign(message)
            }
        }
    }
}

extension FuzzTarget {
    /// What the validator of foreign content makes of a message's names and bytes: it never traps, a
    /// name it admits has no control character, and a file list it marks names no local file.
    static func foreign(_ message: RemoteMessage) {
        switch message {
        case .beginRepresentation(let type, let derivedFrom):
            for name in [type] + (derivedFrom.map { [$0] } ?? []) where (try? ForeignContent.checkType(name)) != nil {
                precondition(!ForeignContent.hasControlCharacter(name), "a type admitted with a control character")
            }
        case .chunk(let data):
            for type in [TypeIdentifier.fileURL, .gnomeCopiedFiles] {
                let marked = ForeignContent.markFileList(data, type: type, host: "far")
                let list = type == .fileURL ? FileList.parseURIList(marked) : FileList.parseGnomeCopiedFiles(marked)
                for uri in list.uris { precondition(FileList.localPath(uri) == nil, "a marked file list still names a local file: \(uri)") }
            }
        default:
            break
        }
    }

    static func historyImport(_ input: [UInt8]) {
        for line in input.split(separator: 0x0A, omittingEmptySubsequences: false) {
            guard let record = try? Array(line).withUnsafeBytes({ try HistoryExchange.parse($0) }) else { continue }
            let written = HistoryExchange.line(record)
            guard let again = try? Array(written.dropLast()).withUnsafeBytes({ try HistoryExchange.parse($0) }), again == record else {
                fatalError("HistoryExchange: a line that read does not read back the same once written")
            }
        }
    }

    static func json(_ input: [UInt8]) {
        guard let value = try? JSONValue.parse(Data(input)) else { return }
        guard let again = try? JSONValue.parse(value.encoded()), again == value else {
            fatalError("JSONValue: what was read does not read back the same once written")
        }
        _ = try? ItemRecord(json: value)
        History.fuzzRecords(value)
        if let text = value.string { _ = ISO8601Seconds.date(text) }
    }
}

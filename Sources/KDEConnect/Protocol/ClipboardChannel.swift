#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// The clipboard between this device and its paired peers, as KDE Connect's clipboard plugin carries
/// it (`ClipboardPlugin`), with pbctl's extension for pbctl peers: what a local change sends to which
/// device (a pbctl every original representation through ``RichClipboardSender``, a KDE Connect device
/// the text; nothing sensitive, nothing that is what was just received), what is sent to a device that
/// connects (the content and when it changed: the newest wins), and what a packet from a paired device
/// makes the clipboard (text, or a transfer spooled as it comes and checked by ``ForeignContent`` when
/// it ends). The decisions are ``ClipboardSync``'s. Pure: times come in as arguments; packets to send,
/// items received and the state to save go out as ``Output``s.
public struct ClipboardChannel {
    /// A paired, reachable device as the channel sees it.
    public struct Peer: Equatable, Sendable {
        public var id: String
        public var name: String
        /// A pbctl: it takes every representation (``RichClipboard``).
        public var speaksRichClipboard: Bool
        /// It takes KDE Connect's clipboard (the text).
        public var speaksClipboard: Bool

        public init(id: String, name: String, speaksRichClipboard: Bool, speaksClipboard: Bool) {
            self.id = id
            self.name = name
            self.speaksRichClipboard = speaksRichClipboard
            self.speaksClipboard = speaksClipboard
        }
    }

    public enum Output {
        /// Send a packet to the device.
        case send(device: String, NetworkPacket)
        /// A transfer to the device waits: move its packets with ``ClipboardChannel/nextPacket(for:wallClock:)``
        /// while the link has room.
        case transfer(device: String)
        /// A device's clipboard to make the local one.
        case deliver(ReceivedClipboard)
        /// Write `sync.json` (``ClipboardSync/encoded()``).
        case saveSync(Data)
        case log(String)
    }

    /// What `pbctl info` reports.
    public struct Statistics: Equatable, Sendable {
        public var sent = 0
        public var received = 0
        /// Local changes not sent because they were sensitive.
        public var skipped = 0
        public var last: String?

        public init(sent: Int = 0, received: Int = 0, skipped: Int = 0, last: String? = nil) {
            self.sent = sent
            self.received = received
            self.skipped = skipped
            self.last = last
        }
    }

    public private(set) var sync: ClipboardSync
    /// The item the clipboard holds, as last changed here or received; nil when unknown or sensitive.
    public private(set) var current: Item?
    public private(set) var statistics = Statistics()
    /// The largest item taken from, or sent to, a pbctl peer.
    public let maximumItemSize: Int
    public let registry: TypeRegistry
    private let makeStorage: () throws -> any TransferStorage
    private var receivers: [String: RichClipboardReceiver] = [:]
    private var storages: [String: [any TransferStorage]] = [:]
    private var senders: [String: RichClipboardSender] = [:]

    /// `sync`: what `sync.json` kept; `makeStorage`: where received bytes wait.
    public init(
        sync: ClipboardSync = ClipboardSync(), maximumItemSize: Int, registry: TypeRegistry = .standard,
        makeStorage: @escaping () throws -> any TransferStorage
    ) {
        self.sync = sync
        self.maximumItemSize = maximumItemSize
        self.registry = registry
        self.makeStorage = makeStorage
    }

    // MARK: This side

    /// The clipboard changed here: sent to `peers` (the paired, reachable devices) unless it is
    /// sensitive or what was just received. `wallClock`: milliseconds since 1970.
    public mutating func localChange(_ item: Item, to peers: [Peer], wallClock: Int64) -> [Output] {
        let sensitive = item.isSensitiveForSync
        let content = sensitive ? nil : SyncedContent(item: item, plainText: plainText(item))
        switch sync.localChange(content, sensitive: sensitive, now: wallClock) {
        case .skip(let why):
            var outputs: [Output] = []
            if !sensitive, let content, content == sync.current { current = item }
            if sensitive {
                current = nil
                statistics.skipped += 1
                outputs.append(.saveSync(sync.encoded()))
            }
            return outputs + [.log("local clipboard not sent: \(why)")]
        case .send:
            current = item
            var outputs: [Output] = [.saveSync(sync.encoded())]
            var count = 0
            for peer in peers {
                let (sent, more) = send(to: peer, onConnect: false, wallClock: wallClock)
                if sent { count += 1 }
                outputs += more
            }
            let devices = "\(count) device\(count == 1 ? "" : "s")"
            if count > 0 {
                statistics.sent += 1
                statistics.last = "sent to \(devices)"
            }
            return outputs + [.log("local clipboard sent to \(devices)")]
        }
    }

    /// `peer` connected, or was just paired: it gets what the clipboard holds with when it changed
    /// (nothing when that is unknown or sensitive), and the newest side wins.
    public mutating func sendOnConnect(to peer: Peer, wallClock: Int64) -> [Output] {
        send(to: peer, onConnect: true, wallClock: wallClock).outputs
    }

    /// What goes to one device: to a pbctl the originals of the current item (the receiver derives the
    /// rest when asked, as a local copy does: an image's five other formats, HTML and RTF would multiply
    /// what crosses the network), else its text; to a KDE Connect device the text. Not `sent` when
    /// there is nothing it takes.
    mutating func send(to peer: Peer, onConnect: Bool, wallClock: Int64) -> (sent: Bool, outputs: [Output]) {
        let changed = sync.timestamp
        if onConnect, sync.onConnect == nil { return (false, []) }
        if peer.speaksRichClipboard {
            var representations: [(type: String, derivedFrom: String?, data: Data)] = []
            var total = 0
            if let item = current {
                for representation in item.representations
                where representation.derivedFrom == nil && !ClipboardMarkers.isMarker(representation.type.rawValue) {
                    guard let data = try? representation.data(), total + data.count <= maximumItemSize else { continue }
                    total += data.count
                    representations.append((representation.type.rawValue, nil, data))
                }
            } else if let text = sync.current?.text {
                representations.append((TypeIdentifier.utf8PlainText.rawValue, nil, Data(text.utf8)))
            }
            guard !representations.isEmpty else { return (false, []) }
            senders[peer.id] = RichClipboardSender(transfer: wallClock, changed: changed, onConnect: onConnect, representations: representations)
            return (true, [.transfer(device: peer.id)])
        }
        guard peer.speaksClipboard, let text = sync.current?.text else { return (false, []) }
        // A packet a peer can take: KDE Connect reads any line, pbctl at most NetworkPacket.maximumSize.
        guard text.utf8.count <= NetworkPacket.maximumSize - 4096 else {
            return (false, [.log("not sent to \(peer.name): \(text.utf8.count) bytes of text is over what a packet carries")])
        }
        let packet =
            onConnect
            ? NetworkPacket(type: PacketType.clipboardConnect, body: [("content", .string(text)), ("timestamp", .integer(changed))], now: wallClock)
            : NetworkPacket(type: PacketType.clipboard, body: [("content", .string(text))], now: wallClock)
        return (true, [.send(device: peer.id, packet)])
    }

    /// The next packet of the transfer to `device`, nil when none is in flight (the link takes them
    /// while it holds little, so only one chunk is ever encoded at once).
    public mutating func nextPacket(for device: String, wallClock: Int64) -> NetworkPacket? {
        guard var sender = senders[device] else { return nil }
        let packet = sender.next(now: wallClock)
        senders[device] = sender.finished ? nil : sender
        return packet
    }

    public func hasTransfer(to device: String) -> Bool { senders[device] != nil }

    /// A transfer to `device` in flight is dropped (it was unpaired).
    public mutating func dropTransfers(to device: String) { senders[device] = nil }

    /// `device`'s link went down, or a new one replaced it: transfers either way start again.
    public mutating func reset(_ device: String) {
        senders[device] = nil
        receivers[device] = nil
        storages[device] = nil
    }

    // MARK: The other side

    /// A clipboard packet from a paired `peer` (the device table routed it here). `arrived`: when, for
    /// the item's metadata.
    public mutating func received(_ packet: NetworkPacket, from peer: Peer, wallClock: Int64, arrived: Date) -> [Output] {
        switch packet.type {
        case PacketType.clipboard, PacketType.clipboardConnect:
            guard let text = packet.body["content"]?.string else { return [] }
            let content = SyncedContent(text: text)
            let apply =
                packet.type == PacketType.clipboard
                ? sync.received(content, now: wallClock)
                : sync.receivedOnConnect(content, changed: packet.body["timestamp"]?.integer ?? 0, now: wallClock)
            guard apply else { return [] }
            return deliver(Item(representations: [Representation(type: .utf8PlainText, data: Data(text.utf8))]), from: peer, arrived: arrived)
        case PacketType.richClipboard, PacketType.richChunk, PacketType.richEnd:
            var receiver = receivers[peer.id] ?? RichClipboardReceiver(maximumTotal: maximumItemSize)
            let outputs = receiver.handle(packet)
            receivers[peer.id] = receiver
            var results: [Output] = []
            for output in outputs { results += take(output, from: peer, wallClock: wallClock, arrived: arrived) }
            return results
        default:
            return []
        }
    }

    /// One step of a transfer from `peer`: its bytes into storage as they come.
    mutating func take(_ output: RichClipboardReceiver.Output, from peer: Peer, wallClock: Int64, arrived: Date) -> [Output] {
        switch output {
        case .started(let header):
            do {
                storages[peer.id] = try header.parts.map { _ in try makeStorage() }
            } catch {
                receivers[peer.id] = nil
                storages[peer.id] = nil
                return [.log("cannot spool \(peer.name)'s clipboard: \(error)")]
            }
        case .bytes(let part, let data):
            guard let parts = storages[peer.id], part < parts.count else { return [] }
            do { try parts[part].append(data) } catch {
                receivers[peer.id] = nil
                storages[peer.id] = nil
                return [.log("cannot spool \(peer.name)'s clipboard: \(error)")]
            }
        case .finished(let header):
            let parts = storages[peer.id] ?? []
            storages[peer.id] = nil
            return finish(header, parts: parts, from: peer, wallClock: wallClock, arrived: arrived)
        case .abandoned(let why):
            storages[peer.id] = nil
            return [.log("\(peer.name): a clipboard transfer dropped: \(why)")]
        }
        return []
    }

    /// A whole transfer: the item its representations make (markers left out), applied as a received
    /// clipboard is.
    mutating func finish(_ header: RichClipboard.Header, parts: [any TransferStorage], from peer: Peer, wallClock: Int64, arrived: Date) -> [Output] {
        guard parts.count == header.parts.count else { return [] }
        var item = Item()
        do {
            for (part, storage) in zip(header.parts, parts) where !ClipboardMarkers.isMarker(part.type) {
                item.set(Representation(type: TypeIdentifier(part.type), data: try storage.mapped(), derivedFrom: part.derivedFrom.map { TypeIdentifier($0) }))
            }
        } catch {
            return [.log("cannot read back \(peer.name)'s clipboard: \(error)")]
        }
        guard !item.representations.isEmpty, let content = SyncedContent(item: item, plainText: plainText(item)) else { return [] }
        let apply =
            header.onConnect
            ? sync.receivedOnConnect(content, changed: header.changed, now: wallClock) : sync.received(content, now: wallClock)
        guard apply else { return [] }
        return deliver(item, from: peer, arrived: arrived)
    }

    /// A received item becomes the clipboard: checked as local input is, attributed to the device, its
    /// file lists naming it (``ForeignContent``), or refused.
    mutating func deliver(_ received: Item, from peer: Peer, arrived: Date) -> [Output] {
        let origin = ReceivedClipboard.Origin(deviceID: peer.id, deviceName: peer.name)
        var item = received
        item.metadata = ItemMetadata()
        do {
            item = try ForeignContent.admit(item, from: ForeignContent.Origin(host: peer.name, label: origin.application), arrived: arrived)
        } catch let error as PasteboardError {
            return [.log("\(peer.name)'s clipboard refused: \(error.message)")]
        } catch {
            return [.log("\(peer.name)'s clipboard refused: \(error)")]
        }
        item.metadata.sourceApplication = origin.application
        current = item
        statistics.received += 1
        statistics.last = "received from \(peer.name)"
        return [
            .saveSync(sync.encoded()), .log("clipboard from \(peer.name) (\(item.types.count) type\(item.types.count == 1 ? "" : "s"))"),
            .deliver(ReceivedClipboard(item: item, origin: origin)),
        ]
    }

    /// The item's UTF-8 text (`public.utf8-plain-text`, else a plain-text type's bytes).
    func plainText(_ item: Item) -> Data? { Self.plainText(item, registry: registry) }

    static func plainText(_ item: Item, registry: TypeRegistry) -> Data? {
        let representation =
            item.representation(for: .utf8PlainText)
            ?? item.representations.first { $0.type != .utf8PlainText && registry.conforms($0.type, to: .plainText) }
        return try? representation?.data()
    }

    /// A key of an item's content (its text's, else its first type's bytes): the same for an item and
    /// the same content read back from the display.
    public static func contentKey(_ item: Item, registry: TypeRegistry) -> UInt64? {
        SyncedContent(item: item, plainText: plainText(item, registry: registry))?.key
    }
}

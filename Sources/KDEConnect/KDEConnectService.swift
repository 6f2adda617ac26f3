#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Pasteboard
import Synchronization
import SystemIO

/// pbctl as a KDE Connect device (`pbctl daemon --kdeconnect`): announces itself on UDP port 1716 and
/// answers others' announcements, accepts and opens TCP links on 1714–1764, pairs, and syncs the
/// clipboard with paired, reachable devices. It runs on a thread of its own, one `poll` loop over every
/// socket with deadlines on every phase, so a slow or hostile peer holds up nothing else; the daemon
/// hands it local changes (``localChange(_:)``) and hears received clipboards (`Configuration.receive`).
/// The decisions are Protocol/'s (pairing, sync, the packets); the I/O is Connection/'s.
public final class KDEConnectService: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var name: String
        public var type = "desktop"
        /// Announce by broadcast and answer others' announcements (off: links only through
        /// `pbctl devices add`).
        public var discovery = true
        /// The IPv4 address to listen on (0: every interface).
        public var bindAddress: UInt32 = 0
        /// The TCP ports to try, in order (KDE Connect's: 1716 to 1764, then 1714 and 1715).
        public var ports: [Int] = Array(1716...1764) + [1714, 1715]
        /// The UDP port of discovery.
        public var udpPort = DeviceIdentity.udpPort
        /// The largest item taken from a pbctl peer.
        public var maximumItemSize = 256 << 20
        public var registry: TypeRegistry = .standard
        public var log: (@Sendable (String) -> Void)?
        /// A received clipboard to make the local one (called on the service's thread: hand it on).
        public var receive: (@Sendable (ReceivedClipboard) -> Void)?

        public init(name: String) { self.name = name }
    }

    public struct ReceivedClipboard: Sendable {
        public var item: Item
        public var deviceID: String
        public var deviceName: String
    }

    /// What the service knows of one device.
    final class Device {
        let id: String
        var name: String
        var type: String
        var protocolVersion: Int
        var incoming: [String] = []
        var outgoing: [String] = []
        var fingerprint: String?
        var certificate: Data?
        var endpoint: Endpoint?
        var tcpPort: Int?
        var pairing: Pairing
        var link: Link?
        var receiver: RichClipboardReceiver
        var spools: [Spool] = []
        var sender: RichClipboardSender?
        var note: String?
        var lastSeen: Double = 0

        init(id: String, name: String, type: String, protocolVersion: Int, paired: Bool, maximumItemSize: Int) {
            self.id = id
            self.name = name
            self.type = type
            self.protocolVersion = protocolVersion
            pairing = Pairing(paired: paired)
            receiver = RichClipboardReceiver(maximumTotal: maximumItemSize)
        }

        var identity: DeviceIdentity {
            DeviceIdentity(id: id, name: name, type: type, protocolVersion: protocolVersion, incomingCapabilities: incoming, outgoingCapabilities: outgoing)
        }
    }

    /// A link on its way up, with what is known of its peer.
    final class PendingLink {
        let link: Link
        /// The identity the peer announced (by UDP, or in clear on this link).
        var announced: DeviceIdentity?
        /// A secure identity is awaited inside TLS.
        var awaitingSecureIdentity = false
        /// Made by `pbctl devices add` to an address: the peer must identify inside TLS.
        let direct: Bool
        init(link: Link, announced: DeviceIdentity?, direct: Bool) {
            self.link = link
            self.announced = announced
            self.direct = direct
        }
    }

    public let folder: StateFolder
    public let certificate: DeviceCertificate
    public private(set) var configuration: Configuration
    public private(set) var tcpPort = 0

    private var records: DeviceRecords
    private var devices: [String: Device] = [:]
    private var pending: [PendingLink] = []
    private var sync: ClipboardSync
    private var currentItem: Item?
    private var udp: Int32 = -1
    private var listener: Int32 = -1
    private var control: Int32 = -1
    private var controlClients: [(fd: Int32, buffer: [UInt8], deadline: Double)] = []
    private var wake: (read: Int32, write: Int32) = (-1, -1)
    private var lock: Int32 = -1
    private let inbox = Mutex<(items: [Item], stop: Bool)>(([], false))
    private var lastAttempt: [String: Double] = [:]
    private var lastBroadcast = 0.0
    private var lastReconnect = 0.0
    private var stats = (sent: 0, received: 0, skipped: 0)
    private var lastEvent: String?
    private let finished = DispatchSemaphore(value: 0)
    private var running = false

    /// Opens the device in `folder`: its key and certificate (made the first time), its records, its
    /// lock (one daemon per folder).
    /// - Throws: ``PasteboardError`` `.unavailable` when another daemon holds the folder.
    public init(folder: StateFolder, configuration: Configuration) throws {
        self.folder = folder
        self.configuration = configuration
        try folder.create()
        guard let lock = try folder.lock() else {
            throw PasteboardError(.unavailable, "another pbctl daemon --kdeconnect uses \(folder.path)")
        }
        self.lock = lock
        certificate = try DeviceCertificate.loadOrCreate(in: folder)
        records = DeviceRecords()
        sync = ClipboardSync()
        var problems: [String] = []
        if let data = try folder.read("devices.json", limit: DeviceRecords.maximumFileSize) {
            do {
                (records, problems) = try DeviceRecords.decode(data, fingerprint: DeviceCertificate.fingerprint)
            } catch {
                problems.append("\(error); starting with no paired device")
            }
        }
        for problem in problems { configuration.log?("kdeconnect: \(folder.path)/devices.json: \(problem)") }
        sync = Self.loadSync(folder)
        for record in records.devices {
            let device = Device(
                id: record.id, name: record.name, type: record.type, protocolVersion: record.protocolVersion, paired: true,
                maximumItemSize: configuration.maximumItemSize)
            device.fingerprint = record.fingerprint
            device.certificate = record.certificate
            if let address = record.address, let port = record.port { device.endpoint = Endpoint(host: address, port: port) }
            device.tcpPort = record.port
            devices[record.id] = device
        }
    }

    deinit {
        if lock >= 0 { Sockets.close(lock) }
    }

    public var identity: DeviceIdentity {
        DeviceIdentity(id: certificate.id, name: configuration.name, type: configuration.type, tcpPort: tcpPort == 0 ? nil : tcpPort)
    }

    func log(_ line: String) { configuration.log?("kdeconnect: " + line) }

    static func wallClock() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    // MARK: Start and stop

    /// Binds the sockets and starts the loop on a thread of its own.
    /// - Throws: ``PasteboardError`` when no TCP port is free or the control socket cannot be made.
    public func start() throws {
        wake = try Sockets.wakePipe()
        (listener, tcpPort) = try Sockets.listen(bind: configuration.bindAddress, ports: configuration.ports)
        if configuration.discovery {
            do {
                udp = try Sockets.udp(bind: configuration.bindAddress, port: configuration.udpPort)
            } catch {
                log("discovery off: \(error)")
            }
        }
        control = try ControlSocket.listen(folder.controlSocket)
        running = true
        log("device \(configuration.name) (\(certificate.id)), TCP port \(tcpPort), discovery \(udp >= 0 ? "on" : "off")")
        let thread = DispatchQueue(label: "pbctl.kdeconnect")
        thread.async { [self] in
            self.loop()
            self.finished.signal()
        }
    }

    /// Ends the loop, closing every link, and waits for it (at most two seconds).
    public func stop() {
        guard running else { return }
        inbox.withLock { $0.stop = true }
        Sockets.wake(wake.write)
        _ = finished.wait(timeout: .now() + 2)
        running = false
    }

    /// The clipboard changed here (thread-safe): sent to paired devices unless it is sensitive.
    public func localChange(_ item: Item) {
        inbox.withLock { $0.items.append(item) }
        if wake.write >= 0 { Sockets.wake(wake.write) }
    }

    // MARK: The loop

    func loop() {
        let now = MonotonicClock.seconds()
        broadcast(now: now)
        for address in records.addresses { connect(toAddress: address, now: now) }
        // With discovery, paired devices answer the broadcast: tried by address only if they have not
        // after a few seconds (KDE Connect 22.12 opens a link for every announcement it hears, and two
        // at once race).
        if udp >= 0 { lastReconnect = now - 25 } else { reconnect(now: now) }
        while true {
            let (items, stop) = inbox.withLock { state -> ([Item], Bool) in
                defer { state.items.removeAll() }
                return (state.items, state.stop)
            }
            if stop { break }
            for item in items { handleLocal(item) }
            var poller = Poller()
            let wakeIndex = poller.add(wake.read, read: true, write: false)
            let udpIndex = udp >= 0 ? poller.add(udp, read: true, write: false) : -1
            let listenIndex = poller.add(listener, read: true, write: false)
            let controlIndex = poller.add(control, read: true, write: false)
            let clientIndices = controlClients.map { poller.add($0.fd, read: true, write: false) }
            var links: [(Link, Int)] = []
            for link in allLinks() { links.append((link, poller.add(link.fd, read: link.wantsRead, write: link.wantsWrite))) }
            let pendingTLS = links.contains { $0.0.hasPending }
            poller.wait(milliseconds: pendingTLS ? 0 : 250)
            let now = MonotonicClock.seconds()
            if poller.readable(wakeIndex) { Sockets.drain(wake.read) }
            if udpIndex >= 0, poller.readable(udpIndex) { receiveDatagrams(now: now) }
            if poller.readable(listenIndex) { acceptLinks(now: now) }
            if poller.readable(controlIndex) { acceptControl(now: now) }
            serveControl(ready: clientIndices.map { poller.readable($0) }, now: now)
            for (link, index) in links where link.phase != .closed {
                drive(link, readable: poller.readable(index) || link.hasPending, writable: poller.writable(index), now: now)
            }
            tick(now: now)
        }
        for link in allLinks() { link.close("the daemon stops") }
        pending.removeAll()
        for device in devices.values { device.link = nil }
        for fd in [udp, listener, control, wake.read, wake.write] where fd >= 0 { Sockets.close(fd) }
        for client in controlClients { Sockets.close(client.fd) }
        controlClients.removeAll()
        folder.remove("control.socket")
    }

    func allLinks() -> [Link] { pending.map(\.link) + devices.values.compactMap(\.link) }

    func tick(now: Double) {
        // Deadlines of links on their way up.
        for entry in pending where entry.link.phase != .closed && now > entry.link.deadline {
            entry.link.close("\(entry.link.endpoint) took too long to \(entry.link.phase == .secure ? "identify inside TLS" : "connect")")
        }
        for entry in pending where entry.link.phase == .closed {
            if let reason = entry.link.closeReason { log(reason) }
        }
        pending.removeAll { $0.link.phase == .closed }
        for device in devices.values {
            if let link = device.link {
                // A peer that leaves bytes queued for a minute without taking any is dropped.
                if link.queuedBytes > 0, now - link.lastProgress > 60 { link.close("\(device.name) does not read (stalled for 60 s)") }
                if link.phase == .closed {
                    log("\(device.name) (\(device.id)) is gone: \(link.closeReason ?? "closed")")
                    device.link = nil
                    device.sender = nil
                    device.spools = []
                    device.receiver = RichClipboardReceiver(maximumTotal: configuration.maximumItemSize)
                    apply(device.pairing.linkLost(), to: device)
                }
            }
            apply(device.pairing.handle(.tick, now: now, wallClock: Self.wallClock() / 1000, reachable: device.link != nil), to: device)
            feedSender(device)
        }
        // Unpaired devices no longer reachable are forgotten after a while.
        let stale = devices.values.filter { !$0.pairing.isPaired && $0.link == nil && now - $0.lastSeen > 300 }
        for device in stale { devices[device.id] = nil }
        if udp >= 0, now - lastBroadcast > 120, devices.values.allSatisfy({ $0.link == nil }) { broadcast(now: now) }
        if now - lastReconnect > 30 { reconnect(now: now) }
    }

    /// Paired devices out of reach are tried where they were last seen: our identity by UDP (a KDE
    /// Connect device connects back) and a link to their TCP port (a device of protocol 8 identifies
    /// inside TLS; another's link is dropped after its deadline).
    func reconnect(now: Double) {
        lastReconnect = now
        for device in devices.values where device.pairing.isPaired && device.link == nil {
            guard let endpoint = device.endpoint else { continue }
            announce(to: Endpoint(address: endpoint.address, port: configuration.udpPort))
            // Protocol 7 devices only by UDP: a link they cannot identify on would replace their good one.
            if device.protocolVersion >= 8, let port = device.tcpPort,
                !pending.contains(where: { $0.link.endpoint == Endpoint(address: endpoint.address, port: port) })
            {
                open(Endpoint(address: endpoint.address, port: port), announced: nil, direct: true, now: now)
            }
        }
    }

    // MARK: Discovery

    func broadcast(now: Double) {
        lastBroadcast = now
        guard udp >= 0 else { return }
        announce(to: Endpoint(address: 0xFFFF_FFFF, port: configuration.udpPort))
    }

    /// Our identity by UDP to `endpoint` (a broadcast, or a device `pbctl devices add` named).
    func announce(to endpoint: Endpoint) {
        let bytes = identity.packet(now: Self.wallClock()).encoded()
        if udp >= 0 {
            if !Sockets.send(udp, bytes, to: endpoint) { log("cannot announce to \(endpoint): \(POSIX.errorString())") }
            return
        }
        guard let fd = try? Sockets.udp(bind: configuration.bindAddress, port: 0) else { return }
        Sockets.send(fd, bytes, to: endpoint)
        Sockets.close(fd)
    }

    func receiveDatagrams(now: Double) {
        for _ in 0..<64 {
            guard let (bytes, from) = Sockets.receive(udp, limit: NetworkPacket.maximumIdentitySize + 1) else { return }
            guard let packet = try? NetworkPacket.decode(bytes, maximumSize: NetworkPacket.maximumIdentitySize),
                let announced = try? DeviceIdentity(packet: packet), announced.id != certificate.id, let port = announced.tcpPort
            else { continue }
            if let device = devices[announced.id], device.link != nil { continue }
            if let last = lastAttempt[announced.id], now - last < 2 { continue }
            guard pending.count < 32 else { continue }
            lastAttempt[announced.id] = now
            open(Endpoint(address: from.address, port: port), announced: announced, direct: false, now: now)
        }
    }

    /// Opens a link to `endpoint`: TCP, then our identity in clear, then TLS as its server.
    func open(_ endpoint: Endpoint, announced: DeviceIdentity?, direct: Bool, now: Double) {
        do {
            let fd = try Sockets.connect(endpoint)
            let link = Link(fd: fd, endpoint: endpoint, outgoing: true, now: now, connecting: true)
            pending.append(PendingLink(link: link, announced: announced, direct: direct))
        } catch {
            log("cannot connect to \(endpoint): \(error)")
        }
    }

    /// `pbctl devices add ADDRESS`: our identity by UDP to its port 1716 (a KDE Connect device then
    /// connects back); with a port (`host:port`), also a link straight to that TCP port (a device of
    /// protocol 8, such as another pbctl without discovery, identifies inside TLS).
    func connect(toAddress text: String, now: Double) {
        guard let (host, port) = DeviceRecords.splitAddress(text), let endpoint = Endpoint(host: host, port: port) else {
            log("\(text): not an address")
            return
        }
        announce(to: Endpoint(address: endpoint.address, port: configuration.udpPort))
        if text.contains(":") { open(endpoint, announced: nil, direct: true, now: now) }
    }

    func acceptLinks(now: Double) {
        for _ in 0..<16 {
            guard let (fd, from) = Sockets.accept(listener) else { return }
            guard pending.count < 32 else {
                Sockets.close(fd)
                continue
            }
            pending.append(PendingLink(link: Link(fd: fd, endpoint: from, outgoing: false, now: now, connecting: false), announced: nil, direct: false))
        }
    }

    // MARK: Links

    func identityLine(for entry: PendingLink) -> [UInt8] {
        var packet = identity.packet(now: Self.wallClock())
        if let announced = entry.announced, case .object(var members) = packet.body {
            members.append(("targetDeviceId", .string(announced.id)))
            members.append(("targetProtocolVersion", .integer(Int64(announced.protocolVersion))))
            packet.body = .object(members)
        }
        return packet.encoded()
    }

    func drive(_ link: Link, readable: Bool, writable: Bool, now: Double) {
        if let entry = pending.first(where: { $0.link === link }) {
            driveHandshake(entry, readable: readable, writable: writable, now: now)
            return
        }
        guard let device = devices.values.first(where: { $0.link === link }) else { return }
        if writable { link.flush(now: now) }
        if readable {
            for line in link.receive(now: now) {
                guard device.link === link else { break }
                do {
                    let packet = try NetworkPacket.decode(line)
                    handle(packet, from: device, now: now)
                } catch {
                    link.close("\(device.name): \(error)")
                }
            }
        }
        feedSender(device)
        if link.phase == .secure, link.wantsWrite { link.flush(now: now) }
    }

    func driveHandshake(_ entry: PendingLink, readable: Bool, writable: Bool, now: Double) {
        let link = entry.link
        switch link.phase {
        case .connecting:
            if writable { link.connected(identityLine: identityLine(for: entry), now: now) }
            if link.phase == .sendingIdentity, link.flushIdentity(now: now) { link.startTLS(identity: certificate, now: now) }
        case .sendingIdentity:
            if link.flushIdentity(now: now) { link.startTLS(identity: certificate, now: now) }
        case .awaitingIdentity:
            guard readable, let line = link.readIdentityLine(now: now) else { return }
            do {
                let announced = try DeviceIdentity(packet: try NetworkPacket.decode(line, maximumSize: NetworkPacket.maximumIdentitySize))
                guard announced.id != certificate.id else { return link.close("a link from this device itself") }
                entry.announced = announced
                link.startTLS(identity: certificate, now: now)
            } catch {
                link.close("\(link.endpoint): \(error)")
            }
        case .handshaking:
            if link.handshake(now: now) { secured(entry, now: now) }
        case .secure:
            guard entry.awaitingSecureIdentity else { return }
            if writable { link.flush(now: now) }
            guard readable else { return }
            let lines = link.receive(now: now, budget: NetworkPacket.maximumIdentitySize)
            guard let first = lines.first else { return }
            do {
                let secure = try DeviceIdentity(packet: try NetworkPacket.decode(first, maximumSize: NetworkPacket.maximumIdentitySize))
                if let announced = entry.announced {
                    guard secure.id == announced.id, secure.protocolVersion == announced.protocolVersion else {
                        return link.close("\(link.endpoint): the identity changed inside TLS")
                    }
                }
                var identity = secure
                identity.tcpPort = entry.announced?.tcpPort ?? secure.tcpPort
                entry.announced = identity
                entry.awaitingSecureIdentity = false
                established(entry, now: now, extraLines: Array(lines.dropFirst()))
            } catch {
                link.close("\(link.endpoint): \(error)")
            }
        case .closed:
            return
        }
    }

    /// TLS is up: the certificate must name the device, and a paired device's must be the pinned one.
    func secured(_ entry: PendingLink, now: Double) {
        let link = entry.link
        guard let der = link.peerCertificate, let commonName = DeviceCertificate.commonName(der), DeviceIdentity.isValidID(commonName) else {
            return link.close("\(link.endpoint): no certificate naming a device")
        }
        if let announced = entry.announced, announced.id != commonName {
            return link.close("\(link.endpoint): the certificate names \(commonName), the identity \(announced.id)")
        }
        let fingerprint = DeviceCertificate.fingerprint(der)
        if let record = records.device(commonName), record.fingerprint != fingerprint {
            let note = "refused: a certificate other than the one paired (pinned \(record.fingerprint.prefix(16))…, offered \(fingerprint.prefix(16))…)"
            devices[commonName]?.note = note
            log("\(record.name) (\(commonName)) at \(link.endpoint): \(note)")
            return link.close("\(link.endpoint): certificate mismatch")
        }
        entry.link.deadline = now + 5
        // Protocol 8: identities again inside TLS, each side sending first, when the peer speaks it (or
        // its version is unknown: a link we opened to an address).
        let peerVersion = entry.announced?.protocolVersion
        if peerVersion.map({ $0 >= 8 }) ?? true {
            link.send(identity.packet(now: Self.wallClock()))
            link.flush(now: now)
            entry.awaitingSecureIdentity = true
            return
        }
        established(entry, now: now, extraLines: [])
    }

    /// The link is up and its peer known: it becomes the device's link.
    func established(_ entry: PendingLink, now: Double, extraLines: [[UInt8]]) {
        let link = entry.link
        guard let announced = entry.announced, let der = link.peerCertificate else { return link.close("no identity") }
        pending.removeAll { $0 === entry }
        let device: Device
        if let known = devices[announced.id] {
            device = known
        } else {
            guard devices.count < 128 else { return link.close("too many devices") }
            device = Device(
                id: announced.id, name: announced.name, type: announced.type, protocolVersion: announced.protocolVersion, paired: false,
                maximumItemSize: configuration.maximumItemSize)
            devices[announced.id] = device
        }
        device.name = announced.name
        device.type = announced.type
        device.protocolVersion = announced.protocolVersion
        device.incoming = announced.incomingCapabilities
        device.outgoing = announced.outgoingCapabilities
        device.certificate = der
        device.fingerprint = DeviceCertificate.fingerprint(der)
        device.endpoint = link.endpoint
        device.tcpPort = announced.tcpPort ?? (link.outgoing ? link.endpoint.port : device.tcpPort)
        device.note = nil
        device.lastSeen = now
        if let old = device.link, old !== link {
            // What the old link still holds is read first (the on-connect clipboard may be in it).
            for line in old.receive(now: now) {
                if let packet = try? NetworkPacket.decode(line) { handle(packet, from: device, now: now) }
            }
            old.close("replaced by a new link")
        }
        device.link = link
        device.sender = nil
        device.receiver = RichClipboardReceiver(maximumTotal: configuration.maximumItemSize)
        log("\(device.name) (\(device.id)) at \(link.endpoint), protocol \(device.protocolVersion), \(link.tlsVersion), \(device.pairing.word)")
        if device.pairing.isPaired {
            rememberAddress(device)
            sendOnConnect(device)
        }
        for line in extraLines {
            if let packet = try? NetworkPacket.decode(line) { handle(packet, from: device, now: now) }
        }
    }

    func rememberAddress(_ device: Device) {
        guard var record = records.device(device.id) else { return }
        record.name = device.name
        record.type = device.type
        record.protocolVersion = device.protocolVersion
        if let endpoint = device.endpoint {
            record.address = endpoint.host
            record.port = device.tcpPort
        }
        if record != records.device(device.id) {
            records.set(record)
            saveRecords()
        }
    }

    func saveRecords() {
        do { try folder.write("devices.json", records.encoded()) } catch { log("cannot save the device records: \(error)") }
    }

    // MARK: Packets

    func handle(_ packet: NetworkPacket, from device: Device, now: Double) {
        device.lastSeen = now
        if packet.type == PacketType.pair {
            guard let wants = packet.body["pair"]?.bool else { return }
            apply(device.pairing.handle(.received(pair: wants), now: now, wallClock: Self.wallClock() / 1000, reachable: true), to: device)
            return
        }
        // Nothing but pairing from a device that is not paired.
        guard device.pairing.isPaired else { return }
        switch packet.type {
        case PacketType.clipboard, PacketType.clipboardConnect:
            guard let text = packet.body["content"]?.string else { return }
            let content = SyncedContent(text: text)
            let apply: Bool
            if packet.type == PacketType.clipboard {
                apply = sync.received(content, now: Self.wallClock())
            } else {
                apply = sync.receivedOnConnect(content, changed: packet.body["timestamp"]?.integer ?? 0, now: Self.wallClock())
            }
            guard apply else { return }
            deliver(Item(representations: [Representation(type: .utf8PlainText, data: Data(text.utf8))]), content: content, from: device)
        case PacketType.richClipboard, PacketType.richChunk, PacketType.richEnd:
            for output in device.receiver.handle(packet) {
                switch output {
                case .started(let header):
                    do {
                        device.spools = try header.parts.map { _ in try Spool() }
                    } catch {
                        log("cannot spool \(device.name)'s clipboard: \(error)")
                        device.receiver = RichClipboardReceiver(maximumTotal: configuration.maximumItemSize)
                    }
                case .bytes(let part, let data):
                    guard part < device.spools.count else { continue }
                    do { try device.spools[part].append(data) } catch {
                        log("cannot spool \(device.name)'s clipboard: \(error)")
                        device.receiver = RichClipboardReceiver(maximumTotal: configuration.maximumItemSize)
                        device.spools = []
                    }
                case .finished(let header):
                    finishRich(header, from: device)
                case .abandoned(let why):
                    log("\(device.name): a clipboard transfer dropped: \(why)")
                    device.spools = []
                }
            }
        default:
            return
        }
    }

    func finishRich(_ header: RichClipboard.Header, from device: Device) {
        defer { device.spools = [] }
        guard device.spools.count == header.parts.count else { return }
        var item = Item()
        do {
            for (part, spool) in zip(header.parts, device.spools) {
                let type = TypeIdentifier(part.type)
                if ClipboardMarkers.isMarker(part.type) { continue }
                item.set(Representation(type: type, data: try spool.mapped(), derivedFrom: part.derivedFrom.map { TypeIdentifier($0) }))
            }
        } catch {
            log("cannot read back \(device.name)'s clipboard: \(error)")
            return
        }
        guard !item.representations.isEmpty, let content = SyncedContent(item: item, plainText: plainText(item)) else { return }
        let apply =
            header.onConnect
            ? sync.receivedOnConnect(content, changed: header.changed, now: Self.wallClock()) : sync.received(content, now: Self.wallClock())
        guard apply else { return }
        deliver(item, content: content, from: device)
    }

    func deliver(_ item: Item, content: SyncedContent, from device: Device) {
        // Checked as local input is, attributed to the device, its file lists naming it (ForeignContent).
        var item = item
        item.metadata = ItemMetadata()
        do {
            item = try ForeignContent.admit(
                item, from: ForeignContent.Origin(host: device.name, label: "KDE Connect: \(device.name)"), arrived: Date())
        } catch let error as PasteboardError {
            log("\(device.name)'s clipboard refused: \(error.message)")
            return
        } catch {
            return
        }
        item.metadata.sourceApplication = "KDE Connect: \(device.name)"
        currentItem = item
        saveSync()
        stats.received += 1
        lastEvent = "received from \(device.name)"
        log("clipboard from \(device.name) (\(item.types.count) type\(item.types.count == 1 ? "" : "s"))")
        configuration.receive?(ReceivedClipboard(item: item, deviceID: device.id, deviceName: device.name))
    }

    func plainText(_ item: Item) -> Data? {
        let registry = configuration.registry
        let representation =
            item.representation(for: .utf8PlainText)
            ?? item.representations.first { $0.type != .utf8PlainText && registry.conforms($0.type, to: .plainText) }
        return try? representation?.data()
    }

    // MARK: Pairing

    func apply(_ actions: [Pairing.Action], to device: Device) {
        for action in actions {
            switch action {
            case .send(let pair, let timestamp):
                var body: [(String, JSONValue)] = [("pair", .bool(pair))]
                if let timestamp { body.append(("timestamp", .integer(timestamp))) }
                device.link?.send(NetworkPacket(type: PacketType.pair, body: body, now: Self.wallClock()))
            case .trust:
                guard let certificate = device.certificate, let fingerprint = device.fingerprint else { continue }
                records.set(
                    DeviceRecords.Device(
                        id: device.id, name: device.name, type: device.type, certificate: certificate, fingerprint: fingerprint,
                        protocolVersion: device.protocolVersion, address: device.endpoint?.host, port: device.tcpPort, paired: Self.wallClock()))
                saveRecords()
                // As KDE Connect's clipboard plugin does once a device is paired: our content and its time.
                sendOnConnect(device)
            case .forget:
                if records.device(device.id) != nil {
                    records.remove(device.id)
                    saveRecords()
                }
                device.sender = nil
            case .report(let message):
                device.note = message
                log("\(device.name) (\(device.id)): \(message)")
            }
        }
        if let link = device.link, link.phase == .secure { link.flush(now: MonotonicClock.seconds()) }
    }

    // MARK: Sync

    func handleLocal(_ item: Item) {
        let now = Self.wallClock()
        let sensitive = item.isSensitiveForSync
        let content = sensitive ? nil : SyncedContent(item: item, plainText: plainText(item))
        switch sync.localChange(content, sensitive: sensitive, now: now) {
        case .skip(let why):
            if !sensitive, let content, content == sync.current { currentItem = item }
            if sensitive {
                currentItem = nil
                saveSync()
                stats.skipped += 1
            }
            log("local clipboard not sent: \(why)")
        case .send:
            currentItem = item
            saveSync()
            var count = 0
            for device in devices.values where device.pairing.isPaired && device.link != nil {
                if send(to: device, onConnect: false) { count += 1 }
            }
            if count > 0 {
                stats.sent += 1
                lastEvent = "sent to \(count) device\(count == 1 ? "" : "s")"
            }
            log("local clipboard sent to \(count) device\(count == 1 ? "" : "s")")
        }
    }

    func sendOnConnect(_ device: Device) {
        guard device.pairing.isPaired, device.link != nil else { return }
        _ = send(to: device, onConnect: true)
    }

    /// Sends the current content to one device: every representation to a pbctl, the text to a KDE
    /// Connect device (nothing when there is no text, or it does not take the clipboard).
    func send(to device: Device, onConnect: Bool) -> Bool {
        guard let link = device.link else { return false }
        let changed = sync.timestamp
        if onConnect, sync.onConnect == nil { return false }
        if device.identity.speaksRichClipboard {
            var representations: [(type: String, derivedFrom: String?, data: Data)] = []
            var total = 0
            if let item = currentItem {
                // The originals only: the receiver derives the rest when asked, as a local copy does (an
                // image's five other formats, HTML and RTF would multiply what crosses the network).
                for representation in item.representations
                where representation.derivedFrom == nil && !ClipboardMarkers.isMarker(representation.type.rawValue) {
                    guard let data = try? representation.data(), total + data.count <= configuration.maximumItemSize else { continue }
                    total += data.count
                    representations.append((representation.type.rawValue, representation.derivedFrom?.rawValue, data))
                }
            } else if let text = sync.current?.text {
                representations.append((TypeIdentifier.utf8PlainText.rawValue, nil, Data(text.utf8)))
            }
            guard !representations.isEmpty else { return false }
            device.sender = RichClipboardSender(
                transfer: Self.wallClock(), changed: changed, onConnect: onConnect, representations: representations)
            feedSender(device)
            link.flush(now: MonotonicClock.seconds())
            return true
        }
        guard device.identity.speaksClipboard, let text = sync.current?.text else { return false }
        // A packet a peer can take: KDE Connect reads any line, pbctl at most NetworkPacket.maximumSize.
        guard text.utf8.count <= NetworkPacket.maximumSize - 4096 else {
            log("not sent to \(device.name): \(text.utf8.count) bytes of text is over what a packet carries")
            return false
        }
        let packet =
            onConnect
            ? NetworkPacket(type: PacketType.clipboardConnect, body: [("content", .string(text)), ("timestamp", .integer(changed))], now: Self.wallClock())
            : NetworkPacket(type: PacketType.clipboard, body: [("content", .string(text))], now: Self.wallClock())
        link.send(packet)
        link.flush(now: MonotonicClock.seconds())
        return true
    }

    /// Moves a pbctl transfer's next chunks into the link's queue while it holds little.
    func feedSender(_ device: Device) {
        guard let link = device.link, link.phase == .secure, var sender = device.sender else { return }
        while link.queuedBytes < 1 << 20, let packet = sender.next(now: Self.wallClock()) {
            guard link.send(packet) else { break }
        }
        device.sender = sender.finished ? nil : sender
    }

    static func loadSync(_ folder: StateFolder) -> ClipboardSync {
        guard let data = try? folder.read("sync.json", limit: 8 << 20),
            let value = try? JSONValue.parse(data, limits: JSONLimits.packet(maximumBytes: 8 << 20)),
            let timestamp = value["timestamp"]?.integer, timestamp >= 0
        else { return ClipboardSync() }
        if let text = value["text"]?.string { return ClipboardSync(current: SyncedContent(text: text), timestamp: timestamp) }
        if let key = value["key"]?.string, let number = UInt64(key, radix: 16) {
            return ClipboardSync(current: SyncedContent(text: nil, key: number), timestamp: timestamp)
        }
        return ClipboardSync(current: nil, timestamp: timestamp)
    }

    /// When the clipboard last changed, and what it was, kept so a restarted daemon knows whether its
    /// content is newer than a peer's (sensitive content leaves only the time).
    func saveSync() {
        var members: [(String, JSONValue)] = [("timestamp", .integer(sync.timestamp))]
        if let current = sync.current, !sync.currentIsSensitive {
            if let text = current.text, text.utf8.count <= 1 << 20 {
                members.append(("text", .string(text)))
            } else {
                members.append(("key", .string(String(current.key, radix: 16))))
            }
        }
        try? folder.write("sync.json", Data(JSONValue.object(members).encoded()))
    }

    // MARK: Control

    func acceptControl(now: Double) {
        while let fd = ControlSocket.accept(control) {
            guard controlClients.count < 16 else {
                Sockets.close(fd)
                continue
            }
            controlClients.append((fd, [], now + 5))
        }
    }

    func serveControl(ready: [Bool], now: Double) {
        var kept: [(fd: Int32, buffer: [UInt8], deadline: Double)] = []
        for (index, var client) in controlClients.enumerated() {
            var done = false
            if index < ready.count, ready[index] {
                var buffer = [UInt8](repeating: 0, count: 64 << 10)
                switch buffer.withUnsafeMutableBytes({ Sockets.read(client.fd, into: $0) }) {
                case .bytes(let count): client.buffer += buffer[0..<count]
                case .closed: done = true
                case .wouldBlock: break
                }
            }
            if let newline = client.buffer.firstIndex(of: 0x0A) {
                let answer = controlAnswer(Array(client.buffer[..<newline]), now: now)
                var line = answer.encoded()
                line.append(0x0A)
                _ = line.withUnsafeBytes { Sockets.write(client.fd, $0) }
                done = true
            } else if client.buffer.count > 64 << 10 || now > client.deadline {
                done = true
            }
            if done { Sockets.close(client.fd) } else { kept.append(client) }
        }
        controlClients = kept
    }

    func failure(_ message: String) -> JSONValue { .object([("ok", .bool(false)), ("error", .string(message))]) }

    func controlAnswer(_ line: [UInt8], now: Double) -> JSONValue {
        guard let request = try? JSONValue.parse(line, limits: JSONLimits.packet(maximumBytes: 64 << 10)), let command = request["command"]?.string else {
            return failure("not a request")
        }
        switch command {
        case "list", "status":
            return .object([("ok", .bool(true)), ("self", selfDescription()), ("devices", .array(deviceList()))])
        case "add":
            guard let address = request["address"]?.string, DeviceRecords.splitAddress(address) != nil,
                Endpoint(host: DeviceRecords.splitAddress(address)!.host, port: 1) != nil
            else { return failure("not an address (host, host:port or an IPv4 address)") }
            if !records.addresses.contains(address), records.addresses.count < DeviceRecords.maximumAddresses {
                records.addresses.append(address)
                saveRecords()
            }
            connect(toAddress: address, now: now)
            return .object([("ok", .bool(true)), ("message", .string("announced to \(address); it appears in pbctl devices once it answers"))])
        case "pair", "accept", "reject", "unpair":
            guard let id = request["device"]?.string, let device = devices[id] ?? devices.values.first(where: { $0.name == id }) else {
                return failure("no device \(request["device"]?.string ?? "") (pbctl devices lists them)")
            }
            let event: Pairing.Event = ["pair": .request, "accept": .accept, "reject": .reject, "unpair": .unpair][command]!
            let before = device.pairing
            let actions = device.pairing.handle(event, now: now, wallClock: Self.wallClock() / 1000, reachable: device.link != nil)
            apply(actions, to: device)
            if command == "unpair", records.device(device.id) != nil {
                records.remove(device.id)
                saveRecords()
            }
            let message = actions.compactMap { action -> String? in if case .report(let text) = action { return text }; return nil }.joined(separator: "; ")
            let changed = device.pairing != before || command == "unpair"
            return .object([
                ("ok", .bool(changed)), ("message", .string(message)), ("error", .string(message)), ("device", describe(device)),
            ])
        default:
            return failure("unknown command \(command)")
        }
    }

    func selfDescription() -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(certificate.id)), ("name", .string(configuration.name)), ("type", .string(configuration.type)),
            ("fingerprint", .string(certificate.fingerprint)), ("tcpPort", .integer(Int64(tcpPort))), ("discovery", .bool(udp >= 0)),
            ("sent", .integer(Int64(stats.sent))), ("received", .integer(Int64(stats.received))), ("skipped", .integer(Int64(stats.skipped))),
        ]
        if let lastEvent { members.append(("last", .string(lastEvent))) }
        return .object(members)
    }

    func describe(_ device: Device) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(device.id)), ("name", .string(device.name)), ("type", .string(device.type)), ("state", .string(device.pairing.word)),
            ("reachable", .bool(device.link != nil)), ("fingerprint", .string(device.fingerprint ?? "")),
            ("protocolVersion", .integer(Int64(device.protocolVersion))),
            ("clipboard", .string(device.identity.speaksRichClipboard ? "pbctl" : device.identity.speaksClipboard ? "text" : "none")),
        ]
        if let endpoint = device.link?.endpoint ?? device.endpoint { members.append(("address", .string(endpoint.host))) }
        if let note = device.note { members.append(("note", .string(note))) }
        return .object(members)
    }

    func deviceList() -> [JSONValue] {
        devices.values.sorted { ($0.pairing.isPaired ? 0 : 1, $0.name, $0.id) < ($1.pairing.isPaired ? 0 : 1, $1.name, $1.id) }.map(describe)
    }
}

/// `pbctl devices` and `pbctl info`: requests to a running daemon's control socket, and what can be
/// said without one (the device records on disk).
public enum KDEConnectControl {
    /// Sends `command` (with `device` or `address`) and returns the daemon's answer.
    /// - Throws: ``PasteboardError`` `.unavailable` when no daemon answers.
    public static func request(folder: StateFolder, command: String, device: String? = nil, address: String? = nil, timeout: Double = 5) throws
        -> JSONValue
    {
        var members: [(String, JSONValue)] = [("command", .string(command))]
        if let device { members.append(("device", .string(device))) }
        if let address { members.append(("address", .string(address))) }
        let answer = try ControlSocket.exchange(folder.controlSocket, request: JSONValue.object(members).encoded(), timeout: timeout)
        do {
            return try JSONValue.parse(answer, limits: JSONLimits.packet(maximumBytes: 4 << 20))
        } catch {
            throw PasteboardError(.invalidData, "the daemon's answer is not JSON: \(error)")
        }
    }

    /// The paired devices on record, as the daemon would list them (none reachable), when no daemon runs.
    public static func recordedDevices(folder: StateFolder) throws -> [JSONValue] {
        guard let data = try folder.read("devices.json", limit: DeviceRecords.maximumFileSize) else { return [] }
        let (records, _) = try DeviceRecords.decode(data, fingerprint: DeviceCertificate.fingerprint)
        return records.devices.map { device in
            var members: [(String, JSONValue)] = [
                ("id", .string(device.id)), ("name", .string(device.name)), ("type", .string(device.type)), ("state", .string("paired")),
                ("reachable", .bool(false)), ("fingerprint", .string(device.fingerprint)), ("protocolVersion", .integer(Int64(device.protocolVersion))),
            ]
            if let address = device.address { members.append(("address", .string(address))) }
            return .object(members)
        }
    }

    /// Forgets a paired device on record (`pbctl devices unpair` with no daemon running); false when
    /// there is no such record.
    public static func forget(folder: StateFolder, device id: String) throws -> Bool {
        guard let data = try folder.read("devices.json", limit: DeviceRecords.maximumFileSize) else { return false }
        var (records, _) = try DeviceRecords.decode(data, fingerprint: DeviceCertificate.fingerprint)
        guard let device = records.device(id) ?? records.devices.first(where: { $0.name == id }) else { return false }
        records.remove(device.id)
        try folder.write("devices.json", records.encoded())
        return true
    }

    /// This machine's host name: the default device name.
    public static func hostName() -> String {
        let name = DeviceIdentity.filteredName(Sockets.hostName() ?? "")
        return name.isEmpty ? "pbctl" : name
    }

    /// Parses an IPv4 address to listen on.
    public static func bindAddress(_ text: String) -> UInt32? { Endpoint(host: text, port: 1).map(\.address) }
}

extension KDEConnectService {
    /// The first item on `backend`'s clipboard with every representation's bytes (what a watch hands
    /// the service where no keeper fetches it: the store); nil when it is empty. Sensitive items come
    /// back flagged and without bytes: they are never sent.
    public static func currentItem(of backend: any PasteboardBackend, pasteboard: PasteboardName = .general, maximumSize: Int) -> Item? {
        guard let summary = (try? backend.items(in: pasteboard))?.first, !summary.types.isEmpty else { return nil }
        var item = Item(metadata: summary.metadata)
        if summary.metadata.flags.reasonNotToRecord != nil { return item }
        var total = 0
        // The originals, and the plain text a text-only device gets: nothing else is sent, so nothing
        // else is produced.
        for type in summary.types where type.derivedFrom == nil || type.type == .utf8PlainText {
            guard let data = try? backend.read(type.type, item: 0, from: pasteboard) else { continue }
            total += data.count
            guard total <= maximumSize else { break }
            item.set(Representation(type: type.type, data: data, derivedFrom: type.derivedFrom))
        }
        return item
    }

    /// A key of an item's content (its text's, else its first type's bytes): the same for an item and
    /// the same content read back from the display.
    public static func contentKey(_ item: Item, registry: TypeRegistry) -> UInt64? {
        let representation =
            item.representation(for: .utf8PlainText)
            ?? item.representations.first { $0.type != .utf8PlainText && registry.conforms($0.type, to: .plainText) }
        return SyncedContent(item: item, plainText: try? representation?.data())?.key
    }
}

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
/// clipboard with paired, reachable devices.
///
/// The service is the driver of parts that decide (Protocol/): ``Discovery`` (when to announce and
/// whom to link to), a ``LinkHandshake`` per link on its way up, the ``DeviceTable`` (devices, pinned
/// certificates, pairing), the ``ClipboardChannel`` (what is sent to whom, what is received) and the
/// ``ControlServer`` (`pbctl devices`, `pbctl info`), with ``AddressLinks`` (the addresses `pbctl devices
/// add` names). It runs one thread, one `poll` over the wake pipe, the UDP socket, the TCP listener, the
/// control socket and every link, with a deadline on every phase, so a slow or hostile peer holds up
/// nothing else; it feeds the parts events and performs what they decide with Connection/'s sockets,
/// links and state folder. The poll waits until a descriptor is ready or the earliest deadline the
/// parts name (``nextWake(now:)``): an idle daemon is not woken by a timer.
///
/// Its way in and out:
/// - in: ``localChange(_:)`` (any thread), the clipboard changed here: queued, and sent to the paired
///   devices unless sensitive or what was just received;
/// - out: `Configuration.receive`, called on the service's thread with a ``ReceivedClipboard`` (the
///   item, checked by ``ForeignContent``, and its origin, the device's id and name): hand it on.
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
        /// A device's clipboard to make the local one (called on the service's thread: hand it on).
        public var receive: (@Sendable (ReceivedClipboard) -> Void)?

        public init(name: String) { self.name = name }
    }

    /// A link on its way up.
    final class PendingLink {
        let link: Link
        var handshake: LinkHandshake
        init(link: Link, handshake: LinkHandshake) {
            self.link = link
            self.handshake = handshake
        }
    }

    public let folder: StateFolder
    public let certificate: DeviceCertificate
    public let configuration: Configuration
    public private(set) var tcpPort = 0

    // The parts: once started, touched by the loop's thread only.
    private var table: DeviceTable
    private var channel: ClipboardChannel
    private var discovery: Discovery
    private var addressLinks: AddressLinks
    // The I/O.
    private var pending: [PendingLink] = []
    private var links: [String: Link] = [:]
    private let controlClients = ControlClients()
    private var udp: Int32 = -1
    private var listener: Int32 = -1
    private var control: Int32 = -1
    private var wake: (read: Int32, write: Int32) = (-1, -1)
    private let lock: Int32
    private let inbox = Mutex<(items: [Item], stop: Bool)>(([], false))
    private let finished = DispatchSemaphore(value: 0)
    private var running = false
    /// The control client whose request is being answered, and its answer when an address's outcome is
    /// known at once.
    private var answering: (token: Int, answer: JSONValue?)?

    /// Opens the device in `folder`: its key and certificate (made the first time), its records, what
    /// the clipboard last was, its lock (one daemon per folder).
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
        var records = DeviceRecords()
        var problems: [String] = []
        if let data = try folder.read("devices.json", limit: DeviceRecords.maximumFileSize) {
            do {
                (records, problems) = try DeviceRecords.decode(data, fingerprint: DeviceCertificate.fingerprint)
            } catch {
                problems.append("\(error); starting with no paired device")
            }
        }
        for problem in problems { configuration.log?("kdeconnect: \(folder.path)/devices.json: \(problem)") }
        table = DeviceTable(records: records)
        let saved = (try? folder.read("sync.json", limit: ClipboardSync.maximumFileSize)) ?? nil
        channel = ClipboardChannel(
            sync: saved.map(ClipboardSync.decode) ?? ClipboardSync(), maximumItemSize: configuration.maximumItemSize, registry: configuration.registry,
            makeStorage: { try Spool() })
        discovery = Discovery(enabled: false, ownID: certificate.id, udpPort: configuration.udpPort)
        addressLinks = AddressLinks(udpPort: configuration.udpPort)
    }

    deinit { Sockets.close(lock) }

    /// This device as it identifies to others.
    public var identity: DeviceIdentity {
        DeviceIdentity(id: certificate.id, name: configuration.name, type: configuration.type, tcpPort: tcpPort == 0 ? nil : tcpPort)
    }

    func log(_ line: String) { configuration.log?("kdeconnect: " + line) }

    /// Milliseconds since 1970: packet ids, pairing timestamps, when the clipboard changed.
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
        discovery = Discovery(enabled: udp >= 0, ownID: certificate.id, udpPort: configuration.udpPort)
        control = try ControlSocket.listen(folder.controlSocket)
        running = true
        log("device \(configuration.name) (\(certificate.id)), TCP port \(tcpPort), discovery \(udp >= 0 ? "on" : "off")")
        DispatchQueue(label: "pbctl.kdeconnect").async { [self] in
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

    /// The clipboard changed here (any thread): sent to paired devices unless it is sensitive or what a
    /// device just sent.
    public func localChange(_ item: Item) {
        inbox.withLock { $0.items.append(item) }
        if wake.write >= 0 { Sockets.wake(wake.write) }
    }

    // MARK: The loop

    func loop() {
        var now = MonotonicClock.seconds()
        perform(discovery.start(now: now, addresses: table.records.addresses, table: table, pending: pending.map(\.link.endpoint)), now: now)
        while true {
            let (items, stop) = inbox.withLock { state -> ([Item], Bool) in
                defer { state.items.removeAll() }
                return (state.items, state.stop)
            }
            if stop { break }
            for item in items { perform(channel.localChange(item, to: table.reachablePaired.map(\.peer), wallClock: Self.wallClock()), now: now) }
            var poller = Poller()
            let wakeIndex = poller.add(wake.read, read: true, write: false)
            let udpIndex = udp >= 0 ? poller.add(udp, read: true, write: false) : -1
            let listenIndex = poller.add(listener, read: true, write: false)
            let controlIndex = poller.add(control, read: true, write: false)
            let clientIndices = controlClients.descriptors.map { poller.add($0, read: true, write: false) }
            let waiting = pending
            let waitingIndices = waiting.map {
                poller.add($0.link.fd, read: $0.handshake.wantsRead, write: $0.handshake.wantsWrite || $0.link.wantsWrite)
            }
            let up = links.sorted { $0.key < $1.key }
            let upIndices = up.map { poller.add($0.value.fd, read: true, write: $0.value.wantsWrite) }
            let decrypted = up.contains { $0.value.hasPending } || waiting.contains { $0.link.hasPending }
            poller.wait(milliseconds: decrypted ? 0 : nextWake(now: now))
            now = MonotonicClock.seconds()
            if poller.readable(wakeIndex) { Sockets.drain(wake.read) }
            if udpIndex >= 0, poller.readable(udpIndex) { receiveDatagrams(now: now) }
            if poller.readable(listenIndex) { acceptLinks(now: now) }
            if poller.readable(controlIndex) { controlClients.accept(control, now: now) }
            controlClients.serve(ready: clientIndices.map { poller.readable($0) }, now: now) { answer($0, token: $1, now: now) }
            for (entry, index) in zip(waiting, waitingIndices) where !entry.handshake.isClosed && pending.contains(where: { $0 === entry }) {
                drive(entry, readable: poller.readable(index) || entry.link.hasPending, writable: poller.writable(index), now: now)
            }
            for ((id, link), index) in zip(up, upIndices) where links[id] === link && !link.isClosed {
                drive(link, of: id, readable: poller.readable(index) || link.hasPending, writable: poller.writable(index), now: now)
            }
            tick(now: now)
        }
        for link in links.values { link.close("the daemon stops") }
        links.removeAll()
        pending.removeAll()
        for fd in [udp, listener, control, wake.read, wake.write] where fd >= 0 { Sockets.close(fd) }
        controlClients.closeAll()
        folder.remove("control.socket")
    }

    /// Milliseconds the poll may wait: until the earliest deadline of a part (a link's handshake phase,
    /// a control client's request, a link that stopped reading, a pairing request, an unpaired device
    /// to forget, a broadcast or a try of paired devices out of reach, an address being tried), -1 when
    /// none has one.
    func nextWake(now: Double) -> Int32 {
        var times = pending.compactMap(\.handshake.wakeTime)
        times += links.values.filter { $0.queuedBytes > 0 }.map { $0.lastProgress + Self.stalledAfter }
        times += [
            controlClients.nextDeadline, table.nextDeadline, discovery.nextDeadline(table: table),
            addressLinks.nextDeadline(pending: pending.map(\.link.endpoint.address)),
        ].compactMap { $0 }
        guard let earliest = times.min() else { return -1 }
        // A millisecond past it: the parts act once the time is past their deadline.
        return Int32(clamping: max(0, Int(((earliest - now) * 1000).rounded(.up))) + 1)
    }

    /// Seconds a link may leave bytes queued without taking any.
    static let stalledAfter = 60.0

    func tick(now: Double) {
        for entry in pending where !entry.handshake.isClosed { feed(entry, .tick, now: now) }
        for entry in pending {
            guard case .closed(let reason) = entry.handshake.phase else { continue }
            log(reason)
            if entry.link.outgoing { perform(addressLinks.linkFailed(to: entry.link.endpoint, reason: reason), now: now) }
        }
        pending.removeAll { $0.handshake.isClosed }
        for (id, link) in links.sorted(by: { $0.key < $1.key }) {
            let name = table[id]?.name ?? id
            // A peer that leaves bytes queued for a minute without taking any is dropped.
            if link.queuedBytes > 0, now - link.lastProgress > Self.stalledAfter { link.close("\(name) does not read (stalled for 60 s)") }
            guard link.isClosed else { continue }
            log("\(name) (\(id)) is gone: \(link.closeReason ?? "closed")")
            links[id] = nil
            channel.reset(id)
            perform(table.disconnected(id), now: now)
        }
        perform(table.tick(now: now, wallClock: Self.wallClock()), now: now)
        for id in links.keys.sorted() { feedTransfer(to: id) }
        perform(discovery.tick(now: now, table: table, pending: pending.map(\.link.endpoint)), now: now)
        perform(addressLinks.tick(now: now, table: table, pending: pending.map(\.link.endpoint.address)), now: now)
    }

    // MARK: Discovery

    func perform(_ actions: [Discovery.Action], now: Double) {
        for action in actions {
            switch action {
            case .broadcast: announce(to: Endpoint(address: 0xFFFF_FFFF, port: configuration.udpPort))
            case .announce(let endpoint): announce(to: endpoint)
            case .connect(let address): connect(toAddress: address, now: now)
            case .open(let endpoint, let announced): open(endpoint, announced: announced, now: now)
            }
        }
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
            if let action = discovery.heard(bytes, from: from, now: now, table: table, pending: pending.count) { perform([action], now: now) }
        }
    }

    /// Opens a link to `endpoint`: TCP, then our identity in clear, then TLS as its server.
    func open(_ endpoint: Endpoint, announced: DeviceIdentity?, now: Double) {
        do {
            let link = Link(fd: try Sockets.connect(endpoint), endpoint: endpoint, outgoing: true, now: now)
            let handshake = LinkHandshake(outgoing: true, endpoint: endpoint, local: identity, announced: announced, now: now)
            pending.append(PendingLink(link: link, handshake: handshake))
        } catch {
            log("cannot connect to \(endpoint): \(error)")
            perform(addressLinks.linkFailed(to: endpoint, reason: "cannot connect to \(endpoint): \(error)"), now: now)
        }
    }

    /// An address `pbctl devices add` named (`waiter`: the client that waits for the outcome) or one on
    /// record: tried as ``AddressLinks`` says (our identity by UDP to its port 1716, so a KDE Connect
    /// device connects back; failing that, a link straight to its TCP port, the port given or 1716, on
    /// which a device of protocol 8, such as a pbctl without discovery, identifies inside TLS).
    func connect(toAddress text: String, waiter: Int? = nil, now: Double) {
        guard let (host, port) = DeviceRecords.splitAddress(text), let endpoint = Endpoint(host: host, port: port) else {
            log("\(text): not an address")
            if let waiter { deliver(waiter, ControlServer.notLinked(address: text, reason: "not an address")) }
            return
        }
        let target = Endpoint(address: endpoint.address, port: DeviceRecords.givesPort(text) ? port : configuration.ports.first ?? DeviceIdentity.udpPort)
        perform(addressLinks.begin(address: text, target: target, portGiven: DeviceRecords.givesPort(text), waiter: waiter, now: now, table: table), now: now)
    }

    func perform(_ actions: [AddressLinks.Action], now: Double) {
        for action in actions {
            switch action {
            case .announce(let endpoint): announce(to: endpoint)
            case .open(let endpoint):
                log("\(endpoint): no device answered the announcement; connecting to it")
                open(endpoint, announced: nil, now: now)
            case .linked(let address, let id, let waiters):
                guard let device = table[id] else { continue }
                if table.remember(address: address) { perform([DeviceTable.Effect.saveRecords], now: now) }
                for waiter in waiters { deliver(waiter, ControlServer.linked(address: address, device: device)) }
            case .failed(let address, let reason, let waiters):
                log("cannot link to \(address): \(reason)")
                for waiter in waiters { deliver(waiter, ControlServer.notLinked(address: address, reason: reason)) }
            }
        }
    }

    /// The answer a control client waited for.
    func deliver(_ token: Int, _ answer: JSONValue) {
        if answering?.token == token {
            answering?.answer = answer
        } else {
            controlClients.reply(token, answer.encoded())
        }
    }

    func acceptLinks(now: Double) {
        for _ in 0..<16 {
            guard let (fd, from) = Sockets.accept(listener) else { return }
            guard pending.count < Discovery.maximumPending else {
                Sockets.close(fd)
                continue
            }
            let link = Link(fd: fd, endpoint: from, outgoing: false, now: now)
            pending.append(PendingLink(link: link, handshake: LinkHandshake(outgoing: false, endpoint: from, local: identity, now: now)))
        }
    }

    // MARK: Links on their way up

    /// Moves a link's handshake on as far as its socket allows.
    func drive(_ entry: PendingLink, readable: Bool, writable: Bool, now: Double) {
        let link = entry.link
        if entry.handshake.phase == .connecting, writable { feed(entry, .connected(error: link.connectionError()), now: now) }
        if entry.handshake.phase == .sendingIdentity, link.flushClear(now: now) { feed(entry, .identitySent, now: now) }
        if entry.handshake.phase == .awaitingIdentity, readable, let line = link.readIdentityLine(now: now) {
            feed(entry, .identityLine(line), now: now)
        }
        if entry.handshake.phase == .tls, link.handshake(now: now) { feed(entry, .tlsEstablished(link.peerCertificate), now: now) }
        if entry.handshake.phase == .awaitingSecureIdentity {
            if writable { link.flush(now: now) }
            if readable {
                let lines = link.receive(now: now, budget: NetworkPacket.maximumIdentitySize)
                if !lines.isEmpty { feed(entry, .secureLines(lines), now: now) }
            }
        }
        if let reason = link.closeReason, !entry.handshake.isClosed { feed(entry, .failed(reason), now: now) }
    }

    /// Hands the handshake an event and performs what it decides.
    func feed(_ entry: PendingLink, _ event: LinkHandshake.Event, now: Double) {
        let link = entry.link
        for action in entry.handshake.handle(event, now: now, wallClock: Self.wallClock()) {
            switch action {
            case .sendInClear(let bytes): link.sendInClear(bytes)
            case .startTLS(let server): link.startTLS(server: server, identity: certificate)
            case .verify(let id, let fingerprint):
                let refusal = table.verify(id: id, fingerprint: fingerprint)
                if let refusal { log("\(table[id]?.name ?? id) (\(id)) at \(link.endpoint): \(refusal)") }
                feed(entry, .verified(refusal: refusal), now: now)
            case .send(let packet):
                link.send(packet)
                link.flush(now: now)
            case .established(let identity, let certificate, let extraLines):
                established(entry, identity, certificate: certificate, extraLines: extraLines, now: now)
            case .close(let reason): link.close(reason)
            }
        }
    }

    /// The link is up and its peer known: it becomes the device's link.
    func established(_ entry: PendingLink, _ identity: DeviceIdentity, certificate: PeerCertificate, extraLines: [[UInt8]], now: Double) {
        let link = entry.link
        pending.removeAll { $0 === entry }
        if let old = links[identity.id], old !== link,
            !LinkHandshake.newLinkReplacesOld(
                oldOutgoing: old.outgoing, oldUpSince: old.upSince, newOutgoing: link.outgoing, now: now, localID: self.certificate.id, peer: identity)
        {
            // Both sides opened one at once: the one the device whose id sorts first opened stays, on both sides.
            log("\(identity.name) (\(identity.id)): a second link, from \(link.endpoint); the one \(old.outgoing ? "this device" : "it") opened stays")
            link.close("a second link to the same device")
            for line in extraLines {
                if let packet = try? NetworkPacket.decode(line) { handle(packet, from: identity.id, now: now) }
            }
            return
        }
        if let old = links[identity.id], old !== link {
            // What the old link still holds is read first (the on-connect clipboard may be in it).
            for line in old.receive(now: now) {
                if let packet = try? NetworkPacket.decode(line) { handle(packet, from: identity.id, now: now) }
            }
            old.close("replaced by a new link")
            links[identity.id] = nil
        }
        guard let effects = table.connected(identity, certificate: certificate, endpoint: link.endpoint, outgoing: link.outgoing, now: now) else {
            link.close("too many devices")
            return log("\(link.endpoint): too many devices")
        }
        links[identity.id] = link
        link.upSince = now
        channel.reset(identity.id)
        let device = table[identity.id]
        log("\(identity.name) (\(identity.id)) at \(link.endpoint), protocol \(identity.protocolVersion), \(link.tlsVersion), \(device?.pairing.word ?? "")")
        perform(effects, now: now)
        if let device { perform(addressLinks.linkUp(device), now: now) }
        for line in extraLines {
            if let packet = try? NetworkPacket.decode(line) { handle(packet, from: identity.id, now: now) }
        }
    }

    // MARK: Devices' links

    func drive(_ link: Link, of id: String, readable: Bool, writable: Bool, now: Double) {
        if writable { link.flush(now: now) }
        if readable {
            for line in link.receive(now: now) {
                guard links[id] === link, !link.isClosed else { break }
                do {
                    handle(try NetworkPacket.decode(line), from: id, now: now)
                } catch {
                    link.close("\(table[id]?.name ?? id): \(error)")
                }
            }
        }
        feedTransfer(to: id)
        if link.isSecure, link.wantsWrite { link.flush(now: now) }
    }

    /// A packet from a device: the table takes pairing, the channel the clipboard of a paired device.
    func handle(_ packet: NetworkPacket, from id: String, now: Double) {
        switch table.route(packet, from: id, now: now, wallClock: Self.wallClock()) {
        case .pairing(let effects): perform(effects, now: now)
        case .clipboard:
            guard let device = table[id] else { return }
            perform(channel.received(packet, from: device.peer, wallClock: Self.wallClock(), arrived: Date()), now: now)
        case .ignored: return
        }
    }

    /// Moves a transfer's next packets into the device's link while it holds little.
    func feedTransfer(to id: String) {
        guard let link = links[id], link.isSecure else { return }
        while link.queuedBytes < 1 << 20, let packet = channel.nextPacket(for: id, wallClock: Self.wallClock()) {
            guard link.send(packet) else { break }
        }
    }

    func perform(_ effects: [DeviceTable.Effect], now: Double) {
        for effect in effects {
            switch effect {
            case .send(let id, let packet):
                guard let link = links[id] else { continue }
                link.send(packet)
                link.flush(now: now)
            case .saveRecords:
                do { try folder.write("devices.json", table.records.encoded()) } catch { log("cannot save the device records: \(error)") }
            case .sendClipboardOnConnect(let id):
                guard let device = table[id], device.pairing.isPaired, links[id] != nil else { continue }
                perform(channel.sendOnConnect(to: device.peer, wallClock: Self.wallClock()), now: now)
            case .dropTransfers(let id): channel.dropTransfers(to: id)
            case .report(let id, let name, let message): log("\(name) (\(id)): \(message)")
            }
        }
    }

    func perform(_ outputs: [ClipboardChannel.Output], now: Double) {
        for output in outputs {
            switch output {
            case .send(let id, let packet):
                guard let link = links[id] else { continue }
                link.send(packet)
                link.flush(now: now)
            case .transfer(let id):
                feedTransfer(to: id)
                links[id]?.flush(now: now)
            case .deliver(let received): configuration.receive?(received)
            case .saveSync(let data): try? folder.write("sync.json", data)
            case .log(let line): log(line)
            }
        }
    }

    // MARK: The control socket

    /// `pbctl devices` and `pbctl info`: the control server's answer, and what it asks done; nil when the
    /// answer waits (`add`: until a link to the address is up, or why not), sent under `token`.
    func answer(_ line: [UInt8], token: Int, now: Double) -> [UInt8]? {
        let status = ControlServer.Status(
            id: certificate.id, name: configuration.name, type: configuration.type, fingerprint: certificate.fingerprint, tcpPort: tcpPort,
            discovery: udp >= 0, statistics: channel.statistics)
        let reply = ControlServer.answer(
            line, table: &table, status: status, now: now, wallClock: Self.wallClock(), isAddress: { Endpoint(host: $0, port: 1) != nil })
        perform(reply.effects, now: now)
        if let address = reply.connect {
            answering = (token, nil)
            defer { answering = nil }
            connect(toAddress: address, waiter: token, now: now)
            return answering?.answer?.encoded()
        }
        return (reply.answer ?? ControlServer.failure("no answer")).encoded()
    }
}

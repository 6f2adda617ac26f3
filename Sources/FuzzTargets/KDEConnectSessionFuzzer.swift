import Foundation
import KDEConnect
import Pasteboard

/// One KDE Connect link as a peer could drive it: the input's first byte sets the scene (bit 0: the
/// peer's id is paired on record; bit 1: we opened the link to an address, so the peer identifies
/// inside TLS; bit 2: its certificate is not the pinned one; bit 3: its certificate names another
/// device), its lines are what the peer sends. Until the link is up each line goes to the
/// ``LinkHandshake`` (an identity in clear, then inside TLS, the device table answering its
/// `verify`); an undecodable line lets time pass instead. Once up, each line is a packet routed by the
/// ``DeviceTable`` to pairing or to the ``ClipboardChannel`` (received bytes in real spools). Every line
/// is also a control request (``ControlServer``) and a datagram (``Discovery``). Checked: a link is up
/// only for its certificate's device and, for a paired id, with the pinned certificate; nothing but
/// pairing counts from a device not paired; what is delivered names its device; sensitive content is
/// never sent.
enum KDEConnectSessionFuzzer {
    static let localID = String(repeating: "a1", count: 16)
    static let peerID = String(repeating: "b2", count: 16)
    static let otherID = String(repeating: "c3", count: 16)
    static let pinned = PeerCertificate(der: Data(repeating: 1, count: 64), commonName: peerID, fingerprint: String(repeating: "1", count: 64))

    static func run(_ input: [UInt8]) {
        guard let flags = input.first else { return }
        var splitter = LineSplitter(maximumLine: 1 << 16)
        guard let lines = try? splitter.take(input.dropFirst()) else { return }
        let local = DeviceIdentity(id: localID, name: "fuzz", type: "desktop", tcpPort: 1716)
        let endpoint = Endpoint(address: 0x7F00_0001, port: 1716)
        var records = DeviceRecords()
        if flags & 1 != 0 {
            records.set(
                DeviceRecords.Device(
                    id: peerID, name: "paired", type: "phone", certificate: pinned.der, fingerprint: pinned.fingerprint, protocolVersion: 8,
                    address: "127.0.0.1", port: 1716, paired: 1))
        }
        var table = DeviceTable(records: records)
        var channel = ClipboardChannel(maximumItemSize: 1 << 20, makeStorage: { try Spool() })
        var discovery = Discovery(enabled: true, ownID: localID)
        let outgoing = flags & 2 != 0
        var handshake = LinkHandshake(outgoing: outgoing, endpoint: endpoint, local: local, now: 0)
        var device: String?
        var now = 0.0

        /// Performs the handshake's actions as the service would (TLS comes up at once).
        func feed(_ event: LinkHandshake.Event) {
            for action in handshake.handle(event, now: now, wallClock: 0) {
                switch action {
                case .startTLS:
                    let name = flags & 8 != 0 ? otherID : handshake.peer?.id ?? peerID
                    let fingerprint = flags & 4 != 0 ? String(repeating: "2", count: 64) : pinned.fingerprint
                    feed(.tlsEstablished(PeerCertificate(der: Data(repeating: 2, count: 64), commonName: name, fingerprint: fingerprint)))
                case .verify(let id, let fingerprint):
                    feed(.verified(refusal: table.verify(id: id, fingerprint: fingerprint)))
                case .established(let identity, let certificate, let extraLines):
                    precondition(identity.id == certificate.commonName, "a link up for another device than its certificate's")
                    if let record = table.records.device(identity.id) {
                        precondition(record.fingerprint == certificate.fingerprint, "a paired id up with a certificate other than the pinned one")
                    }
                    guard table.connected(identity, certificate: certificate, endpoint: endpoint, outgoing: outgoing, now: now) != nil else { return }
                    device = identity.id
                    for line in extraLines { packet(line) }
                case .sendInClear, .send, .close:
                    break
                }
            }
        }

        /// A packet on the link that is up.
        func packet(_ line: [UInt8]) {
            guard let id = device, let packet = try? NetworkPacket.decode(line, maximumSize: 1 << 16) else {
                now += 7
                _ = table.tick(now: now, wallClock: Int64(now * 1000))
                return
            }
            switch table.route(packet, from: id, now: now, wallClock: Int64(now * 1000)) {
            case .clipboard:
                guard let peer = table[id] else { preconditionFailure("a packet routed for a device the table does not hold") }
                precondition(peer.pairing.isPaired, "the clipboard of a device that is not paired counts")
                for output in channel.received(packet, from: peer.peer, wallClock: Int64(now * 1000), arrived: Date(timeIntervalSince1970: 0)) {
                    guard case .deliver(let received) = output else { continue }
                    precondition(received.origin.deviceID == id && received.item.metadata.sourceApplication == received.origin.application)
                    precondition(!received.item.representations.isEmpty)
                }
            case .pairing, .ignored:
                break
            }
        }

        if outgoing {
            feed(.connected(error: nil))
            feed(.identitySent)
        }
        for line in lines {
            now += 1
            var copy = table
            _ = ControlServer.answer(
                line, table: &copy,
                status: ControlServer.Status(id: localID, name: "fuzz", type: "desktop", fingerprint: "", tcpPort: 1716, discovery: true, statistics: .init()),
                now: now, wallClock: 0, isAddress: { _ in true })
            _ = discovery.heard(line, from: endpoint, now: now, table: table, pending: 0)
            switch handshake.phase {
            case .awaitingIdentity: feed(.identityLine(line))
            case .awaitingSecureIdentity: feed(.secureLines([line]))
            case .secure: packet(line)
            default:
                now += 3
                feed(.tick)
            }
        }
        // Whatever the session left, sensitive content goes nowhere.
        var secret = Item(representations: [Representation(type: .utf8PlainText, data: Data("secret".utf8))])
        secret.metadata.flags.insert(.sensitive)
        for output in channel.localChange(secret, to: table.reachablePaired.map(\.peer), wallClock: Int64(now * 1000) + 1) {
            if case .send = output { preconditionFailure("sensitive content sent") }
            if case .transfer = output { preconditionFailure("sensitive content sent") }
        }
    }
}

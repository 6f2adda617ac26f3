#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

/// The I/O of one TCP link to a device, driven by the service's poll loop and never waiting: the
/// connection's outcome, the identity line in clear (written, or read without taking a byte past its
/// newline), TLS, then packets as lines both ways. What happens when is the ``LinkHandshake``'s to
/// say; this only moves bytes. Outgoing packets queue here, bounded: a peer that stops reading is
/// dropped, not buffered for. A failure closes the link with its reason.
public final class Link {
    public let fd: Int32
    public let endpoint: Endpoint
    /// We opened the TCP connection.
    public let outgoing: Bool
    /// Monotonic seconds of the last byte moved either way.
    public private(set) var lastProgress: Double
    /// Monotonic seconds since the link is the device's (set by the service).
    public var upSince = 0.0
    public private(set) var closeReason: String?
    private var tls: TLSSession?
    /// The TLS handshake is done: packets may flow.
    public private(set) var isSecure = false
    private var tlsWaitsToWrite = false
    private var plainOut: [UInt8] = []
    private var queue: [[UInt8]] = []
    private var queueOffset = 0
    public private(set) var queuedBytes = 0
    private var splitter = LineSplitter(maximumLine: NetworkPacket.maximumSize)

    /// The most bytes queued before the peer counts as not reading.
    public static let maximumQueued = 48 << 20

    public init(fd: Int32, endpoint: Endpoint, outgoing: Bool, now: Double) {
        self.fd = fd
        self.endpoint = endpoint
        self.outgoing = outgoing
        lastProgress = now
    }

    deinit { Sockets.close(fd) }

    public var isClosed: Bool { closeReason != nil }

    public func close(_ reason: String) {
        guard closeReason == nil else { return }
        closeReason = reason
        tls = nil
        isSecure = false
    }

    /// Whether TLS or the queue wait for the socket to take bytes.
    public var wantsWrite: Bool { !isClosed && (tlsWaitsToWrite || !plainOut.isEmpty || (isSecure && !queue.isEmpty)) }

    /// How the started connection ended: nil when it was made, else the error.
    public func connectionError() -> String? {
        let error = Sockets.connectionError(fd)
        return error == 0 ? nil : POSIX.errorString(error)
    }

    /// Bytes to write in clear (the identity line), before TLS.
    public func sendInClear(_ bytes: [UInt8]) { plainOut += bytes }

    /// Writes what is left of the clear bytes; true once they are all out.
    public func flushClear(now: Double) -> Bool {
        guard !isClosed else { return false }
        while !plainOut.isEmpty {
            guard let count = plainOut.withUnsafeBytes({ Sockets.write(fd, $0) }) else {
                close("the connection to \(endpoint) ended")
                return false
            }
            if count == 0 { return false }
            plainOut.removeFirst(count)
            lastProgress = now
        }
        return true
    }

    /// The peer's identity line in clear, without its newline: looked at first, then exactly the line
    /// taken (``LinkHandshake/clearLine(in:)``), so TLS starts on the byte after it. Nil while it is not
    /// all there; a line over the identity limit closes the link.
    public func readIdentityLine(now: Double) -> [UInt8]? {
        guard !isClosed, tls == nil else { return nil }
        var buffer = [UInt8](repeating: 0, count: NetworkPacket.maximumIdentitySize)
        let peeked = buffer.withUnsafeMutableBytes { Sockets.read(fd, into: $0, peek: true) }
        switch peeked {
        case .wouldBlock: return nil
        case .closed:
            close("\(endpoint) closed the connection before identifying")
            return nil
        case .bytes(let count):
            switch LinkHandshake.clearLine(in: buffer[0..<count]) {
            case .incomplete: return nil
            case .tooLong:
                close("\(endpoint): an identity over \(NetworkPacket.maximumIdentitySize) bytes")
                return nil
            case .complete(let length):
                var line = [UInt8](repeating: 0, count: length)
                var taken = 0
                while taken < length {
                    let result = line.withUnsafeMutableBytes { Sockets.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[taken...])) }
                    guard case .bytes(let n) = result else {
                        close("\(endpoint) closed the connection while identifying")
                        return nil
                    }
                    taken += n
                }
                lastProgress = now
                return Array(line.dropLast())
            }
        }
    }

    /// Starts TLS as its server or client (the side that connected is the server in KDE Connect).
    public func startTLS(server: Bool, identity: DeviceCertificate) {
        guard !isClosed else { return }
        do {
            tls = try TLSSession(fd: fd, server: server, identity: identity)
        } catch {
            close("\(error)")
        }
    }

    /// Advances the handshake; true once it is done.
    public func handshake(now: Double) -> Bool {
        guard !isSecure, let tls else { return false }
        do {
            switch try tls.handshake() {
            case .done:
                isSecure = true
                tlsWaitsToWrite = false
                lastProgress = now
                return true
            case .wantRead: tlsWaitsToWrite = false
            case .wantWrite: tlsWaitsToWrite = true
            }
        } catch {
            close("TLS with \(endpoint): \(error)")
        }
        return false
    }

    /// The peer's certificate, once TLS is up.
    public var peerCertificate: PeerCertificate? {
        guard let der = tls?.peerCertificate() else { return nil }
        return PeerCertificate(der: der, commonName: DeviceCertificate.commonName(der), fingerprint: DeviceCertificate.fingerprint(der))
    }

    /// Queues a packet; false (and the link closed) when the peer has let too much pile up.
    @discardableResult
    public func send(_ packet: NetworkPacket) -> Bool {
        guard isSecure else { return false }
        let bytes = packet.encoded()
        guard queuedBytes + bytes.count <= Self.maximumQueued else {
            close("\(endpoint) does not read what is sent to it")
            return false
        }
        queue.append(bytes)
        queuedBytes += bytes.count
        return true
    }

    /// Writes queued bytes until the socket is full.
    public func flush(now: Double) {
        guard isSecure, let tls else { return }
        tlsWaitsToWrite = false
        while let first = queue.first {
            do {
                let (count, wait) = try first.withUnsafeBytes { try tls.write(UnsafeRawBufferPointer(rebasing: $0[queueOffset...])) }
                if wait == .wantWrite {
                    tlsWaitsToWrite = true
                    return
                }
                if wait == .wantRead { return }
                queueOffset += count
                queuedBytes -= count
                lastProgress = now
                if queueOffset == first.count {
                    queue.removeFirst()
                    queueOffset = 0
                }
            } catch {
                close("writing to \(endpoint): \(error)")
                return
            }
        }
    }

    /// Reads what has arrived (at most `budget` bytes, so one busy peer does not starve the others)
    /// and returns the complete lines.
    public func receive(now: Double, budget: Int = 4 << 20) -> [[UInt8]] {
        guard isSecure, let tls else { return [] }
        var lines: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var taken = 0
        while taken < budget, isSecure {
            do {
                let (count, wait) = try buffer.withUnsafeMutableBytes { try tls.read(into: $0) }
                if wait == .wantWrite { tlsWaitsToWrite = true }
                if count == 0 { break }
                taken += count
                lastProgress = now
                lines += try splitter.take(buffer[0..<count])
            } catch {
                close("\(endpoint): \(error)")
            }
        }
        return lines
    }

    /// Whether decrypted bytes wait inside TLS (read them before polling again).
    public var hasPending: Bool { isSecure && (tls?.pending ?? false) }

    public var tlsVersion: String { tls?.version ?? "-" }
}

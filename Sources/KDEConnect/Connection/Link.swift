#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO

/// The I/O of one TCP link to a device, driven by the service's poll loop and never waiting: the
/// connection being made, the identity line in clear (sent by the side that connected, read by the
/// side that accepted, never past its newline), the TLS handshake (the side that connected is TLS's
/// server), then packets as lines both ways. Outgoing bytes queue here, bounded: a peer that stops
/// reading is dropped, not buffered for.
public final class Link {
    public enum Phase: Equatable {
        /// The TCP connection is being made (we connect).
        case connecting
        /// Our identity line goes out in clear (we connected).
        case sendingIdentity
        /// Its identity line is awaited in clear (it connected).
        case awaitingIdentity
        case handshaking
        /// TLS is up; packets flow (the service decides when the link counts as ready).
        case secure
        case closed
    }

    public let fd: Int32
    public let endpoint: Endpoint
    /// We opened the TCP connection (and so are TLS's server).
    public let outgoing: Bool
    public private(set) var phase: Phase
    /// Monotonic seconds by which the current phase must end.
    public var deadline: Double
    /// Monotonic seconds of the last byte moved either way.
    public private(set) var lastProgress: Double
    public private(set) var tls: TLSSession?
    private var tlsWaitsToWrite = false
    private var plainOut: [UInt8] = []
    private var queue: [[UInt8]] = []
    private var queueOffset = 0
    public private(set) var queuedBytes = 0
    private var splitter = LineSplitter(maximumLine: NetworkPacket.maximumSize)
    public var closeReason: String?

    /// The most bytes queued before the peer counts as not reading.
    public static let maximumQueued = 48 << 20

    public init(fd: Int32, endpoint: Endpoint, outgoing: Bool, now: Double, connecting: Bool) {
        self.fd = fd
        self.endpoint = endpoint
        self.outgoing = outgoing
        phase = outgoing ? (connecting ? .connecting : .sendingIdentity) : .awaitingIdentity
        deadline = now + (outgoing ? 5 : 5)
        lastProgress = now
    }

    deinit { Sockets.close(fd) }

    public func close(_ reason: String) {
        if phase != .closed {
            phase = .closed
            closeReason = reason
            tls = nil
        }
    }

    /// The events to poll for.
    public var wantsRead: Bool { [.awaitingIdentity, .handshaking, .secure].contains(phase) }
    public var wantsWrite: Bool {
        switch phase {
        case .connecting, .sendingIdentity: return true
        case .handshaking: return tlsWaitsToWrite
        case .secure: return tlsWaitsToWrite || !queue.isEmpty
        default: return false
        }
    }

    /// The connection was made (or failed).
    public func connected(identityLine: [UInt8], now: Double) {
        guard phase == .connecting else { return }
        let error = Sockets.connectionError(fd)
        guard error == 0 else { return close("cannot connect to \(endpoint): \(POSIX.errorString(error))") }
        plainOut = identityLine
        phase = .sendingIdentity
        deadline = now + 5
        lastProgress = now
    }

    /// Queues the identity line to send in clear once connected (a link made without waiting).
    public func setIdentityLine(_ line: [UInt8]) { plainOut = line }

    /// Sends what is left of the identity line; true once it is all out (then TLS starts).
    public func flushIdentity(now: Double) -> Bool {
        guard phase == .sendingIdentity else { return false }
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

    /// The peer's identity line, read without taking a byte past its newline: nil while it is not all
    /// there. A line over the identity limit closes the link.
    public func readIdentityLine(now: Double) -> [UInt8]? {
        guard phase == .awaitingIdentity else { return nil }
        var buffer = [UInt8](repeating: 0, count: NetworkPacket.maximumIdentitySize)
        let peeked = buffer.withUnsafeMutableBytes { Sockets.read(fd, into: $0, peek: true) }
        switch peeked {
        case .wouldBlock: return nil
        case .closed:
            close("\(endpoint) closed the connection before identifying")
            return nil
        case .bytes(let count):
            guard let newline = buffer[0..<count].firstIndex(of: 0x0A) else {
                if count >= NetworkPacket.maximumIdentitySize { close("\(endpoint): an identity over \(NetworkPacket.maximumIdentitySize) bytes") }
                return nil
            }
            var line = [UInt8](repeating: 0, count: newline + 1)
            var taken = 0
            while taken < line.count {
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

    /// Starts TLS: the side that connected is the server.
    public func startTLS(identity: DeviceCertificate, now: Double) {
        do {
            tls = try TLSSession(fd: fd, server: outgoing, identity: identity)
            phase = .handshaking
            deadline = now + 10
        } catch {
            close("\(error)")
        }
    }

    /// Advances the handshake; true once it is done.
    public func handshake(now: Double) -> Bool {
        guard phase == .handshaking, let tls else { return false }
        do {
            switch try tls.handshake() {
            case .done:
                phase = .secure
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

    /// Queues a packet; false (and the link closed) when the peer has let too much pile up.
    @discardableResult
    public func send(_ packet: NetworkPacket) -> Bool {
        guard phase == .secure else { return false }
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
        guard phase == .secure, let tls else { return }
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
        guard phase == .secure, let tls else { return [] }
        var lines: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var taken = 0
        while taken < budget, phase == .secure {
            do {
                let (count, wait) = try buffer.withUnsafeMutableBytes { try tls.read(into: $0) }
                if wait == .wantWrite { tlsWaitsToWrite = true }
                if count == 0 { break }
                taken += count
                lastProgress = now
                lines += try splitter.take(buffer[0..<count])
            } catch let error as PacketError {
                close("\(endpoint): \(error)")
            } catch {
                close("\(endpoint): \(error)")
            }
        }
        return lines
    }

    /// Whether decrypted bytes wait inside TLS (read them before polling again).
    public var hasPending: Bool { phase == .secure && (tls?.pending ?? false) }

    /// The peer's certificate (DER), once TLS is up.
    public var peerCertificate: Data? { tls?.peerCertificate() }

    public var tlsVersion: String { tls?.version ?? "-" }
}

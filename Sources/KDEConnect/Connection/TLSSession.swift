#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import COpenSSL
import Pasteboard

/// TLS over a link's non-blocking socket (COpenSSL): the handshake, reads and writes return at once
/// with what they wait for, so one slow peer never holds up the service's loop.
public final class TLSSession {
    private let tls: OpaquePointer

    public enum Step: Equatable {
        case done
        case wantRead
        case wantWrite
    }

    /// `server`: the side that opened the TCP connection is TLS's server in KDE Connect.
    public init(fd: Int32, server: Bool, identity: DeviceCertificate) throws {
        var error = [CChar](repeating: 0, count: 256)
        let made = identity.certificatePEM.withUnsafeBytes { certificate in
            identity.keyPEM.withUnsafeBytes { key in
                kc_tls_new(
                    fd, server ? 1 : 0, certificate.baseAddress?.assumingMemoryBound(to: CChar.self), certificate.count,
                    key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count, &error, error.count)
            }
        }
        guard let made else { throw PasteboardError(.io, "TLS: \(cText(error))") }
        tls = made
    }

    deinit { kc_tls_free(tls) }

    var lastError: String { String(validatingCString: kc_tls_error(tls)) ?? "" }

    func step(_ status: Int32) throws -> Step {
        switch status {
        case Int32(KC_OK.rawValue): return .done
        case Int32(KC_WANT_READ.rawValue): return .wantRead
        case Int32(KC_WANT_WRITE.rawValue): return .wantWrite
        case Int32(KC_CLOSED.rawValue): throw PasteboardError(.unavailable, "the peer closed the connection")
        default: throw PasteboardError(.refused, lastError.isEmpty ? "TLS failed" : lastError)
        }
    }

    public func handshake() throws -> Step { try step(kc_tls_handshake(tls)) }

    /// Decrypted bytes into `buffer`: the count (0 with the step to wait for).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> (count: Int, wait: Step) {
        var count = 0
        let step = try step(kc_tls_read(tls, buffer.baseAddress, buffer.count, &count))
        return step == .done ? (count, .done) : (0, step)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws -> (count: Int, wait: Step) {
        var count = 0
        let step = try step(kc_tls_write(tls, bytes.baseAddress, bytes.count, &count))
        return step == .done ? (count, .done) : (0, step)
    }

    public var pending: Bool { kc_tls_pending(tls) > 0 }

    public var version: String { String(validatingCString: kc_tls_version(tls)) ?? "-" }

    /// The peer's certificate (DER).
    public func peerCertificate() -> Data? {
        var pointer: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard kc_tls_peer_certificate(tls, &pointer, &length) == Int32(KC_OK.rawValue), let pointer else { return nil }
        defer { kc_free(pointer) }
        return Data(bytes: pointer, count: length)
    }
}

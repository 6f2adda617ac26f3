#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The certificate a peer showed in TLS, as the handshake judges it (Connection/'s `Link` reads it).
public struct PeerCertificate: Equatable, Sendable {
    /// DER.
    public var der: Data
    /// The subject's common name: the device id, for a KDE Connect certificate.
    public var commonName: String?
    /// SHA-256 of ``der``, lowercase hex.
    public var fingerprint: String

    public init(der: Data, commonName: String?, fingerprint: String) {
        self.der = der
        self.commonName = commonName
        self.fingerprint = fingerprint
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import COpenSSL
import Pasteboard

/// This device's identity: an RSA-2048 key and a self-signed certificate whose common name is the
/// device id, made once and kept in the state folder (`key.pem`, `certificate.pem`, 0600).
public struct DeviceCertificate: Sendable {
    public let id: String
    public let keyPEM: Data
    public let certificatePEM: Data
    public let der: Data

    public var fingerprint: String { Self.fingerprint(der) }

    /// Loads the identity from `folder`, making it when there is none.
    /// - Throws: ``PasteboardError`` when the files are damaged or cannot be written.
    public static func loadOrCreate(in folder: StateFolder) throws -> DeviceCertificate {
        let key = try folder.read("key.pem", limit: 64 << 10)
        let certificate = try folder.read("certificate.pem", limit: 64 << 10)
        if let key, let certificate {
            return try DeviceCertificate(keyPEM: key, certificatePEM: certificate, where: folder.path)
        }
        // A new id: 32 hex digits (KDE Connect's own since 23.08; 22.12 takes any 32 to 38 of [A-Za-z0-9_]).
        var generator = SystemRandomNumberGenerator()
        let id = (0..<16).map { _ in String(format2: UInt8.random(in: 0...255, using: &generator)) }.joined()
        var keyPointer: UnsafeMutablePointer<CChar>?
        var keyLength = 0
        var certificatePointer: UnsafeMutablePointer<CChar>?
        var certificateLength = 0
        var error = [CChar](repeating: 0, count: 256)
        guard kc_generate_identity(id, &keyPointer, &keyLength, &certificatePointer, &certificateLength, &error, error.count) == Int32(KC_OK.rawValue),
            let keyPointer, let certificatePointer
        else {
            throw PasteboardError(.io, "cannot make the device's key: \(cText(error))")
        }
        let keyData = Data(bytes: keyPointer, count: keyLength)
        let certificateData = Data(bytes: certificatePointer, count: certificateLength)
        kc_free(keyPointer)
        kc_free(certificatePointer)
        try folder.write("key.pem", keyData)
        try folder.write("certificate.pem", certificateData)
        return try DeviceCertificate(keyPEM: keyData, certificatePEM: certificateData, where: folder.path)
    }

    /// The identity in two PEM files, checked: the key matches the certificate, whose common name is a
    /// valid device id.
    public init(keyPEM: Data, certificatePEM: Data, where place: String) throws {
        var derPointer: UnsafeMutablePointer<UInt8>?
        var derLength = 0
        var error = [CChar](repeating: 0, count: 256)
        let status = certificatePEM.withUnsafeBytes { certificate in
            keyPEM.withUnsafeBytes { key in
                kc_certificate_der(
                    certificate.baseAddress?.assumingMemoryBound(to: CChar.self), certificate.count, key.baseAddress?.assumingMemoryBound(to: CChar.self),
                    key.count, &derPointer, &derLength, &error, error.count)
            }
        }
        guard status == Int32(KC_OK.rawValue), let derPointer else {
            throw PasteboardError(.invalidData, "\(place): the device's key or certificate is damaged (\(cText(error)))")
        }
        der = Data(bytes: derPointer, count: derLength)
        kc_free(derPointer)
        guard let name = Self.commonName(der), DeviceIdentity.isValidID(name) else {
            throw PasteboardError(.invalidData, "\(place): the certificate names no valid device id")
        }
        id = name
        self.keyPEM = keyPEM
        self.certificatePEM = certificatePEM
    }

    /// SHA-256 of a DER certificate, lowercase hex.
    public static func fingerprint(_ der: Data) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        der.withUnsafeBytes { kc_sha256($0.baseAddress, $0.count, &digest) }
        return digest.map { String(format2: $0) }.joined()
    }

    /// The subject's common name of a DER certificate.
    public static func commonName(_ der: Data) -> String? {
        var name = [CChar](repeating: 0, count: 256)
        let status = der.withUnsafeBytes { kc_der_common_name($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &name, name.count) }
        return status == Int32(KC_OK.rawValue) ? cText(name) : nil
    }
}

extension String {
    /// Two lowercase hex digits.
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}

/// The text of a NUL-terminated C buffer.
func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

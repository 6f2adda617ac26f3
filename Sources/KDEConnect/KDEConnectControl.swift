#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// `pbctl devices` and `pbctl info`: requests to a running daemon's control socket (answered by
/// ``ControlServer``), and what can be said without one (the device records on disk).
public enum KDEConnectControl {
    /// Sends `command` (with `device` or `address`) and returns the daemon's answer.
    /// - Throws: ``PasteboardError`` `.unavailable` when no daemon answers.
    public static func request(folder: StateFolder, command: String, device: String? = nil, address: String? = nil, timeout: Double = 5) throws
        -> JSONValue
    {
        let line = ControlServer.request(command, device: device, address: address)
        let answer = try ControlSocket.exchange(folder.controlSocket, request: line, timeout: timeout)
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
        return records.devices.map { ControlServer.describe(record: $0) }
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

    /// Seconds `pbctl devices add` waits for the daemon's answer: the link's time, and some.
    public static let addTimeout = AddressLinks.linkTime + 5

    /// This machine's host name: the default device name.
    public static func hostName() -> String {
        let name = DeviceIdentity.filteredName(Sockets.hostName() ?? "")
        return name.isEmpty ? "pbctl" : name
    }

    /// Parses an IPv4 address to listen on.
    public static func bindAddress(_ text: String) -> UInt32? { Endpoint(host: text, port: 1).map(\.address) }
}

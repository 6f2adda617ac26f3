#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KDEConnect
import Pasteboard

/// pbctl as a KDE Connect device, as a peer of the daemon's keeper (``ClipboardPeer``): what a device
/// sends is delivered with the device as its origin; each new local content is offered to the devices.
public final class KDEConnectPeer: ClipboardPeer, @unchecked Sendable {
    public struct Settings: Sendable {
        /// The device name others show.
        public var name: String
        public var discovery = true
        /// The IPv4 address to listen on (0: every interface).
        public var bindAddress: UInt32 = 0
        /// `$XDG_STATE_HOME/pbctl/kdeconnect` (``defaultFolder(environment:)``).
        public var folder: String
        public var registry: TypeRegistry = .standard
        public var log: (@Sendable (String) -> Void)?

        public init(name: String, folder: String) {
            self.name = name
            self.folder = folder
        }
    }

    /// What the daemon's options and configuration ask of KDE Connect (`--kdeconnect`, `--name`,
    /// `--no-discovery`, `--listen`); the daemon makes the ``Settings`` of it
    /// (``ClipboardDaemon/Configuration/addKDEConnect(_:)``).
    public struct Choice: Sendable {
        /// The device name others show; nil: the host name.
        public var name: String?
        public var discovery = true
        /// The IPv4 address to listen on (``bindAddress(_:)``); nil: every interface.
        public var bindAddress: UInt32?
        /// Where the state folder is (`XDG_STATE_HOME`, `HOME`).
        public var environment: [String: String]
        public init(environment: [String: String]) { self.environment = environment }
    }

    public let settings: Settings
    private var service: KDEConnectService?

    public init(settings: Settings) { self.settings = settings }

    /// What the device is, once started ("KDE Connect: device laptop (ID), TCP port 1716").
    public private(set) var summary = ""

    /// What a KDE Connect device sent (any device: one is not sent another's clipboard, as in
    /// kdeconnect-kde) is not sent back.
    public func accepts(origin: ItemOrigin) -> Bool {
        if case .device = origin.kind { return false }
        return true
    }

    public func start(deliver: @escaping @Sendable (OfferedItem) -> Void) throws {
        var configuration = KDEConnectService.Configuration(name: settings.name)
        configuration.discovery = settings.discovery
        configuration.bindAddress = settings.bindAddress
        configuration.registry = settings.registry
        configuration.log = settings.log
        configuration.receive = { received in
            deliver(OfferedItem(item: received.item, origin: ItemOrigin(.device(id: received.origin.deviceID), label: received.origin.application)))
        }
        let service = try KDEConnectService(folder: StateFolder(path: settings.folder), configuration: configuration)
        try service.start()
        self.service = service
        summary = "KDE Connect: device \(settings.name) (\(service.certificate.id)), TCP port \(service.tcpPort)"
    }

    public func localChange(_ kept: KeptContent) { service?.localChange(kept.item) }

    public func stop() { service?.stop() }

    // MARK: What the command line needs of KDE Connect, without importing it

    /// `$XDG_STATE_HOME/pbctl/kdeconnect`: the device's key, certificate and records.
    public static func defaultFolder(environment: [String: String]) -> String { StateFolder.defaultPath(environment: environment) }

    /// A name as KDE Connect shows one (empty when nothing is left of it).
    public static func filteredName(_ name: String) -> String { DeviceIdentity.filteredName(name) }

    /// This machine's host name (the default device name).
    public static func hostName() -> String { KDEConnectControl.hostName() }

    /// An IPv4 address to listen on; nil when it is none.
    public static func bindAddress(_ text: String) -> UInt32? { KDEConnectControl.bindAddress(text) }

    /// Seconds `pbctl devices add` waits for the daemon's answer (it answers once a link to the address is
    /// up, or at most 15 s later with why not).
    public static var addTimeout: Double { KDEConnectControl.addTimeout }

    /// A request to the running daemon's control socket (`pbctl devices`, `pbctl info`): its JSON answer.
    /// - Throws: ``PasteboardError`` `.unavailable` when no daemon answers.
    public static func request(
        environment: [String: String], command: String, device: String? = nil, address: String? = nil, timeout: Double = 5
    ) throws -> JSONValue {
        try KDEConnectControl.request(
            folder: StateFolder(path: defaultFolder(environment: environment)), command: command, device: device, address: address, timeout: timeout)
    }

    /// Whether the device's state folder exists (a daemon ran here with --kdeconnect).
    public static func hasState(environment: [String: String]) -> Bool { StateFolder(path: defaultFolder(environment: environment)).exists }
}

extension KDEConnectPeer {
    /// The paired devices on record, as the daemon would list them (none reachable), when no daemon runs.
    public static func recordedDevices(environment: [String: String]) throws -> [JSONValue] {
        try KDEConnectControl.recordedDevices(folder: StateFolder(path: defaultFolder(environment: environment)))
    }

    /// Forgets a paired device on record with no daemon running; false when there is no such record.
    public static func forget(environment: [String: String], device id: String) throws -> Bool {
        try KDEConnectControl.forget(folder: StateFolder(path: defaultFolder(environment: environment)), device: id)
    }
}

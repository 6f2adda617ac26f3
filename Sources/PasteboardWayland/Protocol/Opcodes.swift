// The requests and events pbctl speaks, by name: one small enum per interface, its cases numbered as the
// protocol XML numbers them (requests and events each from 0, in the order the file lists them), each
// with its name in the XML and its arguments as they travel on the wire. `OpcodeTableTests` checks every
// case against wayland.xml and wlr-data-control-unstable-v1.xml as installed by Debian.

/// One request or event of an interface: the opcode is the raw value.
public protocol WaylandMessageKind: RawRepresentable, CaseIterable, Sendable where RawValue == UInt16 {
    /// The message's name in the protocol XML.
    var name: String { get }
    /// The arguments on the wire, in order. A `new_id` without an interface (`wl_registry.bind`) is three:
    /// the interface's name, its version, the id.
    var wireSignature: [WaylandArgumentType] { get }
    /// ``wireSignature``, made once per message (a compositor's flood of events decodes without
    /// allocating a signature for each).
    static var signatures: [[WaylandArgumentType]] { get }
}

extension WaylandMessageKind {
    /// The arguments on the wire, in order.
    public var signature: [WaylandArgumentType] { Self.signatures[Int(rawValue)] }
}

extension WaylandMessage {
    /// A request (or, for a test playing the compositor, an event) of `object`.
    public init<Kind: WaylandMessageKind>(object: UInt32, _ kind: Kind, arguments: [WaylandArgument] = []) {
        self.init(object: object, opcode: kind.rawValue, arguments: arguments)
    }

    /// Whether this message is `kind` (the object's interface is the caller's to know).
    public func `is`<Kind: WaylandMessageKind>(_ kind: Kind) -> Bool { opcode == kind.rawValue }
}

/// `wl_display`, object 1.
public enum WlDisplay {
    public static let interface = "wl_display"
    public enum Request: UInt16, WaylandMessageKind {
        case sync = 0, getRegistry = 1
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String { self == .sync ? "sync" : "get_registry" }
        public var wireSignature: [WaylandArgumentType] { [.newID] }
    }
    public enum Event: UInt16, WaylandMessageKind {
        case error = 0, deleteID = 1
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String { self == .error ? "error" : "delete_id" }
        public var wireSignature: [WaylandArgumentType] { self == .error ? [.object, .uint, .string] : [.uint] }
    }
}

public enum WlRegistry {
    public static let interface = "wl_registry"
    public enum Request: UInt16, WaylandMessageKind {
        case bind = 0
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String { "bind" }
        /// The global's name, then the untyped `new_id`: interface, version, id.
        public var wireSignature: [WaylandArgumentType] { [.uint, .string, .uint, .newID] }
    }
    public enum Event: UInt16, WaylandMessageKind {
        case global = 0, globalRemove = 1
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String { self == .global ? "global" : "global_remove" }
        public var wireSignature: [WaylandArgumentType] { self == .global ? [.uint, .string, .uint] : [.uint] }
    }
}

public enum WlCallback {
    public static let interface = "wl_callback"
    public enum Event: UInt16, WaylandMessageKind {
        case done = 0
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String { "done" }
        public var wireSignature: [WaylandArgumentType] { [.uint] }
    }
}

/// `wl_seat`, bound at version 1: pbctl sends it nothing, it only names the seat whose clipboard is meant.
public enum WlSeat {
    public static let interface = "wl_seat"
    public enum Event: UInt16, WaylandMessageKind {
        case capabilities = 0, name = 1
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String { self == .capabilities ? "capabilities" : "name" }
        public var wireSignature: [WaylandArgumentType] { self == .capabilities ? [.uint] : [.string] }
    }
}

// The data-control interfaces: `zwlr_data_control_*_v1` and `ext_data_control_*_v1` have the same
// messages in the same order (ext-data-control was made from wlr-data-control version 2), so one enum
// serves both; only the interface names differ (``DataControlFamily/interface(_:)``).

/// `*_data_control_manager_v1`.
public enum DataControlManager {
    public enum Request: UInt16, WaylandMessageKind {
        case createDataSource = 0, getDataDevice = 1, destroy = 2
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String {
            switch self {
            case .createDataSource: "create_data_source"
            case .getDataDevice: "get_data_device"
            case .destroy: "destroy"
            }
        }
        public var wireSignature: [WaylandArgumentType] {
            switch self {
            case .createDataSource: [.newID]
            case .getDataDevice: [.newID, .object]
            case .destroy: []
            }
        }
    }
}

/// `*_data_control_device_v1`.
public enum DataControlDevice {
    public enum Request: UInt16, WaylandMessageKind {
        case setSelection = 0, destroy = 1, setPrimarySelection = 2
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String {
            switch self {
            case .setSelection: "set_selection"
            case .destroy: "destroy"
            case .setPrimarySelection: "set_primary_selection"
            }
        }
        public var wireSignature: [WaylandArgumentType] { self == .destroy ? [] : [.object] }
    }
    public enum Event: UInt16, WaylandMessageKind {
        case dataOffer = 0, selection = 1, finished = 2, primarySelection = 3
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String {
            switch self {
            case .dataOffer: "data_offer"
            case .selection: "selection"
            case .finished: "finished"
            case .primarySelection: "primary_selection"
            }
        }
        public var wireSignature: [WaylandArgumentType] {
            switch self {
            case .dataOffer: [.newID]
            case .selection, .primarySelection: [.object]
            case .finished: []
            }
        }
    }
}

/// `*_data_control_source_v1`: what pbctl offers.
public enum DataControlSource {
    public enum Request: UInt16, WaylandMessageKind {
        case offer = 0, destroy = 1
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String { self == .offer ? "offer" : "destroy" }
        public var wireSignature: [WaylandArgumentType] { self == .offer ? [.string] : [] }
    }
    public enum Event: UInt16, WaylandMessageKind {
        case send = 0, cancelled = 1
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String { self == .send ? "send" : "cancelled" }
        public var wireSignature: [WaylandArgumentType] { self == .send ? [.string, .fd] : [] }
    }
}

/// `*_data_control_offer_v1`: what another client offers.
public enum DataControlOffer {
    public enum Request: UInt16, WaylandMessageKind {
        case receive = 0, destroy = 1
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String { self == .receive ? "receive" : "destroy" }
        public var wireSignature: [WaylandArgumentType] { self == .receive ? [.string, .fd] : [] }
    }
    public enum Event: UInt16, WaylandMessageKind {
        case offer = 0
        public static let signatures = allCases.map(\.wireSignature)
        public var name: String { "offer" }
        public var wireSignature: [WaylandArgumentType] { [.string] }
    }
}

/// Which interface an object is, with its requests and events: the table `OpcodeTableTests` holds
/// against the protocol XML, message for message.
public struct WaylandInterfaceTable: Sendable, Equatable {
    public struct Message: Sendable, Equatable, CustomStringConvertible {
        public var name: String
        public var opcode: UInt16
        public var signature: [WaylandArgumentType]
        public init(name: String, opcode: UInt16, signature: [WaylandArgumentType]) {
            self.name = name
            self.opcode = opcode
            self.signature = signature
        }
        init<Kind: WaylandMessageKind>(_ kind: Kind) { self.init(name: kind.name, opcode: kind.rawValue, signature: kind.signature) }
        public var description: String { "\(name)#\(opcode)\(signature)" }
    }
    public var interface: String
    public var requests: [Message]
    public var events: [Message]

    public init(interface: String, requests: [Message], events: [Message]) {
        self.interface = interface
        self.requests = requests
        self.events = events
    }

    init<R: WaylandMessageKind, E: WaylandMessageKind>(_ interface: String, _ requests: R.Type, _ events: E.Type) {
        self.init(interface: interface, requests: R.allCases.map(Message.init), events: E.allCases.map(Message.init))
    }

    /// Every message pbctl speaks, for `family`'s data-control interfaces.
    public static func all(_ family: DataControlFamily) -> [WaylandInterfaceTable] {
        [
            WaylandInterfaceTable(WlDisplay.interface, WlDisplay.Request.self, WlDisplay.Event.self),
            WaylandInterfaceTable(WlRegistry.interface, WlRegistry.Request.self, WlRegistry.Event.self),
            WaylandInterfaceTable(interface: WlCallback.interface, requests: [], events: WlCallback.Event.allCases.map(Message.init)),
            WaylandInterfaceTable(interface: WlSeat.interface, requests: [], events: WlSeat.Event.allCases.map(Message.init)),
            WaylandInterfaceTable(
                interface: family.interface(.manager), requests: DataControlManager.Request.allCases.map(Message.init), events: []),
            WaylandInterfaceTable(family.interface(.device), DataControlDevice.Request.self, DataControlDevice.Event.self),
            WaylandInterfaceTable(family.interface(.source), DataControlSource.Request.self, DataControlSource.Event.self),
            WaylandInterfaceTable(family.interface(.offer), DataControlOffer.Request.self, DataControlOffer.Event.self),
        ]
    }
}

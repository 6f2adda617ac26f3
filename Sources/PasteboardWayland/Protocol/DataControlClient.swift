// The client side of the data-control protocols, pure: which object is what, the globals, the offers and
// their MIME types, the current selection and primary selection, and what a source is asked to send.
// Events come in as decoded messages; requests go out as messages. No socket, no descriptors opened.

/// The two data-control protocols, same shape: `ext_data_control_v1` (wayland-protocols 1.39, the
/// standard) and `zwlr_data_control_unstable_v1` (wlroots, KDE).
public enum DataControlFamily: String, Sendable {
    case ext = "ext_data_control"
    case wlr = "zwlr_data_control"

    /// The data-control interfaces, named alike in both families.
    public enum Interface: String, Sendable, CaseIterable { case manager, device, source, offer }

    public func interface(_ interface: Interface) -> String { "\(rawValue)_\(interface.rawValue)_v1" }
    public var managerInterface: String { interface(.manager) }
    /// The highest version of the manager we speak (wlr's version 2 adds the primary selection).
    public var supportedVersion: UInt32 { self == .ext ? 1 : 2 }
    /// The manager version from which the primary selection is there (`since` in the XML; ext has it from
    /// its first version).
    public var primarySelectionSince: UInt32 { self == .ext ? 1 : 2 }
}

public struct DataControlClient: Sendable {
    public enum Kind: Sendable, Equatable { case display, registry, callback, seat, manager, device, source, offer }

    public struct Global: Sendable, Equatable {
        public var name: UInt32
        public var interface: String
        public var version: UInt32
    }

    /// What an event means for the backend.
    public enum Event: Sendable, Equatable {
        /// A callback (`wl_display.sync`) is done: a round trip ended.
        case done(callback: UInt32)
        /// The selection (or primary selection) changed: a new offer, or nil when it was cleared.
        case selection(primary: Bool, offer: UInt32?)
        /// A client wants a source's data as `mime`, written into `fd` (which is the backend's to close).
        case send(source: UInt32, mime: String, fd: Int32)
        /// A source was replaced: someone else owns the selection now.
        case cancelled(source: UInt32)
        /// The data device is no longer valid (the seat went away).
        case finished
        /// `wl_display.error`: the compositor ends the connection.
        case fatal(String)
    }

    public private(set) var objects: ObjectTable<Kind> = {
        var objects = ObjectTable<Kind>()
        objects[1] = .display
        return objects
    }()
    private var nextID: UInt32 = 2
    /// Sources destroyed whose ids the compositor has not released yet (`wl_display.delete_id`): a `send`
    /// it made before it saw the destroy still carries a descriptor, which must be taken off the socket
    /// with its message (and closed), not left to the next message that carries one. At most 64.
    public private(set) var destroyedSources: [UInt32] = []
    public private(set) var globals: [Global] = []
    /// Every live offer's MIME types, in the order offered.
    public private(set) var offers = ObjectTable<[String]>()
    /// Requests the client owes the compositor because of events (destroying offers no longer current),
    /// for the connection to send: ``takeQueuedRequests()``.
    public private(set) var queuedRequests: [WaylandMessage] = []
    public private(set) var selection: UInt32?
    public private(set) var primarySelection: UInt32?
    /// Selection and primary-selection events seen (rises with every change).
    public private(set) var changes = 0
    public private(set) var family: DataControlFamily?
    public private(set) var managerVersion: UInt32 = 0
    public private(set) var registry: UInt32 = 0
    public private(set) var seat: UInt32 = 0
    public private(set) var manager: UInt32 = 0
    public private(set) var device: UInt32 = 0

    public init() {}

    // MARK: Requests

    private mutating func new(_ kind: Kind) -> UInt32 {
        let id = nextID
        nextID += 1
        objects[id] = kind
        return id
    }

    /// `wl_display.get_registry`.
    public mutating func getRegistry() -> WaylandMessage {
        registry = new(.registry)
        return WaylandMessage(object: 1, WlDisplay.Request.getRegistry, arguments: [.newID(registry)])
    }

    /// `wl_display.sync`: its callback's `done` marks the end of a round trip.
    public mutating func sync() -> (WaylandMessage, UInt32) {
        let callback = new(.callback)
        return (WaylandMessage(object: 1, WlDisplay.Request.sync, arguments: [.newID(callback)]), callback)
    }

    /// The data-control manager to bind: ext's when offered, else wlr's; nil when the compositor has
    /// neither (GNOME's mutter).
    public var availableManager: (Global, DataControlFamily)? {
        for family in [DataControlFamily.ext, .wlr] {
            if let global = globals.first(where: { $0.interface == family.managerInterface }) { return (global, family) }
        }
        return nil
    }

    /// Binds the seat and the manager and asks for the seat's data device.
    public mutating func bindDataControl() -> [WaylandMessage]? {
        guard let (global, family) = availableManager, let seatGlobal = globals.first(where: { $0.interface == WlSeat.interface }) else { return nil }
        self.family = family
        managerVersion = min(global.version, family.supportedVersion)
        seat = new(.seat)
        manager = new(.manager)
        device = new(.device)
        return [
            WaylandMessage(
                object: registry, WlRegistry.Request.bind, arguments: [.uint(seatGlobal.name), .string(WlSeat.interface), .uint(1), .newID(seat)]),
            WaylandMessage(
                object: registry, WlRegistry.Request.bind,
                arguments: [.uint(global.name), .string(family.managerInterface), .uint(managerVersion), .newID(manager)]),
            WaylandMessage(object: manager, DataControlManager.Request.getDataDevice, arguments: [.newID(device), .object(seat)]),
        ]
    }

    /// Whether the primary selection can be read and set (wlr's version 2, or ext).
    public var supportsPrimary: Bool { family.map { managerVersion >= $0.primarySelectionSince } ?? false }

    /// A new source offering `mimes`; set it with ``setSelection(_:primary:)``.
    public mutating func createSource(offering mimes: [String]) -> (source: UInt32, messages: [WaylandMessage]) {
        let source = new(.source)
        var messages = [WaylandMessage(object: manager, DataControlManager.Request.createDataSource, arguments: [.newID(source)])]
        for mime in mimes { messages.append(WaylandMessage(object: source, DataControlSource.Request.offer, arguments: [.string(mime)])) }
        return (source, messages)
    }

    /// Sets (or, with nil, clears) the selection or the primary selection.
    public func setSelection(_ source: UInt32?, primary: Bool) -> WaylandMessage {
        WaylandMessage(
            object: device, primary ? DataControlDevice.Request.setPrimarySelection : .setSelection, arguments: [.object(source ?? 0)])
    }

    /// Asks the owner of `offer` to write `mime` into `fd` (the write end of a pipe).
    public func receive(_ offer: UInt32, mime: String, fd: Int32) -> WaylandMessage {
        WaylandMessage(object: offer, DataControlOffer.Request.receive, arguments: [.string(mime), .fd(fd)])
    }

    /// The requests queued by events, handed over once.
    public mutating func takeQueuedRequests() -> [WaylandMessage] {
        defer { queuedRequests = [] }
        return queuedRequests
    }

    /// Destroys a source (after `cancelled`) or an offer.
    public mutating func destroy(_ object: UInt32) -> WaylandMessage? {
        guard let kind = objects[object], kind == .source || kind == .offer else { return nil }
        objects[object] = nil
        offers[object] = nil
        if kind == .source {
            // Offers are the compositor's ids, freed at once (and reused); a source's id is ours until
            // the compositor says it deleted it.
            destroyedSources.append(object)
            if destroyedSources.count > 64 { destroyedSources.removeFirst() }
        }
        // `destroy` is opcode 1 of both the source and the offer.
        return kind == .source
            ? WaylandMessage(object: object, DataControlSource.Request.destroy) : WaylandMessage(object: object, DataControlOffer.Request.destroy)
    }

    // MARK: Events

    /// What `object` is: a live object's kind, `.source` for a source destroyed and not yet released
    /// (its events are decoded, a `send` handed on for its descriptor to be closed).
    private func kind(of object: UInt32) -> Kind? {
        objects[object] ?? (destroyedSources.contains(object) ? .source : nil)
    }

    /// The argument types of event `opcode` of `object`; nil for an object or event we do not know (a
    /// protocol error by the compositor, or an object already destroyed: its events are skipped).
    public func eventSignature(object: UInt32, opcode: UInt16) -> [WaylandArgumentType]? {
        guard let kind = kind(of: object) else { return nil }
        switch kind {
        case .display: return WlDisplay.Event(rawValue: opcode)?.signature
        case .registry: return WlRegistry.Event(rawValue: opcode)?.signature
        case .callback: return WlCallback.Event(rawValue: opcode)?.signature
        case .seat: return WlSeat.Event(rawValue: opcode)?.signature
        case .device: return DataControlDevice.Event(rawValue: opcode)?.signature
        case .source: return DataControlSource.Event(rawValue: opcode)?.signature
        case .offer: return DataControlOffer.Event(rawValue: opcode)?.signature
        case .manager: return nil  // the manager has no events
        }
    }

    /// Applies one decoded event.
    public mutating func handle(_ message: WaylandMessage) -> Event? {
        // Only events whose arguments match their signature (what the wire decoder makes): the opcodes
        // below are known, and every argument is there.
        guard let kind = kind(of: message.object),
              eventSignature(object: message.object, opcode: message.opcode)?.count == message.arguments.count
        else { return nil }
        let args = message.arguments
        switch kind {
        case .display:
            switch WlDisplay.Event(rawValue: message.opcode)! {
            case .error:
                if case .string(let text)? = args.last { return .fatal("the compositor reported an error: \(text ?? "")") }
                return .fatal("the compositor reported an error")
            case .deleteID:
                if case .uint(let id)? = args.first {
                    if objects[id] == .callback { objects[id] = nil }
                    destroyedSources.removeAll { $0 == id }
                }
                return nil
            }
        case .registry:
            switch WlRegistry.Event(rawValue: message.opcode)! {
            case .global:
                if case .uint(let name) = args[0], case .string(let interface?) = args[1], case .uint(let version) = args[2] {
                    globals.append(Global(name: name, interface: interface, version: version))
                }
            case .globalRemove:
                if case .uint(let name) = args[0] { globals.removeAll { $0.name == name } }
            }
            return nil
        case .callback:
            objects[message.object] = nil
            return .done(callback: message.object)
        case .device:
            switch DataControlDevice.Event(rawValue: message.opcode)! {
            case .dataOffer:
                if case .newID(let id) = args[0], id != 0, objects[id] == nil, offers.count < 64 {
                    objects[id] = .offer
                    offers[id] = []
                }
                return nil
            case .selection: return selectionChanged(primary: false, args[0])
            case .primarySelection: return selectionChanged(primary: true, args[0])
            case .finished: return .finished
            }
        case .source:
            switch DataControlSource.Event(rawValue: message.opcode)! {
            case .send:
                if case .string(let mime?) = args[0], case .fd(let fd) = args[1] { return .send(source: message.object, mime: mime, fd: fd) }
                if case .fd(let fd) = args[1] { return .send(source: message.object, mime: "", fd: fd) }
                return nil
            case .cancelled:
                return .cancelled(source: message.object)
            }
        case .offer:
            // At most 1024 types per offer: a flood of types is cut, never kept without bound.
            if case .string(let mime?) = args[0], var list = offers[message.object], list.count < 1024, !list.contains(mime) {
                list.append(mime)
                offers[message.object] = list
            }
            return nil
        case .seat, .manager:
            return nil
        }
    }

    private mutating func selectionChanged(primary: Bool, _ argument: WaylandArgument) -> Event {
        var offer: UInt32? = nil
        if case .object(let id) = argument, id != 0, objects[id] == .offer { offer = id }
        let previous = primary ? primarySelection : selection
        if primary { primarySelection = offer } else { selection = offer }
        changes += 1
        // The previous offer is dead now: destroyed, so the compositor frees it and the bound on live
        // offers never fills up in a long-running watch or daemon.
        if let previous, previous != offer, previous != (primary ? selection : primarySelection), let message = destroy(previous) {
            queuedRequests.append(message)
        }
        return .selection(primary: primary, offer: offer)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An X atom (a 32-bit resource id naming a string).
public typealias XAtom = UInt32
/// An X window id.
public typealias XWindow = UInt32
/// An X server timestamp in milliseconds; wraps after ~49.7 days. 0 is `CurrentTime`.
public typealias XTimestamp = UInt32

/// The predefined atoms of the core protocol (X11/Xatom.h), which need no interning.
public enum PredefinedAtom {
    public static let none: XAtom = 0
    public static let primary: XAtom = 1
    public static let atom: XAtom = 4
    public static let integer: XAtom = 19
    public static let string: XAtom = 31
    public static let window: XAtom = 33
    public static let wmName: XAtom = 39
    public static let wmClass: XAtom = 67
}

extension XTimestamp {
    /// Whether `self` is earlier than `other`, with 32-bit wraparound (as GTK compares server times).
    public func isEarlier(than other: XTimestamp) -> Bool {
        self != other && (other &- self) < 0x8000_0000
    }
}

/// A `SelectionRequest` event as the owner receives it.
public struct SelectionRequest: Sendable, Equatable {
    public var owner: XWindow
    public var requestor: XWindow
    public var selection: XAtom
    public var target: XAtom
    /// None (0) from obsolete requestors.
    public var property: XAtom
    public var time: XTimestamp

    public init(owner: XWindow, requestor: XWindow, selection: XAtom, target: XAtom, property: XAtom, time: XTimestamp) {
        self.owner = owner
        self.requestor = requestor
        self.selection = selection
        self.target = target
        self.property = property
        self.time = time
    }
}

/// A `SelectionNotify` event, sent by owners (and by the server when nobody owns the selection).
public struct SelectionNotify: Sendable, Equatable {
    public var requestor: XWindow
    public var selection: XAtom
    public var target: XAtom
    /// None (0) for a refusal.
    public var property: XAtom
    public var time: XTimestamp

    public init(requestor: XWindow, selection: XAtom, target: XAtom, property: XAtom, time: XTimestamp) {
        self.requestor = requestor
        self.selection = selection
        self.target = target
        self.property = property
        self.time = time
    }
}

/// The XFixes selection-notify subtypes (fixesproto §6).
public enum SelectionChangeKind: UInt8, Sendable {
    case setOwner = 0
    case windowDestroyed = 1
    case clientClosed = 2
}

/// The events pbctl reacts to, decoded from the wire by the connection layer.
public enum X11Event: Sendable, Equatable {
    case selectionRequest(SelectionRequest)
    case selectionNotify(SelectionNotify, sentByClient: Bool)
    case selectionClear(owner: XWindow, selection: XAtom, time: XTimestamp)
    case propertyNotify(window: XWindow, atom: XAtom, time: XTimestamp, deleted: Bool)
    case destroyNotify(window: XWindow)
    case selectionChanged(
        kind: SelectionChangeKind, selection: XAtom, owner: XWindow, time: XTimestamp, selectionTime: XTimestamp)
    case clientMessage(window: XWindow, type: XAtom, data: [UInt32])
    /// An error reply to an unchecked request.
    case error(code: UInt8, majorOpcode: UInt8, resource: UInt32)
    case other(responseType: UInt8)
}

/// The value of a window property, as `GetProperty` returned it.
public struct PropertyValue: Sendable, Equatable {
    /// None (0) when the property does not exist.
    public var type: XAtom
    /// 0, 8, 16 or 32.
    public var format: UInt8
    public var bytes: Data
    /// Bytes still unread after this reply.
    public var bytesAfter: UInt32

    public init(type: XAtom, format: UInt8, bytes: Data, bytesAfter: UInt32 = 0) {
        self.type = type
        self.format = format
        self.bytes = bytes
        self.bytesAfter = bytesAfter
    }

    public var exists: Bool { type != PredefinedAtom.none }

    /// The value read as 32-bit items (format 32), in host order as XCB delivers them; nil for another format.
    public var items32: [UInt32]? {
        guard format == 32 else { return nil }
        let count = bytes.count / 4
        var result = [UInt32](repeating: 0, count: count)
        result.withUnsafeMutableBytes { out in
            bytes.withUnsafeBytes { raw in
                out.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[0..<(count * 4)]))
            }
        }
        return result
    }

    /// 32-bit items as the bytes of a format-32 property.
    public static func bytes(of items: [UInt32]) -> Data {
        items.withUnsafeBytes { Data($0) }
    }
}

/// What an owner serves for one target: the reply type, the format and the bytes.
public struct ServedContent: Sendable {
    public var type: XAtom
    public var format: UInt8
    public var bytes: Data

    public init(type: XAtom, format: UInt8 = 8, bytes: Data) {
        self.type = type
        self.format = format
        self.bytes = bytes
    }
}

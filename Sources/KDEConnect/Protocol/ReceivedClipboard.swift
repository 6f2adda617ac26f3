import Pasteboard

/// What the service hands out when a device sent its clipboard: the item, checked as local input is
/// (``ForeignContent``) and carrying only the representations the device sent, and where it came from.
/// The origin travels in the value, so whoever takes the item (the daemon's keeper, the history) names
/// the device without asking the service again.
public struct ReceivedClipboard: Sendable {
    public struct Origin: Equatable, Hashable, Sendable {
        /// The device's KDE Connect id (its certificate's common name).
        public var deviceID: String
        /// The name it identified with (filtered as KDE Connect filters names).
        public var deviceName: String

        public init(deviceID: String, deviceName: String) {
            self.deviceID = deviceID
            self.deviceName = deviceName
        }

        /// How the item's source application reads, and what the history records: `KDE Connect: NAME`.
        public var application: String { "KDE Connect: \(deviceName)" }
    }

    public var item: Item
    public var origin: Origin

    public init(item: Item, origin: Origin) {
        self.item = item
        self.origin = origin
    }
}

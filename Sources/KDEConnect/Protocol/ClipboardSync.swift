#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// What the clipboard holds, as the sync compares it: its text (what a KDE Connect peer gets) and a
/// key of its bytes (the text's, else those of the representation whose type sorts first), so an
/// item that comes back from the display after we wrote it is known for what it is.
public struct SyncedContent: Equatable, Sendable {
    public var text: String?
    public var key: UInt64

    public init(text: String?, key: UInt64) {
        self.text = text
        self.key = key
    }

    public init(text: String) { self.init(text: text, key: Self.fnv(Data(text.utf8))) }

    /// The content of `item`: its UTF-8 text when it has one (`public.utf8-plain-text`, else a plain-text
    /// type's bytes when they are UTF-8), nil for an item with nothing to read.
    public init?(item: Item, plainText: Data?) {
        if let plainText, let text = String(validating: plainText, as: UTF8.self) {
            self.init(text: text)
            return
        }
        guard let first = item.representations.min(by: { $0.type.rawValue < $1.type.rawValue }), let data = try? first.data() else { return nil }
        self.init(text: nil, key: Self.fnv(data) ^ Self.fnv(Data(first.type.rawValue.utf8)))
    }

    /// FNV-1a, 64 bits: a key, not a security measure (only this process compares them).
    public static func fnv(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        data.withUnsafeBytes { raw in
            for byte in raw {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        return hash
    }
}

/// The sync decisions, as KDE Connect's clipboard plugin makes them, with pbctl's rules on top: a
/// local change is sent unless it is sensitive or unchanged (what was just received or sent: the daemon
/// already keeps a device's own arrival from KDE Connect by its `ItemOrigin`, so this is the plugin's
/// rule that the same content is not sent twice, and the guard for a keeper that sees its own write
/// again); a received clipboard is applied unless it is what we hold (a device echoing back what we
/// sent); on connect each side sends
/// its content with the time it changed (`kdeconnect.clipboard.connect`), and the newest wins: one
/// older than ours, or with no time (0), is ignored. Pure: times are milliseconds since 1970, given.
public struct ClipboardSync: Equatable, Sendable {
    public private(set) var current: SyncedContent?
    /// When ``current`` changed here; 0: unknown.
    public private(set) var timestamp: Int64
    /// The current content is sensitive: it is never sent, on change or on connect.
    public private(set) var currentIsSensitive = false

    public init(current: SyncedContent? = nil, timestamp: Int64 = 0) {
        self.current = current
        self.timestamp = timestamp
    }

    public enum LocalDecision: Equatable, Sendable {
        case send
        case skip(String)
    }

    /// The clipboard changed here (any backend; `sensitive`: a password hint, nspasteboard.org
    /// Concealed or Transient, `--sensitive`).
    public mutating func localChange(_ content: SyncedContent?, sensitive: Bool, now: Int64) -> LocalDecision {
        if sensitive {
            current = nil
            currentIsSensitive = true
            timestamp = now
            return .skip("the content is marked sensitive")
        }
        guard let content else {
            return .skip("nothing to send")
        }
        if content == current, !currentIsSensitive { return .skip("unchanged (what was just received)") }
        current = content
        currentIsSensitive = false
        timestamp = now
        return .send
    }

    /// A peer sent its clipboard (`kdeconnect.clipboard`, or pbctl's own): whether to make it ours.
    public mutating func received(_ content: SyncedContent, now: Int64) -> Bool {
        if content == current, !currentIsSensitive { return false }
        current = content
        currentIsSensitive = false
        timestamp = now
        return true
    }

    /// A peer sent its clipboard on connect with the time it changed there: ours stays when it is as
    /// new or newer, or when the peer does not know its time (0).
    public mutating func receivedOnConnect(_ content: SyncedContent, changed: Int64, now: Int64) -> Bool {
        guard changed > 0, changed > timestamp else { return false }
        return received(content, now: now)
    }

    /// What to send a peer that just connected: the content and when it changed; nil when there is
    /// nothing to send (nothing known, or sensitive).
    public var onConnect: (content: SyncedContent, changed: Int64)? {
        guard let current, !currentIsSensitive, timestamp > 0 else { return nil }
        return (current, timestamp)
    }
}

extension Item {
    /// Whether the item must never leave this machine: flagged sensitive or transient, or offering a
    /// marker that says so (KDE's password hint, nspasteboard.org Concealed or Transient) whatever
    /// flags the backend set.
    public var isSensitiveForSync: Bool {
        RecordingPolicy.reasonNotToRecord(self) != nil
    }
}

extension ClipboardSync {
    /// The largest `sync.json` read back.
    public static let maximumFileSize = 8 << 20

    /// When the clipboard last changed and what it was, as `sync.json` keeps them so a restarted daemon
    /// knows whether its content is newer than a peer's: the text (up to 1 MiB), else the key; sensitive
    /// content leaves only the time.
    public func encoded() -> Data {
        var members: [(String, JSONValue)] = [("timestamp", .integer(timestamp))]
        if let current, !currentIsSensitive {
            if let text = current.text, text.utf8.count <= 1 << 20 {
                members.append(("text", .string(text)))
            } else {
                members.append(("key", .string(String(current.key, radix: 16))))
            }
        }
        return Data(JSONValue.object(members).encoded())
    }

    /// What ``encoded()`` wrote; nothing known (a fresh sync) when the bytes are not that.
    public static func decode(_ data: Data) -> ClipboardSync {
        guard let value = try? JSONValue.parse(data, limits: JSONLimits.packet(maximumBytes: maximumFileSize)),
            let timestamp = value["timestamp"]?.integer, timestamp >= 0
        else { return ClipboardSync() }
        if let text = value["text"]?.string { return ClipboardSync(current: SyncedContent(text: text), timestamp: timestamp) }
        if let key = value["key"]?.string, let number = UInt64(key, radix: 16) {
            return ClipboardSync(current: SyncedContent(text: nil, key: number), timestamp: timestamp)
        }
        return ClipboardSync(current: nil, timestamp: timestamp)
    }
}

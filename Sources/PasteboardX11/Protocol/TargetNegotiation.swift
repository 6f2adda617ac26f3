#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// Maps between X11 selection targets and the model's type identifiers, both ways, through the
/// ``TypeRegistry`` (`.x11Target` tags).
public struct TargetNegotiation: Sendable {
    public let registry: TypeRegistry

    public init(registry: TypeRegistry = .standard) { self.registry = registry }

    /// Targets that are protocol machinery, never content (ICCCM §2.6.2, §2.6.3).
    public static let protocolTargets: Set<String> = Set(
        [KnownAtom.targets, .multiple, .timestamp, .saveTargets, .delete, .insertSelection, .insertProperty,
         .incr, .targetSizes, .pixmap].map(\.rawValue))

    /// Targets that carry plain text, in the order a requestor prefers them (reference §8, "Reading").
    public static let textTargetPreference: [String] = [
        KnownAtom.utf8String.rawValue, KnownAtom.textPlainUTF8.rawValue, KnownAtom.textPlain.rawValue,
        KnownAtom.string.rawValue, KnownAtom.text.rawValue, KnownAtom.compoundText.rawValue,
    ]

    /// The type a target stands for.
    public func type(forTarget target: String) -> TypeIdentifier {
        if target == KnownAtom.compoundText.rawValue { return .utf8PlainText }
        if registry.types(withTag: target, .x11Target).isEmpty, target.contains("/") {
            // An unregistered MIME-style target: a MIME type (so `types` shows it as one).
            return registry.type(forMIMEType: target)
        }
        return registry.type(forX11Target: target)
    }

    /// The content types an owner offers, in the owner's order, without duplicates or protocol targets.
    public func types(forTargets targets: [String]) -> [TypeIdentifier] {
        var seen = Set<TypeIdentifier>()
        var result: [TypeIdentifier] = []
        for target in targets where !Self.protocolTargets.contains(target) {
            let type = type(forTarget: target)
            if seen.insert(type).inserted { result.append(type) }
        }
        return result
    }

    /// The offered targets that can produce `type`, best first; empty when none does.
    public func targets(for type: TypeIdentifier, offered: [String]) -> [String] {
        let offeredSet = Set(offered)
        var result: [String] = []
        func add(_ target: String) {
            if offeredSet.contains(target), !result.contains(target) { result.append(target) }
        }
        if registry.conforms(.utf8PlainText, to: type) || type == .utf8PlainText {
            // Any plain text: the text ladder, which decodes every charset to UTF-8.
            for target in Self.textTargetPreference { add(target) }
        }
        for tag in registry.tags(of: type, .x11Target) { add(tag) }
        for tag in registry.tags(of: type, .mimeType) { add(tag) }
        for target in offered where !Self.protocolTargets.contains(target) && self.type(forTarget: target) == type {
            add(target)
        }
        return result
    }

    /// The X11 targets under which we serve a representation of `type`, preferred first.
    public func servedTargets(for type: TypeIdentifier) -> [String] {
        var targets = registry.tags(of: type, .x11Target)
        if targets.isEmpty {
            // A type we have no X11 name for: its MIME type is the de-facto target name.
            targets = registry.tags(of: type, .mimeType).prefix(1).map { $0 }
        }
        return targets
    }
}

/// Turns the bytes of a text target into UTF-8 as they stream in (reference §4.1, §4.4): UTF8_STRING and
/// `charset=utf-8` pass through, STRING is Latin-1, COMPOUND_TEXT is decoded (``CompoundText``),
/// `text/plain` is UTF-8 when valid else Latin-1,
/// `text/html` is sniffed for a UTF-16 byte-order mark and loses one trailing NUL.
public struct TextTranscoder: Sendable {
    public enum Mode: Sendable, Equatable {
        case passthrough, latin1, utf8OrLatin1, html, utf16, compoundText
    }

    public let mode: Mode
    private var buffer = Data()
    private var heldNUL = false
    private var htmlDecided = false
    private var htmlIsUTF16 = false

    public init(mode: Mode) { self.mode = mode }

    /// The mode for a target name and the reply's type name (TEXT and COMPOUND_TEXT depend on the type).
    public static func mode(target: String, replyType: String?) -> Mode {
        switch target {
        case KnownAtom.utf8String.rawValue, KnownAtom.textPlainUTF8.rawValue: return .passthrough
        case KnownAtom.string.rawValue: return .latin1
        case KnownAtom.text.rawValue, KnownAtom.compoundText.rawValue:
            // TEXT is answered in an encoding the reply's type names (ICCCM §2.7.1); an owner that
            // names none (Qt answers TEXT with type TEXT) gets the UTF-8-else-Latin-1 guess.
            switch replyType {
            case KnownAtom.utf8String.rawValue: return .passthrough
            case KnownAtom.string.rawValue: return .latin1
            case KnownAtom.compoundText.rawValue: return .compoundText
            case nil where target == KnownAtom.compoundText.rawValue: return .compoundText
            default: return .utf8OrLatin1
            }
        case KnownAtom.textPlain.rawValue: return .utf8OrLatin1
        case KnownAtom.textHTML.rawValue: return .html
        default:
            let lower = target.lowercased()
            if lower.hasPrefix("text/plain;charset=utf-16") { return .utf16 }
            if lower.hasPrefix("text/plain;charset=iso-8859-1") || lower.hasPrefix("text/plain;charset=latin1") {
                return .latin1
            }
            return .passthrough
        }
    }

    /// UTF-8 for the next chunk (possibly empty while the mode needs to see everything first).
    public mutating func feed(_ chunk: Data) -> Data {
        switch mode {
        case .passthrough: return chunk
        case .latin1: return Self.latin1ToUTF8(chunk)
        case .utf8OrLatin1, .utf16, .compoundText:
            buffer.append(chunk)
            return Data()
        case .html:
            if !htmlDecided {
                buffer.append(chunk)
                guard buffer.count >= 2 else { return Data() }
                htmlDecided = true
                let b0 = buffer[buffer.startIndex]
                let b1 = buffer[buffer.startIndex + 1]
                htmlIsUTF16 = (b0 == 0xFF && b1 == 0xFE) || (b0 == 0xFE && b1 == 0xFF)
                if htmlIsUTF16 { return Data() }
                let pending = buffer
                buffer = Data()
                return holdTrailingNUL(pending)
            }
            if htmlIsUTF16 {
                buffer.append(chunk)
                return Data()
            }
            return holdTrailingNUL(chunk)
        }
    }

    /// The rest of the UTF-8 once the transfer has ended.
    public mutating func finish() -> Data {
        switch mode {
        case .passthrough, .latin1: return Data()
        case .utf8OrLatin1:
            if String(validating: buffer, as: UTF8.self) != nil { return buffer }
            return Self.latin1ToUTF8(buffer)
        case .utf16: return TextDecoding.utf16ToUTF8(buffer)
        case .compoundText: return CompoundText.decode(buffer)
        case .html:
            if htmlIsUTF16 {
                var text = TextDecoding.utf16ToUTF8(buffer)
                if text.last == 0 { text.removeLast() }
                return text
            }
            // Fewer than two bytes ever arrived, or only a held NUL remains (dropped).
            var rest = buffer
            if rest.last == 0 { rest.removeLast() }
            return rest
        }
    }

    private mutating func holdTrailingNUL(_ chunk: Data) -> Data {
        var out = Data()
        if heldNUL { out.append(0) }
        heldNUL = false
        guard !chunk.isEmpty else { return out }
        if chunk.last == 0 {
            heldNUL = true
            out.append(chunk.dropLast())
        } else {
            out.append(chunk)
        }
        return out
    }

    /// ISO 8859-1 bytes as UTF-8.
    public static func latin1ToUTF8(_ bytes: Data) -> Data {
        var out = Data()
        out.reserveCapacity(bytes.count + bytes.count / 8)
        for b in bytes {
            if b < 0x80 {
                out.append(b)
            } else {
                out.append(0xC0 | (b >> 6))
                out.append(0x80 | (b & 0x3F))
            }
        }
        return out
    }

    /// UTF-8 text as ISO 8859-1, or nil when a character is outside Latin-1 (STRING is strict Latin-1).
    public static func utf8ToLatin1(_ bytes: Data) -> Data? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        var out = Data()
        out.reserveCapacity(bytes.count)
        for scalar in text.unicodeScalars {
            guard scalar.value < 0x100 else { return nil }
            out.append(UInt8(scalar.value))
        }
        return out
    }

    /// UTF-8 text as ISO 8859-1 for STRING, every character kept: one outside Latin-1 is written as GTK 3
    /// writes it (`\\u2713`, `\\U0001f600` past the Basic Multilingual Plane), so an owner that lists
    /// STRING always answers it (Qt writes `?`; GTK's escape keeps which character it was).
    public static func utf8ToLatin1Replacing(_ bytes: Data) -> Data {
        if let strict = utf8ToLatin1(bytes) { return strict }
        var out = Data()
        out.reserveCapacity(bytes.count)
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            if scalar.value < 0x100 {
                out.append(UInt8(scalar.value))
            } else {
                let hex = String(scalar.value, radix: 16)
                let width = scalar.value < 0x10000 ? 4 : 8
                out.append(contentsOf: Array((scalar.value < 0x10000 ? "\\u" : "\\U").utf8))
                out.append(contentsOf: Array((String(repeating: "0", count: max(0, width - hex.count)) + hex).utf8))
            }
        }
        return out
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

/// Serves one ``Item`` under every X11 target its representations' types map to.
///
/// Nothing is produced up front: a promised representation (a conversion) runs on the first request
/// for one of its targets and is cached. STRING is Latin-1: a target listed is a target served, so a
/// character outside Latin-1 is written as GTK 3 writes it (`\u2713`,
/// ``TextTranscoder/utf8ToLatin1Replacing(_:)``). TEXT (a polymorphic target, ICCCM §2.7.1) is
/// answered as STRING when the text is Latin-1 and as UTF8_STRING otherwise, with that type on the
/// reply. COMPOUND_TEXT is Latin-1 with UTF-8 segments (``CompoundText/encode(_:)``). Latin-1 text
/// (``TypeIdentifier/latin1PlainText``) is served as it is under STRING, TEXT and `text/plain`.
public final class ItemContentSource: SelectionContentSource {
    private enum Encoding { case asIs, latin1, text, compoundText, latin1AsString }

    private struct Entry {
        var representation: TypeIdentifier
        var encoding: Encoding
    }

    public private(set) var targets: [XAtom] = []
    /// The target names, in `targets` order (for logs and tests).
    public private(set) var targetNames: [String] = []
    private var entries: [XAtom: Entry] = [:]
    private var item: Item?
    private var produced: [TypeIdentifier: Data] = [:]
    private var latin1: Data?
    private let atoms: KnownAtoms

    /// - Parameter intern: interns target names (the connection's `intern`).
    public init(item: Item, atoms: KnownAtoms, negotiation: TargetNegotiation = TargetNegotiation(),
                intern: ([String]) throws -> [XAtom]) throws {
        self.item = item
        self.atoms = atoms
        var names: [String] = []
        var plan: [(String, Entry)] = []
        func add(_ name: String, _ entry: Entry) {
            guard !names.contains(name), !TargetNegotiation.protocolTargets.contains(name) else { return }
            names.append(name)
            plan.append((name, entry))
        }
        let registry = negotiation.registry
        for representation in item.representations {
            let isLatin1 = registry.textEncoding(of: representation.type) == .latin1
            for name in negotiation.servedTargets(for: representation.type) {
                let encoding = isLatin1 ? (name == KnownAtom.text.rawValue ? .latin1AsString : .asIs) : Self.encoding(forTarget: name)
                add(name, Entry(representation: representation.type, encoding: encoding))
            }
        }
        // Plain text owed by any UTF-8 plain-text type (Markdown is plain text) when no representation
        // declared the plain-text targets itself.
        if !names.contains(KnownAtom.utf8String.rawValue),
            let text = item.representations.first(where: {
                registry.conforms($0.type, to: .plainText) && registry.textEncoding(of: $0.type) == .utf8
            })
        {
            for name in negotiation.servedTargets(for: .utf8PlainText) {
                add(name, Entry(representation: text.type, encoding: Self.encoding(forTarget: name)))
            }
        }
        // The markers (ClipboardMarkers): clipboard managers (pbctl daemon, others that follow the
        // conventions) never keep sensitive content, nor record transient content (`copy --transient`,
        // `--paste-once`, `--clear-after`).
        for marker in ClipboardMarkers.offered(for: item.metadata.flags) {
            let representation: TypeIdentifier = marker.name == ClipboardMarkers.passwordHint ? "org.kde.password-manager-hint" : .transient
            add(marker.name, Entry(representation: representation, encoding: .asIs))
        }
        let interned = try intern(names)
        for ((name, entry), atom) in zip(plan, interned) where entries[atom] == nil {
            entries[atom] = entry
            targets.append(atom)
            targetNames.append(name)
        }
    }

    private static func encoding(forTarget name: String) -> Encoding {
        switch name {
        case KnownAtom.string.rawValue: return .latin1
        case KnownAtom.text.rawValue: return .text
        case KnownAtom.compoundText.rawValue: return .compoundText
        default: return .asIs
        }
    }

    /// Forgets the item and every produced byte (`--clear-after`, or ownership given up).
    public func wipe() {
        item = nil
        produced = [:]
        latin1 = nil
        entries = [:]
        targets = []
        targetNames = []
    }

    public func content(for target: XAtom) -> ServedContent? {
        guard let entry = entries[target], let bytes = bytes(of: entry.representation) else { return nil }
        switch entry.encoding {
        case .asIs:
            return ServedContent(type: target, format: 8, bytes: bytes)
        case .latin1:
            return ServedContent(type: target, format: 8, bytes: latin1Bytes(bytes))
        case .text:
            if let latin1 = TextTranscoder.utf8ToLatin1(bytes) { return ServedContent(type: atoms[.string], format: 8, bytes: latin1) }
            return ServedContent(type: atoms[.utf8String], format: 8, bytes: bytes)
        case .latin1AsString:
            return ServedContent(type: atoms[.string], format: 8, bytes: bytes)
        case .compoundText:
            return ServedContent(type: target, format: 8, bytes: CompoundText.encode(bytes))
        }
    }

    private func latin1Bytes(_ utf8: Data) -> Data {
        if let cached = latin1 { return cached }
        let converted = TextTranscoder.utf8ToLatin1Replacing(utf8)
        latin1 = converted
        return converted
    }

    private func bytes(of type: TypeIdentifier) -> Data? {
        if let cached = produced[type] { return cached }
        if type == "org.kde.password-manager-hint", item?.representation(for: type) == nil {
            return Data("secret".utf8)
        }
        if type == .transient, item?.representation(for: type) == nil { return Data() }
        guard let representation = item?.representation(for: type), let data = try? representation.data() else {
            return nil
        }
        produced[type] = data
        return data
    }
}

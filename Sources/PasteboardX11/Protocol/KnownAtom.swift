/// Every atom pbctl names, interned once per connection.
///
/// This is the only place atom names appear as string literals (style guide §5.2). Targets that come
/// from the type registry (`text/html`, `image/png`, …) are interned by name at run time instead.
public enum KnownAtom: String, CaseIterable, Sendable {
    // Selections.
    case primary = "PRIMARY"
    case clipboard = "CLIPBOARD"
    case clipboardManager = "CLIPBOARD_MANAGER"
    // Protocol targets and types (ICCCM §2.6.2, §2.6.3, §2.7).
    case targets = "TARGETS"
    case multiple = "MULTIPLE"
    case timestamp = "TIMESTAMP"
    case incr = "INCR"
    case atom = "ATOM"
    case atomPair = "ATOM_PAIR"
    case integer = "INTEGER"
    case null = "NULL"
    case delete = "DELETE"
    case insertSelection = "INSERT_SELECTION"
    case insertProperty = "INSERT_PROPERTY"
    case saveTargets = "SAVE_TARGETS"
    case targetSizes = "TARGET_SIZES"
    case manager = "MANAGER"
    case pixmap = "PIXMAP"
    // Text.
    case string = "STRING"
    case utf8String = "UTF8_STRING"
    case text = "TEXT"
    case compoundText = "COMPOUND_TEXT"
    case textPlain = "text/plain"
    case textPlainUTF8 = "text/plain;charset=utf-8"
    case textHTML = "text/html"
    // The KDE password-manager hint (x-kde-passwordManagerHint: "secret").
    case passwordManagerHint = "x-kde-passwordManagerHint"
    // Window properties we write on our own windows.
    case wmName = "WM_NAME"
    // Our own property names: one per purpose so concurrent conversions never share one.
    case pbctlTimestamp = "_PBCTL_TIMESTAMP"
    case pbctlTargets = "_PBCTL_TARGETS"
    case pbctlData = "_PBCTL_DATA"
    case pbctlSave = "_PBCTL_SAVE"
    case pbctlMultiple = "_PBCTL_MULTIPLE"
    case pbctlDaemon = "_PBCTL_DAEMON"
    // pbctl copy → pbctl daemon: convert CLIPBOARD_MANAGER to _PBCTL_SERVE with an ItemArchive in
    // _PBCTL_ARCHIVE (a side-effect target with a parameter, like INSERT_PROPERTY).
    case pbctlServe = "_PBCTL_SERVE"
    case pbctlArchive = "_PBCTL_ARCHIVE"
    // The third selection (xclip -selection secondary, xsel -s), last so the others keep their places.
    case secondary = "SECONDARY"
}

extension KnownAtom {
    /// How many names there are.
    public static let count = 36

    /// The case's place in declaration order (what `allCases` lists). A no-payload enum stores exactly
    /// that number as its one-byte tag (Swift's ABI), so this needs no table and no array: making the
    /// array of `allCases` costs a static binary a run-time type lookup, on every paste's start-up.
    /// `KnownAtomTests` holds it against `allCases`.
    @inline(__always)
    public var index: Int { Int(unsafeBitCast(self, to: UInt8.self)) }

    /// The case at `index` in declaration order.
    @inline(__always)
    public static func at(_ index: Int) -> KnownAtom {
        precondition(index >= 0 && index < count, "no known atom at \(index)")
        return unsafeBitCast(UInt8(truncatingIfNeeded: index), to: KnownAtom.self)
    }
}

/// A set of ``KnownAtom`` cases (a bit per ``KnownAtom/index``): which ones a connection interns.
public struct KnownAtomSet: Sendable, Equatable {
    public private(set) var bits: UInt64

    /// Every known atom.
    public static let all = KnownAtomSet(bits: (1 << UInt64(KnownAtom.count)) - 1)

    private init(bits: UInt64) { self.bits = bits }
    public init() { bits = 0 }

    public func contains(_ index: Int) -> Bool { bits & (1 << UInt64(index)) != 0 }

    /// This set and `atom`.
    public func adding(_ atom: KnownAtom) -> KnownAtomSet { KnownAtomSet(bits: bits | (1 << UInt64(atom.index))) }
}

/// The atoms of ``KnownAtom`` as interned on one connection.
///
/// One fixed-size inline table in declaration order, searched linearly: with 36 entries that is as fast
/// as a hash table, and it spares every pbctl start-up the run-time lookups a dictionary (`Hashable`
/// conformances) or an array (its storage class) costs a static binary the first time.
public struct KnownAtoms: Sendable {
    private var values: InlineArray<36, XAtom>

    /// - Parameter value: the atom of each ``KnownAtom`` case, by its ``KnownAtom/index``.
    public init(_ value: (Int) throws -> XAtom) rethrows {
        values = InlineArray(repeating: 0)
        for index in 0..<KnownAtom.count { values[index] = try value(index) }
    }

    /// The atom of a known name; 0 for one its connection did not intern (``KnownAtomSet``), which only
    /// a connection made for one purpose leaves out, and never uses.
    public subscript(_ atom: KnownAtom) -> XAtom {
        assert(values[atom.index] != 0, "\(atom.rawValue) was not interned on this connection")
        return values[atom.index]
    }

    /// The known name of `atom`, if it is one of ours.
    public func name(of atom: XAtom) -> KnownAtom? {
        guard atom != 0 else { return nil }
        for index in 0..<KnownAtom.count where values[index] == atom { return KnownAtom.at(index) }
        return nil
    }

    /// The atom of the known name `name` (a ``KnownAtom`` raw value), if it is one of ours.
    public func atom(named name: String) -> XAtom? {
        for index in 0..<KnownAtom.count where KnownAtom.at(index).rawValue == name {
            return values[index] == 0 ? nil : values[index]
        }
        return nil
    }

    /// Stand-in atoms for tests: case *n* gets atom 1000 + n.
    public static var forTesting: KnownAtoms {
        KnownAtoms { UInt32(1000 + $0) }
    }
}

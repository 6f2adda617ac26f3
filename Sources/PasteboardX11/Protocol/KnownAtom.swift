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
}

/// The atoms of ``KnownAtom`` as interned on one connection.
///
/// Two arrays in `allCases` order, searched linearly: with about 30 entries that is as fast as a
/// hash table, and it spares every pbctl start-up the run-time lookup of `Hashable` for two
/// dictionary types (each such first lookup scans all of the binary's protocol conformances).
public struct KnownAtoms: Sendable {
    private let names: [KnownAtom]
    private let values: [XAtom]

    /// - Parameter values: one atom per ``KnownAtom`` case, in `allCases` order.
    public init(values: [UInt32]) {
        let names = KnownAtom.allCases
        precondition(values.count == names.count, "one atom per KnownAtom case")
        self.names = names
        self.values = values
    }

    public subscript(_ atom: KnownAtom) -> XAtom {
        for index in names.indices where names[index] == atom { return values[index] }
        return 0
    }

    /// The known name of `atom`, if it is one of ours.
    public func name(of atom: XAtom) -> KnownAtom? {
        guard atom != 0 else { return nil }
        for index in values.indices where values[index] == atom { return names[index] }
        return nil
    }

    /// The atom of the known name `name` (a ``KnownAtom`` raw value), if it is one of ours.
    public func atom(named name: String) -> XAtom? {
        for index in names.indices where names[index].rawValue == name { return values[index] }
        return nil
    }

    /// Stand-in atoms for tests: case *n* gets atom 1000 + n.
    public static var forTesting: KnownAtoms {
        KnownAtoms(values: KnownAtom.allCases.indices.map { UInt32(1000 + $0) })
    }
}

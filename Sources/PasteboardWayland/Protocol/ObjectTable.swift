// Which protocol object is what: a small map from object id to value.

/// A map from Wayland object id to `Value`, kept as two arrays searched from the newest entry: a client
/// holds a few dozen objects at most (offers are bounded), so a search is a few dozen comparisons.
///
/// Not a `Dictionary` on purpose: in a static binary the first `Dictionary<UInt32, …>` makes the Swift
/// runtime look up `UInt32: Hashable` by scanning every conformance record of the executable, which was
/// a quarter of the instructions (and a hundred page faults) of a whole `pbctl paste`.
public struct ObjectTable<Value: Sendable>: Sendable {
    /// The ids, in the order they were added.
    public private(set) var keys: [UInt32] = []
    private var values: [Value] = []

    public init() {}

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    private func index(of id: UInt32) -> Int? {
        var i = keys.count - 1
        while i >= 0 {
            if keys[i] == id { return i }
            i -= 1
        }
        return nil
    }

    public subscript(id: UInt32) -> Value? {
        get { index(of: id).map { values[$0] } }
        set {
            if let i = index(of: id) {
                if let newValue {
                    values[i] = newValue
                } else {
                    keys.remove(at: i)
                    values.remove(at: i)
                }
            } else if let newValue {
                keys.append(id)
                values.append(newValue)
            }
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// A problem said once per cause: the same failure repeated (every copy on a full disk) is said the
/// first time, a new cause again; the causes remembered are bounded.
public final class ProblemReport: Sendable {
    private let say: @Sendable (String) -> Void
    private let said = Mutex<[String]>([])

    public init(_ say: @escaping @Sendable (String) -> Void) { self.say = say }

    public func report(_ message: String) {
        let first = said.withLock { said -> Bool in
            if said.contains(message) { return false }
            if said.count >= 64 { said.removeFirst() }
            said.append(message)
            return true
        }
        if first { say(message) }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a keeper (`pbctl daemon`, on X11 and on Wayland) does with the content it fetched of a new
/// clipboard owner: one rule for every keeper, so the history lists the same thing whatever the display.
///
/// Whole or not kept: when the owner went away before sending all of it (a representation cut short,
/// or not asked for yet when it went), nothing of it is kept, served again or recorded as content —
/// the history lists it as not kept, saying why — and what was kept before it goes too (the
/// clipboard it replaced is gone already). A content left out for its size is listed as skipped.
public enum FetchVerdict: Sendable, Equatable {
    /// Keep it (serve it again when its owner goes away) and record it, listing `skipped`.
    case keep(skipped: [TypeSummary])
    /// Its owner went away before sending all of it: keep nothing; record an entry keeping nothing that
    /// lists every type (those fetched first), each marked ``TypeSummary/cutShort``, then the rest of
    /// what was skipped.
    case cutShort(skipped: [TypeSummary])
    /// Nothing was fetched: record an entry keeping nothing when `skipped` lists anything (left out
    /// for its size), else nothing at all.
    case nothing(skipped: [TypeSummary])

    /// Why a content cut short is not kept, for logs.
    public static let cutShortReason = "its owner went away before sending all of it"

    /// The verdict on a fetch that got `fetched` whole and left `skipped` out (each type once; a type
    /// of `skipped` that `fetched` holds is listed once, from `fetched`).
    public init(fetched: [TypeSummary], skipped: [TypeSummary]) {
        guard skipped.contains(where: { $0.cutShort == true }) else {
            self = fetched.isEmpty ? .nothing(skipped: skipped) : .keep(skipped: skipped)
            return
        }
        var seen = Set<TypeIdentifier>()
        var listed: [TypeSummary] = []
        for type in fetched where seen.insert(type.type).inserted {
            listed.append(TypeSummary(type: type.type, size: type.size, derivedFrom: type.derivedFrom, cutShort: true))
        }
        for type in skipped where seen.insert(type.type).inserted { listed.append(type) }
        self = .cutShort(skipped: listed)
    }

    /// What the history lists as left out.
    public var skipped: [TypeSummary] {
        switch self {
        case .keep(let skipped), .cutShort(let skipped), .nothing(let skipped): skipped
        }
    }

    /// Whether the fetched content is kept (served again, recorded with its content).
    public var keeps: Bool { if case .keep = self { true } else { false } }

    /// Whether the history records an entry for it.
    public var records: Bool { keeps || !skipped.isEmpty }
}

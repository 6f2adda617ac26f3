import XCTest

@testable import PasteboardX11

final class KnownAtomTests: XCTestCase {
    /// `index` reads the enum's tag and `at(_:)` makes a case from it: both must agree with `allCases`.
    func testIndexIsTheDeclarationOrder() {
        XCTAssertEqual(KnownAtom.allCases.count, KnownAtom.count)
        for (position, atom) in KnownAtom.allCases.enumerated() {
            XCTAssertEqual(atom.index, position, "\(atom)")
            XCTAssertEqual(KnownAtom.at(position), atom)
        }
    }

    func testTableLooksUpBothWays() {
        let atoms = KnownAtoms { UInt32(500 + 3 * $0) }
        for atom in KnownAtom.allCases {
            XCTAssertEqual(atoms[atom], UInt32(500 + 3 * atom.index))
            XCTAssertEqual(atoms.name(of: atoms[atom]), atom)
            XCTAssertEqual(atoms.atom(named: atom.rawValue), atoms[atom])
        }
        XCTAssertNil(atoms.name(of: 0))
        XCTAssertNil(atoms.name(of: 501))
        XCTAssertNil(atoms.atom(named: "NOT_AN_ATOM"))
    }

    /// A connection made for one purpose interns a subset: the rest read as 0 and are not found by
    /// name (so a name lookup goes to the server instead of answering None).
    func testASubsetLeavesTheOthersUninterned() {
        let wanted = KnownAtomSet().adding(.clipboard).adding(.utf8String)
        XCTAssertTrue(wanted.contains(KnownAtom.clipboard.index))
        XCTAssertFalse(wanted.contains(KnownAtom.primary.index))
        XCTAssertEqual(KnownAtomSet.all.bits.nonzeroBitCount, KnownAtom.count)
        let atoms = KnownAtoms { wanted.contains($0) ? UInt32(700 + $0) : 0 }
        XCTAssertEqual(atoms.atom(named: "UTF8_STRING"), UInt32(700 + KnownAtom.utf8String.index))
        XCTAssertNil(atoms.atom(named: "TARGETS"))
        XCTAssertNil(atoms.name(of: 0))
        XCTAssertEqual(X11SelectionReader.atomsForReading(.primary),
                       KnownAtomSet().adding(.primary).adding(.utf8String).adding(.pbctlData).adding(.incr))
    }
}

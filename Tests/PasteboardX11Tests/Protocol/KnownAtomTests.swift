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
}

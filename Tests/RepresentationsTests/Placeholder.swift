import XCTest

final class RepresentationsTestsPlaceholder: XCTestCase {}

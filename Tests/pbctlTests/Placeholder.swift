import XCTest

final class pbctlTestsPlaceholder: XCTestCase {}

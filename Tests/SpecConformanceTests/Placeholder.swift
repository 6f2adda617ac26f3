import XCTest

final class SpecConformanceTestsPlaceholder: XCTestCase {}

import XCTest

final class PasteboardTestsPlaceholder: XCTestCase {}

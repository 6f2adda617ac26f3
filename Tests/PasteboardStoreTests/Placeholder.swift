import XCTest

final class PasteboardStoreTestsPlaceholder: XCTestCase {}

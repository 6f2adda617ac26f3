import XCTest

final class PasteboardX11TestsPlaceholder: XCTestCase {}

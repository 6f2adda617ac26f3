import XCTest

@testable import KDEConnect

final class KDEConnectPacketTests: XCTestCase {
    func testPlaceholder() {}
}

import Foundation
import Pasteboard
import XCTest

@testable import Images

final class ImageFormatTests: XCTestCase {
    func testTypesRoundTrip() {
        for format in ImageFormat.allCases { XCTAssertEqual(ImageFormat(type: format.type), format) }
        XCTAssertNil(ImageFormat(type: .svg))
    }
}

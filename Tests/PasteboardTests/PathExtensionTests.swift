import XCTest
@testable import Pasteboard

/// `pathExtension` (read by every copy of a file) over bytes, as the split-based one answered.
final class PathExtensionTests: XCTestCase {
    func testExtensionsOfPaths() {
        let cases: [(String, String?)] = [
            ("a/notes.md", "md"), ("notes", nil), (".bashrc", nil), ("a.b/c", nil), ("dir/", nil), ("a/b.txt/", "txt"),
            ("x.", ""), ("a..b", "b"), ("/", nil), ("", nil), ("photo.JPG", "JPG"), ("é/ü.tärt", "tärt"), ("a/.hidden", nil),
        ]
        for (path, expected) in cases { XCTAssertEqual(path.pathExtension, expected, path) }
    }
}

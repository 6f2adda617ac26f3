/// A line:column position in the source (1-based; columns count bytes, as cmark does).
/// Line 0 means "unknown" (e.g. nodes made by the builder without positions).
public struct MarkdownSourcePosition: Sendable, Equatable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
    public static func < (a: Self, b: Self) -> Bool { (a.line, a.column) < (b.line, b.column) }
    public var description: String { "\(line):\(column)" }
}

/// Start and end (inclusive) positions of a node in the source.
public struct MarkdownSourceRange: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var start: MarkdownSourcePosition
    public var end: MarkdownSourcePosition
    public init(start: MarkdownSourcePosition, end: MarkdownSourcePosition) {
        self.start = start
        self.end = end
    }
    public static let unknown = MarkdownSourceRange(
        start: .init(line: 0, column: 0), end: .init(line: 0, column: 0))
    public var description: String { "\(start)-\(end)" }
}

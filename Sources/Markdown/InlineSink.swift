/// Where the inline parser's output goes, in document order. Positions are offsets in the subject.
protocol InlineSink: ~Copyable {
    /// Subject bytes `from..<to`, as they are; `plain`: none of them is `<`, `>`, `"` or `&` (so HTML
    /// needs no escaping).
    mutating func text(_ subject: MDBytes, from: Int, to: Int, plain: Bool)
    /// Decoded text (an escape, an entity, an e-mail address with its entities decoded) standing for the
    /// subject bytes `from..<to`.
    mutating func decodedText(_ bytes: MDBytes, from: Int, to: Int)
    mutating func softBreak(at: Int)
    mutating func lineBreak(from: Int, to: Int)
    /// A code span: its content is `subject[contentFrom..<contentTo]` with line endings read as spaces.
    mutating func code(_ subject: MDBytes, contentFrom: Int, contentTo: Int, from: Int, to: Int)
    mutating func rawHTML(_ subject: MDBytes, from: Int, to: Int)
    /// Emphasis, strong emphasis or strikethrough starts at `at` / ends at its last byte `at`.
    mutating func enter(_ kind: MarkdownNodeKind, at: Int)
    mutating func exit(_ kind: MarkdownNodeKind, at: Int)
    mutating func enterLink(image: Bool, destination: MDBytes, title: MDBytes, at: Int)
    mutating func exitLink(image: Bool, at: Int)
    mutating func footnoteReference(label: MDBytes, definition: Int32, from: Int, to: Int)
}

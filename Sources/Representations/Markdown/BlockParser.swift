struct BlockParser {
    let input: [UInt8]
    let options: MarkdownOptions
    mutating func run() -> MarkdownDocument { MarkdownDocument() }
}

import Synchronization

/// The buffers a finished parse leaves for the next one, so that parsing a small document allocates
/// little more than its output: the block parser's node, storage and line arrays, the inline parser's
/// marks, the tree builder's stacks. One parse at a time borrows them (a parse running beside it makes
/// its own); after a large input they are dropped rather than kept, so a long-running process does not
/// hold on to its largest document.
final class MarkdownScratch: @unchecked Sendable {
    // @unchecked: a scratch is only ever used by the one parse that took it out of `shared`.
    var blocks: BlockParser?
    var inline: InlineParser?
    var parents: [Int32] = []
    var newBytes: [UInt8] = []

    /// Inputs up to this size give their buffers back.
    static let keptInputLimit = 1 << 20

    private static let shared = Mutex<MarkdownScratch?>(nil)

    /// The buffers of an earlier parse, or new ones.
    static func take() -> MarkdownScratch {
        shared.withLock { cached -> MarkdownScratch? in
            let scratch = cached
            cached = nil
            return scratch
        } ?? MarkdownScratch()
    }

    /// Gives the buffers back after a parse of `inputSize` bytes (dropped after a large one).
    static func give(_ scratch: MarkdownScratch, inputSize: Int) {
        guard inputSize <= keptInputLimit else { return }
        scratch.inline?.detach()
        shared.withLock { $0 = scratch }
    }

    /// A block parser for a new document, on the kept buffers when there are some.
    /// For a document (`positions`), its own arrays start empty; the direct path reuses them too.
    func blockParser(options: MarkdownOptions, positions: Bool) -> BlockParser {
        guard var old = blocks else { return BlockParser(options: options, positions: positions) }
        blocks = nil
        return BlockParser(options: options, positions: positions, reusing: &old, documentArrays: !positions)
    }

    /// An inline parser for a new document, on the kept buffers when there are some.
    func inlineParser(options: MarkdownOptions) -> InlineParser {
        guard var old = inline else { return InlineParser(options: options) }
        inline = nil
        return InlineParser(options: options, reusing: &old)
    }
}

/// One node record of the arena. Internal layout; use `MarkdownDocument`'s accessors.
@usableFromInline
package struct MarkdownNodeRecord: Sendable {
    @usableFromInline var kind: MarkdownNodeKind
    /// Bit flags: see `Flag`.
    @usableFromInline var flags: UInt8
    /// heading level; code fence char; list delimiter; item task state (0 none, 1 unchecked, 2 checked).
    @usableFromInline var a: UInt8
    /// code fence length; list type; bullet char.
    @usableFromInline var b: UInt8
    @usableFromInline var parent: Int32
    @usableFromInline var firstChild: Int32
    @usableFromInline var lastChild: Int32
    @usableFromInline var next: Int32
    @usableFromInline var prev: Int32
    @usableFromInline var startLine: Int32
    @usableFromInline var startColumn: Int32
    @usableFromInline var endLine: Int32
    @usableFromInline var endColumn: Int32
    /// Literal byte range in `MarkdownDocument.bytes`.
    @usableFromInline var literalStart: Int32
    @usableFromInline var literalCount: Int32
    /// List start number, or index into `extras` (links, images, code info, table alignments).
    @usableFromInline var extra: Int32

    @usableFromInline enum Flag {
        @usableFromInline static let open: UInt8 = 1
        @usableFromInline static let lastLineBlank: UInt8 = 2
        /// tight list / fenced code block / setext heading / header row
        @usableFromInline static let variant: UInt8 = 4
        @usableFromInline static let lastLineChecked: UInt8 = 8
        /// An ordered list's ``MarkdownListStyle``, in bits 4–6.
        @usableFromInline static let listStyleShift: UInt8 = 4
        @usableFromInline static let listStyleMask: UInt8 = 0x70
        /// The literal is a range of the parser's input, not of `bytes` (leaves of the direct path to HTML
        /// only; never in a `MarkdownDocument`).
        @usableFromInline static let literalInInput: UInt8 = 0x80
    }

    @inlinable
    init(kind: MarkdownNodeKind, parent: Int32) {
        self.kind = kind
        self.flags = 0
        self.a = 0
        self.b = 0
        self.parent = parent
        self.firstChild = -1
        self.lastChild = -1
        self.next = -1
        self.prev = -1
        self.startLine = 0
        self.startColumn = 0
        self.endLine = 0
        self.endColumn = 0
        self.literalStart = 0
        self.literalCount = 0
        self.extra = -1
    }
}

/// Two byte ranges in `MarkdownDocument.bytes` (link destination + title; code info; table alignments).
@usableFromInline
struct MarkdownExtra: Sendable {
    @usableFromInline var aStart: Int32
    @usableFromInline var aCount: Int32
    @usableFromInline var bStart: Int32
    @usableFromInline var bCount: Int32
    @inlinable init(aStart: Int32, aCount: Int32, bStart: Int32 = 0, bCount: Int32 = 0) {
        self.aStart = aStart
        self.aCount = aCount
        self.bStart = bStart
        self.bCount = bCount
    }
}

/// A finished block as the direct path to HTML keeps it (`BlockParser.streaming`): what the renderer
/// reads of a node, without its links, positions or parse state. Records are in document order (a
/// container before its content), and a block's content is the records after it that are deeper.
struct BlockRecord {
    var kind: MarkdownNodeKind
    var flags: UInt8
    var a: UInt8
    var b: UInt8
    var depth: Int32
    var literalStart: Int32
    var literalCount: Int32
    var extra: Int32
}

/// The records, packed: a document can finish a block every other byte (`-\n` repeated), so a record
/// takes a few bytes, not a struct. Each is the kind (high bit: a flags byte follows), the flags, the
/// depth as a varint, then what its kind uses: `a` (list, item, heading), the literal (leaves and
/// footnote definitions) and `extra` (list start, code info, table alignments). A leaf's literal start is
/// stored as its distance from the end of the previous one in the same buffer (input or storage),
/// usually one byte, so a reader starting mid-way needs the `Position` a reader had there; a footnote
/// definition's label is stored as is (it is read from anywhere).
struct BlockRecords {
    private(set) var bytes: [UInt8] = []

    /// Where reading is: the offset, and the previous literal's end in each buffer.
    struct Position {
        var offset: Int = 0
        var inputEnd: Int32 = 0
        var storageEnd: Int32 = 0
    }

    private var writer = Position()
    /// The offset of the last record appended (-1: none).
    private(set) var lastOffset: Int32 = -1

    var count: Int { bytes.count }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        writer = Position()
        lastOffset = -1
    }

    /// Appends a record; returns its offset.
    @discardableResult
    mutating func append(_ r: BlockRecord) -> Int32 {
        let offset = Int32(bytes.count)
        lastOffset = offset
        if r.flags != 0 || r.kind == .list {
            bytes.append(r.kind.rawValue | 0x80)
            bytes.append(r.flags)
        } else {
            bytes.append(r.kind.rawValue)
        }
        appendVarint(UInt32(bitPattern: r.depth))
        switch r.kind {
        case .list:
            bytes.append(r.a)
            appendVarint(zigzag(r.extra))
        case .item:
            bytes.append(r.a)
        case .blockQuote:
            // Its levels (a run of quotes), four bytes as they may be rewritten (`setCount`).
            let count = UInt32(bitPattern: max(1, r.literalCount))
            for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
        case .heading:
            bytes.append(r.a)
            appendLiteral(r)
        case .paragraph, .tableCell, .htmlBlock:
            appendLiteral(r)
        case .footnoteDefinition:
            // The label, as is: references are written before their definition is read.
            appendVarint(UInt32(bitPattern: r.literalStart))
            appendVarint(UInt32(bitPattern: r.literalCount))
        case .codeBlock:
            appendLiteral(r)
            appendVarint(zigzag(r.extra))
        case .table:
            appendVarint(zigzag(r.extra))
        default:
            break
        }
        return offset
    }

    /// Rewrites the level count of the block quote record at `offset` (a run split by a later line).
    mutating func setCount(at offset: Int32, _ count: Int32) {
        var i = Int(offset) + (bytes[Int(offset)] & 0x80 != 0 ? 2 : 1)
        while bytes[i] & 0x80 != 0 { i += 1 }
        i += 1
        let value = UInt32(bitPattern: count)
        for k in 0..<4 { bytes[i + k] = UInt8(truncatingIfNeeded: value >> UInt32(8 * k)) }
    }

    /// Rewrites the flags of the record at `offset` (a list's tightness, known when it ends; lists always
    /// carry a flags byte).
    mutating func setFlags(at offset: Int32, _ flags: UInt8) {
        bytes[Int(offset) + 1] = flags
    }

    private mutating func appendLiteral(_ r: BlockRecord) {
        let inInput = r.flags & MarkdownNodeRecord.Flag.literalInInput != 0
        let previous = inInput ? writer.inputEnd : writer.storageEnd
        appendVarint(zigzag(r.literalStart &- previous))
        appendVarint(UInt32(bitPattern: r.literalCount))
        if inInput { writer.inputEnd = r.literalStart &+ r.literalCount } else { writer.storageEnd = r.literalStart &+ r.literalCount }
    }

    @inline(__always) private func zigzag(_ v: Int32) -> UInt32 { UInt32(bitPattern: (v << 1) ^ (v >> 31)) }

    private mutating func appendVarint(_ value: UInt32) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }
}

/// Reads packed records in order.
struct BlockRecordReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: BlockRecords.Position

    init(_ bytes: UnsafeBufferPointer<UInt8>, at position: BlockRecords.Position = BlockRecords.Position()) {
        self.bytes = bytes
        self.position = position
    }

    var atEnd: Bool { position.offset >= bytes.count }

    /// The depth of the next record, without reading it (nil at the end).
    func peekDepth() -> Int32? {
        var i = position.offset
        guard i < bytes.count else { return nil }
        if bytes[i] & 0x80 != 0 { i += 1 }
        i += 1
        var shift: UInt32 = 0
        var value: UInt32 = 0
        while true {
            let c = bytes[i]
            value |= UInt32(c & 0x7F) << shift
            i += 1
            if c & 0x80 == 0 { break }
            shift += 7
        }
        return Int32(bitPattern: value)
    }

    /// The kind of the next record, without reading it (nil at the end).
    func peekKind() -> MarkdownNodeKind? {
        position.offset < bytes.count ? MarkdownNodeKind(rawValue: bytes[position.offset] & 0x7F) : nil
    }

    mutating func next() -> BlockRecord {
        let k = bytes[position.offset]
        position.offset += 1
        var flags: UInt8 = 0
        if k & 0x80 != 0 {
            flags = bytes[position.offset]
            position.offset += 1
        }
        let kind = MarkdownNodeKind(rawValue: k & 0x7F) ?? .paragraph
        var r = BlockRecord(kind: kind, flags: flags, a: 0, b: 0, depth: Int32(bitPattern: varint()), literalStart: 0, literalCount: 0, extra: -1)
        switch kind {
        case .list:
            r.a = byte()
            r.extra = unzigzag(varint())
        case .item:
            r.a = byte()
        case .blockQuote:
            var count: UInt32 = 0
            for k in 0..<4 { count |= UInt32(byte()) << UInt32(8 * k) }
            r.literalCount = Int32(bitPattern: count)
        case .heading:
            r.a = byte()
            readLiteral(&r)
        case .paragraph, .tableCell, .htmlBlock:
            readLiteral(&r)
        case .footnoteDefinition:
            r.literalStart = Int32(bitPattern: varint())
            r.literalCount = Int32(bitPattern: varint())
        case .codeBlock:
            readLiteral(&r)
            r.extra = unzigzag(varint())
        case .table:
            r.extra = unzigzag(varint())
        default:
            break
        }
        return r
    }

    private mutating func readLiteral(_ r: inout BlockRecord) {
        let inInput = r.flags & MarkdownNodeRecord.Flag.literalInInput != 0
        let previous = inInput ? position.inputEnd : position.storageEnd
        r.literalStart = previous &+ unzigzag(varint())
        r.literalCount = Int32(bitPattern: varint())
        if inInput { position.inputEnd = r.literalStart &+ r.literalCount } else { position.storageEnd = r.literalStart &+ r.literalCount }
    }

    @inline(__always) private mutating func byte() -> UInt8 {
        let c = bytes[position.offset]
        position.offset += 1
        return c
    }

    @inline(__always) private func unzigzag(_ v: UInt32) -> Int32 { Int32(bitPattern: (v >> 1) ^ (0 &- (v & 1))) }

    @inline(__always) private mutating func varint() -> UInt32 {
        var shift: UInt32 = 0
        var value: UInt32 = 0
        while true {
            let c = bytes[position.offset]
            position.offset += 1
            value |= UInt32(c & 0x7F) << shift
            if c & 0x80 == 0 { return value }
            shift += 7
        }
    }
}

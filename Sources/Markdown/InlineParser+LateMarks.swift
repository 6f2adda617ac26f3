// Late marks: marks made behind marks already made (a matched run leaving the stack, a link's start made at
// its `]`), kept as a sorted run (packed once more than `lateFastLimit` wait) plus a heap for the few out of
// order, merged with the marks as they are emitted.

extension InlineParser {
    private var lateRunCount: Int { lateFast.count - lateFastHead + latePackedCount }
    var lateCount: Int { lateRunCount + lateHeap.count }

    /// The next mark of the sorted run (there is one).
    @inline(__always)
    private var lateRunNext: InlineMark { lateFastHead < lateFast.count ? lateFast[lateFastHead] : lateNext }

    /// Whether the next late mark is the next of the sorted run (else the top of the heap).
    @inline(__always)
    private var lateRunFirst: Bool {
        lateHeap.isEmpty || (lateRunCount > 0 && lateRunNext.start < lateHeap[0].start)
    }

    /// Where the first late mark starts; Int32.max when there is none.
    @inline(__always)
    var firstLateStart: Int32 {
        var first = Int32.max
        if lateFastHead < lateFast.count {
            first = lateFast[lateFastHead].start
        } else if latePackedCount > 0 {
            first = lateNext.start
        }
        if !lateHeap.isEmpty { first = min(first, lateHeap[0].start) }
        return first
    }

    /// Adds a mark that starts before marks already made. Late marks mostly come in source order
    /// (matched delimiter runs, links one after another): those go on a sorted run. Past
    /// `lateFastLimit` waiting (a paragraph may hold millions behind an opener that never closes) the run
    /// goes on packed: a byte for the kind and flags, then varints for the start (after the previous
    /// one's), the width and the data (for a link's start, after its own start), typically 4 to 6 bytes instead of
    /// 12. One that comes out of order (emphasis around emphasis, a link around an image) goes on a heap
    /// on `start`; run and heap are merged as they are emitted.
    mutating func addLateMark(_ mark: InlineMark) {
        if lateRunCount > 0 && mark.start < lateLastStart {
            lateHeap.append(mark)
            var child = lateHeap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard lateHeap[parent].start > lateHeap[child].start else { break }
                let t = lateHeap[parent]
                lateHeap[parent] = lateHeap[child]
                lateHeap[child] = t
                child = parent
            }
            return
        }
        lateLastStart = mark.start
        if latePackedCount == 0 && lateFast.count - lateFastHead < Self.lateFastLimit {
            if lateFastHead == lateFast.count {
                lateFast.removeAll()
                lateFastHead = 0
            }
            lateFast.append(mark)
            return
        }
        if latePackedCount == 0 {
            late.removeAll()
            lateHead = 0
            latePackedLast = 0
        }
        late.append(mark.kind.rawValue | mark.flags << 4)
        appendVarint(UInt64(UInt32(bitPattern: mark.start &- latePackedLast)))
        appendVarint(UInt64(mark.width))
        if mark.kind == .delimiter {
            appendVarint(UInt64(UInt32(bitPattern: mark.data)))
        } else {
            let delta = Int64(mark.data) - Int64(mark.start)
            appendVarint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)))
        }
        latePackedLast = mark.start
        latePackedCount += 1
        if latePackedCount == 1 { decodeLateNext(after: 0) }
    }

    @inline(__always)
    private func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            late.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        late.append(UInt8(v))
    }

    /// Decodes the mark at `lateHead` into `lateNext` (`previous`: the start of the one before it).
    private mutating func decodeLateNext(after previous: Int32) {
        var at = lateHead
        func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = late[at]
                at += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
        let header = late[at]
        at += 1
        let start = previous &+ Int32(bitPattern: UInt32(truncatingIfNeeded: varint()))
        let width = Int(varint())
        let kind = InlineMark.Kind(rawValue: header & 0x0F)!
        let data: Int32
        if kind == .delimiter {
            data = Int32(bitPattern: UInt32(truncatingIfNeeded: varint()))
        } else {
            let z = varint()
            data = Int32(truncatingIfNeeded: Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1))) + Int64(start))
        }
        lateNext = InlineMark(kind, Int(start), data: data, width: width)
        lateNext.flags = header >> 4
        lateNextSize = at - lateHead
    }

    /// Removes and returns the late mark that starts first (there is one).
    mutating func popLateMark() -> InlineMark {
        if lateRunFirst {
            if lateFastHead < lateFast.count {
                let first = lateFast[lateFastHead]
                lateFastHead += 1
                if lateFastHead == lateFast.count {
                    lateFast.removeAll()
                    lateFastHead = 0
                } else if lateFastHead >= 4096 && 2 * lateFastHead >= lateFast.count {
                    // What was read is given back, as for the packed run.
                    for i in lateFastHead..<lateFast.count { lateFast[i - lateFastHead] = lateFast[i] }
                    lateFast.truncate(to: lateFast.count - lateFastHead)
                    lateFastHead = 0
                }
                return first
            }
            let first = lateNext
            lateHead += lateNextSize
            latePackedCount -= 1
            if latePackedCount == 0 {
                late.removeAll()
                lateHead = 0
                latePackedLast = 0
            } else {
                if lateHead >= 1 << 16 && 2 * lateHead >= late.count {
                    // What was read is given back (the run is moved down, at most as long as what was read).
                    for i in lateHead..<late.count { late[i - lateHead] = late[i] }
                    late.truncate(to: late.count - lateHead)
                    lateHead = 0
                }
                decodeLateNext(after: first.start)
            }
            return first
        }
        let first = lateHeap[0]
        let last = lateHeap.popLast()!
        guard !lateHeap.isEmpty else { return first }
        lateHeap[0] = last
        var parent = 0
        let count = lateHeap.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            var child = left
            if left + 1 < count && lateHeap[left + 1].start < lateHeap[left].start { child = left + 1 }
            guard lateHeap[child].start < lateHeap[parent].start else { break }
            let t = lateHeap[parent]
            lateHeap[parent] = lateHeap[child]
            lateHeap[child] = t
            parent = child
        }
        return first
    }

    /// Removes the late marks that start at or after `position`.
    mutating func dropLateMarks(from position: Int) {
        var kept: [InlineMark] = []
        while lateCount > 0 {
            let m = popLateMark()
            if Int(m.start) < position { kept.append(m) }
        }
        for m in kept { addLateMark(m) }
    }
}

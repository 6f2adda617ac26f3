#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a streaming read delivers bytes.
public protocol RepresentationSink: AnyObject {
    /// Takes the next chunk.
    func write(_ chunk: Data) throws
    /// Moves `count` bytes of the open regular file `descriptor`, from `offset`, without passing them
    /// through the process where the sink can (`copy_file_range`, `sendfile`). False when it cannot;
    /// the backend then writes chunks.
    func transfer(fromFile descriptor: Int32, offset: Int, count: Int) throws -> Bool
    /// Moves at most `limit` bytes that wait in the pipe `descriptor` without passing them through the
    /// process (`splice`): the number moved (0 at end of file), or nil when the sink cannot; the backend
    /// then reads chunks.
    func transfer(fromPipe descriptor: Int32, limit: Int) throws -> Int?
}

extension RepresentationSink {
    public func transfer(fromFile descriptor: Int32, offset: Int, count: Int) throws -> Bool { false }
    public func transfer(fromPipe descriptor: Int32, limit: Int) throws -> Int? { nil }
}

/// A sink that collects every chunk (what a whole read is).
public final class DataSink: RepresentationSink {
    public private(set) var data = Data()
    public init() {}
    public func write(_ chunk: Data) throws { data.append(chunk) }
}

/// A sink that counts what passes through it to another.
public final class CountingSink: RepresentationSink {
    public let base: any RepresentationSink
    public private(set) var count = 0

    public init(_ base: any RepresentationSink) { self.base = base }

    public func write(_ chunk: Data) throws {
        count += chunk.count
        try base.write(chunk)
    }

    public func transfer(fromFile descriptor: Int32, offset: Int, count: Int) throws -> Bool {
        guard try base.transfer(fromFile: descriptor, offset: offset, count: count) else { return false }
        self.count += count
        return true
    }

    public func transfer(fromPipe descriptor: Int32, limit: Int) throws -> Int? {
        let moved = try base.transfer(fromPipe: descriptor, limit: limit)
        count += moved ?? 0
        return moved
    }
}

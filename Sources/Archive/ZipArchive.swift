#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CZlib

/// One file or folder in a ZIP archive.
public struct ZipEntry: Sendable, Equatable {
    /// The path inside the archive, `/`-separated, relative; a folder's ends in `/`.
    public var path: String
    public var data: Data
    /// Seconds since 1970 (UTC); stored in the archive as an MS-DOS date and time (2-second steps,
    /// 1980 to 2107).
    public var modified: Int64

    public var isDirectory: Bool { path.hasSuffix("/") }

    public init(path: String, data: Data = Data(), modified: Int64 = 315_532_800) {
        self.path = path
        self.data = data
        self.modified = modified
    }

    public static func directory(_ path: String, modified: Int64 = 315_532_800) -> ZipEntry {
        ZipEntry(path: path.hasSuffix("/") ? path : path + "/", modified: modified)
    }
}

/// Why an archive could not be read or written. The message names the entry when there is one.
public struct ZipError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// Not a ZIP archive, or damaged (bad signature, offsets out of range, CRC mismatch, bad deflate data).
        case corrupt
        /// A valid archive using something we do not read (ZIP64, encryption, other compression methods, split archives).
        case unsupported
        /// An entry that would land outside the destination: `..`, an absolute path, a symbolic link, a device.
        case unsafeEntry
        /// Over a limit: entry count, an entry's size or the total size (a zip bomb).
        case tooLarge
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// ZIP archives in memory, as PKWARE's APPNOTE.TXT describes them: local file headers with the data,
/// a central directory, and the end-of-central-directory record. Stored (method 0) and deflate
/// (method 8, raw deflate through zlib) entries; no ZIP64, no encryption.
///
/// Reading is hardened against hostile archives: every offset and size is checked against the bytes
/// at hand, entry names that could escape a destination folder are refused, symbolic links and
/// devices are refused, entries may not overlap, and the entry count and the inflated sizes are
/// capped before anything is inflated, so a zip bomb costs no more than the limits allow.
public enum ZipArchive {
    /// Caps on what a read may produce.
    public struct Limits: Sendable, Equatable {
        public var maximumEntryCount: Int
        public var maximumEntrySize: Int
        public var maximumTotalSize: Int
        /// Longest entry name in bytes; deepest folder nesting.
        public var maximumPathLength: Int
        public var maximumPathDepth: Int

        public init(
            maximumEntryCount: Int = 10_000, maximumEntrySize: Int = 256 << 20, maximumTotalSize: Int = 512 << 20,
            maximumPathLength: Int = 1024, maximumPathDepth: Int = 32
        ) {
            self.maximumEntryCount = maximumEntryCount
            self.maximumEntrySize = maximumEntrySize
            self.maximumTotalSize = maximumTotalSize
            self.maximumPathLength = maximumPathLength
            self.maximumPathDepth = maximumPathDepth
        }

        public static let `default` = Limits()
    }

    public enum Method: UInt16, Sendable {
        case stored = 0
        case deflate = 8
    }

    // MARK: Writing

    /// Encodes `entries` as a ZIP archive. With `.deflate`, an entry that would not shrink is stored.
    /// - Throws: ``ZipError`` `.unsafeEntry` for a path that a careful reader would refuse,
    ///   `.tooLarge` beyond what a ZIP without ZIP64 can hold.
    public static func encode(_ entries: [ZipEntry], method: Method = .deflate, level: Int32 = 6) throws -> Data {
        guard entries.count < 0xFFFF else {
            throw ZipError(.tooLarge, "\(entries.count) entries: more than a ZIP without ZIP64 can hold")
        }
        var out = Data()
        var central = Data()
        var names = Set<String>()
        for entry in entries {
            try checkPath(entry.path, limits: .default)
            guard names.insert(entry.path).inserted else {
                throw ZipError(.unsafeEntry, "\(entry.path): listed twice")
            }
            guard entry.data.count < 0xFFFF_FFFF, out.count < 0xFFFF_FFFF else {
                throw ZipError(.tooLarge, "\(entry.path): larger than 4 GiB (ZIP64 is not written)")
            }
            let name = Array(entry.path.utf8)
            let crc = crc32(of: entry.data)
            var entryMethod = Method.stored
            var payload = entry.data
            if method == .deflate, !entry.isDirectory, !entry.data.isEmpty {
                let deflated = try deflate(entry.data, level: level)
                if deflated.count < entry.data.count {
                    entryMethod = .deflate
                    payload = deflated
                }
            }
            let (dosTime, dosDate) = dosDateTime(entry.modified)
            let nonASCII = name.contains { $0 >= 0x80 }
            let flags: UInt16 = nonASCII ? 1 << 11 : 0
            let versionNeeded: UInt16 = entryMethod == .deflate ? 20 : (entry.isDirectory ? 20 : 10)
            let offset = UInt32(out.count)

            out.appendLE(UInt32(0x0403_4B50))
            out.appendLE(versionNeeded)
            out.appendLE(flags)
            out.appendLE(entryMethod.rawValue)
            out.appendLE(dosTime)
            out.appendLE(dosDate)
            out.appendLE(crc)
            out.appendLE(UInt32(payload.count))
            out.appendLE(UInt32(entry.data.count))
            out.appendLE(UInt16(name.count))
            out.appendLE(UInt16(0))
            out.append(contentsOf: name)
            out.append(payload)

            let mode: UInt32 = entry.isDirectory ? 0o040755 : 0o100644
            central.appendLE(UInt32(0x0201_4B50))
            central.appendLE(UInt16(3 << 8 | 63))  // made by: Unix, APPNOTE 6.3
            central.appendLE(versionNeeded)
            central.appendLE(flags)
            central.appendLE(entryMethod.rawValue)
            central.appendLE(dosTime)
            central.appendLE(dosDate)
            central.appendLE(crc)
            central.appendLE(UInt32(payload.count))
            central.appendLE(UInt32(entry.data.count))
            central.appendLE(UInt16(name.count))
            central.appendLE(UInt16(0))  // extra
            central.appendLE(UInt16(0))  // comment
            central.appendLE(UInt16(0))  // disk
            central.appendLE(UInt16(0))  // internal attributes
            central.appendLE(mode << 16 | (entry.isDirectory ? 0x10 : 0))
            central.appendLE(offset)
            central.append(contentsOf: name)
        }
        guard out.count < 0xFFFF_FFFF, central.count < 0xFFFF_FFFF else {
            throw ZipError(.tooLarge, "archive larger than 4 GiB (ZIP64 is not written)")
        }
        let centralOffset = UInt32(out.count)
        out.append(central)
        out.appendLE(UInt32(0x0605_4B50))
        out.appendLE(UInt16(0))
        out.appendLE(UInt16(0))
        out.appendLE(UInt16(entries.count))
        out.appendLE(UInt16(entries.count))
        out.appendLE(UInt32(central.count))
        out.appendLE(centralOffset)
        out.appendLE(UInt16(0))
        return out
    }

    // MARK: Reading

    /// Decodes every entry of an archive, in central-directory order.
    /// - Throws: ``ZipError``: `.corrupt` for damage, `.unsupported` for features not read,
    ///   `.unsafeEntry` for paths that escape, links and devices, `.tooLarge` over `limits`.
    public static func decode(_ archive: Data, limits: Limits = .default) throws -> [ZipEntry] {
        let bytes = [UInt8](archive)
        let records = try centralDirectory(bytes, limits: limits)
        var entries: [ZipEntry] = []
        entries.reserveCapacity(records.count)
        for record in records {
            entries.append(try extract(record, from: bytes))
        }
        return entries
    }

    struct Record {
        var path: String
        var method: UInt16
        var flags: UInt16
        var crc: UInt32
        var compressedSize: Int
        var uncompressedSize: Int
        var localHeaderOffset: Int
        var modified: Int64
        /// Where the data starts and ends (filled in from the local header).
        var dataStart = 0
        var dataEnd = 0
    }

    static func centralDirectory(_ bytes: [UInt8], limits: Limits) throws -> [Record] {
        guard bytes.count >= 22 else { throw ZipError(.corrupt, "not a ZIP archive: \(bytes.count) bytes is too short") }
        // The end-of-central-directory record sits in the last 22 + 65535 bytes (its comment is at most 64 KiB).
        var eocd: Int? = nil
        var position = bytes.count - 22
        let lowest = max(0, bytes.count - 22 - 0xFFFF)
        while position >= lowest {
            if bytes.u32(position) == 0x0605_4B50, position + 22 + Int(bytes.u16(position + 20)) == bytes.count {
                eocd = position
                break
            }
            position -= 1
        }
        guard let end = eocd else {
            throw ZipError(.corrupt, "not a ZIP archive: no end-of-central-directory record")
        }
        let disk = bytes.u16(end + 4)
        let centralDisk = bytes.u16(end + 6)
        let entriesOnDisk = Int(bytes.u16(end + 8))
        let entryCount = Int(bytes.u16(end + 10))
        let centralSize = Int(bytes.u32(end + 12))
        let centralOffset = Int(bytes.u32(end + 16))
        if entryCount == 0xFFFF || centralSize == 0xFFFF_FFFF || centralOffset == 0xFFFF_FFFF {
            throw ZipError(.unsupported, "ZIP64 archives are not supported")
        }
        guard disk == 0, centralDisk == 0, entriesOnDisk == entryCount else {
            throw ZipError(.unsupported, "split (multi-disk) ZIP archives are not supported")
        }
        guard entryCount <= limits.maximumEntryCount else {
            throw ZipError(.tooLarge, "\(entryCount) entries: more than the limit of \(limits.maximumEntryCount)")
        }
        guard centralOffset <= end, centralSize <= end - centralOffset else {
            throw ZipError(.corrupt, "corrupt ZIP archive: the central directory lies outside the file")
        }
        var records: [Record] = []
        var names = Set<String>()
        var cursor = centralOffset
        var total = 0
        for index in 0..<entryCount {
            guard cursor + 46 <= centralOffset + centralSize, bytes.u32(cursor) == 0x0201_4B50 else {
                throw ZipError(.corrupt, "corrupt ZIP archive: central directory entry \(index) is damaged")
            }
            let madeBy = bytes.u16(cursor + 4)
            let flags = bytes.u16(cursor + 8)
            let method = bytes.u16(cursor + 10)
            let time = bytes.u16(cursor + 12)
            let date = bytes.u16(cursor + 14)
            let crc = bytes.u32(cursor + 16)
            let compressed = bytes.u32(cursor + 20)
            let uncompressed = bytes.u32(cursor + 24)
            let nameLength = Int(bytes.u16(cursor + 28))
            let extraLength = Int(bytes.u16(cursor + 30))
            let commentLength = Int(bytes.u16(cursor + 32))
            let startDisk = bytes.u16(cursor + 34)
            let external = bytes.u32(cursor + 38)
            let localOffset = bytes.u32(cursor + 42)
            let next = cursor + 46 + nameLength + extraLength + commentLength
            guard next <= centralOffset + centralSize else {
                throw ZipError(.corrupt, "corrupt ZIP archive: central directory entry \(index) runs past the directory")
            }
            let nameBytes = Array(bytes[(cursor + 46)..<(cursor + 46 + nameLength)])
            // Names are UTF-8 (flag bit 11, or plain ASCII); anything else is read as Latin-1, byte for byte.
            let path = String(validating: nameBytes, as: UTF8.self)
                ?? String(String.UnicodeScalarView(nameBytes.map { Unicode.Scalar($0) }))
            cursor = next

            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || localOffset == 0xFFFF_FFFF {
                throw ZipError(.unsupported, "\(path): ZIP64 entries are not supported")
            }
            guard startDisk == 0 else { throw ZipError(.unsupported, "\(path): split (multi-disk) archives are not supported") }
            if flags & 1 != 0 || flags & (1 << 6) != 0 {
                throw ZipError(.unsupported, "\(path): encrypted entries are not supported")
            }
            guard method == Method.stored.rawValue || method == Method.deflate.rawValue else {
                throw ZipError(.unsupported, "\(path): compression method \(method) is not supported (only stored and deflate)")
            }
            guard nameBytes.count <= limits.maximumPathLength else {
                throw ZipError(.unsafeEntry, "an entry name of \(nameBytes.count) bytes is longer than the limit")
            }
            guard !nameBytes.contains(0) else { throw ZipError(.unsafeEntry, "an entry name holds a NUL byte") }
            try checkPath(path, limits: limits)
            // Unix hosts (3) keep the file mode in the high half of the external attributes.
            if madeBy >> 8 == 3 {
                let type = (external >> 16) & 0o170000
                if type == 0o120000 {
                    throw ZipError(.unsafeEntry, "\(path): is a symbolic link; refusing to extract it")
                }
                if type != 0, type != 0o100000, type != 0o040000 {
                    throw ZipError(.unsafeEntry, "\(path): is not a regular file or folder (mode \(String(type, radix: 8)))")
                }
            }
            guard names.insert(path).inserted else {
                throw ZipError(.unsafeEntry, "\(path): listed twice")
            }
            if path.hasSuffix("/"), uncompressed != 0 {
                throw ZipError(.corrupt, "\(path): a folder entry holds data")
            }
            guard Int(uncompressed) <= limits.maximumEntrySize else {
                throw ZipError(
                    .tooLarge, "\(path): inflates to \(uncompressed) bytes, over the limit of \(limits.maximumEntrySize)")
            }
            total += Int(uncompressed)
            guard total <= limits.maximumTotalSize else {
                throw ZipError(
                    .tooLarge, "the archive inflates to more than the limit of \(limits.maximumTotalSize) bytes")
            }
            if method == Method.stored.rawValue, compressed != uncompressed {
                throw ZipError(.corrupt, "\(path): stored entry with different compressed and uncompressed sizes")
            }
            var record = Record(
                path: path, method: method, flags: flags, crc: crc, compressedSize: Int(compressed),
                uncompressedSize: Int(uncompressed), localHeaderOffset: Int(localOffset),
                modified: unixTime(time: time, date: date))
            // The local header repeats the name; its extra field may differ in length.
            let local = record.localHeaderOffset
            guard local + 30 <= centralOffset, bytes.u32(local) == 0x0403_4B50 else {
                throw ZipError(.corrupt, "\(path): the local file header is missing or damaged")
            }
            let localMethod = bytes.u16(local + 8)
            let localNameLength = Int(bytes.u16(local + 26))
            let localExtraLength = Int(bytes.u16(local + 28))
            guard localMethod == method, localNameLength == nameLength,
                local + 30 + localNameLength <= centralOffset,
                Array(bytes[(local + 30)..<(local + 30 + localNameLength)]) == nameBytes
            else {
                throw ZipError(.corrupt, "\(path): the local file header does not match the central directory")
            }
            record.dataStart = local + 30 + localNameLength + localExtraLength
            record.dataEnd = record.dataStart + record.compressedSize
            guard record.dataEnd <= centralOffset else {
                throw ZipError(.corrupt, "\(path): the data runs past the end of the archive")
            }
            records.append(record)
        }
        // Entries may not share bytes: overlapping entries are how the smallest zip bombs multiply.
        let sorted = records.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.dataEnd > b.localHeaderOffset {
            throw ZipError(.unsafeEntry, "\(b.path): overlaps \(a.path) (an overlapping-entry zip bomb?)")
        }
        // A folder and a file may not share a name (`a` and `a/b`).
        for record in records where !record.path.hasSuffix("/") && names.contains(record.path + "/") {
            throw ZipError(.unsafeEntry, "\(record.path): is both a file and a folder")
        }
        return records
    }

    static func extract(_ record: Record, from bytes: [UInt8]) throws -> ZipEntry {
        let payload = bytes[record.dataStart..<record.dataEnd]
        let data: Data
        if record.method == Method.stored.rawValue {
            data = Data(payload)
        } else {
            data = try inflate(payload, expectedSize: record.uncompressedSize, path: record.path)
        }
        guard crc32(of: data) == record.crc else {
            throw ZipError(.corrupt, "\(record.path): CRC-32 mismatch (the archive is damaged)")
        }
        return ZipEntry(path: record.path, data: data, modified: record.modified)
    }

    /// Refuses names that could land outside a destination folder or mean different things on
    /// different systems: absolute paths, drive letters, backslashes, `.` and `..` components, empty
    /// components, control characters.
    static func checkPath(_ path: String, limits: Limits) throws {
        let shown = path.isEmpty ? "(empty name)" : path
        guard !path.isEmpty else { throw ZipError(.unsafeEntry, "an entry has an empty name") }
        guard path.utf8.count <= limits.maximumPathLength else {
            throw ZipError(.unsafeEntry, "\(shown.prefix(80))…: the name is longer than the limit")
        }
        if path.hasPrefix("/") {
            throw ZipError(.unsafeEntry, "\(shown): absolute path; refusing to extract it")
        }
        if path.contains("\\") {
            throw ZipError(.unsafeEntry, "\(shown): holds a backslash; refusing to extract it")
        }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw ZipError(.unsafeEntry, "\(shown): holds a control character")
        }
        let components = (path.hasSuffix("/") ? String(path.dropLast()) : path).split(
            separator: "/", omittingEmptySubsequences: false)
        if let first = components.first, first.count == 2, first.hasSuffix(":") {
            throw ZipError(.unsafeEntry, "\(shown): a drive-letter path; refusing to extract it")
        }
        for component in components {
            if component == ".." {
                throw ZipError(.unsafeEntry, "\(shown): climbs out of the folder with '..'; refusing to extract it")
            }
            if component.isEmpty || component == "." {
                throw ZipError(.unsafeEntry, "\(shown): has an empty or '.' path component")
            }
        }
        guard components.count <= limits.maximumPathDepth else {
            throw ZipError(.unsafeEntry, "\(shown): nested deeper than \(limits.maximumPathDepth) folders")
        }
    }

    // MARK: zlib

    /// The CRC-32 (ISO 3309, as ZIP and PNG use it) of `data`.
    public static func crc32(of data: Data) -> UInt32 {
        data.withUnsafeBytes { raw -> UInt32 in
            var crc = CZlib.crc32(0, nil, 0)
            guard var base = raw.bindMemory(to: Bytef.self).baseAddress else { return UInt32(crc) }
            var remaining = raw.count
            while remaining > 0 {
                let chunk = min(remaining, 1 << 30)
                crc = CZlib.crc32(crc, base, uInt(chunk))
                base += chunk
                remaining -= chunk
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }

    /// Raw deflate (no zlib header), as ZIP method 8 stores it.
    public static func deflate(_ data: Data, level: Int32 = 6) throws -> Data {
        guard data.count < Int(UInt32.max) else { throw ZipError(.tooLarge, "over 4 GiB to compress") }
        var stream = z_stream()
        guard czlib_deflate_init_raw(&stream, level) == Z_OK else {
            throw ZipError(.corrupt, "zlib: deflateInit2 failed")
        }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(data.count)))
        var output = [UInt8](repeating: 0, count: bound + 16)
        var input = [UInt8](data)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw ZipError(.corrupt, "zlib: deflate failed (\(status))") }
        return Data(output[0..<Int(stream.total_out)])
    }

    /// Inflates raw deflate data that must produce exactly `expectedSize` bytes: one byte more is
    /// an error, so the output never grows past what the archive declared (and the limits allowed).
    static func inflate(_ payload: ArraySlice<UInt8>, expectedSize: Int, path: String) throws -> Data {
        var stream = z_stream()
        guard czlib_inflate_init_raw(&stream) == Z_OK else { throw ZipError(.corrupt, "zlib: inflateInit2 failed") }
        defer { inflateEnd(&stream) }
        var input = Array(payload)
        var output = [UInt8](repeating: 0, count: expectedSize + 1)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                var status = Z_OK
                // One call normally finishes; loop while zlib makes progress.
                while status == Z_OK {
                    let before = (stream.avail_in, stream.avail_out)
                    status = CZlib.inflate(&stream, Z_FINISH)
                    if status == Z_BUF_ERROR || (stream.avail_in, stream.avail_out) == before { break }
                }
                return status
            }
        }
        let produced = Int(stream.total_out)
        if produced > expectedSize {
            throw ZipError(.corrupt, "\(path): inflates to more than the \(expectedSize) bytes it declares")
        }
        guard status == Z_STREAM_END else {
            throw ZipError(.corrupt, "\(path): damaged deflate data (zlib status \(status))")
        }
        guard produced == expectedSize else {
            throw ZipError(.corrupt, "\(path): inflates to \(produced) bytes, but declares \(expectedSize)")
        }
        return Data(output[0..<expectedSize])
    }

    // MARK: MS-DOS dates

    /// Seconds since 1970 (UTC) to an MS-DOS (time, date) pair, clamped to 1980…2107.
    static func dosDateTime(_ seconds: Int64) -> (UInt16, UInt16) {
        let clamped = min(max(seconds, 315_532_800), 4_354_819_198)
        let days = clamped / 86_400
        let secondOfDay = clamped % 86_400
        let (year, month, day) = civil(fromDays: days)
        let time = UInt16(secondOfDay / 3600) << 11 | UInt16(secondOfDay % 3600 / 60) << 5 | UInt16(secondOfDay % 60 / 2)
        let date = UInt16(year - 1980) << 9 | UInt16(month) << 5 | UInt16(day)
        return (time, date)
    }

    static func unixTime(time: UInt16, date: UInt16) -> Int64 {
        let year = Int64(date >> 9) + 1980
        let month = Int64(max(1, min(12, (date >> 5) & 15)))
        let day = Int64(max(1, date & 31))
        let seconds = Int64(time >> 11) * 3600 + Int64((time >> 5) & 63) * 60 + Int64(time & 31) * 2
        return days(fromCivil: year, month, day) * 86_400 + seconds
    }

    /// Howard Hinnant's days-from-civil and its inverse (proleptic Gregorian calendar).
    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

extension Data {
    mutating func appendLE(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }

    mutating func appendLE(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}

extension Array where Element == UInt8 {
    /// Little-endian reads; callers check the bounds first, and out-of-range bytes read as 0 anyway.
    func u16(_ at: Int) -> UInt16 {
        guard at >= 0, at + 2 <= count else { return 0 }
        return UInt16(self[at]) | UInt16(self[at + 1]) << 8
    }

    func u32(_ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= count else { return 0 }
        return UInt32(self[at]) | UInt32(self[at + 1]) << 8 | UInt32(self[at + 2]) << 16 | UInt32(self[at + 3]) << 24
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a received representation's bytes wait until its transfer ends: Connection/'s `Spool` (an
/// unnamed file in memory), so a large item lives in the page cache, not in the daemon's heap.
public protocol TransferStorage: AnyObject {
    func append(_ data: Data) throws
    /// The bytes, once the transfer is complete.
    func mapped() throws -> Data
}

#if canImport(Glibc)
import Glibc
#endif

/// The clipboard's change count on one compositor, shared by every pbctl process there: Wayland numbers
/// nothing across clients, so a count that scripts can poll (`pbctl info`) lives in a small file beside
/// the daemon's lock (`$XDG_RUNTIME_DIR`, 0600, no symbolic link followed), read and changed under
/// `flock`. It rises
/// - for certain when a pbctl copy or clear takes the selection, and when the daemon sees another
///   client's new selection (every change while it runs);
/// - when a reader finds the selection offering other types than the last recorded (the changes of
///   other programs while no daemon runs, as far as their types tell).
/// Each record keeps the fingerprint (``SelectionFingerprint``) of what the selection offers after it,
/// so one change is counted once however many processes see it. The file holds four little-endian
/// 64-bit numbers: the clipboard's count and fingerprint, then the primary selection's; anything else
/// reads as zeros. Where the file cannot be used (no writable folder), ``count`` is nil and the backend
/// falls back to its connection's own count.
struct WaylandChangeCounter {
    let path: String

    init(folder: String, socket: String) {
        let name = String(socket.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        path = "\(folder)/pbctl-changes-\(getuid())-\(name)"
    }

    enum Update {
        /// A change for certain: the count rises, the fingerprint is what the selection offers now.
        case changed
        /// A reader's look: the count rises only when the fingerprint differs from the one recorded.
        case observed
        /// What the selection offers now, recorded without counting a change (the daemon offering kept
        /// content again).
        case settled
    }

    /// Applies `update` for the clipboard (or the primary selection) now offering what `fingerprint`
    /// says; the count after it, nil when the file cannot be used.
    @discardableResult
    func record(_ update: Update, primary: Bool, fingerprint: UInt64) -> Int? {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid() else { return nil }
        while flock(fd, LOCK_EX) != 0 { guard errno == EINTR else { return nil } }
        var numbers = [UInt64](repeating: 0, count: 4)
        if info.st_size == 32 {
            let read = numbers.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 32, 0) }
            if read != 32 { numbers = [0, 0, 0, 0] }
        }
        numbers = numbers.map { UInt64(littleEndian: $0) }
        let slot = primary ? 2 : 0
        // A count read back is range-checked: never past what a 64-bit Int holds (it only rises by one).
        if numbers[slot] >= UInt64(Int.max) { numbers[slot] = 0 }
        switch update {
        case .changed: numbers[slot] += 1
        case .observed: if numbers[slot + 1] != fingerprint { numbers[slot] += 1 }
        case .settled: break
        }
        numbers[slot + 1] = fingerprint
        let stored = numbers.map(\.littleEndian)
        let written = stored.withUnsafeBytes { pwrite(fd, $0.baseAddress, 32, 0) }
        guard written == 32 else { return nil }
        return Int(numbers[slot])
    }
}

/// pbctl's exit statuses (sysexits.h where one fits), listed in README.md and `pbctl help`: the contract
/// with scripts, and the one mapping of ``PasteboardError`` codes to them (``forError(_:)``), which every
/// way out uses, the quick paths' included.
public enum ExitStatus {
    public static let ok: Int32 = 0
    /// Nothing to paste, or the requested type is not offered.
    public static let notFound: Int32 = 1
    public static let usage: Int32 = 64
    /// The input is not what it claims to be (EX_DATAERR).
    public static let dataError: Int32 = 65
    /// A file named on the command line does not exist (EX_NOINPUT): `copy --files`.
    public static let noInput: Int32 = 66
    /// The backend cannot be reached: no display, dead X server, owner gone (EX_UNAVAILABLE).
    public static let unavailable: Int32 = 69
    /// Reading or writing failed (EX_IOERR).
    public static let ioError: Int32 = 74
    /// Standard output's reader went away: the status a shell shows for a process ended by SIGPIPE.
    public static let brokenPipe: Int32 = 141

    public static func forError(_ error: PasteboardError) -> Int32 {
        switch error.code {
        case .empty, .typeNotOffered: return notFound
        case .invalidData: return dataError
        case .unavailable, .timedOut: return unavailable
        case .io, .corrupt, .refused: return ioError
        case .noInput: return noInput
        }
    }
}

import Pasteboard

/// pbctl's exit codes (sysexits.h where one fits), listed in README.md and `pbctl help`.
enum ExitCode {
    static let ok: Int32 = 0
    /// Nothing to paste, or the requested type is not offered.
    static let notFound: Int32 = 1
    static let usage: Int32 = 64
    /// The input is not what it claims to be (EX_DATAERR).
    static let dataError: Int32 = 65
    /// A file named on the command line does not exist (EX_NOINPUT): `copy --files`.
    static let noInput: Int32 = 66
    /// The backend cannot be reached: no display, dead X server, owner gone (EX_UNAVAILABLE).
    static let unavailable: Int32 = 69
    /// Reading or writing failed (EX_IOERR).
    static let ioError: Int32 = 74
    /// Standard output's reader went away: the status a shell shows for a process ended by SIGPIPE.
    static let brokenPipe: Int32 = 141

    static func forError(_ error: PasteboardError) -> Int32 {
        switch error.code {
        case .empty, .typeNotOffered: return notFound
        case .invalidData: return dataError
        case .unavailable, .timedOut: return unavailable
        case .io, .corrupt, .refused: return ioError
        case .noInput: return noInput
        }
    }
}

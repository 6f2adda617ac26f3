#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO
import Backends
import Representations

/// An error with its own exit code, for failures that are not the model's.
struct CLIError: Error {
    let code: Int32
    let message: String
    init(_ code: Int32, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// What every command needs: the streams, the environment, the type registry, and the backend the
/// user chose.
struct Context: Sendable {
    var terminal: Terminal
    var registry: TypeRegistry = .standard

    /// The built-in types plus those declared in `$XDG_CONFIG_HOME/pbctl/types` and
    /// `/usr/share/pbctl/types` (see `DeclaredTypes.swift`); bad declarations are reported and skipped.
    init(terminal: Terminal, registry: TypeRegistry? = nil) {
        self.terminal = terminal
        self.registry = registry ?? DeclaredTypes.registry(reportingTo: terminal)
    }

    var environment: [String: String] { terminal.environment }

    /// This context with another environment (a spawned owner serving the display its parent named).
    func with(environment: [String: String]) -> Context {
        var copy = self
        copy.terminal.environment = environment
        return copy
    }

    typealias BackendKind = Backends.BackendKind
    typealias BackendNeeds = Backends.BackendNeeds
    typealias ChosenBackend = Backends.ChosenBackend

    /// What choosing a backend depends on: the environment, the registry, the holder of sensitive
    /// content (`__hold`), standard error for notes.
    var backendSetting: BackendSetting {
        let terminal = self.terminal
        return BackendSetting(
            environment: environment, registry: registry, holderLauncher: launchHolder, ownerLaunch: ownerLaunch(),
            note: { terminal.err($0) })
    }

    func backend(_ global: GlobalOptions, _ needs: BackendNeeds = BackendNeeds()) throws -> any PasteboardBackend {
        try chooseBackend(global.backend, needs).backend
    }

    /// The backend for this invocation, and why (``BackendChoice/choose(_:_:_:)``).
    func chooseBackend(_ kind: BackendKind, _ needs: BackendNeeds = BackendNeeds()) throws -> ChosenBackend {
        try BackendChoice.choose(kind, needs, backendSetting)
    }
}

/// The longest duration an option takes (`--clear-after`): a year. Anything longer is a typo, and
/// would overflow the clocks it is added to.
let maximumSeconds: Double = 365 * 24 * 3600

/// A duration option's value in seconds: a finite number from 0 to ``maximumSeconds``.
func parseSeconds(_ text: String, option: String) throws -> Double {
    guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= maximumSeconds else {
        throw UsageError(message: "--\(option) takes a number of seconds from 0 to \(Int(maximumSeconds)) (one year)", command: nil)
    }
    return seconds
}

/// The largest input `pbctl copy` takes by default: 1 GiB.
let defaultMaximumInputSize = 1 << 30

/// A size of at least one byte (``ByteSize``: `512`, `64K`, `300M`, `2G`).
func parseSize(_ text: String, option: String) throws -> Int {
    guard let value = ByteSize.parse(text), value > 0 else {
        throw UsageError(message: "\(option) takes a size such as 512K, 64M or 2G", command: nil)
    }
    return value
}

extension Context {
    /// `--max-size`, else `PBCTL_MAX_SIZE`, else ``defaultMaximumInputSize``.
    func maximumInputSize(_ option: String?) throws -> Int {
        if let text = option { return try parseSize(text, option: "--max-size") }
        if let text = environment["PBCTL_MAX_SIZE"], !text.isEmpty { return try parseSize(text, option: "PBCTL_MAX_SIZE") }
        return defaultMaximumInputSize
    }
}

/// pbctl's version: the one place it is written (`make deb` reads it from here).
let pbctlVersion = "0.1.0"

/// The commit a build came from. `make` writes `BuildCommit.swift` (git-ignored) beside this file with
/// `extension BuildStamp { static var commit: String? { "…" } }`, which takes precedence over the
/// protocol's default; a plain `swift build` has none and says nothing about a commit.
protocol CommitStamping {}
extension CommitStamping { static var commit: String? { nil } }
enum BuildStamp: CommitStamping {}

/// `pbctl 0.1.0 (commit 1a2b3c4d5e6f)`.
var version: String { "pbctl " + pbctlVersion + (BuildStamp.commit.map { " (commit \($0))" } ?? "") }

import Pasteboard

/// pbctl's exit codes: the model's ``ExitStatus`` (one table for the command line and the quick paths).
typealias ExitCode = ExitStatus

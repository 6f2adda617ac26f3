#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

let completionsCommand = Command(
    help: CommandHelp(
        name: "completions", summary: "print the shell completion script for bash, zsh or fish",
        usage: "pbctl completions bash|zsh|fish",
        details: """
            Installed by make install and the Debian package; to try one in the current shell:
            bash: source <(pbctl completions bash); zsh: source <(pbctl completions zsh);
            fish: pbctl completions fish | source
            """,
        examples: ["pbctl completions bash > ~/.local/share/bash-completion/completions/pbctl"]),
    options: [], operands: .words(["bash", "zsh", "fish"]),
    run: { context, arguments in
        guard arguments.positionals.count == 1, let shell = arguments.positionals.first else {
            throw UsageError(message: "completions takes one shell: bash, zsh or fish", command: "completions")
        }
        try context.terminal.out(try completionScript(shell))
        return ExitCode.ok
    })

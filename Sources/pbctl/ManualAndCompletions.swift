// The manual page and the shell completions, generated from the same command and option specs as
// `pbctl help` (Registry.swift), so none of them can drift: `pbctl help --man`, `pbctl completions
// bash|zsh|fish`. Values that depend on the machine (pasteboard names in the store, declared types)
// come at completion time from the hidden `pbctl __complete KIND`.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import Backends
import Representations

/// What the values of an option are, for completion: what the option declares.
typealias CompletionValues = OptionSpec.Values

let formatNames = ["markdown"] + TextFormat.allCases.map(\.rawValue)
let backendNames = Context.BackendKind.allCases.map(\.rawValue)

/// Every option of a command, its own first (a command that redefines a global option keeps its own).
func allOptions(_ command: Command) -> [OptionSpec] {
    let own = Set(command.options.map(\.long))
    return command.options + GlobalOptions.specs.filter { !own.contains($0.long) }
}

// MARK: Manual

func trimmedSpaces<S: StringProtocol>(_ text: S) -> String {
    String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
}

/// Text for roff: backslashes and hyphens escaped, a leading `.` or `'` protected.
func roff(_ text: String) -> String {
    var out = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
    if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
    return out
}

func manPage(_ commands: [Command]) -> String {
    let visible = commands.filter { !$0.hidden }
    var page = """
        .TH PBCTL 1 "" "pbctl \(pbctlVersion)" "User Commands"
        .SH NAME
        pbctl, pbcopy, pbpaste \\- a pasteboard broker: one copy offers Markdown, HTML, RTF and plain text
        .SH SYNOPSIS
        .B pbctl
        .I COMMAND
        .RI [ OPTIONS ]
        .RI [ ARGUMENTS ]
        .br
        .B pbcopy
        .RB [ \\-pboard
        .IR NAME ]
        .br
        .B pbpaste
        .RB [ \\-pboard
        .IR NAME ]
        .RB [ \\-Prefer
        .IR txt | rtf ]
        .br
        .B xclip
        .RI [ OPTION ]...\\&
        .RI [ FILE ]...
        .br
        .B xsel
        .RI [ OPTION ]...
        .br
        .B wl\\-copy
        .RI [ OPTION ]...\\&
        .RI [ TEXT ]...
        .br
        .B wl\\-paste
        .RI [ OPTION ]...
        .SH DESCRIPTION
        pbctl brings the macOS pasteboard model to Linux: named pasteboards hold items, each item offers
        its content in several types, and each paste gets the richest type the pasting side can use,
        converting when nothing offered fits. It works with the Wayland clipboard (data-control) and X11
        selections when a display answers, with a private file store otherwise (SSH sessions, containers,
        CI), and sends copies to the terminal's clipboard over SSH (OSC 52; stock xterm refuses OSC 52
        until its allowWindowOps resource is set, or disallowedWindowOps leaves out SetSelection).
        .PP
        .B pbcopy
        and
        .B pbpaste
        behave as on macOS;
        .BR xclip ", " xsel ", " wl\\-copy " and " wl\\-paste
        as those tools (see XCLIP XSEL WL\\-COPY AND WL\\-PASTE).
        .SH COMMANDS

        """
    for command in visible {
        page += ".SS \(roff(command.help.name))\n"
        page += roff(command.help.summary) + ".\n.PP\n"
        page += ".B \(roff(command.help.usage))\n"
        if !command.help.details.isEmpty {
            page += ".PP\n" + command.help.details.split(separator: "\n").map { roff(trimmedSpaces($0)) }.joined(separator: "\n") + "\n"
        }
        for option in command.options {
            page += ".TP\n" + optionSynopsis(option) + "\n" + roff(option.help) + "\n"
        }
        if !command.help.examples.isEmpty {
            page += ".PP\nExamples:\n.RS\n.nf\n"
            for example in command.help.examples { page += roff(example) + "\n" }
            page += ".fi\n.RE\n"
        }
    }
    page += ".SH GLOBAL OPTIONS\nEvery command accepts these.\n"
    for option in GlobalOptions.specs {
        page += ".TP\n" + optionSynopsis(option) + "\n" + roff(option.help) + "\n"
    }
    page += ".TP\n.B \\-\\-version\nprint the version and the commit it was built from\n"
    page += personalityManual()
    page += """
        .SH HISTORY
        .B pbctl daemon
        records every new clipboard content with all its types (the primary selection's too with
        .B \\-\\-primary
        or history.primary);
        .B pbctl copy
        records what it copies when no daemon can watch (the store, SSH). Content marked sensitive or
        transient is never recorded, nor what history.ignore\\-types and history.ignore\\-regex name, nor
        anything while recording is paused
        .RB ( "pbctl history pause" ).
        A copy identical to an entry moves that entry to the top. A representation larger than
        history.max\\-entry\\-size is not kept: the entry lists it as skipped, with its size, and an entry
        that keeps nothing has nothing to paste. A content whose owner went away before the daemon had all
        of it (on X11 and Wayland alike) keeps nothing and is listed as not kept, saying why. Bounds and history.max\\-age drop the oldest entries;
        pinned entries
        .RB ( "pbctl history pin" )
        stay, and
        .B pbctl history clear
        keeps them unless
        .BR \\-\\-all .
        The history is one SQLite database (WAL, every commit synced) with large representations as
        files stored once (the same bytes found again by size and compared); an entry's number is never given again; a history of an earlier
        pbctl is migrated on first use.
        .B pbctl history search
        finds text in every text representation, case\\-insensitively, through a trigram index;
        .B \\-\\-regex
        takes POSIX extended regular expressions, matched in linear time.
        .B pbctl history pick
        runs a launcher speaking dmenu's protocol (fzf in a terminal; fuzzel, wofi, rofi, bemenu on
        Wayland; rofi, dmenu, bemenu on X11; or
        .BR "\\-\\-menu CMD" ),
        with thumbnails where it shows icons.
        .B pbctl history export
        writes JSON Lines, one entry a line, oldest first:
        .BR time ,
        .BR source ,
        .BR pinned ,
        .B representations
        (type to base64);
        .B pbctl history import FILE
        reads them back (each bad line reported as line N, entries already there not added again), or
        cliphist's history with
        .BR "\\-\\-from cliphist" .
        .SH CONFIGURATION
        .I $XDG_CONFIG_HOME/pbctl/config
        (else
        .IR ~/.config/pbctl/config ):
        .I key
        =
        .I value
        lines,
        .B #
        comments; unknown keys and bad values are reported and ignored.

        """
    for key in Configuration.keys {
        page += ".TP\n.B \(roff(key.name))\n\(roff(key.meaning)) (default \(roff(key.defaultValue))).\n"
    }
    page += ".SH ENVIRONMENT\n"
    for variable in environmentVariables { page += ".TP\n.B \(roff(variable.name))\n\(roff(variable.meaning))\n" }
    page += ".SH FILES\n"
    for (path, meaning) in manualFiles { page += ".TP\n.I \(roff(path))\n\(roff(meaning))\n" }
    page += ".SH EXIT STATUS\n"
    for line in exitCodeHelp.split(separator: "\n").dropFirst() {
        let trimmed = trimmedSpaces(line)
        guard let space = trimmed.firstIndex(of: " "), Int(trimmed[..<space]) != nil else {
            page += roff(trimmed) + "\n"
            continue
        }
        page += ".TP\n.B \(trimmed[..<space])\n" + roff(trimmedSpaces(trimmed[space...])) + "\n"
    }
    page += """
        .SH SEE ALSO
        .BR xclip (1),
        .BR xsel (1),
        .BR wl\\-copy (1),
        .BR pandoc (1)

        """
    return page
}

/// The files the manual's FILES section names.
let manualFiles: [(String, String)] = [
    ("$XDG_RUNTIME_DIR/pbctl/NAME.pasteboard/", "a pasteboard of the private store: Info.json and one file per representation (directory 0700, files 0600); with no HOME or XDG variable the store is under /tmp/pbctl-UID."),
    ("$XDG_STATE_HOME/pbctl/history/", "the history (~/.local/state/pbctl/history, or $PBCTL_HISTORY): index.json and one package eID.pasteboard per entry, each with its Entry.json."),
    ("$XDG_STATE_HOME/pbctl/kdeconnect/", "the KDE Connect device (or $PBCTL_KDECONNECT_STATE): key.pem and certificate.pem (made once, 0600), devices.json (paired devices, their pinned certificates), sync.json, the daemon's lock and control socket."),
    ("$XDG_CONFIG_HOME/pbctl/config", "the configuration file (~/.config/pbctl/config): see CONFIGURATION."),
    ("$XDG_CONFIG_HOME/pbctl/types/*.plist, /usr/share/pbctl/types/*.plist", "type declarations shaped like UTExportedTypeDeclarations."),
    ("$XDG_RUNTIME_DIR/pbctl-daemon-UID-SOCKET.lock", "the lock that keeps one pbctl daemon per Wayland compositor (in $TMPDIR or /tmp without XDG_RUNTIME_DIR)."),
    ("/usr/lib/systemd/user/pbctl-daemon.service", "the clipboard manager as a systemd user service (systemctl --user enable --now pbctl-daemon.service)."),
    ("/etc/xdg/autostart/pbctl-daemon.desktop", "starts pbctl daemon --detach at log-in on desktops without systemd."),
    ("PREFIX/lib/pbctl/compat/, ~/.local/lib/pbctl/compat/", "xclip, xsel, wl-copy and wl-paste as links to pbctl (make install and the Debian package; pbctl compat install): put the folder first in PATH for what should use pbctl."),
]

func optionSynopsis(_ option: OptionSpec) -> String {
    var flags = option.short.map { "\\-\($0), " } ?? ""
    flags += "\\-\\-" + roff(option.long)
    if option.takesValue { return ".BI \"\(flags) \" \(roff(option.valueName))" }
    return ".B \"\(flags)\""
}

// MARK: Completions

/// The hidden helper the completion scripts call for values that depend on the machine.
func completionCandidates(_ kind: String, _ context: Context) -> [String] {
    switch kind {
    case "commands": return commands.filter { !$0.hidden }.map(\.help.name)
    case "formats": return formatNames
    case "backends": return backendNames
    case "pasteboards":
        var names = ["general", "primary", "find"]
        names += BackendChoice.storedPasteboardNames(environment: context.environment).map(\.rawValue).filter { !names.contains($0) }
        return names
    case "types":
        var values: [String] = []
        for declaration in context.registry.allDeclarations {
            values.append(declaration.identifier.rawValue)
            values += declaration.tags[.mimeType] ?? []
        }
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    default: return []
    }
}

func completionScript(_ shell: String) throws -> String {
    switch shell {
    case "bash": return bashCompletion()
    case "zsh": return zshCompletion()
    case "fish": return fishCompletion()
    default: throw UsageError(message: "completions for bash, zsh or fish", command: "completions")
    }
}

/// `copy)` cases: per command, its options, the options that take a value, and each value's kind.
private func valueKinds(_ command: Command) -> [(String, CompletionValues)] {
    allOptions(command).compactMap { option in
        let kind = option.values
        return option.takesValue ? (option.long, kind) : nil
    }
}

private func shellWords(_ kind: CompletionValues) -> String {
    switch kind {
    case .pasteboard: return "$(pbctl __complete pasteboards 2>/dev/null)"
    case .backend: return backendNames.joined(separator: " ")
    case .format: return formatNames.joined(separator: " ")
    case .type: return "$(pbctl __complete types 2>/dev/null)"
    case .words(let words): return words.joined(separator: " ")
    case .command: return commands.filter { !$0.hidden }.map(\.help.name).joined(separator: " ")
    default: return ""
    }
}

private func optionWords(_ command: Command) -> String {
    allOptions(command).flatMap { option in ["--" + option.long] + (option.short.map { ["-\($0)"] } ?? []) }.joined(separator: " ")
}

func bashCompletion() -> String {
    let visible = commands.filter { !$0.hidden }
    var script = """
        # bash completion for pbctl (generated by `pbctl completions bash`)
        _pbctl() {
            local cur prev cmd i
            cur=${COMP_WORDS[COMP_CWORD]}
            prev=${COMP_WORDS[COMP_CWORD-1]}
            cmd=
            for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac
            done
            if [[ -z $cmd ]]; then
                if [[ $cur == -* ]]; then
                    COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
                else
                    COMPREPLY=($(compgen -W "\(visible.map(\.help.name).joined(separator: " "))" -- "$cur"))
                fi
                return
            fi
            local options= values=
            case $cmd in

        """
    for command in visible {
        script += "        \(command.help.name))\n"
        script += "            options=\"\(optionWords(command))\"\n"
        script += "            case $prev in\n"
        for (long, kind) in valueKinds(command) {
            let option = allOptions(command).first { $0.long == long }!
            let patterns = (["--" + long] + (option.short.map { ["-\($0)"] } ?? [])).joined(separator: "|")
            switch kind {
            case .file: script += "            \(patterns)) compopt -o default; COMPREPLY=(); return ;;\n"
            case .directory: script += "            \(patterns)) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
            default: script += "            \(patterns)) COMPREPLY=($(compgen -W \"\(shellWords(kind))\" -- \"$cur\")); return ;;\n"
            }
        }
        script += "            esac\n"
        switch command.operands {
        case .none, .text, .file, .directory: break
        case let kind: script += "            values=\"\(shellWords(kind))\"\n"
        }
        script += "            ;;\n"
    }
    script += """
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "$options" -- "$cur"))
            elif [[ -n $values ]]; then
                COMPREPLY=($(compgen -W "$values" -- "$cur"))
            else
                compopt -o default
                COMPREPLY=()
            fi
        }
        complete -F _pbctl pbctl

        """
    return script
}

func zshCompletion() -> String {
    let visible = commands.filter { !$0.hidden }
    var script = """
        #compdef pbctl
        # zsh completion for pbctl (generated by `pbctl completions zsh`)
        _pbctl() {
            local cur=${words[CURRENT]} prev=${words[CURRENT-1]} cmd= i
            for ((i = 2; i < CURRENT; i++)); do
                [[ ${words[i]} == -* ]] || { cmd=${words[i]}; break }
            done
            if [[ -z $cmd ]]; then
                if [[ $cur == -* ]]; then compadd -- --help --version; else
                    compadd -- \(visible.map(\.help.name).joined(separator: " "))
                fi
                return
            fi
            local -a options values
            case $cmd in

        """
    for command in visible {
        script += "        \(command.help.name))\n"
        script += "            options=(\(optionWords(command)))\n"
        script += "            case $prev in\n"
        for (long, kind) in valueKinds(command) {
            let option = allOptions(command).first { $0.long == long }!
            let patterns = (["--" + long] + (option.short.map { ["-\($0)"] } ?? [])).joined(separator: "|")
            switch kind {
            case .file: script += "            (\(patterns)) _files; return ;;\n"
            case .directory: script += "            (\(patterns)) _files -/; return ;;\n"
            default: script += "            (\(patterns)) compadd -- \(shellWords(kind)); return ;;\n"
            }
        }
        script += "            esac\n"
        switch command.operands {
        case .none, .text, .file, .directory: break
        case let kind: script += "            values=(\(shellWords(kind)))\n"
        }
        script += "            ;;\n"
    }
    script += """
            esac
            if [[ $cur == -* ]]; then compadd -- $options
            elif (( ${#values} )); then compadd -- $values
            else _files
            fi
        }
        if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _pbctl "$@"; else compdef _pbctl pbctl; fi

        """
    return script
}

func fishCompletion() -> String {
    let visible = commands.filter { !$0.hidden }
    func quote(_ text: String) -> String { "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'" }
    let names = visible.map(\.help.name).joined(separator: " ")
    var script = """
        # fish completion for pbctl (generated by `pbctl completions fish`)
        complete -c pbctl -f
        complete -c pbctl -n 'not __fish_seen_subcommand_from \(names)' -l version -d 'print the version'

        """
    for command in visible {
        script += "complete -c pbctl -n 'not __fish_seen_subcommand_from \(names)' -a \(command.help.name) -d \(quote(command.help.summary))\n"
    }
    for command in visible {
        let condition = "-n '__fish_seen_subcommand_from \(command.help.name)'"
        for option in allOptions(command) {
            var line = "complete -c pbctl \(condition) -l \(option.long)"
            if let short = option.short { line += " -s \(short)" }
            switch option.values {
            case .none, .text: line += option.takesValue ? " -x" : ""
            case .file: line += " -r -F"
            case .directory: line += " -r -a '(__fish_complete_directories)'"
            case .pasteboard: line += " -x -a '(pbctl __complete pasteboards 2>/dev/null)'"
            case .type: line += " -x -a '(pbctl __complete types 2>/dev/null)'"
            case let kind: line += " -x -a \(quote(shellWords(kind)))"
            }
            script += line + " -d \(quote(option.help))\n"
        }
        switch command.operands {
        case .none, .text: break
        case .file, .directory: script += "complete -c pbctl \(condition) -F\n"
        case let kind: script += "complete -c pbctl \(condition) -a \(quote(shellWords(kind)))\n"
        }
    }
    return script
}

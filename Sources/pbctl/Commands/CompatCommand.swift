#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import Personalities
import SystemIO

/// `pbctl compat [status | install [DIR] | remove [DIR]]`'s arguments.
struct CompatArguments {
    static let tools = OptionSpec.value(
        "tools", nil, "LIST", .words(Personality.allCases.map(\.name)),
        "install or remove only these, comma-separated (default: xclip,xsel,wl-copy,wl-paste)")
    static let specs = [tools]

    enum Subcommand: String, CaseIterable { case status, install, remove }

    var subcommand: Subcommand
    /// The folder of links: the one given, else ``defaultFolder(_:)``.
    var folder: String
    var tools: [Personality]

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        var positionals = arguments.positionals
        if let first = positionals.first {
            guard let parsed = Subcommand(rawValue: first) else {
                throw UsageError(
                    message: "unknown compat command '\(first)' (" + Subcommand.allCases.map(\.rawValue).joined(separator: ", ") + ")",
                    command: "compat")
            }
            subcommand = parsed
            positionals.removeFirst()
        } else {
            subcommand = .status
        }
        guard positionals.count <= (subcommand == .status ? 0 : 1) else {
            throw UsageError(message: "compat \(subcommand.rawValue) takes \(subcommand == .status ? "no operand" : "at most one DIR")", command: "compat")
        }
        folder = positionals.first.map(POSIX.absolutePath) ?? Self.defaultFolder(context.environment)
        if let list = arguments.value(Self.tools) {
            tools = try list.split(separator: ",").map { name in
                guard let tool = Personality(invokedAs: String(name)) else {
                    throw UsageError(
                        message: "unknown tool '\(name)' (" + Personality.allCases.map(\.name).joined(separator: ", ") + ")", command: "compat")
                }
                return tool
            }
            guard !tools.isEmpty else { throw UsageError(message: "--tools needs at least one name", command: "compat") }
        } else {
            tools = Personality.allCases
        }
    }

    /// A user's folder of links: `~/.local/lib/pbctl/compat` (`make install` and the .deb put theirs in
    /// `PREFIX/lib/pbctl/compat`).
    static func defaultFolder(_ environment: [String: String]) -> String {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return home + "/.local/lib/pbctl/compat"
    }
}

let compatCommand = Command(
    help: CommandHelp(
        name: "compat", summary: "answer as xclip, xsel, wl-copy and wl-paste: links in a folder of pbctl's own for PATH",
        usage: "pbctl compat [status | install [DIR] | remove [DIR]] [--tools LIST]",
        details: """
            Run under the name xclip, xsel, wl-copy or wl-paste (a symbolic link), pbctl reads that tool's
            command line (xclip 0.13, xsel 1.2.0, wl-clipboard 2.1.0: every option, abbreviations such as
            -sel c, combined flags such as -bo) and answers as it does: the same output, exit status and
            messages, on pbctl's backend (Wayland, X11, the store with no display, this machine's
            clipboard over pbctl ssh, the terminal over SSH), with every representation pbctl makes
            (xclip -t TARGETS lists them; -t text/html of Markdown and --type image/jpeg of a PNG are
            made). `install` makes the links in DIR (default ~/.local/lib/pbctl/compat) and leaves
            the system's tools alone: put DIR first in PATH for whatever should use pbctl. It refuses
            to replace anything but its own links. `remove` takes only pbctl's links away. `status`
            says which program each name runs through PATH.
            """,
        examples: [
            "pbctl compat install                  # ~/.local/lib/pbctl/compat",
            "export PATH=~/.local/lib/pbctl/compat:$PATH   # in ~/.profile: every program",
            "PATH=~/.local/lib/pbctl/compat:$PATH nvim     # one editor",
            "pbctl compat install --tools xclip,xsel ~/bin/pbctl-x11",
            "pbctl compat                          # which xclip, xsel, wl-copy, wl-paste run",
        ]),
    options: CompatArguments.specs, operands: .directory,
    run: { context, arguments in try runCompat(CompatArguments(arguments, context), context) })

func runCompat(_ options: CompatArguments, _ context: Context) throws -> Int32 {
    guard let pbctl = LinkFolder.executablePath() else { throw CLIError(ExitCode.ioError, "cannot tell where the pbctl executable is") }
    let folder = options.folder
    switch options.subcommand {
    case .status:
        let searchPath = context.environment["PATH"] ?? ""
        var text = ""
        for tool in Personality.allCases {
            let found = LinkFolder.find(tool.name, in: searchPath)
            let runs = found.map { path in LinkFolder.realPath(path) == pbctl ? "\(path) (pbctl)" : path } ?? "not found"
            text += "\(tool.name): \(runs)\n"
        }
        text += "links: \(folder)\(isPbctlFolder(folder, pbctl) ? "" : " (not installed)")\n"
        try context.terminal.out(text)
        return ExitCode.ok
    case .install:
        // Everything checked before anything is made: a file in the way fails the whole install.
        let blocking = options.tools.filter { tool in
            switch LinkFolder.entry(folder + "/" + tool.name) {
            case .missing: return false
            case .link(let target): return !pointsAtPbctl(target, in: folder, pbctl)
            case .other: return true
            }
        }
        guard blocking.isEmpty else {
            throw CLIError(
                ExitCode.ioError,
                "\(folder): " + blocking.map(\.name).joined(separator: ", ")
                    + " already there and not pbctl's link; nothing was changed (remove it, or install into another folder)")
        }
        try LinkFolder.makeFolders(folder)
        for tool in options.tools { try LinkFolder.makeLink(folder + "/" + tool.name, to: pbctl) }
        try context.terminal.out(
            options.tools.map(\.name).joined(separator: ", ") + " in \(folder) now run pbctl; put the folder first in PATH:\n"
                + "  export PATH=\(folder):$PATH\n")
        return ExitCode.ok
    case .remove:
        var removed: [String] = []
        for tool in options.tools {
            let path = folder + "/" + tool.name
            if case .link(let target) = LinkFolder.entry(path), pointsAtPbctl(target, in: folder, pbctl) {
                try LinkFolder.removeLink(path)
                removed.append(tool.name)
            }
        }
        try context.terminal.out(removed.isEmpty ? "no pbctl link in \(folder)\n" : "removed \(removed.joined(separator: ", ")) from \(folder)\n")
        return ExitCode.ok
    }
}

/// Whether a link's target is a pbctl: this one, or any executable named pbctl (an older install).
private func pointsAtPbctl(_ target: String, in folder: String, _ pbctl: String) -> Bool {
    let absolute = target.hasPrefix("/") ? target : folder + "/" + target
    return LinkFolder.realPath(absolute) == pbctl || absolute.split(separator: "/").last == "pbctl"
}

private func isPbctlFolder(_ folder: String, _ pbctl: String) -> Bool {
    Personality.allCases.contains { tool in
        if case .link(let target) = LinkFolder.entry(folder + "/" + tool.name) { return pointsAtPbctl(target, in: folder, pbctl) }
        return false
    }
}

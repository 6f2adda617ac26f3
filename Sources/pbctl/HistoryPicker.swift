// `pbctl history pick`: the history in the user's launcher, spoken to by dmenu's protocol (one entry a
// line on its standard input, the chosen line on its standard output), the chosen entry made the
// clipboard again or pasted.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import History
import Documents
import Representations
import SystemIO

/// A launcher pbctl knows: how to run it in dmenu mode, and whether it shows icons given as rofi's
/// extension (`TEXT\0icon\x1fPATH`).
struct Launcher: Equatable {
    var name: String
    var arguments: [String]
    var icons: Bool

    static func known(_ name: String, pbctl: String) -> Launcher? {
        switch name {
        case "rofi": return Launcher(name: name, arguments: ["rofi", "-dmenu", "-i", "-p", "clipboard", "-show-icons"], icons: true)
        case "fuzzel": return Launcher(name: name, arguments: ["fuzzel", "--dmenu", "--prompt", "clipboard: "], icons: true)
        case "wofi": return Launcher(name: name, arguments: ["wofi", "--dmenu", "--insensitive", "--prompt", "clipboard"], icons: false)
        case "bemenu": return Launcher(name: name, arguments: ["bemenu", "-i", "-l", "20", "-p", "clipboard"], icons: false)
        case "dmenu": return Launcher(name: name, arguments: ["dmenu", "-i", "-l", "20", "-p", "clipboard"], icons: false)
        case "fzf":
            return Launcher(
                name: name,
                arguments: [
                    "fzf", "--delimiter", "\t", "--with-nth", "2..", "--no-sort", "--prompt", "clipboard> ",
                    "--preview", "'\(pbctl)' history show {1}", "--preview-window", "right,50%,wrap",
                ], icons: false)
        default: return nil
        }
    }

    /// The launcher for this session: fzf when both standard streams are a terminal; on Wayland fuzzel,
    /// wofi, rofi, bemenu; on X11 rofi, dmenu, bemenu; the first found on PATH.
    static func detect(_ context: Context, pbctl: String) -> Launcher? {
        var names: [String] = []
        if context.terminal.stdinIsTerminal, context.terminal.stdoutIsTerminal { names.append("fzf") }
        if !(context.environment["WAYLAND_DISPLAY"] ?? "").isEmpty { names += ["fuzzel", "wofi", "rofi", "bemenu"] }
        if !(context.environment["DISPLAY"] ?? "").isEmpty { names += ["rofi", "dmenu", "bemenu"] }
        guard let found = findExecutable(names, path: context.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin") else { return nil }
        return known(found.name, pbctl: pbctl)
    }
}

/// The line a launcher shows for an entry: `ID<TAB>type<TAB>preview` (the ID first, as `history copy`
/// reads a line), with rofi's icon extension when the launcher shows icons and the entry has a picture.
func pickerLine(_ entry: History.Entry, icon: String?, _ context: Context) -> String {
    let kind = entry.types.first { $0.derivedFrom == nil } ?? entry.types.first
    // The MIME type without its parameters (text/plain, not text/plain;charset=utf-8).
    let type = kind.map { (context.registry.preferredMIMEType(of: $0.type) ?? $0.type.rawValue).split(separator: ";").first.map(String.init) ?? "-" } ?? "-"
    var line = "\(entry.id)\t\(type.visibleControlCharacters)\t\(entry.preview.visibleControlCharacters)"
    if let icon, !ForeignContent.hasControlCharacter(icon) { line += "\0icon\u{1F}" + icon }
    return line + "\n"
}

func pickHistoryEntry(_ history: History, _ options: HistoryArguments, _ context: Context) throws -> Int32 {
    let pbctl = executablePath() ?? "pbctl"
    let launcher: Launcher
    var command: [String]
    if let menu = options.menu {
        let first = menu.split(separator: " ").first.map(String.init) ?? menu
        let name = first.split(separator: "/").last.map(String.init) ?? first
        launcher = Launcher.known(name, pbctl: pbctl) ?? Launcher(name: name, arguments: [], icons: false)
        command = ["/bin/sh", "-c", menu]
    } else {
        guard let found = Launcher.detect(context, pbctl: pbctl) else {
            throw PasteboardError(
                .unavailable,
                "no launcher found (fzf in a terminal; fuzzel, wofi, rofi, bemenu on Wayland; rofi, dmenu, bemenu on X11): "
                    + "install one, or name one with --menu")
        }
        launcher = found
        command = found.arguments
    }
    var query = try options.query(context, limit: options.limit ?? 1000)
    query.keepsContent = true
    var input: [UInt8] = []
    try history.forEachEntry(query) { entry in
        var icon: String?
        if launcher.icons, let image = entry.types.first(where: { ImageRepresentations.isImage($0.type) && $0.size != nil }) {
            icon = history.thumbnail(of: entry.id, type: image.type) { ImageRepresentations.thumbnail($0) }
        }
        input += Array(pickerLine(entry, icon: icon, context).utf8)
    }
    guard !input.isEmpty else { throw PasteboardError.empty("the history is empty") }
    let chosen = runTool(command, input: Data(input), environment: context.environment, keepStandardError: true)
    // A launcher closed without a choice (Escape) exits 1 (rofi, dmenu, fuzzel) or 130 (fzf).
    guard chosen.status == 0 else {
        if chosen.status == 127 { throw PasteboardError(.unavailable, "\(launcher.name): cannot be started") }
        return ExitCode.notFound
    }
    guard let line = String(decoding: chosen.output, as: UTF8.self).split(separator: "\n").first else { return ExitCode.notFound }
    let id = try parseHistoryID(String(line))
    if options.print {
        _ = try history.pasteableEntry(id)
        return try runPaste(options.paste, context, from: (history.backend, History.pasteboard(for: id)))
    }
    try copyHistoryEntry(id, history, options, context)
    return ExitCode.ok
}

// The quick way through `pbctl paste` with a display: a plain paste of an owner that offers plain
// UTF-8 text (X11: UTF8_STRING; Wayland: one of the text MIME types wl-copy offers), which is what the
// negotiation would pick anyway, done without building the type registry or the environment table (the
// bulk of pbctl's start-up) and with the fewest round trips.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard
import SystemIO
import PasteboardStore
import PasteboardWayland
import PasteboardX11

/// Runs `pbctl paste` (optionally `--primary`) when it can answer exactly as the full command would;
/// nil when it cannot decide that cheaply, and the full command runs instead.
///
/// The full command's default paste takes UTF-8 plain text first (`defaultPasteType`), and for it the
/// UTF8_STRING target first when the owner lists it (`TargetNegotiation.textTargetPreference`). So
/// when the owner serves UTF8_STRING the answer is that target, read and decoded the same way. Anything
/// else (no display or owner, a refusal of UTF8_STRING before any byte, declared types that could
/// remap targets, another backend, any other flag) goes the full way, which also words its errors.
func fastPaste(_ arguments: [String], invokedAs: String) -> Int32? {
    guard invokedAs != "pbpaste", invokedAs != "pbcopy", arguments.first == "paste" else { return nil }
    let selection: X11Selection
    switch arguments.dropFirst() {
    case []: selection = .clipboard
    case ["--primary"]: selection = .primary
    default: return nil
    }
    func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
    let backend = variable("PBCTL_BACKEND")?.lowercased() ?? "auto"
    guard backend == "x11" || backend == "auto" || backend == "wayland" || backend.isEmpty else { return nil }
    // Declared types may claim X11 targets and MIME types; only the built-in registry is known to map
    // UTF8_STRING and the text MIME types to UTF-8 plain text.
    for folder in DeclaredTypes.folders(variable: variable) where !DeclaredTypes.plistFiles(in: folder).isEmpty {
        return nil
    }
    // `auto` takes Wayland first: with WAYLAND_DISPLAY set, X11 is the full command's to choose.
    if backend == "wayland" || (backend != "x11" && !(variable("WAYLAND_DISPLAY") ?? "").isEmpty) {
        return fastWaylandPaste(primary: selection == .primary, variable: variable)
    }
    guard let display = variable("DISPLAY"), !display.isEmpty else { return nil }
    guard let connection = try? XConnection(display: display) else { return nil }
    let reader = X11SelectionReader(connection: connection, selection: selection)
    if let timeout = variable("PBCTL_X11_TIMEOUT").flatMap(Double.init), timeout > 0 { reader.stepTimeout = timeout }
    // UTF8_STRING is asked for at once, without GetSelectionOwner or TARGETS first: an owner that does
    // not list it refuses it (ICCCM §2.2), and so does the server when nobody owns the selection; both
    // end here before any byte, and the full command then negotiates (or words the error). So does a
    // reply of another type (an owner that answers every target alike). Two round trips fewer, one of
    // them through the owner.
    var delivered = false
    do {
        try reader.readDecoded(target: KnownAtom.utf8String.rawValue, sameType: true) { chunk in
            delivered = true
            try Terminal.writeStandardOutput(chunk)
        }
        return ExitCode.ok
    } catch let failure as ConversionFailure {
        if case .refused = failure, !delivered { return nil }
        return report(X11Backend.pasteboardError(failure))
    } catch let error as PasteboardError {
        if error.code == .empty, !delivered { return nil }
        return report(error)
    } catch {
        return delivered ? report(PasteboardError(.io, "\(error)")) : nil
    }
}

/// The Wayland fast paste: the selection's offer lists a plain-text MIME type wl-copy uses, and the full
/// paste would read the first of them in ``WaylandBackend/textMIMETypes`` order, as this does.
private func fastWaylandPaste(primary: Bool, variable: (String) -> String?) -> Int32? {
    var timeout = 5.0
    if let seconds = variable("PBCTL_WAYLAND_TIMEOUT").flatMap(Double.init), seconds > 0 { timeout = seconds }
    guard let connection = try? WaylandBackend.connect(
        display: variable("WAYLAND_DISPLAY"), runtimeDirectory: variable("XDG_RUNTIME_DIR"), stepTimeout: timeout)
    else { return nil }
    let client = connection.client
    guard !primary || client.supportsPrimary,
          let offer = primary ? client.primarySelection : client.selection,
          let mimes = client.offers[offer],
          let mime = WaylandBackend.textMIMETypes.first(where: mimes.contains)
    else { return nil }
    let sink = DescriptorSink(fd: STDOUT_FILENO, path: "standard output", brokenPipe: { exit(ExitCode.brokenPipe) })
    do {
        try connection.receive(offer: offer, mime: mime, into: sink, stepTimeout: timeout)
        return ExitCode.ok
    } catch let error as PasteboardError {
        return report(error)
    } catch {
        return report(PasteboardError(.io, "\(error)"))
    }
}

private func report(_ error: PasteboardError) -> Int32 {
    let line = Data("pbctl paste: \(error.message)\n".utf8)
    try? POSIX.writeAll(STDERR_FILENO, line, path: "standard error")
    return ExitCode.forError(error)
}

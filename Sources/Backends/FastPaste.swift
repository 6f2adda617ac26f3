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
import PasteboardStore
import Representations
import PasteboardWayland
import PasteboardX11
import SystemIO

/// What the fast paste did.
public enum FastPasteResult {
    /// The text went to standard output. The caller exits next: a display connection is left open for
    /// the exit to close.
    case pasted
    /// It failed after it had started (a byte was written, or the failure is final): report this.
    case failed(PasteboardError)
    /// It could not decide cheaply: the full paste runs (and words any error).
    case notHandled
}

extension BackendChoice {
    /// A plain `pbctl paste` (of `primary` or the clipboard) when it can answer exactly as the full
    /// command would, the environment read with `variable` (strings, not the environment table: a
    /// dictionary keyed by String costs a static binary a scan of every protocol conformance).
    ///
    /// The full command's default paste takes UTF-8 plain text first, and for it the UTF8_STRING target
    /// first when the owner lists it. So when the owner serves UTF8_STRING the answer is that target,
    /// read and decoded the same way. Anything else (no display or owner, a refusal of UTF8_STRING before
    /// any byte, declared types that could remap targets, another backend) goes the full way.
    public static func fastPaste(primary: Bool, variable: (String) -> String?, hasDeclaredTypes: () -> Bool) -> FastPasteResult {
        guard let backend = AutoOrder.requestedKind(variable: variable) else { return .notHandled }
        let order = AutoOrder(variable: variable)
        // `auto` with no pbctl ssh session and no display is the store (reads never come from the terminal).
        if backend == .store || (backend == .auto && order.isStoreOnly) {
            return fastStorePaste(primary: primary, variable: variable)
        }
        guard backend == .x11 || backend == .wayland || (backend == .auto && order.remote == nil) else {
            return .notHandled
        }
        // Declared types may claim X11 targets and MIME types; only the built-in registry is known to map
        // UTF8_STRING and the text MIME types to UTF-8 plain text.
        guard !hasDeclaredTypes() else { return .notHandled }
        // `auto` takes Wayland first: with WAYLAND_DISPLAY set, X11 is the full command's to choose.
        if backend == .wayland || (backend == .auto && order.wayland != nil) {
            return fastWaylandPaste(primary: primary, variable: variable)
        }
        guard let display = variable("DISPLAY"), !display.isEmpty else { return .notHandled }
        let selection: X11Selection = primary ? .primary : .clipboard
        guard let connection = try? XConnection(display: display, interning: X11SelectionReader.atomsForReading(selection))
        else { return .notHandled }
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
                try POSIX.writeAll(STDOUT_FILENO, chunk, path: "standard output", brokenPipe: { exit(ExitStatus.brokenPipe) })
            }
            connection.leaveOpenUntilExit()  // the caller exits next
            return .pasted
        } catch let failure as ConversionFailure {
            // Refused (a None property, or one named and never set): the full command words it.
            if failure == .refused || failure.isMissingProperty, !delivered { return .notHandled }
            return .failed(X11Backend.pasteboardError(failure))
        } catch let error as PasteboardError {
            if error.code == .empty, !delivered { return .notHandled }
            return .failed(error)
        } catch {
            return delivered ? .failed(PasteboardError(.io, "\(error)")) : .notHandled
        }
    }

    /// `pbctl paste --as FORMAT` for HTML or RTF when it can answer exactly as the full command would:
    /// from the store alone (no display, no `pbctl ssh` session), of a pasteboard holding one item that
    /// offers the format's type, stored or produced from a stored text format; nil otherwise. The full
    /// command takes an offered representation of these formats as it is (``TextFormat/pasteRequest``)
    /// and the store produces a derived one with ``Conversion/produceRepresentation(_:_:_:)``; so does
    /// this, Markdown to HTML streamed as `convert` streams it (the same bytes), without the type
    /// registry, the environment table or the command table.
    public static func fastPaste(as format: TextFormat, variable: (String) -> String?) -> FastPasteResult {
        guard format == .html || format == .rtf, let backend = AutoOrder.requestedKind(variable: variable) else { return .notHandled }
        guard backend == .store || (backend == .auto && AutoOrder(variable: variable).isStoreOnly),
            let store = try? FileStore(root: FileStore.defaultRoot(variable: variable))
        else { return .notHandled }
        let sink = DescriptorSink(fd: STDOUT_FILENO, path: "standard output", brokenPipe: { exit(ExitStatus.brokenPipe) })
        let target = format.type
        do {
            let pasted = try store.pasteRepresentation(
                target, from: .general, into: sink, converts: { TextFormat(type: $0) != nil }
            ) { source, data in
                if target == .html, TextFormat(type: source)?.isMarkdown == true {
                    try Conversion.convert(data, from: .gfm, to: .html) { chunk in
                        try POSIX.writeAll(STDOUT_FILENO, chunk, path: "standard output", brokenPipe: { exit(ExitStatus.brokenPipe) })
                    }
                } else {
                    try sink.write(try Conversion.produceRepresentation(source, data, target))
                }
            }
            guard pasted else { return .notHandled }
            try sink.finish()
            return .pasted
        } catch let error as PasteboardError {
            return .failed(error)
        } catch {
            return .failed(PasteboardError(.io, "\(error)"))
        }
    }

    /// The store's fast paste: every item's stored UTF-8 text (``FileStore/pasteUTF8Text(from:into:)``),
    /// with neither the type registry nor the environment table built.
    private static func fastStorePaste(primary: Bool, variable: (String) -> String?) -> FastPasteResult {
        guard let store = try? FileStore(root: FileStore.defaultRoot(variable: variable)) else { return .notHandled }
        let sink = DescriptorSink(fd: STDOUT_FILENO, path: "standard output", brokenPipe: { exit(ExitStatus.brokenPipe) })
        do {
            guard try store.pasteUTF8Text(from: primary ? .primary : .general, into: sink) else { return .notHandled }
            try sink.finish()
            return .pasted
        } catch let error as PasteboardError {
            return .failed(error)
        } catch {
            return .failed(PasteboardError(.io, "\(error)"))
        }
    }

    /// The Wayland fast paste: the selection's offer lists a plain-text MIME type wl-copy uses, and the
    /// full paste would read the first of them in ``WaylandBackend/textMIMETypes`` order, as this does.
    private static func fastWaylandPaste(primary: Bool, variable: (String) -> String?) -> FastPasteResult {
        var timeout = 5.0
        if let seconds = variable("PBCTL_WAYLAND_TIMEOUT").flatMap(Double.init), seconds > 0 { timeout = seconds }
        guard let connection = try? WaylandBackend.connect(
            display: variable("WAYLAND_DISPLAY"), runtimeDirectory: variable("XDG_RUNTIME_DIR"), stepTimeout: timeout)
        else { return .notHandled }
        let client = connection.client
        guard !primary || client.supportsPrimary,
            let offer = primary ? client.primarySelection : client.selection,
            let mimes = client.offers[offer],
            let mime = WaylandBackend.textMIMETypes.first(where: mimes.contains)
        else { return .notHandled }
        let sink = DescriptorSink(fd: STDOUT_FILENO, path: "standard output", brokenPipe: { exit(ExitStatus.brokenPipe) })
        do {
            try connection.receive(offer: offer, mime: mime, primary: primary, into: sink, stepTimeout: timeout)
            return .pasted
        } catch let error as PasteboardError {
            return .failed(error)
        } catch {
            return .failed(PasteboardError(.io, "\(error)"))
        }
    }
}

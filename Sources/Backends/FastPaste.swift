// The quick way through `pbctl paste`: which backend's quick read answers a plain paste (or the store's
// `paste --as html|rtf`), chosen by `AutoOrder` as the full command chooses. Each read is its backend's
// (`FileStore.pasteUTF8Text`, `X11Backend.quickPasteText`, `WaylandBackend.quickPasteText`); the output is
// the caller's sink. Done without building the type registry or the environment table (the bulk of
// pbctl's start-up) and with the fewest round trips.
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

extension BackendChoice {
    /// A plain `pbctl paste` (of `primary` or the clipboard) when it can answer exactly as the full
    /// command would, the environment read with `variable` (strings, not the environment table: a
    /// dictionary keyed by String costs a static binary a scan of every protocol conformance).
    ///
    /// The full command's default paste takes UTF-8 plain text first, and for it the UTF8_STRING target
    /// first when the owner lists it. So when the owner serves UTF8_STRING the answer is that target,
    /// read and decoded the same way. Anything else (no display or owner, a refusal of UTF8_STRING before
    /// any byte, declared types that could remap targets, another backend) goes the full way.
    public static func fastPaste(
        primary: Bool, variable: (String) -> String?, hasDeclaredTypes: () -> Bool, output: DescriptorSink
    ) -> QuickPasteResult {
        guard let backend = AutoOrder.requestedKind(variable: variable) else { return .notHandled }
        let order = AutoOrder(variable: variable)
        // `auto` with no pbctl ssh session and no display is the store (reads never come from the terminal).
        if backend == .store || (backend == .auto && order.isStoreOnly) {
            return fastStorePaste(primary: primary, variable: variable, output: output)
        }
        guard backend == .x11 || backend == .wayland || (backend == .auto && order.remote == nil) else {
            return .notHandled
        }
        // Declared types may claim X11 targets and MIME types; only the built-in registry is known to map
        // UTF8_STRING and the text MIME types to UTF-8 plain text.
        guard !hasDeclaredTypes() else { return .notHandled }
        // `auto` takes Wayland first: with WAYLAND_DISPLAY set, X11 is the full command's to choose.
        if backend == .wayland || (backend == .auto && order.wayland != nil) {
            var timeout = 5.0
            if let seconds = variable("PBCTL_WAYLAND_TIMEOUT").flatMap(Double.init), seconds > 0 { timeout = seconds }
            return WaylandBackend.quickPasteText(
                display: variable("WAYLAND_DISPLAY"), runtimeDirectory: variable("XDG_RUNTIME_DIR"), primary: primary,
                stepTimeout: timeout, into: output)
        }
        guard let display = variable("DISPLAY"), !display.isEmpty else { return .notHandled }
        return X11Backend.quickPasteText(
            display: display, selection: primary ? .primary : .clipboard,
            stepTimeout: variable("PBCTL_X11_TIMEOUT").flatMap(Double.init), into: output)
    }

    /// `pbctl paste --as FORMAT` for HTML or RTF when it can answer exactly as the full command would:
    /// from the store alone (no display, no `pbctl ssh` session), of a pasteboard holding one item that
    /// offers the format's type, stored or produced from a stored text format; nil otherwise. The full
    /// command takes an offered representation of these formats as it is (``TextFormat/pasteRequest``)
    /// and the store produces a derived one with ``Conversion/produceRepresentation(_:_:_:)``; so does
    /// this, Markdown to HTML streamed as `convert` streams it (the same bytes), without the type
    /// registry, the environment table or the command table.
    public static func fastPaste(as format: TextFormat, variable: (String) -> String?, output sink: DescriptorSink) -> QuickPasteResult {
        guard format == .html || format == .rtf, let backend = AutoOrder.requestedKind(variable: variable) else { return .notHandled }
        guard backend == .store || (backend == .auto && AutoOrder(variable: variable).isStoreOnly),
            let store = try? FileStore(root: FileStore.defaultRoot(variable: variable))
        else { return .notHandled }
        let target = format.type
        return .of {
            let pasted = try store.pasteRepresentation(
                target, from: .general, into: sink, converts: { TextFormat(type: $0) != nil }
            ) { source, data in
                if target == .html, TextFormat(type: source)?.isMarkdown == true {
                    try Conversion.convert(data, from: .gfm, to: .html) { try sink.write(bytes: $0) }
                } else {
                    try sink.write(try Conversion.produceRepresentation(source, data, target))
                }
            }
            guard pasted else { return false }
            try sink.finish()
            return true
        }
    }

    /// The store's fast paste: every item's stored UTF-8 text (``FileStore/pasteUTF8Text(from:into:)``),
    /// with neither the type registry nor the environment table built.
    private static func fastStorePaste(primary: Bool, variable: (String) -> String?, output: DescriptorSink) -> QuickPasteResult {
        guard let store = try? FileStore(root: FileStore.defaultRoot(variable: variable)) else { return .notHandled }
        return .of {
            guard try store.pasteUTF8Text(from: primary ? .primary : .general, into: output) else { return false }
            try output.finish()
            return true
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

extension WaylandBackend {
    /// The plain paste's quick read (``QuickPasteResult``): when the selection's offer lists a plain-text
    /// MIME type wl-copy uses, the first of them in ``textMIMETypes`` order (what the full paste reads),
    /// received straight into `sink`.
    public static func quickPasteText(
        display: String?, runtimeDirectory: String?, primary: Bool, stepTimeout: Double, into sink: any RepresentationSink
    ) -> QuickPasteResult {
        guard let connection = try? connect(display: display, runtimeDirectory: runtimeDirectory, stepTimeout: stepTimeout)
        else { return .notHandled }
        let client = connection.client
        guard !primary || client.supportsPrimary,
            let offer = primary ? client.primarySelection : client.selection,
            let mimes = client.offers[offer],
            let mime = textMIMETypes.first(where: mimes.contains)
        else { return .notHandled }
        return .of {
            try connection.receive(offer: offer, mime: mime, primary: primary, into: sink, stepTimeout: stepTimeout)
            return true
        }
    }
}

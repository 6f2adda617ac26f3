#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pasteboard

extension X11Backend {
    /// The plain paste's quick read (``QuickPasteResult``): the selection's UTF8_STRING, decoded as the full
    /// paste decodes it, written to `sink` as it arrives.
    ///
    /// UTF8_STRING is asked for at once, without GetSelectionOwner or TARGETS first: an owner that does not
    /// list it refuses it (ICCCM §2.2), and so does the server when nobody owns the selection; both end here
    /// before any byte, and the full paste then negotiates (or words the error). So does a reply of another
    /// type (an owner that answers every target alike). Two round trips fewer, one of them through the owner.
    public static func quickPasteText(
        display: String, selection: X11Selection, stepTimeout: Double?, into sink: any RepresentationSink
    ) -> QuickPasteResult {
        guard let connection = try? XConnection(display: display, interning: X11SelectionReader.atomsForReading(selection))
        else { return .notHandled }
        let reader = X11SelectionReader(connection: connection, selection: selection)
        if let stepTimeout, stepTimeout > 0 { reader.stepTimeout = stepTimeout }
        var delivered = false
        do {
            try reader.readDecoded(target: KnownAtom.utf8String.rawValue, sameType: true) { chunk in
                delivered = true
                try sink.write(chunk)
            }
            connection.leaveOpenUntilExit()  // the caller exits next
            return .pasted
        } catch let failure as ConversionFailure {
            // Refused (a None property, or one named and never set): the full paste words it.
            if failure == .refused || failure.isMissingProperty, !delivered { return .notHandled }
            return .failed(pasteboardError(failure))
        } catch let error as PasteboardError {
            if error.code == .empty, !delivered { return .notHandled }
            return .failed(error)
        } catch {
            return delivered ? .failed(PasteboardError(.io, "\(error)")) : .notHandled
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The current owner's offer under the display's own names: X11 targets (TARGETS, TIMESTAMP and the
/// others an owner lists beside its content) or Wayland MIME types (`TEXT`, `UTF8_STRING` among them), in
/// the owner's order, each read by its name as the owner sends it, without pbctl's decoding. What the
/// xclip, xsel and wl-paste personalities list (`-t TARGETS -o`, `--list-types`) and ask for, so that they
/// answer byte for byte as the tools do against any owner.
public protocol NativeOffer: PasteboardBackend {
    /// Whose names these are.
    var nativeVocabulary: NativeVocabulary { get }
    /// The names the owner of `pasteboard` offers, in its order; empty when nobody owns it.
    func offeredNames(in pasteboard: PasteboardName) throws -> [String]
    /// Asks the owner for `name` (listed or not: an X11 owner may answer a target it does not list) and
    /// streams its bytes into `sink`; returns the type the reply came as (X11: the property's type, such as
    /// `ATOM` or `INTEGER`; Wayland: the name itself).
    /// - Throws: ``PasteboardError`` `.empty` when nobody owns the selection, `.typeNotOffered` when the owner
    ///   refuses the name (Wayland: does not offer it).
    @discardableResult
    func read(name: String, from pasteboard: PasteboardName, into sink: any RepresentationSink) throws -> String?
}

/// The vocabulary of a display's names.
public enum NativeVocabulary: Sendable, Equatable {
    case x11Targets, mimeTypes
}

extension NativeOffer {
    public var nativeOffer: (any NativeOffer)? { self }
}

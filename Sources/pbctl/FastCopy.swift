// The quick way through `pbctl copy FILE`: a small UTF-8 text file copied to the store, decided and
// done before the type registry, the environment table and the command table are built (the bulk of
// a small copy's time). It runs only where the full copy would do exactly the same, and hands over
// (returns nil) in any other case, having changed nothing.
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
import Backends
import Documents
import Pasteboard
import Representations
import SystemIO

/// Runs `pbctl copy FILE` when FILE is a regular file of at most 64 KiB, without an extension (its
/// content then decides the type) or named `.txt`, holding non-empty UTF-8 text that is neither an
/// image nor a document the sniffer recognises, and the copy goes to the store alone with the default
/// size limit; nil otherwise (the full command runs).
func fastCopy(argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32? {
    guard argc == 3, let zero = argv[0], let first = argv[1], let second = argv[2], strcmp(first, "copy") == 0,
        second.pointee != 0, second.pointee != 0x2D  // "-" (standard input) and options take the full way
    else { return nil }
    let name = strrchr(zero, 0x2F).map { $0 + 1 } ?? zero
    guard strcmp(name, "pbpaste") != 0, strcmp(name, "pbcopy") != 0, answersAsPbctlItself(name) else { return nil }
    func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
    guard BackendChoice.copiesToTheStoreAlone(variable: variable), variable("PBCTL_MAX_SIZE") == nil else { return nil }
    let source = PathBytes.string(UnsafeBufferPointer(start: UnsafeRawPointer(second).assumingMemoryBound(to: UInt8.self), count: strlen(second)))
    // The type the full copy gives: the content's without an extension; plain text for `.txt`, unless
    // declared types (which may claim the extension) exist — UTF-8 text, as what is copied here is UTF-8
    // (CopyAssembly: valid UTF-8 is UTF-8 text whichever way it came).
    let type: TypeIdentifier = .utf8PlainText
    let sniffs: Bool
    switch source.pathExtension?.lowercased() {
    case nil: sniffs = true
    case "txt"?:
        guard !DeclaredTypes.anyDeclarationFile(variable: variable) else { return nil }
        sniffs = false
    default: return nil
    }
    guard let data = try? POSIX.readRegularFile(source, limit: 64 << 10), !data.isEmpty,
        ImageRepresentations.sniff(data) == nil
    else { return nil }
    var validator = UTF8StreamValidator()
    data.withUnsafeBytes { validator.feed($0) }
    guard validator.finish() == nil else { return nil }  // the full copy words what is wrong
    if sniffs, TypeSniffer.sniff(head: data.prefix(4096), isValidUTF8: true) != .utf8PlainText { return nil }
    var metadata = ItemMetadata(sourceApplication: "pbctl", sourcePath: POSIX.absolutePath(source))
    metadata.extra.merge(documentSourceMetadata(source, report: { _ in })) { $1 }
    let item = Producers.item(
        original: data, type: type, metadata: metadata, plainText: .source, convert: Conversion.produceRepresentation)
    guard item.representations.count == 1 else { return nil }
    let configuration = Configuration.load(path: Configuration.path(variable: variable)) { message in
        try? POSIX.writeAll(STDERR_FILENO, Data((message + "\n").utf8), path: "standard error")
    }
    do {
        if let problem = try BackendChoice.fastStoreCopy(
            item, historyLimits: configuration.history, historyRules: configuration.historyRules(.standard), variable: variable) {
            try? POSIX.writeAll(STDERR_FILENO, Data("pbctl: warning: copied, but not recorded in the history: \((problem as? PasteboardError)?.message ?? "\(problem)")\n".utf8), path: "standard error")
        }
        return ExitCode.ok
    } catch let error as PasteboardError {
        try? POSIX.writeAll(STDERR_FILENO, Data("pbctl copy: \(error.message)\n".utf8), path: "standard error")
        return ExitCode.forError(error)
    } catch {
        try? POSIX.writeAll(STDERR_FILENO, Data("pbctl copy: \(error)\n".utf8), path: "standard error")
        return ExitCode.ioError
    }
}

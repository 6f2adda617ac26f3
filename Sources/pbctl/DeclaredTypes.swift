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

/// Finds type declarations on disk and adds them to the built-in registry.
///
/// Folders, first wins: `$XDG_CONFIG_HOME/pbctl/types` (default `~/.config/pbctl/types`), then
/// `/usr/share/pbctl/types` (or the folders in `$PBCTL_TYPES_PATH`, `:`-separated, when set). Every
/// `*.plist` in them, in name order. A bad file or declaration is reported and skipped; it never
/// stops pbctl.
enum DeclaredTypes {
    static let systemFolder = "/usr/share/pbctl/types"

    static func folders(environment: [String: String]) -> [String] {
        folders { environment[$0] }
    }

    /// ``folders(environment:)`` with the variables read through `variable` (the quick paste reads them
    /// with getenv and builds no table).
    static func folders(variable: (String) -> String?) -> [String] {
        var result: [String] = []
        forEachFolder(variable: variable) { result.append($0); return false }
        return result
    }

    /// Whether any folder holds a declaration file: what the quick paste asks, without building the
    /// list of folders or of files (a static binary looks up each new array type at run time, the first
    /// time, and the quick paste would pay a tenth of its time for them).
    static func anyDeclarationFile(variable: (String) -> String?) -> Bool {
        forEachFolder(variable: variable) { folder in
            FileTree.containsEntry(path: folder) { name in
                // What plistFiles(in:) lists: `*.plist`, not hidden.
                let suffix: StaticString = ".plist"
                guard name.count > suffix.utf8CodeUnitCount, name[0] != 0x2E else { return false }
                return memcmp(name.baseAddress! + name.count - suffix.utf8CodeUnitCount, suffix.utf8Start, suffix.utf8CodeUnitCount) == 0
            }
        }
    }

    /// Calls `body` with each folder in order until it returns true; returns whether one did.
    @discardableResult
    private static func forEachFolder(variable: (String) -> String?, _ body: (String) -> Bool) -> Bool {
        if var explicit = variable("PBCTL_TYPES_PATH") {
            // Split by hand, on the bytes: no array of substrings, no character boundaries.
            return explicit.withUTF8 { bytes in
                var from = 0
                while true {
                    var to = from
                    while to < bytes.count, bytes[to] != 0x3A { to += 1 }
                    if to > from, bytes[from] == 0x2F,
                        body(String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<to]), as: UTF8.self))
                    {
                        return true
                    }
                    guard to < bytes.count else { return false }
                    from = to + 1
                }
            }
        }
        if let config = variable("XDG_CONFIG_HOME"), config.hasPrefix("/") {
            if body(config + "/pbctl/types") { return true }
        } else if let home = variable("HOME"), home.hasPrefix("/") {
            if body(home + "/.config/pbctl/types") { return true }
        }
        return body(systemFolder)
    }

    /// The built-in registry plus every declaration found, and what was skipped.
    static func load(environment: [String: String]) -> (TypeRegistry, [TypeDeclarationProblem]) {
        var registry = TypeRegistry.standard
        var problems: [TypeDeclarationProblem] = []
        var results: [TypeDeclarationParser.Result] = []
        for folder in folders(environment: environment) {
            for path in plistFiles(in: folder) {
                do {
                    let data = try readDeclarationFile(path)
                    let result = TypeDeclarationParser.parse(data, origin: path)
                    problems += result.problems
                    results.append(result)
                } catch let error as PasteboardError {
                    problems.append(TypeDeclarationProblem(origin: path, key: "", message: error.message + "; skipped"))
                } catch {
                    problems.append(TypeDeclarationProblem(origin: path, key: "", message: "\(error); skipped"))
                }
            }
        }
        problems += registry.declare(results)
        return (registry, problems)
    }

    /// `*.plist` regular files in `folder`, sorted; none when the folder does not exist.
    static func plistFiles(in folder: String) -> [String] {
        FileTree.entries(path: folder).filter { $0.hasSuffix(".plist") && !$0.hasPrefix(".") }.map { folder + "/" + $0 }
    }

    static func readDeclarationFile(_ path: String) throws -> Data {
        try POSIX.readRegularFile(path, limit: TypeDeclarationParser.maximumFileSize)
    }

    /// Loads the registry for `terminal`'s environment and reports problems on standard error, one
    /// line each (`pbctl: warning: FILE: KEY: message`).
    static func registry(reportingTo terminal: Terminal) -> TypeRegistry {
        let (registry, problems) = load(environment: terminal.environment)
        for problem in problems { terminal.err("pbctl: warning: \(problem)") }
        return registry
    }
}

// MARK: types --registry

/// One row of `pbctl types --registry`.
struct RegistryListing: Codable {
    var identifier: String
    var conformsTo: [String]
    var description: String
    var extensions: [String]
    var mimeTypes: [String]
    var x11Targets: [String]
    var declaredIn: String
}

/// The registry as `pbctl types --registry [--json]` prints it.
func registryListing(_ context: Context, json: Bool) throws -> String {
    let rows = context.registry.allDeclarations.map { declaration in
        RegistryListing(
            identifier: declaration.identifier.rawValue, conformsTo: declaration.conformsTo.map(\.rawValue),
            description: declaration.description, extensions: declaration.tags[.filenameExtension] ?? [],
            mimeTypes: declaration.tags[.mimeType] ?? [], x11Targets: declaration.tags[.x11Target] ?? [],
            declaredIn: declaration.origin)
    }
    if json { return try jsonString(rows) }
    let width = rows.map(\.identifier.count).max() ?? 0
    let conformsWidth = min(40, rows.map { $0.conformsTo.joined(separator: ",").count }.max() ?? 0)
    let extensionsWidth = min(24, rows.map { $0.extensions.joined(separator: ",").count }.max() ?? 0)
    let mimeWidth = min(40, rows.map { $0.mimeTypes.joined(separator: ",").count }.max() ?? 0)
    func column(_ values: [String], _ width: Int) -> String {
        let text = values.isEmpty ? "-" : values.joined(separator: ",")
        return text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count + 1)
    }
    var text = column(["IDENTIFIER"], width) + column(["CONFORMS TO"], conformsWidth)
        + column(["EXTENSIONS"], extensionsWidth) + column(["MIME TYPES"], mimeWidth) + "DECLARED IN\n"
    for row in rows {
        text += column([row.identifier], width) + column(row.conformsTo, conformsWidth)
            + column(row.extensions, extensionsWidth) + column(row.mimeTypes, mimeWidth) + row.declaredIn + "\n"
    }
    return text
}

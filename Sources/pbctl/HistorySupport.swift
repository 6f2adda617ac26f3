// The clipboard history at the CLI's edges: opening it with the configured limits, what `copy` and the
// daemon record, and the one-line preview `pbctl history` lists.
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
import SystemIO
import Synchronization

/// pbctl's configuration file, `$XDG_CONFIG_HOME/pbctl/config` (else `~/.config/pbctl/config`):
/// `key = value` lines, `#` comments. The keys are ``keys``, the one table the parser, the manual and the
/// help are made from. Unknown keys and bad values are reported on standard error (once per process)
/// and ignored.
struct Configuration {
    var history = History.Limits()
    var recordPrimary = false
    /// `pbctl daemon` joins KDE Connect (as --kdeconnect).
    var kdeConnect = false
    /// The device name KDE Connect shows (else the host name).
    var kdeConnectName: String?
    var kdeConnectDiscovery = true

    struct Key: Sendable {
        let name: String
        let defaultValue: String
        let meaning: String
        /// Applies a value; returns what is wrong with it, or nil.
        let apply: @Sendable (inout Configuration, String) -> String?
    }

    static let keys: [Key] = [
        Key(name: "history.max-entries", defaultValue: "1000", meaning: "entries kept; the oldest go first") { configuration, value in
            guard let n = Int(value), n > 0, n <= 1_000_000 else { return "takes a number from 1 to 1000000" }
            configuration.history.maxEntries = n
            return nil
        },
        Key(name: "history.max-bytes", defaultValue: "512M", meaning: "bytes kept, all entries together") { configuration, value in
            guard let n = try? parseSize(value, option: "history.max-bytes") else { return "takes a size such as 512M" }
            configuration.history.maxBytes = n
            return nil
        },
        Key(
            name: "history.max-entry-size", defaultValue: "64M",
            meaning: "largest representation recorded; a larger one is listed as skipped, with its size"
        ) { configuration, value in
            guard let n = try? parseSize(value, option: "history.max-entry-size") else { return "takes a size such as 64M" }
            configuration.history.maxRepresentationSize = n
            return nil
        },
        Key(name: "history.primary", defaultValue: "no", meaning: "pbctl daemon records the primary selection even without --primary") {
            configuration, value in
            guard let flag = ["yes": true, "true": true, "1": true, "no": false, "false": false, "0": false][value.lowercased()] else {
                return "takes yes or no"
            }
            configuration.recordPrimary = flag
            return nil
        },
        Key(name: "kdeconnect", defaultValue: "no", meaning: "pbctl daemon is a KDE Connect device and syncs the clipboard (as --kdeconnect)") {
            configuration, value in
            guard let flag = parseYesNo(value) else { return "takes yes or no" }
            configuration.kdeConnect = flag
            return nil
        },
        Key(name: "kdeconnect.name", defaultValue: "(the host name)", meaning: "the device name other KDE Connect devices show (as --name)") {
            configuration, value in
            guard !value.isEmpty, value.count <= 32 else { return "takes a name of 1 to 32 characters" }
            configuration.kdeConnectName = value
            return nil
        },
        Key(name: "kdeconnect.discovery", defaultValue: "yes", meaning: "announce by UDP broadcast and answer others' (no: only devices add)") {
            configuration, value in
            guard let flag = parseYesNo(value) else { return "takes yes or no" }
            configuration.kdeConnectDiscovery = flag
            return nil
        },
    ]

    static func parseYesNo(_ value: String) -> Bool? {
        ["yes": true, "true": true, "1": true, "on": true, "no": false, "false": false, "0": false, "off": false][value.lowercased()]
    }

    static func path(_ environment: [String: String]) -> String {
        path { environment[$0] }
    }

    static func path(variable: (String) -> String?) -> String {
        if let config = variable("XDG_CONFIG_HOME"), config.hasPrefix("/") { return config + "/pbctl/config" }
        return (variable("HOME") ?? "") + "/.config/pbctl/config"
    }

    /// Read once per process (its warnings printed once), whoever asks first.
    private static let loaded = Mutex<Configuration?>(nil)

    static func load(_ context: Context) -> Configuration {
        load(path: path(context.environment)) { context.terminal.err($0) }
    }

    /// ``load(_:)`` before a context exists (the fast copy): the file at `path`, warnings to `warn`.
    static func load(path: String, warn: (String) -> Void) -> Configuration {
        loaded.withLock { cached in
            if let cached { return cached }
            let configuration = parse(path: path, warn: warn)
            cached = configuration
            return configuration
        }
    }

    private static func parse(path: String, warn report: (String) -> Void) -> Configuration {
        var configuration = Configuration()
        guard let data = try? POSIX.readFile(path, limit: 1 << 20) else { return configuration }
        for (number, raw) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard line.contains(where: { !$0.isWhitespace }) else { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
            func warn(_ message: String) { report("pbctl: \(path):\(number + 1): \(message); ignored") }
            guard parts.count == 2 else { warn("not a key = value line"); continue }
            guard let key = keys.first(where: { $0.name == parts[0] }) else {
                warn("unknown key \(parts[0]) (known: " + keys.map(\.name).joined(separator: ", ") + ")")
                continue
            }
            if let problem = key.apply(&configuration, parts[1]) { warn("\(key.name) \(problem)") }
        }
        return configuration
    }
}

extension Context {
    /// The history, with the configured bounds and the converters that produce derived types.
    func openHistory(_ limits: History.Limits? = nil) throws -> History {
        let registry = self.registry
        return try History(
            root: History.defaultRoot(environment: environment), limits: limits ?? Configuration.load(self).history,
            producer: Conversion.produceRepresentation, describe: { historyPreview($0, registry) })
    }

    /// Records what was copied to `backend` (`copy` through a backend nobody watches: the store, the
    /// terminal; ``History/recordCopy(_:to:preview:application:)``), and says why not on standard error
    /// with `verbose`. Never fails the copy.
    func recordInHistory(_ item: Item, copiedTo backend: any PasteboardBackend, verbose: Bool) {
        do {
            let history = try openHistory()
            let outcome = try history.recordCopy(
                item, to: backend, preview: historyPreview(item, registry), application: item.metadata.sourceApplication)
            if verbose, case .notRecorded(let why) = outcome { terminal.err("pbctl: not recorded in the history: \(why)") }
        } catch {
            terminal.err("pbctl: warning: copied, but not recorded in the history: \((error as? PasteboardError)?.message ?? "\(error)")")
        }
    }
}


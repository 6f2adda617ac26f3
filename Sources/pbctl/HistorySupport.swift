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
import CopyPaste
import Pasteboard
import PasteboardStore
import HistoryText
import Representations
import SystemIO
import Synchronization

/// pbctl's configuration file, `$XDG_CONFIG_HOME/pbctl/config` (else `~/.config/pbctl/config`):
/// `key = value` lines, `#` comments. The keys are ``keys``, the one table the parser, the manual and the
/// help are made from. Unknown keys and bad values are reported on standard error (once per process)
/// and ignored.
struct Configuration: Sendable {
    var history = History.Limits()
    /// `history.ignore-types`: patterns (a type, or a MIME family such as `image/*`) of content never recorded.
    var historyIgnoreTypes: [String] = []
    /// `history.ignore-regex`: text never recorded.
    var historyIgnoreRegex: [LineRegex] = []
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
        Key(
            name: "history.max-age", defaultValue: "none",
            meaning: "entries older than this are dropped (pinned ones stay): a duration such as 90d, 12w, 1y; none keeps them"
        ) { configuration, value in
            guard let seconds = parseAge(value) else { return "takes a duration such as 30d, 12w or 1y, or none" }
            configuration.history.maxAge = seconds
            return nil
        },
        Key(
            name: "history.ignore-types", defaultValue: "(none)",
            meaning: "content offering one of these types is never recorded: types, MIME types or families (image/*), comma-separated"
        ) { configuration, value in
            let patterns = value.split(separator: ",").map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
                .filter { !$0.isEmpty }
            guard !patterns.isEmpty, patterns.allSatisfy({ !ForeignContent.hasControlCharacter($0) && $0.utf8.count <= 255 }) else {
                return "takes types such as image/png, application/x-secret or image/*"
            }
            for pattern in patterns where !pattern.hasSuffix("/*") && (try? resolveType(pattern, .standard)) == nil {
                return "names an unknown type '\(pattern)'"
            }
            configuration.historyIgnoreTypes += patterns
            return nil
        },
        Key(
            name: "history.ignore-regex", defaultValue: "(none)",
            meaning: "text matching this regular expression (POSIX extended, per line) is never recorded; one pattern a line, repeat the key for more"
        ) { configuration, value in
            do {
                configuration.historyIgnoreRegex.append(try LineRegex(value))
            } catch {
                return "takes a regular expression: \(error)"
            }
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

    /// `history.max-age`: a number of seconds, or with a unit (m, h, d, w, y), up to a century; 0 or
    /// `none` for no limit (nil inside).
    static func parseAge(_ value: String) -> Double?? {
        let text = value.lowercased()
        if text == "none" || text == "off" || text == "0" { return .some(nil) }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400]
        var number = Substring(text)
        var scale = 1.0
        if let last = number.last, let unit = units[last] {
            scale = unit
            number = number.dropLast()
        }
        guard let amount = Double(number), amount.isFinite, amount > 0, amount * scale <= 100 * 365 * 86400 else { return nil }
        return .some(amount * scale)
    }

    /// Why `item` is not to be recorded by the configuration's rules, or nil.
    func ignoreReason(_ item: Item, _ registry: TypeRegistry) -> String? {
        for representation in item.representations {
            let mime = registry.preferredMIMEType(of: representation.type) ?? representation.type.rawValue
            for pattern in historyIgnoreTypes {
                if pattern.hasSuffix("/*") {
                    if mime.lowercased().hasPrefix(pattern.dropLast().lowercased()) { return "history.ignore-types names \(pattern)" }
                } else if let type = try? resolveType(pattern, registry), registry.conforms(representation.type, to: type) {
                    return "history.ignore-types names \(pattern)"
                }
            }
        }
        guard !historyIgnoreRegex.isEmpty, let text = historySearchText(item, registry) else { return nil }
        for pattern in historyIgnoreRegex where pattern.matches(text) {
            return "history.ignore-regex matches it"
        }
        return nil
    }

    /// The history's rules from this configuration (none when it sets none: nothing to look at). The
    /// registry is built only when there are rules: the quick copy passes `.standard`, whose building
    /// is most of a small copy's time.
    func historyRules(_ registry: @autoclosure () -> TypeRegistry) -> History.Rules {
        guard !historyIgnoreTypes.isEmpty || !historyIgnoreRegex.isEmpty else { return History.Rules() }
        let configuration = self, registry = registry()
        return History.Rules(ignore: { item in configuration.ignoreReason(item, registry) })
    }

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

    /// The file at `path` read now, whatever was read before (the daemon, when it changes).
    static func reread(path: String, warn: (String) -> Void) -> Configuration { parse(path: path, warn: warn) }

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
        let configuration = Configuration.load(self)
        return try History(
            root: History.defaultRoot(environment: environment), limits: limits ?? configuration.history,
            rules: configuration.historyRules(registry), producer: Conversion.produceRepresentation,
            describe: { historyPreview($0, registry) }, searchable: { historySearchText($0, registry) })
    }

    /// The commit step of a copy (``CopyCommit``): written, then recorded in this history where no
    /// daemon records it; `verbose` says why an item was left out. `history`: the one already opened.
    func copyCommit(verbose: Bool, history opened: History? = nil) -> CopyCommit {
        let commit = CopyCommit(registry: registry) { try opened ?? openHistory() }
        let terminal = terminal
        if verbose { commit.note = { terminal.err("pbctl: " + $0) } }
        return commit
    }

    /// Says on standard error, once each, why a copy that went through was not recorded.
    func reportNotRecorded(_ problems: [CopyCommit.Problem]) {
        for problem in problems { terminal.err("pbctl: warning: " + problem.message) }
    }
}

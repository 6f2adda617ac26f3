#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ClipboardManager
import Pasteboard

/// `pbctl devices [SUBCOMMAND]`'s arguments.
struct DevicesArguments {
    static let json = OptionSpec.flag("json", nil, "list: JSON for scripts (id, name, type, state, reachable, fingerprint, address)")
    static let specs = [json]

    enum Subcommand: String, CaseIterable { case list, pair, accept, reject, unpair, add }

    var subcommand: Subcommand
    var operand: String?
    var json: Bool

    init(_ arguments: ParsedArguments, _ context: Context) throws {
        var positionals = arguments.positionals
        if let first = positionals.first {
            guard let parsed = Subcommand(rawValue: first) else {
                throw UsageError(
                    message: "unknown devices command '\(first)' (" + Subcommand.allCases.map(\.rawValue).joined(separator: ", ") + ")",
                    command: "devices")
            }
            subcommand = parsed
            positionals.removeFirst()
        } else {
            subcommand = .list
        }
        json = arguments.has(Self.json)
        switch subcommand {
        case .list:
            guard positionals.isEmpty else { throw UsageError(message: "devices list takes no operand", command: "devices") }
        case .add:
            guard positionals.count == 1 else { throw UsageError(message: "devices add takes one ADDRESS (host or host:port)", command: "devices") }
        default:
            guard positionals.count == 1 else { throw UsageError(message: "devices \(subcommand.rawValue) takes one device ID", command: "devices") }
        }
        operand = positionals.first
    }
}

let devicesCommand = Command(
    help: CommandHelp(
        name: "devices", summary: "KDE Connect devices: list them, pair, accept, reject, unpair, add one by address",
        usage: "pbctl devices [list [--json] | pair ID | accept ID | reject ID | unpair ID | add ADDRESS]",
        details: """
            The devices `pbctl daemon --kdeconnect` knows: phones with KDE Connect, desktops with KDE
            Connect or GSConnect, other pbctl daemons. One line each: the device id, its name, its state
            (paired, requested, requested-by-peer or unpaired; reachable or not) and the SHA-256
            fingerprint of its certificate. `pair` asks a device to pair (it has 30 s to accept), `accept`
            and `reject` answer a device that asked, `unpair` forgets a device (its pinned certificate
            with it). `add` links to a device where broadcasts do not reach (another subnet, a VPN, a
            daemon with --no-discovery): host or host:port. The daemon announces itself there by UDP (a
            KDE Connect device connects back); if nothing does within 2 s it connects to the TCP port
            (the one given, else 1716). `add` returns once the link is up, printing the device (then
            `pair` it), and the daemon tries the address again on every start; when nothing links
            within 15 s it fails with the reason (exit 69) and keeps nothing. A paired
            device's certificate is pinned: a device with its id and another certificate is refused.
            Without a running daemon, the list shows the paired devices on record.
            The device's key, certificate and records live in $XDG_STATE_HOME/pbctl/kdeconnect.
            """,
        examples: ["pbctl devices", "pbctl devices pair 0123456789abcdef0123456789abcdef", "pbctl devices add 192.168.1.20"]),
    options: DevicesArguments.specs, operands: .words(DevicesArguments.Subcommand.allCases.map(\.rawValue)),
    run: { context, arguments in try runDevices(DevicesArguments(arguments, context), context) })

func runDevices(_ options: DevicesArguments, _ context: Context) throws -> Int32 {
    let environment = context.environment
    switch options.subcommand {
    case .list:
        let devices: [JSONValue]
        do {
            let answer = try KDEConnectPeer.request(environment: environment, command: "list")
            devices = answer["devices"]?.array ?? []
        } catch let error as PasteboardError where error.code == .unavailable {
            context.terminal.err("pbctl devices: no daemon runs (pbctl daemon --kdeconnect); the paired devices on record:")
            devices = try KDEConnectPeer.recordedDevices(environment: environment)
        }
        if options.json {
            var text = JSONValue.array(devices).encoded()
            text.append(0x0A)
            try context.terminal.out(Data(text))
            return ExitCode.ok
        }
        var text = ""
        for device in devices {
            let state = (device["state"]?.string ?? "unpaired") + ((device["reachable"]?.bool ?? false) ? ", reachable" : ", unreachable")
            text += [device["id"]?.string ?? "?", device["name"]?.string ?? "?", state, device["fingerprint"]?.string ?? ""].joined(separator: "\t")
            if let note = device["note"]?.string, note.hasPrefix("refused") { text += "\t" + note }
            text += "\n"
        }
        try context.terminal.out(text)
        return ExitCode.ok
    case .add:
        let answer = try KDEConnectPeer.request(environment: environment, command: "add", address: options.operand, timeout: KDEConnectPeer.addTimeout)
        return try report(answer, context)
    case .pair, .accept, .reject, .unpair:
        let id = options.operand ?? ""
        let answer: JSONValue
        do {
            answer = try KDEConnectPeer.request(environment: environment, command: options.subcommand.rawValue, device: id)
        } catch let error as PasteboardError where error.code == .unavailable && options.subcommand == .unpair {
            // No daemon: forget the record (it takes effect at the next start).
            guard try KDEConnectPeer.forget(environment: environment, device: id) else { throw CLIError(ExitCode.notFound, "pbctl devices: no paired device \(id)") }
            try context.terminal.out("unpaired \(id) (no daemon runs: the device is told at its next connection)\n")
            return ExitCode.ok
        }
        return try report(answer, context)
    }
}

/// Prints a daemon's answer: its message on success (exit 0), its error otherwise (exit 64 for an
/// address that is not one, 69 for one where nothing linked, 1 for anything else refused).
private func report(_ answer: JSONValue, _ context: Context) throws -> Int32 {
    if answer["ok"]?.bool == true {
        if let message = answer["message"]?.string, !message.isEmpty { try context.terminal.out(message + "\n") }
        return ExitCode.ok
    }
    context.terminal.err("pbctl devices: " + (answer["error"]?.string ?? "refused"))
    switch answer["failure"]?.string {
    case "usage": return ExitCode.usage
    case "unreachable": return ExitCode.unavailable
    default: return ExitCode.notFound
    }
}

/// `pbctl info`'s line about KDE Connect: the running daemon's device and what it synced, or nil when
/// no daemon with KDE Connect runs.
func kdeConnectStatus(_ context: Context) -> (line: String, json: [String: String])? {
    guard KDEConnectPeer.hasState(environment: context.environment),
        let answer = try? KDEConnectPeer.request(environment: context.environment, command: "status", timeout: 1),
        let me = answer["self"]
    else { return nil }
    let devices = answer["devices"]?.array ?? []
    let paired = devices.filter { $0["state"]?.string == "paired" }
    let reachable = paired.filter { $0["reachable"]?.bool == true }
    let names = reachable.compactMap { $0["name"]?.string }
    var line = "\(me["name"]?.string ?? "?") (\(me["id"]?.string ?? "?")), TCP port \(me["tcpPort"]?.integer ?? 0); "
    line += "\(paired.count) paired, \(reachable.count) reachable" + (names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")")
    line += "; sent \(me["sent"]?.integer ?? 0), received \(me["received"]?.integer ?? 0), sensitive not sent \(me["skipped"]?.integer ?? 0)"
    if let last = me["last"]?.string { line += "; last: \(last)" }
    let json = [
        "device": me["id"]?.string ?? "", "name": me["name"]?.string ?? "", "paired": "\(paired.count)", "reachable": "\(reachable.count)",
        "sent": "\(me["sent"]?.integer ?? 0)", "received": "\(me["received"]?.integer ?? 0)",
    ]
    return (line, json)
}

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
import Dispatch
import Pasteboard
import SystemIO

/// `pbctl ssh [ssh options…] DESTINATION [COMMAND…]`: the system `ssh`, with the user's options and
/// configuration, forwarding a per-session Unix socket (`-R REMOTE:LOCAL`) to a ``RemoteServer`` this
/// process runs while the session lasts, and starting the remote session (or COMMAND) with
/// `PBCTL_REMOTE` naming the socket. Exit status, streams, terminal size, agent forwarding and ssh's own
/// options are ssh's.
public struct SSHSession {
    /// ssh's options that take a value (ssh(1)): everything else is a flag.
    static let optionsWithValue = Set("BbcDEeFIiJLlmOoPpQRSWw")

    /// ssh's arguments split as ssh reads them: its options, the destination, the remote command.
    public struct Arguments: Equatable, Sendable {
        public var options: [String]
        public var destination: String
        public var command: [String]

        /// The host the destination names (`me@host`, `ssh://me@host:2222`, `[::1]`): what the remote
        /// host's content is marked with here.
        public var host: String {
            var text = Substring(destination)
            if text.hasPrefix("ssh://") {
                text = text.dropFirst("ssh://".count)
                if let slash = text.firstIndex(of: "/") { text = text[..<slash] }
            }
            if let at = text.lastIndex(of: "@") { text = text[text.index(after: at)...] }
            if text.hasPrefix("["), let close = text.firstIndex(of: "]") { return String(text[...close]) }
            if destination.hasPrefix("ssh://"), let colon = text.lastIndex(of: ":") { text = text[..<colon] }
            return String(text)
        }
    }

    /// Splits `arguments` (what follows `pbctl ssh` and its own options).
    /// - Throws: ``PasteboardError`` `.invalidData` when no destination is given or an option lacks its value.
    public static func split(_ arguments: [String]) throws -> Arguments {
        var options: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                index += 1
                break
            }
            guard argument.hasPrefix("-"), argument.count > 1 else { break }
            options.append(argument)
            index += 1
            // -p2222 carries its value; -p 2222 takes the next argument.
            for (offset, flag) in argument.dropFirst().enumerated() where optionsWithValue.contains(flag) {
                if offset == argument.count - 2 {
                    guard index < arguments.endIndex else { throw PasteboardError(.invalidData, "ssh's option -\(flag) needs a value") }
                    options.append(arguments[index])
                    index += 1
                }
                break
            }
        }
        guard index < arguments.endIndex else { throw PasteboardError(.invalidData, "no destination (pbctl ssh [ssh options] DESTINATION [COMMAND])") }
        return Arguments(options: options, destination: arguments[index], command: Array(arguments[(index + 1)...]))
    }

    /// The script the remote login shell runs: `PBCTL_REMOTE` set, a note when pbctl is missing there,
    /// the user's shell (a login shell) or their command through it, the socket removed at the end.
    static let remoteScript = """
        PBCTL_REMOTE=$1; export PBCTL_REMOTE; shift; \
        command -v pbctl >/dev/null 2>&1 || printf '%s\\n' "pbctl ssh: pbctl is not installed on $(uname -n): install it there (make install, or the .deb) to reach this session's local clipboard; the session goes on without it" >&2; \
        if [ "$#" -eq 0 ]; then "${SHELL:-/bin/sh}" -l; else "${SHELL:-/bin/sh}" -c "$1"; fi; \
        s=$?; rm -f "$PBCTL_REMOTE"; exit $s
        """

    /// `text` quoted for a POSIX shell (and fish and tcsh): single quotes, a single quote as `'\''`.
    static func quoted(_ text: String) -> String { "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'" }

    /// The ssh command line: the forward, the user's options, `-t` for an interactive session on a
    /// terminal (as ssh gives one when no command is given), the destination and the wrapped session.
    public static func command(_ arguments: Arguments, localSocket: String, remoteSocket: String, interactive: Bool) -> [String] {
        var command = ["ssh", "-R", "\(remoteSocket):\(localSocket)"] + arguments.options
        let userChoseTerminal = arguments.options.contains { $0.hasPrefix("-") && !$0.hasPrefix("--") && ($0.contains("t") || $0.contains("T")) && $0.count <= 3 }
        if arguments.command.isEmpty, interactive, !userChoseTerminal { command.append("-t") }
        var remote = "exec /bin/sh -c " + quoted(remoteScript) + " pbctl-ssh " + quoted(remoteSocket)
        if !arguments.command.isEmpty { remote += " " + quoted(arguments.command.joined(separator: " ")) }
        command += ["--", arguments.destination, remote]
        return command
    }

    /// A private folder for the local socket: `0700` under `$XDG_RUNTIME_DIR`, else `$TMPDIR`, else /tmp.
    static func privateFolder(environment: [String: String]) throws -> String {
        let base = [environment["XDG_RUNTIME_DIR"], environment["TMPDIR"], "/tmp"].compactMap { $0 }.first { !$0.isEmpty && $0.hasPrefix("/") } ?? "/tmp"
        var template = Array((base + "/pbctl-ssh-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIX.ioError("mkdtemp", base) }
        return String(cString: made)
    }

    /// A name nobody can guess or reuse: 64 random bits.
    static func randomName() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }

    /// Runs the session: serves this machine's clipboard on a fresh socket until ssh ends; returns
    /// ssh's exit status. `serve` makes the server for the socket path.
    public static func run(
        _ arguments: Arguments, environment: [String: String], interactive: Bool,
        serve: (_ socketPath: String) throws -> RemoteServer
    ) throws -> Int32 {
        let folder = try privateFolder(environment: environment)
        let localSocket = folder + "/socket"
        defer {
            unlink(localSocket)
            rmdir(folder)
        }
        guard !localSocket.contains(":") else {
            throw PasteboardError(.invalidData, "\(localSocket): a socket path with a colon cannot be forwarded by ssh")
        }
        let server = try serve(localSocket)
        DispatchQueue.global().async { server.run() }
        defer { server.stop() }
        let remoteSocket = "/tmp/pbctl-ssh-\(randomName()).sock"
        let pid = try ForegroundChild.start(
            command(arguments, localSocket: localSocket, remoteSocket: remoteSocket, interactive: interactive), environment: environment)
        return ForegroundChild.wait(pid)
    }
}

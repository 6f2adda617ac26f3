#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Pasteboard
import SystemIO

/// `pbctl paste --files --into DIR`: the files of a file list copied (moved, after a cut) into a folder,
/// as a file manager's paste does, all or nothing.
///
/// Everything is checked before anything is copied or moved (``plan(_:into:)``): every source exists;
/// no destination exists; no two sources share a name; no folder goes into itself or a folder inside
/// it (`cp -r d d/sub` refuses too); the destination's file system has room for what is copied. Then
/// ``execute(report:)`` copies or renames each file; a failure at any point (a full disk, a permission,
/// a file removed meanwhile) undoes what this paste did (copies removed, renames taken back), so what
/// is reported is what happened: either every file arrived, or none did and the sources are as they were.
public struct FilePaste: Sendable {
    public struct Step: Sendable, Equatable {
        public var source: String
        public var destination: String
        public var move: Bool
    }

    public let steps: [Step]
    public let folder: String

    /// Checks a paste of `sources` (paths, each with whether it was cut) into `folder`.
    /// - Throws: ``PasteboardError`` `.noInput` (exit 66) naming every missing source; `.refused`
    ///   naming every destination that exists, or a folder pasted into itself; `.io` when the folder is
    ///   not one or has no room. Nothing has been touched when it throws.
    public static func plan(_ sources: [(path: String, cut: Bool)], into folder: String) throws -> FilePaste {
        var st = stat()
        guard PathCalls.stat(folder, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
            throw PasteboardError(.io, "\(folder.shownPath): not a folder; nothing was copied")
        }
        let missing = sources.filter { PathCalls.lstat($0.path, &st) != 0 }.map(\.path)
        guard missing.isEmpty else {
            throw PasteboardError(.noInput, "no such file: " + missing.map(\.shownPath).joined(separator: ", ") + "; nothing was copied or moved")
        }
        var steps: [Step] = []
        var existing: [String] = []
        var names = Set<String>()
        var clashes: [String] = []
        for source in sources {
            let name = Self.lastComponent(source.path)
            let destination = (folder.hasSuffix("/") ? folder : folder + "/") + name
            if PathCalls.lstat(destination, &st) == 0 { existing.append(destination) }
            if !names.insert(name).inserted { clashes.append(name) }
            steps.append(Step(source: source.path, destination: destination, move: source.cut))
        }
        guard existing.isEmpty else {
            throw PasteboardError(.refused, "already there (nothing was copied): " + existing.map(\.shownPath).joined(separator: ", "))
        }
        guard clashes.isEmpty else {
            throw PasteboardError(
                .refused, "two files would both be named " + clashes.map(\.shownPath).joined(separator: ", ") + " in \(folder.shownPath); nothing was copied")
        }
        // A folder into itself: the destination folder is the source or lies inside it.
        let ancestors = try Self.ancestors(of: folder)
        for step in steps where PathCalls.lstat(step.source, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR {
            if ancestors.contains(FileID(st)) {
                throw PasteboardError(
                    .refused, "cannot put the folder \(step.source.shownPath) into itself (\(folder.shownPath)); nothing was copied")
            }
        }
        let plan = FilePaste(steps: steps, folder: folder)
        try plan.checkSpace()
        return plan
    }

    /// A file's identity on the system: its device and inode.
    struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    /// `folder` and every folder above it, up to `/`, as identities (links resolved as the kernel resolves
    /// them when the paste writes there).
    static func ancestors(of folder: String) throws -> Set<FileID> {
        var found = Set<FileID>()
        var fd = PathCalls.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIX.ioError("open", folder.shownPath) }
        for _ in 0..<4096 {
            var st = stat()
            guard fstat(fd, &st) == 0, found.insert(FileID(st)).inserted else { break }
            let parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(fd)
            guard parent >= 0 else { return found }
            fd = parent
        }
        close(fd)
        return found
    }

    /// What is copied (not renamed) must fit in the destination's free space.
    func checkSpace() throws {
        var needed = 0
        var st = stat()
        guard PathCalls.stat(folder, &st) == 0 else { throw POSIX.ioError("stat", folder.shownPath) }
        let folderDevice = st.st_dev
        for step in steps {
            // A move on the same file system is a rename: it takes no room.
            if step.move, PathCalls.lstat(step.source, &st) == 0, st.st_dev == folderDevice { continue }
            needed += try FileTree.size(step.source).bytes
        }
        guard needed > 0 else { return }
        var fs = statvfs()
        guard folder.withPathCString({ statvfs($0, &fs) }) == 0 else { return }
        let free = Int(fs.f_bavail) &* Int(fs.f_frsize)
        if needed > free {
            throw PasteboardError(
                .io, "\(folder.shownPath): not enough space (\(humanBytes(needed)) needed, \(humanBytes(free)) free); nothing was copied")
        }
    }

    /// Copies and moves every file; on any failure, undoes all of it and throws, saying nothing was
    /// copied or moved. `report` hears of each step once it is done.
    public func execute(report: (Step) -> Void = { _ in }) throws {
        enum Done {
            case copied(String)
            case renamed(from: String, to: String)
        }
        var done: [Done] = []
        // Sources moved across file systems: copied first, removed once every step has succeeded.
        var removeAfter: [String] = []
        do {
            for step in steps {
                if step.move, FileTree.renameNoReplace(step.source, step.destination) {
                    done.append(.renamed(from: step.source, to: step.destination))
                } else if step.move, errno != EXDEV {
                    throw POSIX.ioError("rename", step.source.shownPath)
                } else {
                    try FileTree.copyTree(step.source, to: step.destination)
                    done.append(.copied(step.destination))
                    if step.move { removeAfter.append(step.source) }
                }
                report(step)
            }
        } catch {
            for undo in done.reversed() {
                switch undo {
                case .copied(let path): FileTree.remove(path)
                case .renamed(let from, let to): _ = FileTree.renameNoReplace(to, from)
                }
            }
            let message = (error as? PasteboardError)?.message ?? "\(error)"
            let verb = steps.contains(where: \.move) ? "nothing was copied or moved" : "nothing was copied"
            throw PasteboardError((error as? PasteboardError)?.code ?? .io, message.hasSuffix(verb) ? message : "\(message); \(verb)")
        }
        for source in removeAfter { FileTree.remove(source) }
    }

    static func lastComponent(_ path: String) -> String {
        let trimmed = path.reversed().drop(while: { $0 == "/" })
        let name = String(trimmed.prefix(while: { $0 != "/" }).reversed())
        return name.isEmpty ? path : name
    }
}

func humanBytes(_ bytes: Int) -> String {
    if bytes < 1 << 20 { return "\((bytes + 1023) / 1024) KiB" }
    if bytes < 1 << 30 { return "\((bytes + (1 << 20) - 1) >> 20) MiB" }
    return "\((bytes + (1 << 30) - 1) >> 30) GiB"
}

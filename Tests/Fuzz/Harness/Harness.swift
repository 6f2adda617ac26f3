#if canImport(Glibc)
import Glibc
#endif
import FuzzTargets

/// The target this process fuzzes: `PBCTL_FUZZ_TARGET` (see `FuzzTarget`), read once.
nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    guard let name = getenv("PBCTL_FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")
        let message = "pbctl-fuzz: set PBCTL_FUZZ_TARGET to one of: \(names)\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(64)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    selected?.run(input)
    return 0
}

/// libFuzzer's driver (in the runtime `-sanitize=fuzzer` links). SwiftPM points the executable's `main`
/// at `pbctl_fuzz_main`, so libFuzzer's own `main` is not used and this one starts the driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

@_cdecl("pbctl_fuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    var unused = argv
    _ = initialize(&count, &unused)
    return runDriver(&count, &arguments) { data, size in fuzz(data, size) }
}

import Foundation
import XCTest

/// LibreOffice, headless, as the consumer that checks pbctl's RTF and HTML: converts `file` with
/// `--convert-to format` into `directory` under a throwaway profile (`inputFilter`: LibreOffice's
/// `--infilter`, e.g. `HTML (StarWriter)` to read HTML as Writer pastes it, not as Writer/Web). Skips the test where LibreOffice
/// is not installed or does not finish in 180 s.
func libreOfficeConvert(_ file: String, to format: String, in directory: String, inputFilter: String? = nil) throws {
    let soffice = ["/usr/bin/soffice", "/usr/bin/libreoffice"].first { FileManager.default.isExecutableFile(atPath: $0) }
    try XCTSkipIf(soffice == nil, "LibreOffice not installed")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: soffice!)
    process.arguments = [
        "-env:UserInstallation=file://\(directory)/lo-profile", "--headless",
    ] + (inputFilter.map { ["--infilter=" + $0] } ?? []) + ["--convert-to", format, "--outdir", directory, file]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(180)
    while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
    if process.isRunning {
        process.terminate()
        throw XCTSkip("LibreOffice did not finish in 180 s")
    }
}

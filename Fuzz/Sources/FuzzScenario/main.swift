import Glibc
import WardenScenario

/// One scenario text in: a scenario, or a refusal with diagnostics that name the problems.
///
/// The file is named in a folder that does not exist, so a relative `policy` path in the
/// input is looked up nowhere.
///
/// A crash, a hang (libFuzzer's `-timeout`) or a refusal without a message is a finding.
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        _ = try ScenarioLoader.parse(text: text, file: "/nonexistent-appwarden-fuzz/fuzz.toml")
    } catch {
        precondition(!error.diagnostics.isEmpty, "a refused scenario carries no diagnostic")
        for diagnostic in error.diagnostics {
            precondition(!diagnostic.message.isEmpty, "a scenario diagnostic has no message")
        }
    }
    return 0
}

/// libFuzzer's driver (`-sanitize=fuzzer` links it). SwiftPM links an executable target's own
/// `main`, so this one hands its inputs to the driver rather than defining only the callback.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv) { fuzzOne($0, $1) })

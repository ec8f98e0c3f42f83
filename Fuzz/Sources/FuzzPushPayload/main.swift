import Glibc
import WardenCore

/// One push payload in: a payload, or a refusal whose message names the problem.
///
/// A crash, a hang (libFuzzer's `-timeout`) or a refusal without a message is a finding.
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        _ = try PushPayload(parsing: text)
    } catch {
        precondition(!error.message.isEmpty, "a refused push payload carries no message")
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

import Foundation
import Testing
import WardenTesting

/// The `appwarden` executable run as a client, as operators and scripts run it.
enum AppwardenCommandLine {
    /// The executable with `arguments`, not yet started, in this process's environment without
    /// `APPWARDEN_SOCKET` and `APPWARDEN_APP` and with `environment` added.
    static func process(_ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(TestHost.appwardenPath))
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged["APPWARDEN_SOCKET"] = nil
        merged["APPWARDEN_APP"] = nil
        merged.merge(environment) { $1 }
        process.environment = merged
        return process
    }

    /// Runs the executable with `arguments` and `environment` added; returns the exit code and
    /// outputs. Both outputs are read while it runs, so that one larger than a pipe holds (64 KiB)
    /// does not stall it.
    static func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) async throws
        -> (code: Int32, output: String, error: String)
    {
        let process = try process(arguments, environment: environment)
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let standardInput = Pipe()
        if input != nil { process.standardInput = standardInput }
        let (exits, exited) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(1))
        process.terminationHandler = {
            exited.yield($0.terminationStatus)
            exited.finish()
        }
        try process.run()
        async let outputData = readToEnd(output.fileHandleForReading)
        async let errorData = readToEnd(error.fileHandleForReading)
        if let input {
            standardInput.fileHandleForWriting.write(Data(input.utf8))
            try standardInput.fileHandleForWriting.close()
        }
        var code: Int32 = -1
        for await status in exits { code = status }
        return (
            code, String(decoding: await outputData, as: UTF8.self), String(decoding: await errorData, as: UTF8.self)
        )
    }

    /// Everything `handle` gives until its end, read on a thread of its own (the read blocks).
    private static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: handle.readDataToEndOfFile()) }
        }
    }
}

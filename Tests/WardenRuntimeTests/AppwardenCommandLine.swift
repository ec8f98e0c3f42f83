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

    /// Runs the executable with `arguments` and `environment` added; returns the exit code and outputs.
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
        let code: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
                if let input {
                    standardInput.fileHandleForWriting.write(Data(input.utf8))
                    try standardInput.fileHandleForWriting.close()
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
        return (
            code, String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }
}

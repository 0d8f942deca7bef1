import CFuzzDriver
import Foundation

/// Runs libFuzzer's driver over `target` with the process's arguments (libFuzzer's flags, or the
/// input files to replay), then exits with the driver's status. Each fuzz target's `main.swift`
/// calls it.
public func runFuzzer(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var arguments = CommandLine.argc
    var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&arguments, &values, target))
}

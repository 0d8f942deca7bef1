import CFuzzDriver
import Foundation

// libFuzzer's driver runs the target over generated inputs (or the files named on the command line).
var arguments = CommandLine.argc
var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &values) { data, size in fuzzCaptureReader(data, size) })

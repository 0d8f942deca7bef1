import Foundation
import WireRuntime
import WireSpec
import WireValidator

/// The Clawline spec, loaded once.
let spec: ProtocolSpec = {
    let path = ProcessInfo.processInfo.environment["CLAWLINE_SPEC"] ?? "../Spec/clawline.yaml"
    do { return try SpecLoader.check(contentsOf: path).get() } catch { fatalError("cannot load the spec at \(path): \(error)") }
}()

/// A validation of the Clawline spec before any frame, copied for each input (building one is
/// much slower than checking a capture). Only the fuzzer's one thread reads it.
nonisolated(unsafe) let fresh = CaptureValidation(spec: spec)

/// Any bytes as a capture (JSONL or HAR): reading and validating it never crashes, and every
/// line is either a frame or a located problem.
func fuzzCaptureReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    // The reader reads a file descriptor: hand it the input through a pipe (inputs are far
    // smaller than a pipe's buffer, so writing them all first cannot block).
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { fatalError("cannot make a pipe") }
    let written = write(ends[1], data, size)
    close(ends[1])
    guard written == size else { fatalError("cannot write \(size) bytes to a pipe") }
    let handle = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
    var validation = fresh
    var reader = CaptureReader(file: "fuzz.jsonl", tagField: spec.tagField, direction: nil) { [validation] tag in
        validation.direction(ofTag: tag)
    }
    // Small reads, so that lines span them.
    reader.chunkSize = 7
    do {
        try reader.read(handle, frame: { _ = validation.process($0) }, problem: { _ = validation.process($0) })
    } catch {
        return 0
    }
    _ = validation.finish()
    return 0
}

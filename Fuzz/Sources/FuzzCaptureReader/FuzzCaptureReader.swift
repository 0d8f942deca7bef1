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

/// Any bytes as a capture (JSONL or HAR): reading and validating it from memory never crashes,
/// and every line is either a frame or a located problem. One input in sixteen is also read from
/// a file descriptor in 7-byte reads (lines span reads), and both readings must agree.
func fuzzCaptureReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var validation = fresh
    let reader = CaptureReader(file: "fuzz.jsonl", tagField: spec.tagField, direction: nil) { [validator = validation.validator] tag in
        validator.direction(ofTag: tag)
    }
    var items: [String] = []
    reader.read(
        bytes: bytes,
        frame: {
            items.append("frame \($0.line ?? 0)")
            _ = validation.process($0)
        },
        problem: {
            items.append("problem \($0.line ?? 0)")
            _ = validation.process($0)
        })
    _ = validation.finish()
    if size > 0, bytes[0] % 16 == 0, let chunked = readInSmallChunks(data, size, reader), chunked != items {
        fatalError("reading from memory and from a file in 7-byte reads disagree")
    }
    return 0
}

/// What reading the input through a pipe, 7 bytes at a time, finds (nil when the pipe fails).
private func readInSmallChunks(_ data: UnsafePointer<UInt8>, _ size: Int, _ base: CaptureReader) -> [String]? {
    // Inputs are far smaller than a pipe's buffer, so writing them all first cannot block.
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { fatalError("cannot make a pipe") }
    let written = write(ends[1], data, size)
    close(ends[1])
    guard written == size else { fatalError("cannot write \(size) bytes to a pipe") }
    let handle = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
    var reader = base
    reader.chunkSize = 7
    var items: [String] = []
    do {
        try reader.read(handle, frame: { items.append("frame \($0.line ?? 0)") }, problem: { items.append("problem \($0.line ?? 0)") })
    } catch {
        return nil
    }
    return items
}

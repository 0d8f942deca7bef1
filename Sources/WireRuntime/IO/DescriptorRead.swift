import Foundation

/// Reads up to `count` bytes from an open file into `buffer`, reading again when a signal
/// interrupts the call. Returns how many bytes came (0 at the end of the file, and on a
/// failure) and the failure's `errno` (0 when there was none). The spec loader and the capture
/// reader read their files with it.
package func readRetryingInterrupts(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> (count: Int, failure: Int32) {
    while true {
        let received = read(descriptor, buffer, count)
        if received >= 0 { return (received, 0) }
        if errno != EINTR { return (0, errno) }
    }
}

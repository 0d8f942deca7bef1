import Foundation
@_spi(Generated) import WireRuntime

extension CaptureValidation {
    /// Validates one capture on two threads: a second thread reads the capture and parses each
    /// line, while the calling thread applies the session rules, keeps the summary and gets every
    /// finding through `finding`, in input order. Each frame's own checks run on whichever thread
    /// has time: on the reading thread while the calling thread has batches waiting, otherwise on
    /// the calling thread. The findings and the summary are the same as reading with
    /// ``CaptureReader`` and calling ``process(_:)-(CapturedFrame)`` for each frame.
    ///
    /// Frames travel between the threads in batches, and at most ``PipelineLimits/batchesInFlight``
    /// batches of at most ``PipelineLimits/framesPerBatch`` frames or ``PipelineLimits/bytesPerBatch``
    /// bytes wait at a time, so memory stays bounded whatever the capture's size. The reading
    /// thread is a plain thread, not a task: it blocks while the calling thread catches up, which a
    /// task of the cooperative pool must not do.
    ///
    /// - Throws: ``CaptureReadFailure`` when the file cannot be read; the frames read before the
    ///   failure have been processed.
    /// - Returns: The format of the capture.
    @discardableResult
    public mutating func validate(_ handle: FileHandle, reader: CaptureReader, finding: (LocatedFinding) -> Void) throws -> CaptureFormat {
        try validate(handle, reader: reader, checks: .balanced, finding: finding)
    }

    /// Where frames' own checks run in ``validate(_:reader:finding:)``.
    enum CheckPlacement {
        /// On the reading thread while the calling thread has batches waiting.
        case balanced
        /// Always on the reading thread (for tests of both hand-overs).
        case readingThread
        /// Always on the calling thread.
        case callingThread
    }

    @discardableResult
    mutating func validate(
        _ handle: FileHandle, reader: CaptureReader, checks placement: CheckPlacement, finding: (LocatedFinding) -> Void
    ) throws -> CaptureFormat {
        let handoff = Handoff<PipelineBatch>(capacity: PipelineLimits.batchesInFlight)
        let recycler = TapeRecycler()
        let reader = {
            var reader = reader
            reader.recycler = recycler
            return reader
        }()
        let validator = validator
        let worker = Thread {
            var batch = PipelineBatch()
            // Whether this thread also runs the frames' own checks for the batch it is filling: it
            // does while the calling thread has batches waiting, so the two share the work.
            var checksHere = placement == .readingThread
            func add(_ item: PipelineBatch.Item, bytes: Int) {
                batch.items.append(item)
                batch.bytes += bytes
                if batch.items.count >= PipelineLimits.framesPerBatch || batch.bytes >= PipelineLimits.bytesPerBatch {
                    handoff.send(batch)
                    batch = PipelineBatch()
                    if placement == .balanced { checksHere = handoff.pending >= 2 }
                }
            }
            do {
                batch.end = .finished(
                    try reader.read(
                        handle, frame: { add(checksHere ? .checked(validator.check($0)) : .frame($0), bytes: $0.payloadBytes) },
                        problem: { add(.problem($0), bytes: $0.message.utf8.count) }))
            } catch {
                batch.end = .failed(CaptureReadFailure(file: reader.file, reason: error.localizedDescription))
            }
            handoff.send(batch)
            handoff.finish()
        }
        worker.name = "wire validate: reader"
        worker.start()
        var end: PipelineBatch.End?
        while let batch = handoff.receive() {
            for item in batch.items {
                switch item {
                case .frame(let frame): for located in process(frame) { finding(located) }
                case .checked(let checked): for located in process(checked) { finding(located) }
                case .problem(let problem): finding(process(problem))
                }
            }
            if let last = batch.end { end = last }
            recycler.giveBack(batch)
        }
        switch end {
        case .finished(let format): return format
        case .failed(let failure): throw failure
        case nil: throw CaptureReadFailure(file: reader.file, reason: "the reading thread stopped without finishing")
        }
    }
}

/// How much of a capture is in flight between ``CaptureValidation/validate(_:reader:finding:)``'s
/// threads.
public enum PipelineLimits {
    /// Frames per batch handed from the reading thread to the checking thread.
    public static let framesPerBatch = 256
    /// A batch is handed over once its frames hold this many bytes (1 MiB), however few they are.
    public static let bytesPerBatch = 1 << 20
    /// Batches waiting at most; the reading thread waits while this many are unread.
    public static let batchesInFlight = 4
}

/// A capture that could not be read to its end.
public struct CaptureReadFailure: Error, LocalizedError, Sendable {
    /// The capture's name as given to the reader.
    public var file: String
    /// What went wrong, as the system said it.
    public var reason: String
    public var errorDescription: String? { reason }
}

/// Frames and problems read in input order, handed from the reading thread in one piece.
struct PipelineBatch: Sendable {
    enum Item: Sendable {
        /// A frame to check.
        case frame(CapturedFrame)
        /// A frame the reading thread has checked.
        case checked(CheckedFrame)
        case problem(CaptureProblem)
    }

    /// How the capture ended, in the last batch.
    enum End: Sendable {
        case finished(CaptureFormat)
        case failed(CaptureReadFailure)
    }

    var items: [Item] = []
    var bytes = 0
    var end: End?

    init() { items.reserveCapacity(PipelineLimits.framesPerBatch) }
}

extension CapturedFrame {
    /// The bytes this frame keeps alive: its document's, when it holds one.
    var payloadBytes: Int {
        if case .parsed(let document, _) = payload { return document.byteCount + document.tokenCount * 32 }
        return 0
    }
}

/// Tapes whose frames have been checked, for the reading thread to parse the next lines into:
/// a tape nobody else holds keeps its storage, so reading allocates nothing per line once the
/// batches in flight have their tapes. Holds at most the tapes of the batches in flight.
final class TapeRecycler: @unchecked Sendable {
    // `spare` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var spare: [JSONTape] = []

    /// A tape to parse into: a returned one, or a new one.
    func take() -> JSONTape {
        lock.lock()
        defer { lock.unlock() }
        return spare.popLast() ?? JSONTape()
    }

    /// Takes back the tapes of a batch whose frames are done with.
    func giveBack(_ batch: consuming PipelineBatch) {
        var tapes: [JSONTape] = []
        tapes.reserveCapacity(batch.items.count)
        for item in batch.items {
            let frame: CapturedFrame
            switch item {
            case .frame(let read): frame = read
            case .checked(let checked): frame = checked.frame
            case .problem: continue
            }
            if case .parsed(var tape, _) = frame.payload {
                // A line's tape shares the reader's buffer of its time: a spare tape must not keep
                // that buffer alive.
                tape.releaseBytes()
                tapes.append(tape)
            }
        }
        batch.items = []
        lock.lock()
        defer { lock.unlock() }
        spare += tapes
    }
}

/// A bounded first-in, first-out queue from one producing thread to one consuming thread:
/// `send` waits while `capacity` elements are unread, `receive` waits while there are none and
/// returns `nil` once the producer has finished and everything is read.
final class Handoff<Element: Sendable>: @unchecked Sendable {
    // Every stored property is read and written only while `condition` is locked.
    private let condition = NSCondition()
    /// A ring of `capacity` slots; a slot is emptied as soon as it is read.
    private var slots: [Element?]
    private var head = 0
    private var unread = 0
    private var finished = false

    init(capacity: Int) {
        slots = Array(repeating: nil, count: max(1, capacity))
    }

    /// How many elements are unread: how far the consumer is behind.
    var pending: Int {
        condition.lock()
        defer { condition.unlock() }
        return unread
    }

    /// Adds an element, waiting while the queue is full.
    func send(_ element: Element) {
        condition.lock()
        defer { condition.unlock() }
        while unread == slots.count { condition.wait() }
        slots[(head + unread) % slots.count] = element
        unread += 1
        condition.broadcast()
    }

    /// Marks the end: once the queue is empty, `receive` returns `nil`.
    func finish() {
        condition.lock()
        defer { condition.unlock() }
        finished = true
        condition.broadcast()
    }

    /// The oldest unread element, waiting for one; `nil` when finished and empty.
    func receive() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while unread == 0 && !finished { condition.wait() }
        guard unread > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        unread -= 1
        condition.broadcast()
        return element
    }
}

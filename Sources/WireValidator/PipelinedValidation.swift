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
            var filler = BatchFiller(handoff: handoff, placement: placement)
            do {
                let format = try reader.read(
                    handle,
                    keeping: { frame in
                        let bytes = frame.payloadBytes
                        filler.add(filler.checksHere ? .checked(validator.check(frame)) : .frame(frame), bytes: bytes)
                    },
                    problem: { filler.add(.problem($0), bytes: $0.message.utf8.count) })
                filler.end(.finished(format))
            } catch {
                filler.end(.failed(CaptureReadFailure(file: reader.file, reason: error.localizedDescription)))
            }
        }
        worker.name = "wire validate: reader"
        worker.start()
        var end: PipelineBatch.End?
        // The tapes of the frames done with, handed back to the reading thread once per batch.
        var tapes: [JSONTape] = []
        while var batch = handoff.receive() {
            // Each item is moved out of the batch, first to last, not copied: a copy counts
            // references to the frame's tape and strings.
            var items = batch.items
            batch.items = []
            // Reversed in place by moves (the array's own `reverse()` swaps by copies), then
            // popped from the end.
            items.withUnsafeMutableBufferPointer { $0.reverse() }
            while let item = items.popLast() {
                switch consume item {
                case .frame(let frame):
                    for located in process(frame) { finding(located) }
                    Self.keepTape(of: frame, in: &tapes)
                case .checked(let checked):
                    for located in process(checked) { finding(located) }
                    Self.keepTape(of: checked.frame, in: &tapes)
                case .problem(let problem): finding(process(problem))
                }
            }
            if let last = batch.end { end = last }
            recycler.giveBack(&tapes)
            // (The array handed back may be one with less room: make room for a batch's tapes.)
            tapes.reserveCapacity(PipelineLimits.framesPerBatch)
        }
        switch end {
        case .finished(let format): return format
        case .failed(let failure): throw failure
        case nil: throw CaptureReadFailure(file: reader.file, reason: "the reading thread stopped without finishing")
        }
    }
}

extension CaptureValidation {
    /// Puts a processed frame's tape with the tapes to hand back, without the reader's buffer it
    /// shares: a spare tape must not keep that buffer alive.
    fileprivate static func keepTape(of frame: borrowing CapturedFrame, in tapes: inout [JSONTape]) {
        guard case .parsed(var tape, _) = frame.payload else { return }
        tape.releaseBytes()
        tapes.append(tape)
    }
}

/// The reading thread's batch in the making, handed over when full.
private struct BatchFiller {
    let handoff: Handoff<PipelineBatch>
    let placement: CaptureValidation.CheckPlacement
    var batch = PipelineBatch()
    /// Whether the reading thread also runs the frames' own checks for the batch it is filling: it
    /// does while the calling thread has batches waiting, so the two share the work.
    var checksHere: Bool

    init(handoff: Handoff<PipelineBatch>, placement: CaptureValidation.CheckPlacement) {
        self.handoff = handoff
        self.placement = placement
        checksHere = placement == .readingThread
    }

    mutating func add(_ item: consuming PipelineBatch.Item, bytes: Int) {
        batch.items.append(item)
        batch.bytes += bytes
        guard batch.items.count >= PipelineLimits.framesPerBatch || batch.bytes >= PipelineLimits.bytesPerBatch else { return }
        handoff.send(batch)
        batch = PipelineBatch()
        if placement == .balanced { checksHere = handoff.pending >= 2 }
    }

    /// Hands over the last batch, which says how the capture ended, and closes the queue.
    mutating func end(_ end: PipelineBatch.End) {
        batch.end = end
        handoff.send(batch)
        handoff.finish()
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
/// batches in flight have their tapes. Holds at most the tapes of the batches in flight. Tapes
/// pass in and out a batch's worth at a time, one lock each way.
final class TapeRecycler: @unchecked Sendable {
    private let lock = NSLock()
    // Read and written only while `lock` is held (so the run-time check of each access for
    // overlap would find none).
    @exclusivity(unchecked) private var spare: [JSONTape] = []

    /// A tape to parse into, a returned one or a new one; the other returned tapes move to
    /// `taken` (which the caller uses up first).
    func take(into taken: inout [JSONTape]) -> JSONTape {
        lock.lock()
        swap(&spare, &taken)
        lock.unlock()
        return taken.popLast() ?? JSONTape()
    }

    /// Takes back tapes whose frames are done with (their reader buffers released), leaving
    /// `tapes` empty.
    func giveBack(_ tapes: inout [JSONTape]) {
        guard !tapes.isEmpty else { return }
        lock.lock()
        if spare.isEmpty { swap(&spare, &tapes) } else { spare += tapes }
        lock.unlock()
        tapes.removeAll(keepingCapacity: true)
    }
}

/// A bounded first-in, first-out queue from one producing thread to one consuming thread:
/// `send` waits while `capacity` elements are unread, `receive` waits while there are none and
/// returns `nil` once the producer has finished and everything is read.
final class Handoff<Element: Sendable>: @unchecked Sendable {
    // Every stored property is read and written only while `condition` is locked (so the
    // run-time check of each access for overlap would find none).
    private let condition = NSCondition()
    /// A ring of `capacity` slots; a slot is emptied as soon as it is read.
    @exclusivity(unchecked) private var slots: [Element?]
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var unread = 0
    @exclusivity(unchecked) private var finished = false

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

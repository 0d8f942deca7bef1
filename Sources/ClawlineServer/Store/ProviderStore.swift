import Foundation

/// A device the provider knows: paired (approved), denied or revoked.
public struct DeviceRecord: Sendable, Hashable {
    /// Whether the device may authenticate.
    public enum Status: String, Sendable, Hashable {
        /// Approved: it has an account and may authenticate.
        case approved
        /// Denied by an admin or the operator: its pairing requests get `pair_rejected`.
        case denied
        /// Its token was revoked: `auth` gets `token_revoked`.
        case revoked
    }

    /// The device's id (a UUID string).
    public var deviceID: String
    /// The account the device belongs to; `nil` for a denied device that never had one.
    public var userID: String?
    /// The name the user gave the device.
    public var claimedName: String?
    /// The device's `deviceInfo`, as canonical JSON.
    public var deviceInfo: String
    /// Whether the device is an admin (may approve other devices).
    public var isAdmin: Bool
    /// Whether the device may authenticate.
    public var status: Status
    /// When the device was paired or denied.
    public var pairedAt: Date
    /// When the device last authenticated; `nil` while it never has.
    public var lastSeen: Date?
    /// What the device's pairing left for its next `pair_request`, on whichever node it comes.
    public var pairingNote: PairingNote

    /// What a pairing left undone, kept in the store so that every node answers the device's next
    /// `pair_request` alike.
    public enum PairingNote: String, Sendable, Hashable {
        /// Nothing: the answer was delivered.
        case none
        /// Approved while its pairing socket was closed: its token may be fetched again.
        case tokenUndelivered = "token_undelivered"
        /// Denied while its pairing socket was closed: its next request hears `pair_denied`.
        case denialUndelivered = "denial_undelivered"
        /// Its token was issued a second time by a repeated `pair_request` (once is allowed).
        case tokenReissued = "token_reissued"
    }

    /// Creates a record.
    public init(
        deviceID: String, userID: String?, claimedName: String?, deviceInfo: String, isAdmin: Bool, status: Status, pairedAt: Date,
        lastSeen: Date? = nil, pairingNote: PairingNote = .none
    ) {
        self.deviceID = deviceID
        self.userID = userID
        self.claimedName = claimedName
        self.deviceInfo = deviceInfo
        self.isAdmin = isAdmin
        self.status = status
        self.pairedAt = pairedAt
        self.lastSeen = lastSeen
        self.pairingNote = pairingNote
    }
}

/// An event of an account's history: a server `message` frame, stored as its canonical JSON.
public struct StoredEvent: Sendable, Hashable {
    /// The event's id, `s_…`.
    public var eventID: String
    /// The account.
    public var userID: String
    /// The frame, as canonical JSON text.
    public var frame: String
    /// The event's place in its account's history: 1 for the account's first event, then one more
    /// for each next, in commit order and without gaps. A store fills it in on the events it
    /// returns; `nil` from a store that does not number events (its events then reach sockets in
    /// the order they reach the node).
    public var number: Int?

    /// Creates an event.
    public init(eventID: String, userID: String, frame: String, number: Int? = nil) {
        self.eventID = eventID
        self.userID = userID
        self.frame = frame
        self.number = number
    }
}

/// What storing a client's message did.
public enum MessageAcceptance: Sendable, Hashable {
    /// The message is new: its echo was stored, as the account's event `number` (see
    /// ``StoredEvent/number``; `nil` from a store that does not number events).
    case accepted(number: Int?)
    /// The device sent this id with the same content before: the retry is acknowledged again and
    /// nothing else happens. `eventID` is the echo stored the first time.
    case retry(eventID: String)
    /// The device sent this id before with other content or attachments, or its answer failed:
    /// the message is `invalid_message`.
    case conflict(reason: String)
}

/// The events a device gets on replay.
public struct ReplayPage: Sendable, Hashable {
    /// The events, oldest first.
    public var events: [StoredEvent]
    /// Whether older events after the cursor were left out (more than the limit).
    public var truncated: Bool
    /// Whether a cursor was given that is not an event of the account: the page then holds the
    /// account's newest events, and the device is told its history was reset.
    public var cursorUnknown: Bool
    /// The number of the account's newest event when the page was read (0 when it has none), so a
    /// socket knows which number comes next even after an empty page; `nil` from a store that does
    /// not number events.
    public var newestNumber: Int?

    /// Creates a page.
    public init(events: [StoredEvent], truncated: Bool, cursorUnknown: Bool = false, newestNumber: Int? = nil) {
        self.events = events
        self.truncated = truncated
        self.cursorUnknown = cursorUnknown
        self.newestNumber = newestNumber
    }
}

/// An uploaded file: its bytes live in the uploads directory under the asset's id.
public struct AssetRecord: Sendable, Hashable {
    /// The asset's id, `a_` and a UUID.
    public var assetID: String
    /// The account that uploaded it; only its devices may download it.
    public var userID: String
    /// The MIME type the upload declared.
    public var mimeType: String
    /// The size in bytes.
    public var size: Int
    /// When it was uploaded.
    public var uploadedAt: Date
    /// Whether a message references it (then it is kept).
    public var referenced: Bool

    /// Where the bytes of asset `assetID` are kept in an uploads directory.
    public static func path(of assetID: String, in directory: String) -> String {
        (directory as NSString).appendingPathComponent(assetID)
    }

    /// Creates a record.
    public init(assetID: String, userID: String, mimeType: String, size: Int, uploadedAt: Date, referenced: Bool = false) {
        self.assetID = assetID
        self.userID = userID
        self.mimeType = mimeType
        self.size = size
        self.uploadedAt = uploadedAt
        self.referenced = referenced
    }
}

/// Where the provider keeps what must survive a restart: devices, each account's events and the
/// client message ids that make retries idempotent.
///
/// The SQLite store (``SQLiteProviderStore``) is the default. Every method is atomic: a store for
/// several nodes implements the same contract on a shared database.
public protocol ProviderStore: Sendable {
    /// The device with this id, if the provider knows it.
    func device(_ deviceID: String) async throws -> DeviceRecord?
    /// Every device, in the order they paired.
    func devices() async throws -> [DeviceRecord]
    /// Inserts or replaces a device.
    func save(_ device: DeviceRecord) async throws
    /// Saves `device` (an admin) only while no approved admin exists, atomically across every
    /// node sharing the store; returns whether it did (the first device ever to pair wins).
    func saveFirstAdmin(_ device: DeviceRecord) async throws -> Bool
    /// Forgets a device entirely (its account and events stay).
    func removeDevice(_ deviceID: String) async throws
    /// Records that the device authenticated at `date`.
    func markSeen(_ deviceID: String, at date: Date) async throws
    /// Records what the device's pairing left undone (see ``DeviceRecord/PairingNote``).
    func setPairingNote(_ note: DeviceRecord.PairingNote, of deviceID: String) async throws
    /// The records of those of `deviceIDs` the provider knows (a removed device has none).
    func devices(withIDs deviceIDs: [String]) async throws -> [DeviceRecord]
    /// Whether the account `userID` exists: a device was paired into it, or it has events.
    func accountExists(_ userID: String) async throws -> Bool
    /// A number that changes whenever a device's status, account or pairing time changes or a
    /// device is removed, by any process or node sharing the store; `nil` when the store cannot
    /// tell (the default). While it stays the same, the provider's maintenance looks up only the
    /// devices that authenticated since its last look, not every connected one.
    func devicesRevision() async throws -> Int?

    /// Records an upload.
    func save(_ asset: AssetRecord) async throws
    /// The upload with this id, if any.
    func asset(_ assetID: String) async throws -> AssetRecord?
    /// The bytes of every upload an account keeps, referenced or not (its upload quota counts them).
    func storedUploadBytes(userID: String) async throws -> Int
    /// Marks uploads as referenced by a message, so they are kept.
    func markReferenced(_ assetIDs: [String]) async throws
    /// Forgets the uploads no message references that were uploaded before `date`, returning them
    /// (their files are the caller's to delete; bytes the store holds go with them).
    func removeUnreferencedAssets(uploadedBefore date: Date) async throws -> [AssetRecord]

    /// Stores a client's message and its echo atomically, unique on the device and the client id:
    /// `fingerprint` identifies the content and attachments, compared for retries.
    func accept(clientMessageID: String, deviceID: String, fingerprint: String, echo: StoredEvent) async throws -> MessageAcceptance
    /// Marks the answer to a client message as failed, so that retrying its id is a conflict.
    func markFailed(clientMessageID: String, deviceID: String) async throws
    /// Appends an event to an account's history (an assistant's final answer); returns its
    /// number (``StoredEvent/number``), `nil` from a store that does not number events.
    @discardableResult
    func append(_ event: StoredEvent) async throws -> Int?
    /// The events of an account after `cursor` (all when `nil` or unknown, and then the page
    /// says whether it was unknown), oldest first; at most `limit`, the newest ones when there are
    /// more.
    ///
    /// Replay depends on one ordering and visibility rule, which every store keeps: an account's
    /// events are ordered by commit, and once a call returns an event, every later call sees every
    /// event of the account committed before it. (An event that commits later than one a device
    /// already read is never ordered before it, so a cursor never skips one.)
    ///
    /// A store that numbers events (both stores here do) returns them with their numbers, and
    /// the page's ``ReplayPage/newestNumber``. Nodes use the numbers to send each socket an
    /// account's events in commit order, whichever node committed them: an event whose
    /// predecessor has not reached the node yet waits for it.
    func events(userID: String, after cursor: String?, limit: Int) async throws -> ReplayPage
}

/// A store that holds the bytes of uploads itself, so every node sharing it serves them (a
/// store that is not one leaves them as files in the node's uploads directory).
public protocol AssetBytesStore: ProviderStore {
    /// Records an upload and stores its bytes, read from the file at `path`, in one step: either
    /// both are stored or neither.
    func save(_ asset: AssetRecord, bytesFromFile path: String) async throws
    /// The `index`th chunk of an upload's bytes, `nil` past the last.
    func assetBytes(_ assetID: String, chunk index: Int) async throws -> [UInt8]?
}

extension ProviderStore {
    /// A store that cannot tell when devices change: every connected device is looked up on each
    /// maintenance tick.
    public func devicesRevision() async throws -> Int? { nil }
}

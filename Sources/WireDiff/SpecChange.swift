import WireSpec

/// Whether deployed peers keep working after a change.
public enum Verdict: String, Sendable, Hashable, Comparable, Encodable {
    /// Nothing that worked stops working.
    case compatible
    /// Behaviour changes in a way that may break a peer (a default, an error's close behaviour, a constant).
    case mayBreak = "may break"
    /// Something that worked stops working.
    case breaks

    private var rank: Int { self == .compatible ? 0 : self == .mayBreak ? 1 : 2 }
    public static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.rank < rhs.rank }
}

/// How serious a change is: the worse of its two verdicts, or `info` for what changes no behaviour.
public enum ChangeSeverity: String, Sendable, Hashable, Comparable, Encodable, CaseIterable {
    case info
    case warning
    case breaking

    private var rank: Int { self == .info ? 0 : self == .warning ? 1 : 2 }
    public static func < (lhs: ChangeSeverity, rhs: ChangeSeverity) -> Bool { lhs.rank < rhs.rank }
}

/// Added, removed or changed.
public enum ChangeKind: String, Sendable, Hashable, Encodable {
    case added, removed, changed
}

/// One difference between two versions of a spec, and what it means for deployed peers.
public struct SpecChange: Sendable, Hashable, Encodable {
    /// What the change belongs to, for grouping: `client message pair_request`, `type DeviceInfo`, `error codes`, ...
    public var group: String
    /// What changed within the group: `field 'claimedName'`, `the message`, `value 'pair_rejected'`.
    public var subject: String
    public var kind: ChangeKind
    /// The change in words: `made optional`, `maxBytes lowered`.
    public var summary: String
    /// The old and the new value, as written in the specs, where there are values.
    public var old: String?
    public var new: String?
    /// Does a client built from OLD still work with a server built from NEW?
    public var oldClientsWithNewServer: Verdict
    /// Does a server built from OLD still work with a client built from NEW?
    public var oldServersWithNewClient: Verdict
    /// Only a description changed.
    public var isDescription: Bool
    /// Where in NEW (in OLD for a removal).
    public var location: SourceLocation

    /// The finding that the version stayed the same across breaking changes.
    public var isVersionFinding: Bool { group == "protocol" && subject == "the version" && summary.hasPrefix("is still") }

    public var severity: ChangeSeverity {
        if isDescription { return .info }
        switch max(oldClientsWithNewServer, oldServersWithNewClient) {
        case .breaks: return .breaking
        case .mayBreak: return .warning
        case .compatible: return .info
        }
    }

    enum CodingKeys: String, CodingKey {
        case group, subject, kind, summary, old, new, oldClientsWithNewServer, oldServersWithNewClient, severity, file, line, column
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(group, forKey: .group)
        try container.encode(subject, forKey: .subject)
        try container.encode(kind, forKey: .kind)
        try container.encode(summary, forKey: .summary)
        try container.encode(old, forKey: .old)
        try container.encode(new, forKey: .new)
        try container.encode(oldClientsWithNewServer, forKey: .oldClientsWithNewServer)
        try container.encode(oldServersWithNewClient, forKey: .oldServersWithNewClient)
        try container.encode(severity, forKey: .severity)
        try container.encode(location.file, forKey: .file)
        try container.encode(location.line, forKey: .line)
        try container.encode(location.column, forKey: .column)
    }
}

/// What a change does to what receivers accept, which decides who breaks: a change to what a
/// server accepts concerns old clients, a change to what a client accepts concerns old servers.
enum Effect {
    /// Receivers accept less: old senders may send what new receivers reject.
    case tightens
    /// Receivers accept more, so new senders may send what old receivers reject.
    case loosens
    /// Both: a value's type or shape changed.
    case replaces
    /// What is accepted is the same, but a peer may behave differently.
    case changesBehaviour
    /// Nothing a peer does changes.
    case none

    /// The two verdicts for a change to frames that `directions` send.
    func verdicts(_ directions: Set<Direction>) -> (oldClients: Verdict, oldServers: Verdict) {
        var oldClients = Verdict.compatible
        var oldServers = Verdict.compatible
        for direction in directions {
            // The peer whose old version breaks: the old sender when receivers accept less, the old
            // receiver when new senders may send more.
            let oldSenderBreaks = self == .tightens || self == .replaces
            let oldReceiverBreaks = self == .loosens || self == .replaces
            if direction == .client {
                if oldSenderBreaks { oldClients = .breaks }
                if oldReceiverBreaks { oldServers = .breaks }
            } else {
                if oldSenderBreaks { oldServers = .breaks }
                if oldReceiverBreaks { oldClients = .breaks }
            }
        }
        if self == .changesBehaviour {
            oldClients = max(oldClients, .mayBreak)
            oldServers = max(oldServers, .mayBreak)
        }
        return (oldClients, oldServers)
    }
}

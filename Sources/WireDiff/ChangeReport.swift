import Foundation
import WireSpec

/// Writes the changes between two specs for people (text), tools (JSON) or a changelog (Markdown).
public enum ChangeReport {
    public enum Format: String, Sendable, CaseIterable {
        case text, json, markdown
    }

    public static func render(_ changes: [SpecChange], format: Format, old: String, new: String) -> String {
        switch format {
        case .text: return text(changes, old: old, new: new)
        case .json: return json(changes)
        case .markdown: return markdown(changes, old: old, new: new, headingLevel: 2)
        }
    }

    /// The changes grouped by what they belong to, in first-seen order.
    static func grouped(_ changes: [SpecChange]) -> [(group: String, changes: [SpecChange])] {
        var order: [String] = []
        var groups: [String: [SpecChange]] = [:]
        for change in changes {
            if groups[change.group] == nil { order.append(change.group) }
            groups[change.group, default: []].append(change)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }

    /// `old → new`, `old`, `→ new` or nothing.
    static func values(_ change: SpecChange) -> String {
        switch (change.old, change.new) {
        case (let old?, let new?): return "\(old) → \(new)"
        case (let old?, nil): return "was \(old)"
        case (nil, let new?): return new
        case (nil, nil): return ""
        }
    }

    static func verdicts(_ change: SpecChange) -> String {
        "old clients: \(change.oldClientsWithNewServer.rawValue), old servers: \(change.oldServersWithNewClient.rawValue)"
    }

    /// `3 breaking, 2 warnings, 5 info`.
    public static func summary(_ changes: [SpecChange]) -> String {
        let counts = ChangeSeverity.allCases.reversed().map { severity in (severity, changes.filter { $0.severity == severity }.count) }
        return counts.map { severity, count in
            "\(count) \(severity == .warning ? (count == 1 ? "warning" : "warnings") : severity.rawValue)"
        }.joined(separator: ", ")
    }

    private static func text(_ changes: [SpecChange], old: String, new: String) -> String {
        guard !changes.isEmpty else { return "no changes from \(old) to \(new)\n" }
        var lines: [String] = []
        for (group, members) in grouped(changes) {
            lines.append(group)
            for change in members {
                let value = values(change)
                var line = "  \(change.location): \(change.severity.rawValue): \(change.subject) \(change.summary)"
                if !value.isEmpty { line += " (\(value))" }
                if !change.isDescription { line += " [\(verdicts(change))]" }
                lines.append(line)
            }
        }
        lines.append("\(changes.count) change\(changes.count == 1 ? "" : "s") from \(old) to \(new): \(summary(changes))")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func json(_ changes: [SpecChange]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let lines = changes.compactMap { change in (try? encoder.encode(change)).map { String(decoding: $0, as: UTF8.self) } }
        let counts = ChangeSeverity.allCases.map { severity in "\"\(severity.rawValue)\":\(changes.filter { $0.severity == severity }.count)" }
        return (lines + ["{\"summary\":{" + counts.joined(separator: ",") + "}}"]).joined(separator: "\n") + "\n"
    }

    /// One row per change: `group: subject summary (values)`, severity, and the two verdicts.
    public static func rows(_ changes: [SpecChange]) -> [[String]] {
        changes.map { change in
            let value = values(change)
            let what = "\(change.group): \(change.subject) \(change.summary)" + (value.isEmpty ? "" : " (\(value))")
            let verdicts = change.isDescription ? ["—", "—"] : [change.oldClientsWithNewServer.rawValue, change.oldServersWithNewClient.rawValue]
            return [what, change.severity.rawValue] + verdicts
        }
    }

    /// The changes as upgrade notes: the version finding, then one line per change, sorted by
    /// whom it breaks (a change that breaks both is in both lists); descriptions are only counted.
    public static func migrationNotes(_ changes: [SpecChange]) -> MigrationNotes {
        func line(_ change: SpecChange) -> String {
            let value = values(change)
            return "\(change.group): \(change.subject) \(change.summary)" + (value.isEmpty ? "" : " (\(value))")
        }
        let listed = changes.filter { !$0.isVersionFinding && !$0.isDescription }
        return MigrationNotes(
            versionFinding: changes.first { $0.isVersionFinding }.map { "The version \($0.summary)" },
            breaksOldClients: listed.filter { $0.oldClientsWithNewServer == .breaks }.map(line),
            breaksOldServers: listed.filter { $0.oldServersWithNewClient == .breaks }.map(line),
            mayBreak: listed.filter { $0.severity == .warning }.map(line),
            compatible: listed.filter { $0.severity == .info }.map(line),
            descriptionsChanged: changes.filter(\.isDescription).count)
    }

    /// A Markdown section: a summary line and a table per group, for a changelog or a pull request.
    public static func markdown(_ changes: [SpecChange], old: String, new: String, headingLevel: Int) -> String {
        let heading = String(repeating: "#", count: headingLevel)
        var lines = ["\(heading) Changes from \(old) to \(new)", ""]
        guard !changes.isEmpty else { return (lines + ["No changes.", ""]).joined(separator: "\n") }
        lines += [summary(changes) + ".", ""]
        for (group, members) in grouped(changes) {
            lines += [
                "\(heading)# \(group)", "", "| Change | Severity | Old clients, new server | Old servers, new client |", "| --- | --- | --- | --- |",
            ]
            for change in members {
                let value = values(change).replacingOccurrences(of: "|", with: "\\|")
                let what = "\(change.subject) \(change.summary)" + (value.isEmpty ? "" : " (\(value))")
                let verdicts =
                    change.isDescription ? ["—", "—"] : [change.oldClientsWithNewServer.rawValue, change.oldServersWithNewClient.rawValue]
                lines.append("| \(what.replacingOccurrences(of: "|", with: "\\|")) | \(change.severity.rawValue) | \(verdicts[0]) | \(verdicts[1]) |")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }
}

/// A team's view of the changes between two versions, before it upgrades.
public struct MigrationNotes: Sendable, Hashable {
    /// "The version is still 1 after 3 breaking changes; raise 'version'", when it is.
    public var versionFinding: String?
    /// Changes that break clients written to the old version, one line each.
    public var breaksOldClients: [String]
    /// Changes that break servers written to the old version, one line each.
    public var breaksOldServers: [String]
    /// Changes that may break either side, depending on what a peer does.
    public var mayBreak: [String]
    /// Changes that break neither side.
    public var compatible: [String]
    /// How many descriptions changed.
    public var descriptionsChanged: Int
}

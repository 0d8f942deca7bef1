import ClawlineClient
import ClawlineProtocol
import Foundation

/// Renders chat messages for a line-mode terminal: a streamed answer grows on one line as its
/// snapshots arrive, and every other message is one line.
struct TranscriptPrinter {
    /// The device whose messages are shown as "you".
    let deviceId: DeviceId
    /// The answer being streamed on the current line, and how much of it is printed.
    private var open: (id: String, printed: String)?
    /// Messages already printed in full.
    private var printed: Set<String> = []

    init(deviceId: DeviceId) {
        self.deviceId = deviceId
    }

    /// The text to write for a new or changed message (empty when nothing changed).
    mutating func render(_ message: ChatMessage) -> String {
        var output = ""
        if let current = open, current.id != message.id {
            output += "\n"
            open = nil
        }
        switch (message.role, message.status) {
        case (.assistant, .streaming):
            guard !printed.contains(message.id) else { return output }
            let shown = open?.printed ?? ""
            if shown.isEmpty {
                output += "assistant: " + message.content
            } else if message.content.hasPrefix(shown) {
                output += String(message.content.dropFirst(shown.count))
            } else {
                output += "\nassistant: " + message.content
            }
            open = (message.id, message.content)
        case (.assistant, _):
            guard !printed.contains(message.id) else { return output }
            printed.insert(message.id)
            if let shown = open?.printed, message.content.hasPrefix(shown) {
                output += String(message.content.dropFirst(shown.count)) + "\n"
            } else {
                output += "assistant: \(message.content)\n"
            }
            open = nil
        case (.user, .failed):
            output += "! not answered: \(message.content) (\(message.failure ?? "failed"))\n"
        case (.user, .delivered):
            // Own messages were shown as typed; others' appear when the server echoes them.
            guard message.deviceId != deviceId, !printed.contains(message.id) else { return output }
            printed.insert(message.id)
            output += "\(message.deviceId.map { "device \($0.rawValue.prefix(8))" } ?? "user"): \(message.content)\n"
        default:
            break
        }
        return output
    }
}

/// Writes to standard output at once (no buffering), for text that grows on one line.
func write(_ text: String) {
    guard !text.isEmpty else { return }
    FileHandle.standardOutput.write(Data(text.utf8))
}

/// A line describing a connection state, for standard error.
func describe(_ state: ConnectionState) -> String {
    switch state {
    case .disconnected: "[disconnected]"
    case .connecting: "[connecting…]"
    case .connected: "[connected]"
    case .reconnecting: "[connection lost; reconnecting…]"
    case .waitingForApproval: "[waiting for an admin to approve this device; trying again every 30 s]"
    case .failed(let error): "[stopped: \(error.description)]"
    }
}

import ClawlineProtocol
import Foundation

/// What makes two sends of one client message id the same message: the content and the
/// attachments compared as values (absent, `null` and `[]` are equal; inline images by their
/// decoded bytes), as the spec's `client_message_retry` rule compares them.
enum MessageFingerprint {
    static func of(_ message: ClientMessage) -> String {
        let attachments = (message.attachments.wrapped ?? []).map { attachment -> Attachment in
            guard case .image(var image) = attachment else { return attachment }
            image.data = canonicalBase64(image.data)
            return .image(image)
        }
        let normalized = ClientMessage(id: "", content: message.content, attachments: attachments.isEmpty ? .absent : .value(attachments))
        return normalized.encodedText()
    }

    /// The padded form of base64 text, so `"aGk"` and `"aGk="` compare equal.
    private static func canonicalBase64(_ text: String) -> String {
        var padded = text.filter { !$0.isWhitespace }
        while padded.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded)?.base64EncodedString() ?? text
    }
}

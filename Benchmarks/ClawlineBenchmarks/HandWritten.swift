import Foundation

// A hand-written Codable equivalent of the Clawline frames, in the style of the seeds' Message.swift
// (an enum over `type`, one Decodable struct per payload, checks written by hand after decoding).
// It exists only to be measured against the generated code.

enum HandWrittenError: Error {
    case invalid(String)
}

struct HWDeviceInfo: Codable {
    let platform: String
    let model: String
    let osVersion: String?
    let appVersion: String?
}

struct HWAttachment: Codable {
    let type: String
    let mimeType: String?
    let data: String?
    let assetId: String?
}

enum HWClientMessage: Decodable {
    struct PairRequest: Codable {
        let protocolVersion: Int
        let deviceId: String
        let claimedName: String
        let deviceInfo: HWDeviceInfo
    }
    struct Auth: Codable {
        let protocolVersion: Int
        let token: String
        let deviceId: String
        let lastMessageId: String?
    }
    struct PairDecision: Codable {
        let deviceId: String
        let approve: Bool
        let userId: String?
    }
    struct Message: Codable {
        let id: String
        let content: String
        let attachments: [HWAttachment]?
    }
    struct Typing: Codable { let active: Bool }

    case pairRequest(PairRequest)
    case auth(Auth)
    case pairDecision(PairDecision)
    case message(Message)
    case typing(Typing)

    enum CodingKeys: String, CodingKey { case type }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        let single = try decoder.singleValueContainer()
        switch type {
        case "pair_request": self = .pairRequest(try single.decode(PairRequest.self))
        case "auth": self = .auth(try single.decode(Auth.self))
        case "pair_decision": self = .pairDecision(try single.decode(PairDecision.self))
        case "message": self = .message(try single.decode(Message.self))
        case "typing": self = .typing(try single.decode(Typing.self))
        default: throw HandWrittenError.invalid("unknown type \(type)")
        }
    }

    /// The same rules the spec states, checked by hand.
    func validate() throws {
        func uuid(_ text: String) throws {
            guard let value = UUID(uuidString: text), value.uuidString.dropFirst(14).first == "4" else { throw HandWrittenError.invalid("uuid") }
        }
        switch self {
        case .pairRequest(let m):
            guard m.protocolVersion == 1, m.claimedName.utf8.count <= 64, !m.deviceInfo.platform.isEmpty, !m.deviceInfo.model.isEmpty else {
                throw HandWrittenError.invalid("pair_request")
            }
            try uuid(m.deviceId)
        case .auth(let m):
            guard m.protocolVersion == 1, !m.token.isEmpty else { throw HandWrittenError.invalid("auth") }
            try uuid(m.deviceId)
            if let last = m.lastMessageId, last.trimmingCharacters(in: .whitespaces).isEmpty { throw HandWrittenError.invalid("lastMessageId") }
        case .pairDecision(let m):
            try uuid(m.deviceId)
            if m.approve {
                guard let user = m.userId else { throw HandWrittenError.invalid("userId") }
                try uuid(user)
            }
        case .message(let m):
            guard m.id.hasPrefix("c_"), !m.content.isEmpty, m.content.utf8.count <= 65_536 else { throw HandWrittenError.invalid("message") }
            var inline = 0
            for attachment in m.attachments ?? [] {
                switch attachment.type {
                case "image":
                    guard let data = attachment.data, let bytes = Data(base64Encoded: data), bytes.count <= 262_144,
                        ["image/png", "image/jpeg", "image/gif", "image/webp", "image/heic"].contains(attachment.mimeType ?? "")
                    else { throw HandWrittenError.invalid("image") }
                    inline += bytes.count
                case "asset":
                    guard attachment.assetId?.hasPrefix("a_") == true else { throw HandWrittenError.invalid("asset") }
                default:
                    throw HandWrittenError.invalid("attachment")
                }
            }
            guard (m.attachments?.count ?? 0) <= 4, inline <= 262_144, inline + m.content.utf8.count <= 327_680 else {
                throw HandWrittenError.invalid("sizes")
            }
        case .typing:
            break
        }
    }
}

enum HWServerMessage: Decodable {
    struct PairResult: Codable {
        let success: Bool
        let token: String?
        let userId: String?
        let reason: String?
    }
    struct PairApprovalRequest: Codable {
        let deviceId: String
        let claimedName: String
        let deviceInfo: HWDeviceInfo
    }
    struct AuthResult: Codable {
        let success: Bool
        let userId: String?
        let sessionId: String?
        let replayCount: Int?
        let replayTruncated: Bool?
        let historyReset: Bool?
        let isAdmin: Bool?
        let reason: String?
    }
    struct Message: Codable {
        let id: String
        let role: String
        let content: String
        let timestamp: Int64
        let streaming: Bool
        let deviceId: String?
        let attachments: [HWAttachment]?
    }
    struct Ack: Codable { let id: String }
    struct Typing: Codable {
        let role: String
        let active: Bool
    }
    struct ErrorPayload: Codable {
        let code: String
        let message: String
        let messageId: String?
    }

    case pairResult(PairResult)
    case pairApprovalRequest(PairApprovalRequest)
    case authResult(AuthResult)
    case message(Message)
    case ack(Ack)
    case typing(Typing)
    case error(ErrorPayload)

    enum CodingKeys: String, CodingKey { case type }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        let single = try decoder.singleValueContainer()
        switch type {
        case "pair_result": self = .pairResult(try single.decode(PairResult.self))
        case "pair_approval_request": self = .pairApprovalRequest(try single.decode(PairApprovalRequest.self))
        case "auth_result": self = .authResult(try single.decode(AuthResult.self))
        case "message": self = .message(try single.decode(Message.self))
        case "ack": self = .ack(try single.decode(Ack.self))
        case "typing": self = .typing(try single.decode(Typing.self))
        case "error": self = .error(try single.decode(ErrorPayload.self))
        default: throw HandWrittenError.invalid("unknown type \(type)")
        }
    }

    func validate() throws {
        switch self {
        case .pairResult(let m):
            if m.success {
                guard m.token != nil, m.userId != nil, m.reason == nil else { throw HandWrittenError.invalid("pair_result") }
            } else {
                guard m.reason != nil else { throw HandWrittenError.invalid("pair_result") }
            }
        case .authResult(let m):
            if m.success {
                guard m.userId != nil, m.sessionId != nil, (m.replayCount ?? -1) >= 0, m.replayTruncated != nil, m.historyReset != nil else {
                    throw HandWrittenError.invalid("auth_result")
                }
            } else {
                guard m.reason != nil else { throw HandWrittenError.invalid("auth_result") }
            }
        case .message(let m):
            guard m.id.hasPrefix("s_"), ["user", "assistant"].contains(m.role), m.timestamp >= 0 else { throw HandWrittenError.invalid("message") }
            if m.role == "user" { guard m.deviceId != nil else { throw HandWrittenError.invalid("deviceId") } }
            if m.role == "assistant" { guard m.deviceId == nil else { throw HandWrittenError.invalid("deviceId") } }
        case .ack(let m):
            guard m.id.hasPrefix("c_") else { throw HandWrittenError.invalid("ack") }
        case .typing(let m):
            guard m.role == "assistant" else { throw HandWrittenError.invalid("typing") }
        case .pairApprovalRequest, .error:
            break
        }
    }
}

// Encoding in the same style: the tag, then the payload's fields into the same object.
private enum TagKey: String, CodingKey { case type }

/// Writes `type` and then `payload`'s own fields into one object.
private func encodeTagged(_ type: String, _ payload: some Encodable, to encoder: Encoder) throws {
    var container = encoder.container(keyedBy: TagKey.self)
    try container.encode(type, forKey: .type)
    try payload.encode(to: encoder)
}

extension HWClientMessage: Encodable {
    func encode(to encoder: Encoder) throws {
        switch self {
        case .pairRequest(let m): try encodeTagged("pair_request", m, to: encoder)
        case .auth(let m): try encodeTagged("auth", m, to: encoder)
        case .pairDecision(let m): try encodeTagged("pair_decision", m, to: encoder)
        case .message(let m): try encodeTagged("message", m, to: encoder)
        case .typing(let m): try encodeTagged("typing", m, to: encoder)
        }
    }
}

extension HWServerMessage: Encodable {
    func encode(to encoder: Encoder) throws {
        switch self {
        case .pairResult(let m): try encodeTagged("pair_result", m, to: encoder)
        case .pairApprovalRequest(let m): try encodeTagged("pair_approval_request", m, to: encoder)
        case .authResult(let m): try encodeTagged("auth_result", m, to: encoder)
        case .message(let m): try encodeTagged("message", m, to: encoder)
        case .ack(let m): try encodeTagged("ack", m, to: encoder)
        case .typing(let m): try encodeTagged("typing", m, to: encoder)
        case .error(let m): try encodeTagged("error", m, to: encoder)
        }
    }
}

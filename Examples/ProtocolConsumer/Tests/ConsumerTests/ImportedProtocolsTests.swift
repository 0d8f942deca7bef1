import Foundation
import ImportedGemini
import ImportedKraken
import ImportedSlack
import Testing

/// Swift the plugin generates from specs `wire import asyncapi` wrote from public AsyncAPI
/// documents (the SDK's Tests/WireImportTests/Corpus): it compiles, every example the import kept
/// decodes and validates through the generated types, a copy with one field broken is refused at
/// that field, and what each document taught the import (a client's perspective, nested tags)
/// holds in the generated code.
@Suite struct ImportedProtocolsTests {
    /// The examples the import kept from a corpus document (`<stem>.examples.jsonl`), with who sends each.
    static func examples(_ stem: String) throws -> [(direction: String, frame: [String: Any])] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../../Tests/WireImportTests/Corpus/\(stem).examples.jsonl")
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { line in
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (try #require(record["dir"] as? String), try #require(record["frame"] as? [String: Any]))
        }
    }

    static func text(_ frame: [String: Any]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: frame, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }

    @Test("Gemini: each kept example decodes; a copy with a field of the wrong kind is refused at that field")
    func geminiExamples() throws {
        let examples = try Self.examples("websocket-gemini")
        #expect(examples.count == 1)
        for (direction, frame) in examples {
            #expect(direction == "server")
            let result = ImportedGemini.ServerFrame.decode(text: Self.text(frame))
            #expect(result.frame != nil && result.issues.isEmpty, "\(result.rejectionReason ?? "")")
            let field = try #require(frame.keys.sorted().first { $0 != "type" })
            var broken = frame
            broken[field] = [[String]()]
            let refused = ImportedGemini.ServerFrame.decode(text: Self.text(broken))
            #expect(refused.frame == nil)
            #expect(refused.rejectionReason?.contains("$.\(field)") == true, "\(refused.rejectionReason ?? "")")
        }
    }

    @Test("Kraken, a client's document: ping is a client frame and pong a server frame; subscriptionStatus takes either variant's fields")
    func krakenDirections() throws {
        let ping = ImportedKraken.ClientFrame.decode(text: #"{"event":"ping","reqid":42}"#)
        #expect(ping.frame?.tag == "ping" && ping.issues.isEmpty)
        let pong = ImportedKraken.ServerFrame.decode(text: #"{"event":"pong","reqid":42}"#)
        #expect(pong.frame?.tag == "pong" && pong.issues.isEmpty)
        // A client does not send pong: from a client, it is a frame of no known message.
        let misdirected = ImportedKraken.ClientFrame.decode(text: #"{"event":"pong","reqid":42}"#)
        guard case .unknown(let tag, _)? = misdirected.frame else {
            Issue.record("pong decoded as a known client frame: \(String(describing: misdirected.frame))")
            return
        }
        #expect(tag == "pong")
        let failed = #"{"event":"subscriptionStatus","errorMessage":"Subscription depth not supported","status":"online","pair":["XBT/USD"]}"#
        let succeeded = #"{"event":"subscriptionStatus","channelID":10001,"channelName":"ohlc-5","status":"online","pair":["XBT/EUR"]}"#
        for text in [failed, succeeded] {
            let status = ImportedKraken.ServerFrame.decode(text: text)
            #expect(status.frame?.tag == "subscriptionStatus" && status.issues.isEmpty, "\(status.rejectionReason ?? "")")
        }
        let badPair = ImportedKraken.ServerFrame.decode(text: #"{"event":"subscriptionStatus","pair":"XBT/EUR"}"#)
        #expect(badPair.rejectionReason?.contains("$.pair") == true, "\(badPair.rejectionReason ?? "")")
    }

    @Test("Slack: emoji_changed is one frame whose fields depend on subtype; outgoing message is the client's")
    func slackNestedTags() throws {
        let added = ImportedSlack.ServerFrame.decode(
            text: #"{"type":"emoji_changed","subtype":"add","name":"party","value":"https://e.example/p.png"}"#)
        #expect(added.frame?.tag == "emoji_changed" && added.issues.isEmpty, "\(added.rejectionReason ?? "")")
        guard case .emojiChanged(.add(let emoji))? = added.frame else {
            Issue.record("not the add case: \(String(describing: added.frame))")
            return
        }
        #expect(emoji.name == "party")
        let removed = ImportedSlack.ServerFrame.decode(text: #"{"type":"emoji_changed","subtype":"remove","names":["party"]}"#)
        guard case .emojiChanged(.remove(let gone))? = removed.frame else {
            Issue.record("not the remove case: \(removed.rejectionReason ?? "")")
            return
        }
        #expect(gone.names == ["party"] && removed.issues.isEmpty)
        let wrongField = ImportedSlack.ServerFrame.decode(text: #"{"type":"emoji_changed","subtype":"remove","names":"party"}"#)
        #expect(wrongField.rejectionReason?.contains("$.names") == true, "\(wrongField.rejectionReason ?? "")")
        let sent = ImportedSlack.ClientFrame.decode(text: #"{"type":"message","id":1,"channel":"C024BE91L","text":"Hello"}"#)
        #expect(sent.frame?.tag == "message" && sent.issues.isEmpty, "\(sent.rejectionReason ?? "")")
    }
}

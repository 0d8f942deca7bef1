import Foundation
import Testing
@_spi(Generated) import WireRuntime

/// The SSE parser against the WHATWG rules, on the cases the standard calls out.
@Suite struct ServerSentEventTests {
    func parse(_ chunks: [String]) -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for chunk in chunks { events += parser.consume(Array(chunk.utf8)) }
        parser.finish()
        return events
    }

    @Test func dataLinesJoinWithNewlinesAndBlankLinesDispatch() {
        #expect(
            parse(["data: first\ndata: second\n\ndata:third\n\n"]) == [
                ServerSentEvent(data: "first\nsecond"),
                ServerSentEvent(data: "third"),
            ])
    }

    @Test func eventIdRetryAndComments() {
        let events = parse([": a comment\nevent: token\nid: 7\nretry: 2500\ndata: {\"a\":1}\n\ndata: next\n\nid\nretry: soon\ndata: reset\n\n"])
        #expect(
            events == [
                ServerSentEvent(type: "token", data: "{\"a\":1}", lastEventID: "7", retry: 2500),
                ServerSentEvent(type: "message", data: "next", lastEventID: "7"),
                ServerSentEvent(type: "message", data: "reset", lastEventID: ""),
            ])
    }

    @Test func lineEndingsLFCRAndCRLF() {
        let expected = [ServerSentEvent(data: "a\nb"), ServerSentEvent(data: "c")]
        #expect(parse(["data: a\ndata: b\n\ndata: c\n\n"]) == expected)
        #expect(parse(["data: a\rdata: b\r\rdata: c\r\r"]) == expected)
        #expect(parse(["data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n"]) == expected)
    }

    @Test func chunksSplitAnywhere() {
        let text = "\u{FEFF}data: caf\u{E9} \u{1F600}\r\ndata: two\r\n\r\nevent: done\ndata: {}\n\n"
        let whole = parse([text])
        #expect(whole == [ServerSentEvent(data: "caf\u{E9} \u{1F600}\ntwo"), ServerSentEvent(type: "done", data: "{}")])
        let bytes = Array(text.utf8)
        for split in 1..<bytes.count {
            var parser = ServerSentEventParser()
            let events = parser.consume(bytes[..<split]) + parser.consume(bytes[split...])
            #expect(events == whole, "split at byte \(split)")
        }
        var parser = ServerSentEventParser()
        let oneByOne = bytes.flatMap { parser.consume([$0]) }
        #expect(oneByOne == whole)
    }

    @Test func byteOrderMarkOnlyAtTheStart() {
        #expect(parse(["\u{FEFF}data: x\n\n"]) == [ServerSentEvent(data: "x")])
        #expect(parse(["data: x\n\n\u{FEFF}data: y\n\n"]) == [ServerSentEvent(data: "x")], "a later BOM makes an unknown field")
    }

    @Test func fieldsWithoutColonsAndEmptyData() {
        #expect(parse(["data\n\n"]) == [ServerSentEvent(data: "")])
        #expect(parse(["event: ping\n\n"]) == [], "no data, no event")
        #expect(parse(["data:  two spaces\n\n"]) == [ServerSentEvent(data: " two spaces")], "only one space is stripped")
    }

    @Test func anUnfinishedEventIsDiscardedAtTheEnd() {
        #expect(parse(["data: complete\n\ndata: cut off"]) == [ServerSentEvent(data: "complete")])
        #expect(parse(["data: no blank line\n"]) == [])
    }

    @Test func asyncSequenceOfChunks() async throws {
        let chunks = ["data: {\"type\":\"a\"}\n", "\ndata: {\"ty", "pe\":\"b\"}\n\n"].map { Array($0.utf8) }
        let stream = AsyncStream<[UInt8]> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
        var data: [String] = []
        for try await event in stream.serverSentEvents { data.append(event.data) }
        #expect(data == [#"{"type":"a"}"#, #"{"type":"b"}"#])
    }
}

import ClawlineProtocol
import Hummingbird
import NIOCore

/// An HTTP request the provider refuses: the spec's error code, which gives the status, and a message.
struct HTTPFailure: Error, Sendable {
    var code: ErrorCode
    var message: String

    init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The JSON error body (`HttpError`) with the status the spec gives the code.
    var response: Response {
        HTTPResponses.json(HttpError(code: code, message: message).encoded(), status: HTTPResponse.Status(code: code.httpStatus ?? 500))
    }
}

enum HTTPResponses {
    /// A JSON response.
    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

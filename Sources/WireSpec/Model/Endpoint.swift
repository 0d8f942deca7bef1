import WireRuntime

/// An HTTP endpoint beside the message transport.
public struct Endpoint: Sendable, Hashable, Encodable {
    /// How a request authenticates.
    public enum Auth: String, Sendable, Hashable, Encodable {
        /// No authentication.
        case none
        /// `Authorization: Bearer <token>`.
        case bearer
    }

    /// A request or response body.
    public enum Body: Sendable, Hashable, Encodable {
        /// A JSON document of this type.
        case json(TypeRef)
        /// `multipart/form-data` with these parts.
        case multipart([Part])
        /// Raw bytes; `contentType` is fixed, or `nil` when it varies (e.g. the stored MIME type).
        case binary(contentType: String?)
    }

    /// One part of a multipart body.
    public struct Part: Sendable, Hashable, Encodable {
        public var name: String
        public var description: String?
        public var required: Bool
        /// `true` for a file part, `false` for a text field.
        public var isFile: Bool
        public init(name: String, description: String? = nil, required: Bool = true, isFile: Bool = true) {
            self.name = name
            self.description = description
            self.required = required
            self.isFile = isFile
        }
    }

    /// The successful response.
    public struct Response: Sendable, Hashable, Encodable {
        public var status: Int
        public var description: String?
        public var body: Body?
        public init(status: Int, description: String? = nil, body: Body?) {
            self.status = status
            self.description = description
            self.body = body
        }
    }

    /// The endpoint's name in the spec, e.g. `upload`.
    public var name: String
    public var description: String?
    public var method: HTTPMethod
    /// The path; `{name}` segments are path parameters.
    public var path: String
    public var auth: Auth
    /// Path parameters, one per `{name}` in the path.
    public var parameters: [Field]
    /// Query parameters (`?name=value`), required unless `optional`.
    public var query: [Field]
    public var request: Body?
    public var response: Response
    /// Error codes this endpoint can answer with (their HTTP statuses come from the error table).
    public var errors: [String]
    /// The body type of an error response.
    public var errorBody: TypeRef?
    public var location: SourceLocation

    public init(
        name: String, description: String? = nil, method: HTTPMethod, path: String, auth: Auth, parameters: [Field] = [], query: [Field] = [],
        request: Body? = nil, response: Response, errors: [String] = [], errorBody: TypeRef? = nil, location: SourceLocation
    ) {
        self.name = name
        self.description = description
        self.method = method
        self.path = path
        self.auth = auth
        self.parameters = parameters
        self.query = query
        self.request = request
        self.response = response
        self.errors = errors
        self.errorBody = errorBody
        self.location = location
    }
}

import WireSpec

extension AsyncAPIGenerator {
    /// The HTTP endpoints beside the channel, as `x-endpoints`: each in the spec's own words, with
    /// its types as schemas (`$ref`s into `components.schemas`), so `wire import asyncapi` reads
    /// them back.
    static func endpoints(_ spec: ProtocolSpec, builder: inout SchemaBuilder) -> SpecValue {
        .array(
            spec.endpoints.map { endpoint in
                var object = JSONObject()
                object["name"] = .string(endpoint.name)
                if let description = endpoint.description { object["description"] = .string(description.trimmingTrailingNewlines()) }
                object["method"] = .string(endpoint.method.rawValue)
                object["path"] = .string(endpoint.path)
                object["auth"] = .string(endpoint.auth.rawValue)
                if !endpoint.parameters.isEmpty { object["parameters"] = fields(endpoint.parameters, builder: &builder) }
                if !endpoint.query.isEmpty { object["query"] = fields(endpoint.query, builder: &builder) }
                if let request = endpoint.request { object["request"] = .object(body(request, builder: &builder)) }
                var response: [SpecValue.Member] = [.init(key: "status", value: .integer(endpoint.response.status))]
                if let description = endpoint.response.description { response.append(.init(key: "description", value: .string(description))) }
                if let body = endpoint.response.body { response += self.body(body, builder: &builder) }
                object["response"] = .object(response)
                object["errors"] = .strings(endpoint.errors)
                if let errorBody = endpoint.errorBody { object["errorBody"] = builder.valueSchema(errorBody, Constraints()) }
                return object.value
            })
    }

    private static func fields(_ fields: [Field], builder: inout SchemaBuilder) -> SpecValue {
        .object(
            fields.map { field in
                var members: [SpecValue.Member] = [.init(key: "schema", value: builder.fieldSchema(field))]
                if !field.required { members.append(.init(key: "optional", value: .bool(true))) }
                return .init(key: field.name, value: .object(members))
            })
    }

    private static func body(_ body: Endpoint.Body, builder: inout SchemaBuilder) -> [SpecValue.Member] {
        switch body {
        case .json(let type): return [.init(key: "json", value: builder.valueSchema(type, Constraints()))]
        case .multipart(let parts):
            return [
                .init(
                    key: "multipart",
                    value: .object(
                        parts.map { part in
                            var members: [SpecValue.Member] = []
                            if let description = part.description { members.append(.init(key: "description", value: .string(description))) }
                            if !part.required { members.append(.init(key: "optional", value: .bool(true))) }
                            if !part.isFile { members.append(.init(key: "file", value: .bool(false))) }
                            return .init(key: part.name, value: .object(members))
                        }))
            ]
        case .binary(let contentType):
            var members: [SpecValue.Member] = [.init(key: "binary", value: .bool(true))]
            if let contentType { members.append(.init(key: "contentType", value: .string(contentType))) }
            return members
        }
    }
}

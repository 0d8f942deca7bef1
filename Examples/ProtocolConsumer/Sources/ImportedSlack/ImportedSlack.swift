// Generated at build time from the SDK's Tests/WireImportTests/Corpus/slack-rtm.imported.yaml, the spec
// `wire import asyncapi` writes from the public AsyncAPI document beside it.
@_exported import WireRuntime

// The Clawline protocol SDK. Every protocol type in this module is generated at build time by
// WireCodegenPlugin from Spec/clawline.yaml (see wire-config.json); this file only re-exports the
// runtime those types are built on.
//
// Why the re-export stays: the generated API is spelled in WireRuntime's types (`Nullable`,
// `DecodeResult`, `JSONValue`, `ValidationIssue`, `ViolationAnswer`, `SessionMachine` and the
// tables), so an app that could not name them could not use the frames; with it,
// `import ClawlineProtocol` is all an app or a server writes. It re-exports the public surface
// only: the generated code's plumbing (`JSONOutput`, `write(into:)`, the checked-tape builders,
// the validation plans) is `@_spi(Generated)`, which an `@_exported import` does not carry, and
// Tests/PublicSurface proves in CI that an app cannot reach it.
@_exported import WireRuntime

// The Clawline protocol SDK. Every protocol type in this module is generated at build time by
// WireCodegenPlugin from Spec/clawline.yaml (see wire-config.json); this file only re-exports the
// runtime those types are built on, so `import ClawlineProtocol` is all an app or server needs.
@_exported import WireRuntime

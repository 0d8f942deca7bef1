// The Telemetry protocol's types are generated at build time from Spec/telemetry.yaml.
@_exported import WireRuntime

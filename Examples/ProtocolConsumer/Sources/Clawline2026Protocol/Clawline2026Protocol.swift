// Clawline as the protocol author's clients and provider spoke it in May 2026, generated at build
// time from Spec/clawline-revisions/2026-05.yaml: a module of its own beside ClawlineProtocol (the
// seed contract), so an app can speak either.
@_exported import WireRuntime

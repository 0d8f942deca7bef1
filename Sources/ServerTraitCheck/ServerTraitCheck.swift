// The server's modules depend on this one, which is built first: without the package trait
// Server (which brings Hummingbird, jwt-kit, GRDB, postgres-nio, swift-nio-ssl and
// swift-service-lifecycle), the build stops here with what to do instead of missing modules.
#if !Server
    #error("the server and the clawline tools need the package trait Server: 'swift build --traits Server'; a dependent adds traits: [\"Server\"]")
#endif

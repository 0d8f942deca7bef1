import NIOSSL

/// The PEM files the provider speaks TLS with: its certificate chain (the leaf first, then any
/// intermediates) and the leaf's private key.
public struct ServerTLSFiles: Sendable, Hashable {
    /// The certificate chain's PEM file.
    public var certificateChainPath: String
    /// The private key's PEM file (unencrypted).
    public var privateKeyPath: String

    /// The files at `certificateChainPath` and `privateKeyPath`.
    public init(certificateChainPath: String, privateKeyPath: String) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
    }

    /// The server's TLS configuration (TLS 1.2 at least), or what is wrong with the files.
    func configuration() throws(ServerSetupError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateChainPath)
        } catch {
            throw ServerSetupError("--tls-cert \(certificateChainPath) could not be read as PEM certificates: \(error)")
        }
        guard !chain.isEmpty else { throw ServerSetupError("--tls-cert \(certificateChainPath) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
        } catch {
            throw ServerSetupError("--tls-key \(privateKeyPath) could not be read as an unencrypted PEM private key: \(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}

import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority made for one test and a server certificate it issued for
/// `localhost` and (unless told otherwise) 127.0.0.1, written as PEM files to a temporary directory.
struct TestCertificates {
    let directory: URL
    var caFile: String { directory.appendingPathComponent("ca.pem").path }
    var certificateFile: String { directory.appendingPathComponent("server.pem").path }
    var keyFile: String { directory.appendingPathComponent("server-key.pem").path }

    /// Makes the authority and the server's certificate (valid for an hour) in a new directory;
    /// the certificate names the address 127.0.0.1 only when `namingTheAddress`.
    init(namingTheAddress: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Clawline Test CA") }
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey), notValidBefore: now - 60, notValidAfter: now + 3600,
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            }, issuerPrivateKey: .init(caKey))
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey), notValidBefore: now - 60, notValidAfter: now + 3600,
            issuer: caName, subject: try DistinguishedName { CommonName("localhost") }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(
                    [.dnsName("localhost")] + (namingTheAddress ? [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))] : []))
            }, issuerPrivateKey: .init(caKey))
        try ca.serializeAsPEM().pemString.write(toFile: caFile, atomically: true, encoding: .utf8)
        try server.serializeAsPEM().pemString.write(toFile: certificateFile, atomically: true, encoding: .utf8)
        try serverKey.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
    }

    /// Deletes the files.
    func remove() { try? FileManager.default.removeItem(at: directory) }
}

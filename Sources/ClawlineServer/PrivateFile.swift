import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files only the server's user may read: the signing key and the database.
enum PrivateFile {
    /// Creates the file at `path` with mode 0600 from the start (never wider, not even for a
    /// moment) and writes `contents`; `false` when a file is already there.
    static func create(at path: String, contents: [UInt8] = []) throws(ServerSetupError) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return false }
            throw ServerSetupError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var written = 0
        while written < contents.count {
            let result = contents[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard result > 0 else { throw ServerSetupError("cannot write \(path): \(String(cString: strerror(errno)))") }
            written += result
        }
        guard fsync(descriptor) == 0 else { throw ServerSetupError("cannot write \(path): \(String(cString: strerror(errno)))") }
        return true
    }

    /// Whether users other than the owner may read or enter `path` (its mode has group or other bits).
    static func isOpenToOthers(_ path: String) -> Bool {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int else { return false }
        return mode & 0o077 != 0
    }
}

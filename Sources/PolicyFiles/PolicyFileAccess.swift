import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the files of a policy directory (rules, gateway policies) without trusting what stands in it. A file is read only if it is a regular
/// file: a FIFO, socket, device or directory is refused before anything could block on it (its type is checked
/// before opening, and again on the open descriptor, which is opened non-blocking). List files must stay inside the
/// rule directory once every symlink is resolved.
package struct PolicyFileAccess {
    /// Why a file was not read, as a rule-set problem code and a message.
    package struct Problem: Error {
        package var code: PolicyFileProblem.Code
        package var message: String
    }

    /// The rule directory as given to the loader.
    package let directory: String

    package init(directory: String) {
        self.directory = directory
    }

    /// The UTF-8 text of a regular file at `path`, following symlinks.
    package static func readRegularFile(atPath path: String) throws(Problem) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { throw Problem(code: .unreadableFile, message: "cannot read the file: \(Self.reason(errno))") }
        guard Self.isRegular(status) else { throw Problem(code: .notRegularFile, message: "not a regular file (\(Self.kind(status))); it is not read") }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { throw Problem(code: .unreadableFile, message: "cannot read the file: \(Self.reason(errno))") }
        defer { close(descriptor) }
        // The name may have been replaced between the check and the open: the descriptor is what is read.
        guard fstat(descriptor, &status) == 0, Self.isRegular(status) else {
            throw Problem(code: .notRegularFile, message: "not a regular file (\(Self.kind(status))); it is not read")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(max(status.st_size, 0)))
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw Problem(code: .unreadableFile, message: "cannot read the file: \(Self.reason(errno))")
            }
            bytes += chunk[..<count]
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Problem(code: .unreadableFile, message: "cannot read the file as UTF-8 text")
        }
        return text
    }

    /// The `*.yaml` / `*.yml` files directly in `directory`, in name order, each read as a regular file. Any file
    /// that cannot be read, or none at all, is a load failure naming each problem; `kind` names the files in messages
    /// (`rule`, `policy`).
    package static func yamlFiles(in directory: String, kind: String) throws(PolicyFileLoadFailure) -> [(path: String, text: String)] {
        let paths: [String]
        do {
            paths = try yamlFilePaths(in: directory)
        } catch {
            throw PolicyFileLoadFailure(errors: [PolicyFileProblem(.unreadableFile, file: directory, line: 0, column: 0, "cannot list the \(kind) directory: \(error.localizedDescription)")])
        }
        var documents: [(path: String, text: String)] = []
        var errors: [PolicyFileProblem] = []
        for path in paths {
            do throws(Problem) {
                documents.append((path, try readRegularFile(atPath: path)))
            } catch {
                errors.append(PolicyFileProblem(error.code, file: path, line: 0, column: 0, error.message))
            }
        }
        guard errors.isEmpty else { throw PolicyFileLoadFailure(errors: errors) }
        guard !documents.isEmpty else {
            throw PolicyFileLoadFailure(errors: [PolicyFileProblem(.noRuleFiles, file: directory, line: 0, column: 0, "no \(kind) files (*.yaml, *.yml) in the directory")])
        }
        return documents
    }

    /// The paths of the `*.yaml` / `*.yml` names directly in `directory`, in name order, as ``yamlFiles(in:kind:)``
    /// reads them (nothing is opened).
    package static func yamlFilePaths(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
            .map { (directory as NSString).appendingPathComponent($0) }
    }

    /// The text of the list file written as `relative` in `lists:`: a relative path that resolves, symlinks
    /// included, to a regular file inside the rule directory.
    package func readList(_ relative: String) throws(Problem) -> String {
        guard !relative.hasPrefix("/") else {
            throw Problem(code: .pathOutsideDirectory, message: "the list path \(PolicyFileLimits.excerpt(relative)) is absolute")
        }
        guard relative.utf8.count <= PolicyFileLimits.pathBytes else {
            throw Problem(code: .tooLong, message: "the list path is \(relative.utf8.count) bytes, more than \(PolicyFileLimits.pathBytes)")
        }
        let path = (directory as NSString).appendingPathComponent(relative)
        guard let root = Self.resolved(directory) else {
            throw Problem(code: .unreadableFile, message: "cannot resolve the rule directory: \(Self.reason(errno))")
        }
        guard let target = Self.resolved(path) else {
            throw Problem(code: .unreadableFile, message: "cannot read the list file \(PolicyFileLimits.excerpt(relative)): \(Self.reason(errno))")
        }
        guard target.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            throw Problem(code: .pathOutsideDirectory, message: "the list path \(PolicyFileLimits.excerpt(relative)) resolves outside the rule directory")
        }
        return try Self.readRegularFile(atPath: target)
    }

    /// `path` with every symlink, `.` and `..` resolved, or nil (with `errno` set) when it does not exist.
    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    private static func isRegular(_ status: stat) -> Bool {
        status.st_mode & S_IFMT == S_IFREG
    }

    private static func kind(_ status: stat) -> String {
        switch status.st_mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFDIR: "a directory"
        default: "not a regular file"
        }
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

import Foundation
import Glibc

/// Opens `path` for reading without waiting: a FIFO or a device in the model directory would
/// otherwise hold the open (or a read) forever, and every search that loads the model with it.
///
/// - Returns: the descriptor of a regular file and its size, at most `limit` bytes.
/// - Throws: ``EmbedError/modelMissing(path:)`` when there is no such file,
///   ``EmbedError/modelDamaged(path:reason:)`` for anything else that is not a regular file
///   within the limit.
func openRegularFile(_ path: String, limit: Int) throws(EmbedError) -> (descriptor: Int32, size: Int) {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
        if errno == ENOENT { throw .modelMissing(path: path) }
        throw .modelDamaged(path: path, reason: "cannot open: \(String(cString: strerror(errno)))")
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
        close(descriptor)
        throw .modelDamaged(path: path, reason: "not a regular file")
    }
    guard status.st_size <= limit else {
        close(descriptor)
        throw .modelDamaged(path: path, reason: "larger than \(limit >> 20) MB, too large for this file of the model")
    }
    return (descriptor, Int(status.st_size))
}

/// The bytes of the regular file at `url`, at most `limit` of them (``openRegularFile(_:limit:)``):
/// a file of the model beside its weights, so one missing makes the model damaged.
func readRegularFile(_ url: URL, limit: Int) throws(EmbedError) -> Data {
    let descriptor: Int32
    let size: Int
    do {
        (descriptor, size) = try openRegularFile(url.path, limit: limit)
    } catch .modelMissing(_) {
        throw .modelDamaged(path: url.path, reason: "the file is missing")
    }
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    // One byte past the size: a file that grew while read is refused rather than cut.
    guard let data = try? handle.read(upToCount: size + 1), data.count == size else {
        throw .modelDamaged(path: url.path, reason: "the file is unreadable, or changed while read")
    }
    return data
}

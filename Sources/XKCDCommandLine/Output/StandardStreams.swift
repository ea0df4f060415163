import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Bytes written straight to standard output and standard error, after what `print` holds, so
/// that they stay in order with printed text. A failed write (a full disk, a device that refuses
/// it) is kept for ``reportWriteErrorsAtExit()``, where `FileHandle.write` would stop the process.
public enum StandardStreams: Sendable {
    /// Pushes out what `print` holds, and keeps the failure for ``reportWriteErrorsAtExit()``:
    /// a stream may drop what it could not write, so an error is not always met again at exit.
    public static func flush() {
        if fflush(nil) != 0 {
            _ = failedOutput.compareExchange(expected: 0, desired: errno, ordering: .relaxed)
        }
    }

    /// Writes `bytes` to standard output now.
    public static func writeOutput(_ bytes: [UInt8]) {
        flush()
        if let code = writeAll(bytes, to: STDOUT_FILENO) {
            _ = failedOutput.compareExchange(expected: 0, desired: code, ordering: .relaxed)
        }
    }

    /// Writes `text` to standard error now; an error there has nowhere to be told.
    public static func writeError(_ text: String) {
        flush()
        _ = writeAll(Array(text.utf8), to: STDERR_FILENO)
    }

    /// Makes the process, when it exits, say so and exit with status 1 if what it printed could
    /// not all be written, as GNU tools do (gnulib's `close_stdout`): `search … > /dev/full`
    /// is no success. A closed pipe (`| head -1`) is not reported.
    public static func reportWriteErrorsAtExit() {
        atexit {
            // What `print` still holds. A failed flush before this was kept by ``flush()``; one
            // stdio made on its own as its buffer filled is met again here only if writing still
            // fails, as it does on a full disk (the stream drops what it could not write).
            var code = fflush(nil) == 0 ? 0 : errno
            if code == 0 { code = StandardStreams.failedOutput.load(ordering: .relaxed) }
            guard code != 0, code != EPIPE else { return }
            _ = StandardStreams.writeAll(
                Array("Error: cannot write standard output: \(describedError(code))\n".utf8), to: STDERR_FILENO)
            _exit(1)
        }
    }

    /// Takes the number of any of standard input, output and error the process was started
    /// without (`<&-`, `>&-`) with `/dev/null`, opened the wrong way round: no file the process
    /// opens later (the model, an image) can take that number and be read as standard input or
    /// written by `print`, and a read or write of it fails as a closed one does ("it is closed").
    public static func takeClosedStandardDescriptors() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 {
            // `open` gives the lowest free number: this one, as the lower ones are open.
            let placeholder = open("/dev/null", descriptor == STDIN_FILENO ? O_WRONLY : O_RDONLY)
            if placeholder >= 0, placeholder != descriptor {
                dup2(placeholder, descriptor)
                close(placeholder)
            }
        }
    }

    /// The `errno` of the first write to standard output that failed, or 0.
    private static let failedOutput = Atomic<Int32>(0)

    /// Writes all of `bytes` to `descriptor`, returning `errno` if a write failed.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return count < 0 ? errno : EIO }
            written += count
        }
        return nil
    }
}

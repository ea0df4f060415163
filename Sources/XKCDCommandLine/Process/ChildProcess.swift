import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program in this process's group, with its terminal and standard streams, and waits:
/// what the image drawer and a browser need. Foundation's Process puts a child in a group of its
/// own, where reading the terminal stops it, and its set-up took 40 ms of system time.
public enum ChildProcess: Sendable {
    /// Runs `path` with `arguments` and waits for it.
    ///
    /// - Parameters:
    ///   - environment: the child's environment; this process's when nil.
    ///   - handsInterruptsToChild: while the child runs, Ctrl-C is its alone (a browser
    ///     handles it); this process ignores it meanwhile.
    ///   - standardInput: a descriptor to give the child as its standard input (a pager's text);
    ///     this process's when nil.
    ///   - standardOutput: likewise for its standard output (a file to read the drawn image from).
    /// - Returns: the exit status, or 128 plus the signal that ended it.
    /// - Throws: `POSIXError` when the program could not be started.
    public static func run(
        _ path: String, argument0: String? = nil, arguments: [String], environment: [String: String]? = nil,
        handsInterruptsToChild: Bool = false, standardInput: Int32? = nil, standardOutput: Int32? = nil
    ) throws(POSIXError) -> Int32 {
        // The whole previous action, flags included, to put back: `signal` would put the handler
        // back with SA_RESTART, and the REPL's Ctrl-C at the prompt needs it without.
        var previous = sigaction()
        if handsInterruptsToChild {
            sigaction(SIGINT, nil, &previous)
            signal(SIGINT, SIG_IGN)
        }
        defer { if handsInterruptsToChild { sigaction(SIGINT, &previous, nil) } }
        let pid = try spawn(
            path, argument0: argument0, arguments: arguments, environment: environment, standardInput: standardInput,
            standardOutput: standardOutput)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Starts `path` with `arguments` and returns its process id without waiting. The child
    /// starts with Ctrl-C as it should be, even while this process ignores it.
    ///
    /// - Parameters: as ``run(_:arguments:environment:handsInterruptsToChild:standardInput:standardOutput:)``, and
    ///   - argument0: the child's argv[0], when not `path`: the role this executable is started
    ///     in (`xkcd-search-index`).
    ///   - inGroupOfItsOwn: the child leads a process group of its own, which the terminal's
    ///     Ctrl-C does not reach: this process decides when it is interrupted.
    public static func spawn(
        _ path: String, argument0: String? = nil, arguments: [String], environment: [String: String]? = nil,
        standardInput: Int32? = nil, standardOutput: Int32? = nil, inGroupOfItsOwn: Bool = false
    ) throws(POSIXError) -> pid_t {
        let argv = ([argument0 ?? path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environmentList = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in environmentList ?? [] { free(pointer) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        if inGroupOfItsOwn { posix_spawnattr_setpgroup(&attributes, 0) }
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGDEF | (inGroupOfItsOwn ? POSIX_SPAWN_SETPGROUP : 0)))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput { posix_spawn_file_actions_adddup2(&actions, standardInput, STDIN_FILENO) }
        if let standardOutput { posix_spawn_file_actions_adddup2(&actions, standardOutput, STDOUT_FILENO) }
        var pid: pid_t = 0
        let spawned =
            if let environmentList {
                posix_spawn(&pid, path, &actions, &attributes, argv, environmentList)
            } else {
                posix_spawn(&pid, path, &actions, &attributes, argv, environ)
            }
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        return pid
    }
}

/// How a process holds the index file: what a command chooses when it opens the index
/// (`ComicDatabase.Connections`).
public enum IndexConnections: Sendable {
    /// A WAL pool, whose readers never wait for its writer: for the indexer and the REPL.
    case pool
    /// One connection, which opens in a fraction of a pool's time: for a process that runs
    /// one command and exits.
    case single
    /// One read-only connection, for a process that runs one command that only reads (a
    /// search). Closing a writable connection checkpoints the WAL and deletes its files,
    /// which the next process then creates again; closing a read-only one leaves them.
    /// An index that needs migrating is opened writable once.
    case readOnly
}

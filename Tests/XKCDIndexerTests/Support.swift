import Logging

/// A logger that drops everything; tests never touch the global logging system.
let quietLogger = Logger(label: "xkcd-search.indexer-tests", factory: { _ in SwiftLogNoOpLogHandler() })

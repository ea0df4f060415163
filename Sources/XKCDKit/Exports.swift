// XKCDKit is the facade the command line and the REPL build on: the value types and the
// store's and fetcher's public types come with it, the stages' internals do not.
@_exported import XKCDFetch
@_exported import XKCDModel
@_exported import XKCDQuery
@_exported import XKCDStore

// XKCDKit is the facade the command line and the REPL build on: the value types and the
// store's public types come with it, the stages' internals do not. Fetching and parsing are
// not here but in XKCDIndexer, so that a search never loads the network or HTML libraries.
@_exported import XKCDModel
@_exported import XKCDQuery
@_exported import XKCDStore

// XKCDKit is the facade the command line, the REPL and the server build on: the value types and
// the query language come with it; the store does not (a front end talks to Library and
// SearchEngine, and imports XKCDStore itself only where it says why). Fetching and parsing are
// not here but in XKCDIndexer, so that a search never loads the network or HTML libraries.
@_exported import XKCDModel
@_exported import XKCDQuery

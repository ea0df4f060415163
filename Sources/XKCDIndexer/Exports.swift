// The comic sources (HTTP, mirror, raw cache) are part of what an indexer is built from.
@_exported import XKCDFetch

#!/usr/bin/env bash
# Writes the comic vectors of an index to snapshot/vectors.sqlite.xz, the file `make demo` gives
# `xkcd-search index --vectors`, so that indexing the snapshot does not embed every comic again.
#
#   scripts/export-vectors.sh INDEX [OUTPUT]
#
# INDEX: an index that `xkcd-search index --mirror .build/snapshot` filled with this project's own
# embedder. The output is an SQLite file holding only the index's comicVector table (each vector
# with the model's identity and the digest of the tokens it was made from, so the indexer takes
# a vector only where both still match), compressed with xz.
set -euo pipefail
index=${1:?usage: scripts/export-vectors.sh INDEX [OUTPUT]}
output=${2:-snapshot/vectors.sqlite.xz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sqlite3 "$index" "ATTACH DATABASE '$work/vectors.sqlite' AS shipped;
  CREATE TABLE shipped.comicVector AS
    SELECT comicID, passage, model, textDigest, vector FROM comicVector ORDER BY comicID, passage;"
echo "$(sqlite3 "$work/vectors.sqlite" 'SELECT count(DISTINCT comicID) || " comics, model " || group_concat(DISTINCT model) FROM comicVector')"
xz -9 -c "$work/vectors.sqlite" > "$output"
ls -l "$output"

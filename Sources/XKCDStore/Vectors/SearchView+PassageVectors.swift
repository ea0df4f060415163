import XKCDModel

extension ComicDatabase.SearchView {
    /// The cosine similarity of `query` with each of the vectors `model` made of a comic's
    /// passages, in passage order, indexed by comic number (none for a comic without vectors).
    ///
    /// ```sql
    /// SELECT comicID, vector FROM comicVector WHERE model = ? ORDER BY comicID, passage
    /// ```
    public func passageSimilarities(to query: [Float], model: String) throws -> [[Float]] {
        var similarities: [[Float]] = []
        try forEachSimilarity(to: query, model: model, inPassageOrder: true) { id, similarity in
            if id >= similarities.count {
                similarities.append(contentsOf: repeatElement([], count: id + 1 - similarities.count))
            }
            // Far from unit length or NaN: no vector of the model's (``vectorSimilarities(to:model:)``).
            similarities[id].append(similarity <= 1.001 ? similarity : 0)
        }
        return similarities
    }
}

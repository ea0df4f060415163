/// The template `favourites.mustache`.
struct FavouritesView: Sendable {
    struct Entry: Sendable {
        var num: Int
        var title: String
        var tags: [String]
    }

    struct Tag: Sendable {
        var name: String
        var count: Int
        var isChosen: Bool
    }

    var tag: String?
    var entries: [Entry]
    var tags: [Tag]
    var hasTags: Bool
    var isEmpty: Bool
}

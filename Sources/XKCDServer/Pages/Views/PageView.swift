/// What every page has: its title and the search box's text.
struct PageView {
    var title: String
    var query: String
    var content: any Sendable
}

struct ErrorView: Sendable {
    var message: String
}

struct HomeView: Sendable {
    var comic: ComicView
}

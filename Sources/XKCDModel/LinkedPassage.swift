/// A passage someone wrote about a situation of their own, and the comic they (or whoever
/// answered) linked to it: "is there an xkcd for this?" answered by a person. `relevant` lifts
/// the comics linked to passages like the one it is given (docs/ranking.md, "Passages people
/// linked").
///
/// Or, when ``isWritten``, a situation written for the comic by this project
/// (snapshot/written-situations.tsv): a few for every comic, in the words of someone in that
/// situation, so that a passage about its own subject still meets the comic that fits it.
public struct LinkedPassage: Sendable, Hashable {
    /// The comic that was linked.
    public var comic: Comic.ID
    /// The passage, with the link, the comic's number and its title where it stood for the link cut out.
    public var text: String
    /// Where it was written: the address of the thread, the post or the file.
    public var source: String
    /// Whether the project wrote it for the comic, rather than someone linking the comic to it.
    public var isWritten: Bool

    public init(comic: Comic.ID, text: String, source: String, isWritten: Bool = false) {
        self.comic = comic
        self.text = text
        self.source = source
        self.isWritten = isWritten
    }
}

/// How text written as prose rather than query language is read: the rules of
/// ``QueryParser/parse(_:)`` for descriptions, contractions and references to a comic.
///
/// Plain text is text with no `OR`, `|`, exclusion (`-word`), prefix (`word*`) or field scope
/// (`title:`); filters, parentheses and quotes may be in it. In plain text:
/// - a leading description of the comic being looked for ("the one where", "that xkcd comic
///   about", "is there an xkcd with") is left out: see ``leadingFiller(of:)``;
/// - with at least ``QueryParser/sentenceWordCount`` words outside quotes (as typed, the
///   leading description included), it is a sentence: the words `xkcd`, `comic` and `comics`
///   are left out, quoted speech is preferred rather than required (``SearchQuery/isSentence``)
///   and a quote left open is read as a character.
///
/// In any text, a contraction typed without its apostrophe (`cant`, `youre`) is searched as the
/// contraction (``Contractions``).
enum PlainText {
    /// Words that may come before the comic is named: "is there an", "i remember the".
    static let introWords: Set<String> = [
        "a", "an", "the", "that", "this", "there", "theres", "is", "was", "i", "im", "ive", "remember", "recall",
        "looking", "look", "searching", "search", "find", "for", "me", "whats", "which", "some", "any", "do",
        "you", "know", "think", "wasnt", "isnt", "saw", "seen", "have", "cant", "dont", "need", "want", "please",
    ]
    /// Words in ``introWords`` that only point at something, and so can't introduce on their own.
    static let determiners: Set<String> = ["a", "an", "the", "that", "this", "some", "any"]
    /// Words naming the comic itself.
    static let comicNames: Set<String> = ["xkcd", "xkcds", "comic", "comics", "strip", "cartoon", "one"]
    /// The names no sentence searches for: every comic is one.
    static let siteWords: Set<String> = ["xkcd", "xkcds", "comic", "comics"]
    /// Words that link the comic's name to what it shows: "the one *where*", "a comic *in which*".
    static let linkers: Set<String> = [
        "where", "about", "with", "in", "which", "that", "when", "whose", "who", "of", "on", "showing", "shows",
        "featuring", "explaining", "has", "having", "like", "involving", "regarding", "wherein",
    ]

    /// What a sentence is made of once read.
    struct Reading {
        var tokens: [QueryToken]
        var isSentence: Bool
    }

    /// Reads `tokens` as plain text, or returns them unchanged (not a sentence) when they use the
    /// query language.
    static func read(_ tokens: [QueryToken]) -> Reading {
        guard !tokens.contains(where: isOperator) else { return Reading(tokens: tokens, isSentence: false) }
        var tokens = tokens
        // `xkcd 1513`, `xkcd #1513`: the comic's number alone.
        if let last = tokens.last, case .word(let typed) = last.kind,
            tokens.dropLast().allSatisfy({ siteWords.contains(bareWord($0) ?? "") }), !tokens.dropLast().isEmpty,
            Parser.comicNumber(typed) != nil
        {
            return Reading(tokens: [last], isSentence: false)
        }
        // Counted as typed: "the one where he says" describes as much as five other words.
        let isSentence = tokens.count { !(bareWord($0) ?? "").isEmpty } >= QueryParser.sentenceWordCount
        var start = 0
        while let filler = leadingFiller(of: tokens[start...]) { start += filler }
        tokens.removeFirst(start)
        let contentWords = tokens.filter { !siteWords.contains(bareWord($0) ?? "") }
        if isSentence, contentWords.contains(where: isSearchable) { tokens = contentWords }
        return Reading(tokens: tokens, isSentence: isSentence)
    }

    /// How many of the first tokens describe the comic rather than its content, or nil when none
    /// do or nothing would be left to search.
    ///
    /// The filler is: words of ``introWords``, then names of the comic (``comicNames``), then
    /// either linking words (``linkers``) and the determiners after them ("the one *where the*",
    /// "that xkcd comic *about*"), or nothing more when an intro word that isn't a determiner came
    /// first and `xkcd` is among the names ("*there's an* xkcd"). So "the one ring", "comic sans"
    /// and "the xkcd phone" are searched as typed.
    static func leadingFiller(of tokens: ArraySlice<QueryToken>) -> Int? {
        // A description is a few words: the first sixteen are enough to tell.
        let words = tokens.prefix(16).prefix { bareWord($0) != nil }.map { bareWord($0)! }
        var index = 0
        var introduces = false
        while index < words.count, introWords.contains(words[index]) {
            introduces = introduces || !determiners.contains(words[index])
            index += 1
        }
        let namesStart = index
        var namesSite = false
        while index < words.count, comicNames.contains(words[index]) {
            namesSite = namesSite || words[index].hasPrefix("xkcd")
            index += 1
        }
        guard index > namesStart else { return nil }
        let linkersStart = index
        while index < words.count, linkers.contains(words[index]) { index += 1 }
        if index > linkersStart {
            while index < words.count, determiners.contains(words[index]) { index += 1 }
        } else if !(introduces && namesSite) {
            return nil
        }
        guard tokens.dropFirst(index).contains(where: isSearchable) else { return nil }
        return index
    }

    /// Whether `token` is a word or a phrase.
    private static func isSearchable(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .word, .phrase: true
        default: false
        }
    }

    /// Whether `token` is query language that plain text does not use.
    static func isOperator(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .orCandidate, .minus: true
        case .open(let field): field != nil
        case .scoped(let key, _, _): QueryLexer.fieldKeys[key] != nil
        case .word(let word): Parser.isPrefix(word)
        case .phrase, .close: false
        }
    }

    /// A plain word lowercased, with only its letters and digits ("There's" is "theres"); nil for
    /// other tokens.
    static func bareWord(_ token: QueryToken) -> String? {
        guard case .word(let word) = token.kind else { return nil }
        return word.lowercased().filter { $0.isLetter || ($0.isASCII && $0.isNumber) }
    }
}

/// Contractions typed without their apostrophe: `cant` is searched as `can't`.
///
/// The index splits words at apostrophes (`can't` is `can` and `t`), so a contraction typed
/// without one is another word, often a rare or an unknown one that spelling correction would
/// turn into a neighbour (`cant` into "can", `youre` into "your"). Only words that are
/// contractions far more often than anything else are taken: not `its`, `id`, `well`, `were`,
/// `hell`, `ill`, `shell`, `wed` or `shed`.
enum Contractions {
    /// Each contraction without its apostrophe, with the number of letters after the apostrophe.
    static let table: [String: Int] = {
        var table: [String: Int] = [:]
        for word in [
            "aint", "arent", "cant", "couldnt", "didnt", "doesnt", "dont", "hadnt", "hasnt", "havent", "isnt",
            "mightnt", "mustnt", "neednt", "shant", "shouldnt", "wasnt", "werent", "wont", "wouldnt", "im", "thats",
            "whats", "lets", "theres", "heres", "wheres", "whos", "hows", "hes", "shes", "youd", "theyd",
        ] { table[word] = 1 }
        for word in [
            "youre", "theyre", "ive", "youve", "weve", "theyve", "couldve", "shouldve", "wouldve", "mightve",
            "mustve", "whove", "youll", "theyll", "itll", "thatll", "wholl",
        ] { table[word] = 2 }
        table["yall"] = 3
        return table
    }()

    /// `word` with the apostrophe of the contraction it stands for, or unchanged: `Dont` is
    /// `Don't`, `cant,` is `can't,`; letters keep their case and punctuation around stays.
    static func expanded(_ word: String) -> String {
        // The letters from the first to the last, lowercased, and where the last one is; built
        // by appending, as in `PlainText.bareWord(_:)`.
        var core = ""
        var pending = ""  // what came since the last letter
        var last = -1
        for (offset, character) in word.enumerated() {
            if character.isLetter {
                guard character.isASCII, core.count + pending.count < 8 else { return word }
                core += pending
                core.append(character)
                pending = ""
                last = offset
            } else if !core.isEmpty {
                pending.append(character)
            }
        }
        guard let after = table[core.lowercased()] else { return word }
        var result = ""
        for (offset, character) in word.enumerated() {
            if offset == last + 1 - after { result.append("'") }
            result.append(character)
        }
        return result
    }
}

/// A comic named by its address: `https://xkcd.com/1513/`, `xkcd.com/1513`,
/// `https://m.xkcd.com/1513/`, `https://www.explainxkcd.com/wiki/index.php/1513:_Code_Quality`,
/// `…/index.php/1513`, `…/index.php?title=1513`.
public enum ComicAddress: Sendable {
    /// The comic number `text` is the address of, or nil.
    public static func number(in text: String) -> Int? {
        let trimmed = text.trimmingSeparators()
        var address = trimmed[...]
        guard !address.isEmpty, !address.contains(where: QueryLexer.isSeparator) else { return nil }
        for scheme in ["https://", "http://"] where address.lowercased().hasPrefix(scheme) {
            address = address.dropFirst(scheme.count)
        }
        guard let slash = address.firstIndex(of: "/") else { return nil }
        let host = address[..<slash].lowercased()
        var path = address[address.index(after: slash)...]
        switch host {
        case "xkcd.com", "www.xkcd.com", "m.xkcd.com":
            break
        case "explainxkcd.com", "www.explainxkcd.com":
            for prefix in ["wiki/index.php/", "wiki/index.php?title=", "index.php/", "index.php?title="]
            where path.lowercased().hasPrefix(prefix) {
                path = path.dropFirst(prefix.count)
                break
            }
        default:
            return nil
        }
        // The number, then nothing, a slash, or the rest of a wiki title after `:`.
        let digits = path.prefix { $0.isASCII && $0.isNumber }
        let rest = path.dropFirst(digits.count)
        guard rest.isEmpty || rest == "/" || rest.hasPrefix(":") || rest.hasPrefix("#") || rest.hasPrefix("/#") else {
            return nil
        }
        return Parser.number(digits)
    }
}

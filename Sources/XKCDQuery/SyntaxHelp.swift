extension QueryParser {
    /// A reference of the whole query language with examples, for `search --help` and the README.
    /// Every line fits 78 columns: ArgumentParser wraps longer ones in an 80-column help.
    public static let syntaxHelp = """
        Query syntax (words are matched in any order; all must match):
          bobby tables          both words, anywhere (stemmed: "table" finds "tables")
          "bobby tables"        the exact phrase
          tabl*                 words starting with "tabl"
          -sql  -"drop table"   leave out comics with it (alone: list all the others)
          sql OR database       either word (also: sql | database); binds tighter
                                than AND: `bobby sql OR db` = bobby AND (sql OR db)
          (sql OR db) -drop     parentheses group
          title:tables          one field only: title: alt: transcript: explanation:
          title:"bobby tables"  alt:foo*  -transcript:ping  title:(sql OR db)
          327  #327  xkcd 327   comic 327 first, then comics mentioning "327"; so do
          xkcd.com/327/  explainxkcd.com/wiki/index.php/327 (xkcd, explain xkcd links)
        Filters (apply to the whole query; a query can be only filters):
          num:327  num:100..200  num:1000..  num:..99   year:2010  year:2008..2010
          date:2010-03-05  date:2010-03..2011 (2010-03-01 to 2011-12-31)
          before:2010 (until 2009-12-31)  after:2010-03 (from 2010-04-01)
          is:fav                only favourites
          tag:physics           favourites carrying this tag (a tag is one word)
          sort:date  sort:-date  sort:num  sort:-num  the order (default: relevance;
                                by date for a query of only filters)
        Anything else is searched as words: c++  don't  AT&T  e-mail  foo:bar
        Without OR, |, -word, word* or field: (filters allowed), a leading "the one
        where", "that xkcd comic about", "there's an xkcd" is left out, and 4 or more
        words outside quotes make a sentence: xkcd and comic are left out, "quoted
        speech" is preferred, not required, and an unclosed quote is a character.
        Only uppercase OR between two words is an operator; AND, NOT, NEAR are words.
        Plain words that fewer than 5 comics all hold also find comics holding some of
        them, ranked among the rest and marked [some of the words].
        Errors: unclosed quotes (but in a sentence) or parentheses, bad or reversed
        ranges, impossible dates, filters inside parentheses or OR, and -filter.
        """
}

# Finishes the mdoc page swift-argument-parser's generate-manual writes (`make install-files`):
# - the options every command takes are listed once, under GLOBAL OPTIONS, not under each of the
#   fifteen commands (they made the page three times as long);
# - lines a help text indents (examples, the query syntax) stay lines, in a literal display;
#   filled into paragraphs they ran together;
# - an empty line, which mdoc does not allow, becomes a paragraph break (.Pp);
# - ENVIRONMENT, FILES and EXIT STATUS say what the README says, in place of "0 on success".
# Usage: awk -f scripts/man-page.awk generated.1 > xkcd-search.1

function global_option(line) {
    return line ~ /^\.It Fl -db Ar path$/ || line ~ /^\.It Fl v , -verbose$/ ||
           line ~ /^\.It Fl -color Ar color$/ || line ~ /^\.It Fl -no-pager$/
}

function close_literal() {
    if (literal) { print ".Ed"; literal = 0 }
}

# Inside an option's entry being left out: until the next entry or the end of the list.
skipping && /^\.(It|El)( |$)/ { skipping = 0 }
skipping { next }

global_option($0) { close_literal(); skipping = 1; next }

/^\.Sh "EXIT STATUS"/ { close_literal(); exit_status = 1; next }
exit_status { next }

/^  / && !/^\./ {
    if (!literal) { print ".Bd -literal -offset indent"; literal = 1 }
    print substr($0, 3)
    next
}

{ close_literal() }

/^$/ { pending_break = 1; next }

{
    # A break before a list entry or a list's end says nothing; mandoc warns about it.
    if (pending_break && $0 !~ /^\.(It|El|Bl)( |$)/) print ".Pp"
    pending_break = 0
    print
}

END {
    close_literal()
    print ".Sh GLOBAL OPTIONS"
    print "Every command takes these, before or after its name"
    print "(\\&xkcd-search --db /tmp/idx show 327):"
    print ".Bl -tag -width 6n"
    print ".It Fl -db Ar path"
    print "The index file, or a directory to hold index.sqlite."
    print "Default: $XKCD_SEARCH_DB, else $XDG_DATA_HOME/xkcd-search/index.sqlite."
    print ".It Fl v , -verbose"
    print "Log what is opened and read, and how long each step takes, to standard error."
    print ".It Fl -color Ar auto|always|never"
    print "Colour and bold; auto colours on a terminal unless NO_COLOR is set or TERM is dumb."
    print ".It Fl -no-pager"
    print "Print straight to the terminal, not through a pager."
    print ".It Fl -json"
    print "For the commands that print JSON: one line, keys sorted, null for a missing value."
    print ".El"
    print ".Sh ENVIRONMENT"
    print ".Bl -tag -width XKCD_SEARCH_PAGER"
    print ".It Ev XKCD_SEARCH_DB"
    print "The index, when --db is not given."
    print ".It Ev XKCD_SEARCH_MODEL"
    print "The directory of the sentence model, instead of <bin>/../share/xkcd-search/model"
    print "and $XDG_DATA_HOME/xkcd-search/model."
    print ".It Ev XKCD_SEARCH_PAGER , PAGER"
    print "The pager for show, explain, search and fav list on a terminal (default less -FRX;"
    print "cat or an empty value: none)."
    print ".It Ev BROWSER"
    print "Commands separated by colons, tried in turn by open (%s stands for the URL);"
    print "else xdg-open."
    print ".It Ev NO_COLOR"
    print "When set and not empty, no colour with --color auto."
    print ".It Ev TERM"
    print "dumb: no colour, no image and no less."
    print ".It Ev XDG_DATA_HOME , XDG_CACHE_HOME , XDG_STATE_HOME"
    print "Where the files below go (defaults ~/.local/share, ~/.cache, ~/.local/state)."
    print ".El"
    print ".Sh FILES"
    print ".Bl -tag -width Ds"
    print ".It Pa $XDG_DATA_HOME/xkcd-search/index.sqlite"
    print "The index: comics, explanations, favourites."
    print ".It Pa $XDG_CACHE_HOME/xkcd-search/raw"
    print "The responses index runs fetched, so that index --rebuild needs no network."
    print ".It Pa $XDG_CACHE_HOME/xkcd-search/images"
    print "Comic images, fetched when first shown or by index --images."
    print ".It Pa $XDG_STATE_HOME/xkcd-search/"
    print "The comic shown last (for next and prev) and the REPL's history."
    print ".It Pa <bin>/../share/xkcd-search/model"
    print "The sentence model for search by meaning."
    print ".El"
    print ".Sh EXIT STATUS"
    print ".Bl -tag -width Ds"
    print ".It 0"
    print "Done; a search found something."
    print ".It 1"
    print "A search found nothing (or the page asked for is past the last), or the command"
    print "failed: no index, an unknown comic, a browser that did not open."
    print ".It 2"
    print "A usage error, or a query that cannot be read."
    print ".It 3"
    print "An index run stored what it could but some comics failed; the next run retries them."
    print ".It 130"
    print "Interrupted by Ctrl-C; an index run keeps what it stored."
    print ".El"
}

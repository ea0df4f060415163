// A pseudo-terminal for the REPL's paging (OutputCapture in XKCDCommandLine). Swift's Glibc
// module leaves out posix_openpt and its kin, which glibc declares only for X/Open.

#ifndef XKCD_PSEUDO_TERMINAL_H
#define XKCD_PSEUDO_TERMINAL_H

/// Opens a pseudo-terminal with the window size of the terminal on `like` (when it is one),
/// raw, so that bytes written to its terminal end come out of the controller as they were
/// written (a line feed not turned into CR LF).
///
/// Returns the controller's descriptor and sets `*screen` to the terminal end's, both
/// close-on-exec and neither the process's controlling terminal; -1 on failure, with nothing
/// left open.
int xkcd_open_pseudo_terminal(int like, int *screen);

#endif

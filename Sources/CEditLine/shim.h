#ifndef XKCD_CEDITLINE_SHIM_H
#define XKCD_CEDITLINE_SHIM_H

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <editline/readline.h>

/// Installs `handler` for SIGINT without SA_RESTART, so that a blocked read() returns EINTR
/// and the line editor can give the prompt back. (Swift cannot fill the sigaction union.)
static inline int xkcd_catch_sigint(void (*handler)(int)) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    return sigaction(SIGINT, &action, NULL);
}

/// The terminal's settings before the line editor first changed them (see below). A static
/// in a function: Swift emits the C functions it calls, not a header's global variables.
static inline struct termios *xkcd_terminal_settings(void) {
    static struct termios settings;
    return &settings;
}

/// Puts the terminal back as it was, then dies of `signal` as if it had not been caught (the
/// signal is blocked in its handler, so it is delivered when the handler returns). tcsetattr
/// and sigaction are async-signal-safe.
static void xkcd_restore_terminal_and_die(int signal) {
    tcsetattr(STDIN_FILENO, TCSANOW, xkcd_terminal_settings());
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, NULL);
    raise(signal);
}

/// Saves the terminal's settings and restores them when SIGTERM, SIGHUP or SIGQUIT ends the
/// process: libedit keeps echo off while it waits for a key, and its own signal handling, which
/// would restore them, is off (see xkcd_editline_configure). A signal the process was started
/// ignoring (nohup) stays ignored. Returns 0, or -1 when standard input is not a terminal.
static inline int xkcd_restore_terminal_on_termination(void) {
    if (tcgetattr(STDIN_FILENO, xkcd_terminal_settings()) != 0) return -1;
    const int signals[] = {SIGTERM, SIGHUP, SIGQUIT};
    for (unsigned index = 0; index < sizeof signals / sizeof signals[0]; index++) {
        struct sigaction previous;
        if (sigaction(signals[index], NULL, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = xkcd_restore_terminal_and_die;
        sigemptyset(&action.sa_mask);
        sigaction(signals[index], &action, NULL);
    }
    return 0;
}

/// Unblocks SIGINT in the calling thread and saves the previous mask in `old` (Dispatch's worker
/// threads block it, and the thread that reads the keys must be interruptible).
static inline void xkcd_unblock_sigint(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_UNBLOCK, &set, old);
}

/// Puts back the mask that `xkcd_unblock_sigint` saved.
static inline void xkcd_restore_sigmask(const sigset_t *old) {
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/// Sets libedit's readline globals once (Swift 6 cannot touch C globals safely): our key
/// reader and completion hook, libedit's own signal handling off, words split at blanks only.
static inline void xkcd_editline_configure(int (*getc_function)(FILE *), rl_completion_func_t *completion) {
    rl_readline_name = "xkcd-search";
    rl_catch_signals = 0;
    rl_getc_function = getc_function;
    rl_attempted_completion_function = completion;
    rl_basic_word_break_characters = " \t\n";
    rl_completer_word_break_characters = (char *)" \t\n";
}

/// Starts a completion: no file-name fallback; returns the line being edited.
static inline const char *xkcd_completion_begin(void) {
    rl_attempted_completion_over = 1;
    return rl_line_buffer;
}

/// What follows a unique completion: a space, or nothing (0).
static inline void xkcd_completion_append(int character) {
    rl_completion_append_character = character;
}

/// The newest history entry, or NULL.
static inline const char *xkcd_last_history_line(void) {
    if (history_length <= 0) return NULL;
    HIST_ENTRY *entry = history_get(history_base + history_length - 1);
    return entry ? entry->line : NULL;
}

/// Standard output, for a Ctrl-C echo that must go out before libedit redraws.
static inline void xkcd_echo(const char *text) {
    fputs(text, stdout);
    fflush(stdout);
}

#endif

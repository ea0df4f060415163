#define _GNU_SOURCE
#include "PseudoTerminal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

int xkcd_open_pseudo_terminal(int like, int *screen) {
    int controller = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (controller < 0) return -1;
    char name[128];
    if (grantpt(controller) != 0 || unlockpt(controller) != 0 || ptsname_r(controller, name, sizeof name) != 0) {
        close(controller);
        return -1;
    }
    int terminal = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (terminal < 0) {
        close(controller);
        return -1;
    }
    struct termios settings;
    if (tcgetattr(terminal, &settings) == 0) {
        cfmakeraw(&settings);
        tcsetattr(terminal, TCSANOW, &settings);
    }
    struct winsize size;
    if (ioctl(like, TIOCGWINSZ, &size) == 0) ioctl(terminal, TIOCSWINSZ, &size);
    *screen = terminal;
    return controller;
}
